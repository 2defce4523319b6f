#!/usr/bin/env bash
# Builds a local stand-in for MassGen's sudo runtime image (ghcr.io/massgen/mcp-runtime-sudo) from
# Debian's mirror only: no image registry is needed. Run as root (mmdebstrap, docker).
#
#   scripts/build-runtime-image.sh [TAG]          build TAG unless it is up to date
#   scripts/build-runtime-image.sh --check [TAG]  exit 0 when TAG is up to date, 1 when not; builds nothing
#
# TAG defaults to $MASSGEN_ACTION_TEST_IMAGE, else massgen-action-runtime:test.
#
# What MassGen needs from the image (massgen/filesystem_manager/_docker_manager.py; upstream's
# massgen/docker/Dockerfile.sudo): `tail`, since the container's command is ["tail","-f","/dev/null"];
# /bin/sh, since every command is exec'd as ["/bin/sh","-c",CMD]; the image's USER runs the
# commands (MassGen sets none): `massgen`, uid 1000, passwordless sudo, home /home/massgen (where
# credential files are mounted); workdir /workspace; python3 + pip, git, node, ca-certificates.
# Bookworm's python3 is 3.11, as upstream's python:3.11-slim. PID 1 is `tail` with no init, as
# upstream: it ignores SIGTERM, so `docker stop` waits its full 10 s.
# npm is left out by default: Debian's npm brings ~300 packages (+136 MB and about a minute);
# MASSGEN_ACTION_IMAGE_NPM=1 adds it.
#
# Cache: the root filesystem tarball is kept under $MASSGEN_ACTION_CACHE (default
# /var/cache/massgen-action), named by a hash of the suite, packages and hooks; the image carries a
# hash of this script and the package list in the label massgen-action.inputs. An image with TAG and
# that label is not rebuilt; a kept tarball is only imported again. Timings and the image size are printed on stderr.
set -euo pipefail

check_only=false
if [ "${1:-}" = --check ]; then
  check_only=true
  shift
fi
tag=${1:-${MASSGEN_ACTION_TEST_IMAGE:-massgen-action-runtime:test}}
cache=${MASSGEN_ACTION_CACHE:-/var/cache/massgen-action}
suite=bookworm
packages=bash,coreutils,sudo,ca-certificates,python3,python3-pip,python3-venv,git,nodejs,curl,procps
if [ "${MASSGEN_ACTION_IMAGE_NPM:-}" = 1 ]; then packages+=,npm; fi

# Run in the new root filesystem ("$1") after the packages are installed.
hooks=(
  --customize-hook='chroot "$1" useradd --create-home --uid 1000 --shell /bin/bash massgen'
  --customize-hook='echo "massgen ALL=(ALL) NOPASSWD:ALL" > "$1/etc/sudoers.d/massgen" && chmod 0440 "$1/etc/sudoers.d/massgen"'
  --customize-hook='mkdir -p "$1/workspace" "$1/context" "$1/temp_workspaces" "$1/app" && chroot "$1" chown massgen:massgen /workspace /context /temp_workspaces /app'
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc/* "$1"/usr/share/man/*'
)

say() { echo "build-runtime-image: $*" >&2; }

# The tarball depends on the suite, packages and hooks only; the image also on the import
# settings below, so on this whole file.
rootfs_key=$(printf '%s\n' "$suite" "$packages" "${hooks[@]}" | sha256sum | cut -c1-16)
inputs=$({ cat "${BASH_SOURCE[0]}" && echo "$packages"; } | sha256sum | cut -c1-16)
have=$(docker image inspect --format '{{ index .Config.Labels "massgen-action.inputs" }}' "$tag" 2>/dev/null || true)
if [ "$have" = "$inputs" ]; then
  say "$tag is up to date (inputs $inputs)"
  exit 0
fi
if $check_only; then
  if [ -n "$have" ]; then say "$tag is stale (inputs $have, wanted $inputs)"; else say "$tag is absent"; fi
  exit 1
fi

make_rootfs() {
  local out=$1 tmp child
  # mmdebstrap picks the format from the name: keep .tar last. A run cut short must not leave a
  # tarball a later run would trust, so it writes a temporary name and renames when complete.
  tmp="$cache/partial-$$-$(basename "$out")"
  mmdebstrap --quiet --format=tar --variant=minbase --include="$packages" "${hooks[@]}" "$suite" "$tmp" &
  child=$!
  # In the background so a TERM to this script is handled now, not after mmdebstrap ends.
  trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; rm -f "$tmp"; exit 143' TERM INT HUP
  if ! wait "$child"; then
    rm -f "$tmp"
    say "mmdebstrap failed"
    exit 1
  fi
  trap - TERM INT HUP
  mv "$tmp" "$out"
}

start=$(date +%s)
mkdir -p "$cache"
rootfs="$cache/rootfs-$suite-$rootfs_key.tar"
# Tarballs of other inputs are stale (~370 MB each); so are leftovers of runs that were killed.
find "$cache" -maxdepth 1 \( -name "rootfs-$suite-*.tar" ! -name "$(basename "$rootfs")" -o -name 'partial-*' -mmin +120 \) -delete
if [ -s "$rootfs" ]; then
  say "reusing $rootfs"
else
  say "mmdebstrap $suite -> $rootfs"
  make_rootfs "$rootfs"
fi
debootstrapped=$(date +%s)

old=$(docker image inspect --format '{{ .Id }}' "$tag" 2>/dev/null || true)
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
# The image this tag named before is stale; one still used by a container stays.
[ -z "$old" ] || docker image rm "$old" >/dev/null 2>&1 || true

size=$(docker image inspect --format '{{ .Size }}' "$tag")
say "built $tag: rootfs $((debootstrapped - start)) s, import $((done_at - debootstrapped)) s, size $((size / 1024 / 1024)) MiB"
