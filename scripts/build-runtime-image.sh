#!/usr/bin/env bash
# Builds a local stand-in for MassGen's sudo runtime image (ghcr.io/massgen/mcp-runtime-sudo), from
# Debian's mirror only: no image registry is needed. Run as root (mmdebstrap, docker).
#
#   scripts/build-runtime-image.sh [TAG]     TAG defaults to $MASSGEN_ACTION_TEST_IMAGE or
#                                            massgen-action-runtime:test
#
# What MassGen needs from the image (massgen/filesystem_manager/_docker_manager.py and upstream's
# massgen/docker/Dockerfile.sudo): a `tail` to keep the container alive (it passes
# command=["tail","-f","/dev/null"]), /bin/sh for `sh -c` execs, user `massgen` uid 1000 with
# passwordless sudo and home /home/massgen (credential mounts land there), workdir /workspace,
# python3 + pip, git, node, ca-certificates. Bookworm's python3 is 3.11, as upstream's base.
#
# Cache: the root filesystem tarball is kept under $MASSGEN_ACTION_CACHE (default
# /var/cache/massgen-action) named by a hash of this script; the image carries the same hash in the
# label massgen-action.inputs, and the build is skipped when an image with TAG and that label exists.
# The build prints its timings and the image size on stderr.
set -euo pipefail

tag=${1:-${MASSGEN_ACTION_TEST_IMAGE:-massgen-action-runtime:test}}
cache=${MASSGEN_ACTION_CACHE:-/var/cache/massgen-action}
suite=bookworm
packages=bash,coreutils,sudo,ca-certificates,python3,python3-pip,python3-venv,git,nodejs,curl,procps

say() { echo "build-runtime-image: $*" >&2; }

# Everything that shapes the image is in this file, so its hash names the inputs.
inputs=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)

have=$(docker image inspect --format '{{ index .Config.Labels "massgen-action.inputs" }}' "$tag" 2>/dev/null || true)
if [ "$have" = "$inputs" ]; then
  say "$tag is up to date (inputs $inputs)"
  exit 0
fi

start=$(date +%s)
mkdir -p "$cache"
rootfs="$cache/rootfs-$suite-$inputs.tar"
if [ ! -s "$rootfs" ]; then
  say "mmdebstrap $suite -> $rootfs"
  # A failed run must not leave a partial tarball that a later run would trust.
  tmp="$cache/partial-$$-$(basename "$rootfs")"
  trap 'rm -f "$tmp"' EXIT
  mmdebstrap --quiet --format=tar --variant=minbase --include="$packages" \
    --customize-hook='chroot "$1" useradd --create-home --uid 1000 --shell /bin/bash massgen' \
    --customize-hook='echo "massgen ALL=(ALL) NOPASSWD:ALL" > "$1/etc/sudoers.d/massgen" && chmod 0440 "$1/etc/sudoers.d/massgen"' \
    --customize-hook='mkdir -p "$1/workspace" "$1/context" "$1/temp_workspaces" "$1/app" && chroot "$1" chown massgen:massgen /workspace /context /temp_workspaces /app' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc/* "$1"/usr/share/man/*' \
    "$suite" "$tmp"
  mv "$tmp" "$rootfs"
  trap - EXIT
fi
debootstrapped=$(date +%s)

say "docker import -> $tag"
docker import \
  --change 'USER massgen' \
  --change 'WORKDIR /workspace' \
  --change 'ENV PATH=/home/massgen/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive' \
  --change 'CMD ["tail", "-f", "/dev/null"]' \
  --change "LABEL massgen-action.inputs=$inputs" \
  --change 'LABEL description="massgen-action test stand-in for ghcr.io/massgen/mcp-runtime-sudo"' \
  "$rootfs" "$tag" >/dev/null
done_at=$(date +%s)

size=$(docker image inspect --format '{{ .Size }}' "$tag")
say "built $tag: rootfs $((debootstrapped - start)) s, import $((done_at - debootstrapped)) s, size $((size / 1024 / 1024)) MiB"
