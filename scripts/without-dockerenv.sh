#!/usr/bin/env bash
# Runs a command in a view of this machine that has no /.dockerenv, without changing the machine.
#
#   scripts/without-dockerenv.sh CMD [ARGS...]
#
# Why: MassGen runs Docker-mode commands locally when /.dockerenv exists
# (massgen/filesystem_manager/_filesystem_manager.py), and test machines that are themselves
# containers have that file. Bind-mounting over it does not help: the path still exists.
#
# How: in a private mount namespace (unshare --mount --propagation private) a tmpfs becomes a new
# root that holds every top-level entry of / except .dockerenv: directories are rbind-mounted (so
# /proc, /sys, /dev, /tmp, /work, /root, /run/docker.sock ... are the machine's own, writes land on
# the real disk and the Docker daemon outside sees the same paths), symlinks are copied, files are
# bind-mounted. The command then runs chrooted there, in the caller's working directory and with the
# caller's environment; exec keeps its pid and exit status. Nothing outside the namespace changes
# except one empty directory, /run/without-dockerenv, used as the mount point (created once, reused).
# Needs root (CAP_SYS_ADMIN). Top-level entries created while the command runs are not visible.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

if [ "${WITHOUT_DOCKERENV_INSIDE:-}" != 1 ]; then
  mkdir -p -m 0700 /run/without-dockerenv
  WITHOUT_DOCKERENV_INSIDE=1 exec unshare --mount --propagation private -- "$0" "$@"
fi
unset WITHOUT_DOCKERENV_INSIDE

root=/run/without-dockerenv
mount -t tmpfs -o mode=0755 without-dockerenv "$root"
shopt -s dotglob nullglob
for entry in /*; do
  name=${entry#/}
  [ "$name" = .dockerenv ] && continue
  if [ -L "$entry" ]; then
    ln -s "$(readlink "$entry")" "$root/$name"
  elif [ -d "$entry" ]; then
    mkdir "$root/$name"
    mount --rbind "$entry" "$root/$name"
  elif [ -e "$entry" ]; then
    : >"$root/$name"
    mount --bind "$entry" "$root/$name"
  fi
done
# The rbind of /run copied the new root into itself; drop that copy.
umount --lazy "$root$root"
exec chroot "$root" /usr/bin/env --chdir="$PWD" -- "$@"
