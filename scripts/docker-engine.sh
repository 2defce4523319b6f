#!/usr/bin/env bash
# Makes a Docker engine available for the Docker-mode tests, and takes away only what it added.
# Run as root on Debian 12.
#
#   scripts/docker-engine.sh start    install docker.io and mmdebstrap when absent; when no daemon
#                                     answers `docker info`, start dockerd in the background and wait
#                                     (at most $MASSGEN_ACTION_ENGINE_WAIT s, default 60) until it does
#   scripts/docker-engine.sh stop     stop the dockerd that `start` started (by its pid); a daemon that
#                                     was already running before `start` is left alone
#   scripts/docker-engine.sh status   say whether a daemon answers and whether this script started it
#
# Both commands are idempotent. State lives in $MASSGEN_ACTION_ENGINE_STATE (default
# /run/massgen-action-engine): dockerd.pid (written by dockerd itself), started-here (the pid this
# script started, so `stop` never touches a daemon it did not start) and dockerd.log.
set -euo pipefail

state=${MASSGEN_ACTION_ENGINE_STATE:-/run/massgen-action-engine}
wait_limit=${MASSGEN_ACTION_ENGINE_WAIT:-60}
say() { echo "docker-engine: $*" >&2; }

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

# The pid recorded at start, when that process is still the dockerd we started.
started_pid() {
  local pid
  pid=$(cat "$state/started-here" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  # A pid can be reused: it must still be a dockerd with our pidfile.
  case "$(tr '\0' ' ' <"/proc/$pid/cmdline")" in
    *dockerd*"--pidfile $state/dockerd.pid"*) echo "$pid" ;;
    *) return 1 ;;
  esac
}

install_missing() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker >/dev/null || missing+=(docker.io)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  command -v unshare >/dev/null || missing+=(util-linux)
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# dockerd needs cgroups: v2 (cgroup.controllers) or v1 controllers mounted under /sys/fs/cgroup.
ensure_cgroups() {
  [ -f /sys/fs/cgroup/cgroup.controllers ] || [ -d /sys/fs/cgroup/devices ] && return 0
  say "no cgroup hierarchy under /sys/fs/cgroup: mounting one with cgroupfs-mount"
  if ! command -v cgroupfs-mount >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cgroupfs-mount >/dev/null
  fi
  cgroupfs-mount
}

start() {
  install_missing
  if engine_answers; then
    say "a daemon already answers 'docker info'; nothing started"
    return 0
  fi
  mkdir -p "$state"
  if [ -s "$state/dockerd.pid" ] && kill -0 "$(cat "$state/dockerd.pid")" 2>/dev/null; then
    say "dockerd $(cat "$state/dockerd.pid") runs but does not answer; see $state/dockerd.log"
    return 1
  fi
  rm -f "$state/dockerd.pid" "$state/started-here"
  ensure_cgroups
  local began pid
  began=$(date +%s%N)
  # setsid: the daemon must outlive this shell and not get the caller's terminal signals.
  setsid dockerd --pidfile "$state/dockerd.pid" </dev/null >>"$state/dockerd.log" 2>&1 &
  pid=$!
  echo "$pid" >"$state/started-here"
  local deadline=$((SECONDS + wait_limit))
  until engine_answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "dockerd exited while starting; last lines of $state/dockerd.log:"
      tail -n 20 "$state/dockerd.log" >&2
      rm -f "$state/started-here"
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "dockerd $pid did not answer within ${wait_limit} s; stopping it. Last lines of $state/dockerd.log:"
      tail -n 20 "$state/dockerd.log" >&2
      stop
      return 1
    fi
    sleep 0.2
  done
  say "started dockerd $pid in $(((($(date +%s%N) - began) / 1000000))) ms (log: $state/dockerd.log)"
}

stop() {
  local pid
  if ! pid=$(started_pid); then
    rm -f "$state/started-here"
    say "no dockerd started by this script is running; nothing stopped"
    return 0
  fi
  kill -TERM "$pid"
  # dockerd stops its containers (10 s grace each, in parallel) and its containerd before exiting.
  local deadline=$((SECONDS + 60))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    say "dockerd $pid ignored SIGTERM for 60 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$state/started-here"
  say "stopped dockerd $pid"
}

status() {
  if engine_answers; then say "a daemon answers 'docker info'"; else say "no daemon answers 'docker info'"; fi
  if pid=$(started_pid); then say "dockerd $pid was started by this script"; else say "no dockerd started by this script runs"; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
