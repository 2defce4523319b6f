#!/usr/bin/env bash
# Creates, or reuses when its marker says it is complete, the pinned MassGen
# virtualenv at the very folder the action's prepareMassgen (src/install.ts)
# uses for a non-docker install, so the action finds it as 'local':
#   ${RUNNER_TOOL_CACHE:-$HOME/.cache}/massgen/<version>-base-py<X.Y>-<os>-<arch>
# uv is bootstrapped from PyPI with pip (pinned). Progress goes to stderr; the
# last line on stdout is the path of the massgen executable.
#
# Usage: scripts/setup-massgen.sh            (MASSGEN_VERSION overrides 0.1.97;
#        MASSGEN_EXTRAS=docker adds the docker SDK, as the action does in Docker mode)
set -euo pipefail

version="${MASSGEN_VERSION:-0.1.97}"
extras="${MASSGEN_EXTRAS:-base}"
case "$extras" in
  base) requirement="massgen==$version" ;;
  docker) requirement="massgen[docker]==$version" ;;
  *) echo "setup-massgen: MASSGEN_EXTRAS is '$extras', expected 'base' or 'docker'" >&2; exit 1 ;;
esac
# Keep in step with src/install-*.ts: UV_VERSION (install-uv.ts), LAYOUT_VERSION,
# MARKER_FILE, venvLayout() and markerText() (install-layout.ts), PYTHON_PROBE
# (install-python.ts). The checked dependency versions come from
# src/massgen-lock.ts (lockFor()), the packages removed after a locked install
# from src/install-prune.ts (prunedFor()).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lock_source="$here/../src/massgen-lock.ts"
prune_source="$here/../src/install-prune.ts"
locked_pythons=" 3.11 3.12 3.13 "
uv_version=0.13.9
layout_version=1
marker_file=.massgen-action-install
probe="import sys, platform; print('%d.%d.%d' % sys.version_info[:3]); print(sys.platform); print(platform.machine().lower()); print(sys.executable)"

say() { echo "setup-massgen: $*" >&2; }

export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
export PIP_DEFAULT_TIMEOUT="${PIP_DEFAULT_TIMEOUT:-30}"
export UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1
export UV_HTTP_TIMEOUT="${UV_HTTP_TIMEOUT:-60}"
unset VIRTUAL_ENV PYTHONHOME

probe_out="$(python3 -c "$probe")" || {
  say "python3 did not run; MassGen needs Python 3.11 or newer"
  exit 1
}
{
  read -r py_full
  read -r py_os
  read -r py_arch
  read -r py_exe
} <<<"$probe_out"
case "$py_arch" in
  amd64) py_arch=x86_64 ;;
  arm64) py_arch=aarch64 ;;
esac
py_minor="${py_full%.*}"
if [ "${py_minor%%.*}" -lt 3 ] || { [ "${py_minor%%.*}" -eq 3 ] && [ "${py_minor#*.}" -lt 11 ]; }; then
  say "python3 is $py_full; MassGen needs Python 3.11 or newer"
  exit 1
fi

root="${RUNNER_TOOL_CACHE:-$HOME/.cache}/massgen"
name="$version-$extras-py$py_minor-$py_os-$py_arch"
dir="$root/$name"

complete() {
  local m="$dir/$marker_file"
  [ -f "$m" ] &&
    grep -qx "layout=$layout_version" "$m" &&
    grep -qx "massgen=$version" "$m" &&
    grep -qx "extras=$extras" "$m" &&
    grep -qx "complete=true" "$m" &&
    [ -f "$dir/bin/massgen" ] &&
    [ -e "$dir/bin/python" ]
}

if complete; then
  say "reusing $dir"
  chmod 755 "$dir"
  echo "$dir/bin/massgen"
  exit 0
fi
if [ -e "$dir" ]; then
  say "$dir has no complete marker: removing it"
  rm -rf "$dir"
fi
mkdir -p "$root"

temp=""
cleanup() { [ -z "$temp" ] || rm -rf "$temp" "$temp.constraints.txt"; }
trap cleanup EXIT

uv="$root/uv-$uv_version/bin/uv"
if [ ! -f "$uv" ]; then
  say "bootstrapping uv $uv_version from PyPI"
  temp="$(mktemp -d "$root/.tmp-uv-$uv_version-XXXXXX")"
  python3 -m pip install --no-input --quiet --target "$temp" "uv==$uv_version" >&2
  python3 -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' \
    "$temp" "$root/uv-$uv_version" 2>/dev/null || rm -rf "$temp"
  temp=""
fi

say "installing $requirement into $dir"
started=$SECONDS
temp="$(mktemp -d "$root/.tmp-$name-XXXXXX")"
# mktemp makes it private; a sandboxed run as root reads it as nobody.
chmod 755 "$temp"
constrain=()
if [[ "$locked_pythons" == *" $py_minor "* ]] &&
  grep -qx "# BEGIN massgen $version" "$lock_source" 2>/dev/null; then
  sed -n "/^# BEGIN massgen $version\$/,/^# END massgen $version\$/p" \
    "$lock_source" >"$temp.constraints.txt"
  constrain=(--constraint "$temp.constraints.txt")
else
  say "no checked dependency versions for $version on Python $py_minor: resolving the newest"
fi
(cd "$root" && "$uv" venv --quiet --relocatable --python "$py_exe" "$temp") >&2
(cd "$root" && "$uv" pip install --quiet --compile-bytecode \
  --python "$temp/bin/python" "${constrain[@]}" "$requirement") >&2
rm -f "$temp.constraints.txt"
if [ "${#constrain[@]}" -gt 0 ] && grep -qx "# BEGIN prune $version" "$prune_source" 2>/dev/null; then
  # shellcheck disable=SC2046 # one distribution name per word
  (cd "$root" && "$uv" pip uninstall --quiet --python "$temp/bin/python" \
    $(sed -n "/^# BEGIN prune $version\$/,/^# END prune $version\$/p" "$prune_source" | grep -v '^#')) >&2 ||
    say "removing the unused packages failed; keeping them"
fi
[ -f "$temp/bin/massgen" ] || {
  say "uv left no bin/massgen"
  exit 1
}
printf 'layout=%s\nmassgen=%s\nextras=%s\ninstaller=uv %s\ncomplete=true\n' \
  "$layout_version" "$version" "$extras" "$uv_version" >"$temp/$marker_file"
# Atomic: fails if another run put a folder there meanwhile.
if ! python3 -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' "$temp" "$dir" 2>/dev/null; then
  complete || {
    say "could not move the install into $dir"
    exit 1
  }
fi
temp=""
say "installed in $((SECONDS - started)) s"
echo "$dir/bin/massgen"
