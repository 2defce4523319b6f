#!/usr/bin/env bash
# Runs a command as root: as it is when already root, else through sudo
# (keeping MASSGEN_ACTION_TEST_IMAGE). With --no-prompt first, sudo never asks
# for a password (for clean-up in a trap, where nobody may be there to type it).
set -euo pipefail
prompt=()
if [ "${1:-}" = --no-prompt ]; then
  prompt=(-n)
  shift
fi
if [ "$(id -u)" -eq 0 ]; then exec "$@"; fi
exec sudo "${prompt[@]}" --preserve-env=MASSGEN_ACTION_TEST_IMAGE "$@"
