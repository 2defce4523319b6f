#!/usr/bin/env bash
# `npm test`: provisions what the suite needs (scripts/provision.sh), runs
# every test (scripts/run-tests.mjs, whose last line is 'N passed, N failed,
# N skipped'), and stops the Docker engine again when provisioning started it.
# Arguments go to jest. .ci/run runs exactly this.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

export MASSGEN_ACTION_TEST_IMAGE="${MASSGEN_ACTION_TEST_IMAGE:-massgen-action-runtime:test}"

# A daemon that answered before provisioning is someone else's: left alone.
engine_was_up=false
if timeout 10 docker info >/dev/null 2>&1; then engine_was_up=true; fi
stop_engine() {
  $engine_was_up || bash scripts/as-root.sh --no-prompt bash scripts/docker-engine.sh stop
}
trap 'stop_engine >/dev/null 2>&1' EXIT

linters=$(bash scripts/provision.sh | tail -1) || {
  echo "provisioning failed (scripts/provision.sh): see above"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
}
export PATH="$linters:$PATH"
node scripts/run-tests.mjs "$@"
