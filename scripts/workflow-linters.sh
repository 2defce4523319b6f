#!/usr/bin/env bash
# The workflow linters of __tests__/infra/workflows.test.ts: actionlint (from
# the Go module proxy, pinned), shellcheck (Debian), which actionlint runs on
# every `run:` step, and zizmor (PyPI, pinned), which audits the workflows'
# security. Prints the folder to put on PATH; reuses what is there.
set -euo pipefail
ACTIONLINT_VERSION=v1.7.12
ZIZMOR_VERSION=1.32.0
bin="${XDG_CACHE_HOME:-$HOME/.cache}/massgen-action-tools/actionlint-$ACTIONLINT_VERSION"
if [ ! -x "$bin/actionlint" ]; then
  GOBIN="$bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" >&2
fi
if [ ! -x "$bin/zizmor" ]; then
  venv="${XDG_CACHE_HOME:-$HOME/.cache}/massgen-action-tools/zizmor-$ZIZMOR_VERSION"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "zizmor==$ZIZMOR_VERSION" >&2
  mkdir -p "$bin"
  ln -sf "$venv/bin/zizmor" "$bin/zizmor"
fi
if ! command -v shellcheck >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
fi
echo "$bin"
