#!/usr/bin/env bash
# Creates the user the security tests run the action as, shaped like
# GitHub's hosted runner user: 'runner', uid 1001, a private home (0750),
# passwordless sudo. Idempotent; needs root. Prints the user's uid.
set -euo pipefail
command -v sudo >/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sudo >/dev/null
}
id runner >/dev/null 2>&1 || useradd --create-home --uid 1001 --shell /bin/bash runner
chmod 750 /home/runner
echo 'runner ALL=(ALL) NOPASSWD:ALL' >/etc/sudoers.d/runner
chmod 440 /etc/sudoers.d/runner
# A runner user without sudo: local mode's sandbox cannot be made for it.
id runner-nosudo >/dev/null 2>&1 || useradd --create-home --uid 1002 --shell /bin/bash runner-nosudo
id -u runner
