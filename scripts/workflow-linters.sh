#!/usr/bin/env bash
# The workflow linters of __tests__/infra/workflows.test.ts: actionlint (from
# the Go module proxy, pinned) and shellcheck (Debian), which actionlint runs
# on every `run:` step. Prints the folder to put on PATH; reuses what is there.
set -euo pipefail
ACTIONLINT_VERSION=v1.7.12
bin="${XDG_CACHE_HOME:-$HOME/.cache}/massgen-action-tools/actionlint-$ACTIONLINT_VERSION"
if [ ! -x "$bin/actionlint" ]; then
  GOBIN="$bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >&2
fi
if ! command -v shellcheck >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
fi
echo "$bin"
