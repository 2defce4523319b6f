#!/usr/bin/env bash
# Moves the major tag (v1) to a release tag (v1.4.2) and pushes it, so that
# `uses: massgen/massgen-action@v1` runs the newest v1.x.y. Run by
# .github/workflows/release.yml on a published release; see docs/releasing.md.
#
#   scripts/release/move-major-tag.sh TAG [REMOTE]
#
# Refuses a tag that is not vMAJOR.MINOR.PATCH, or whose commit's package.json
# version or CHANGELOG.md does not name that version. Leaves the major tag
# alone for a pre-release (v1.5.0-rc.1) and for a fix to an older minor
# (v1.3.1 after v1.4.0): the major tag only ever moves forward.
set -euo pipefail

fail() {
  echo "move-major-tag: $*" >&2
  exit 1
}

tag="${1:-}"
remote="${2:-origin}"
semver='^v([0-9]+)\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.-]+)?$'
[[ $tag =~ $semver ]] || fail "the tag '$tag' is not a version tag: expected vMAJOR.MINOR.PATCH, e.g. v1.4.2"
major="v${BASH_REMATCH[1]}"
version="${tag#v}"
if [ -n "${BASH_REMATCH[4]}" ]; then
  echo "move-major-tag: $tag is a pre-release; $major stays where it is"
  exit 0
fi

commit=$(git rev-parse --verify --quiet "refs/tags/$tag^{commit}") ||
  fail "no tag $tag in this repository (fetch tags first: git fetch --tags)"

# The release's own files, not the working tree's: the tag is what ships.
packaged=$(git show "$commit:package.json" |
  node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8")).version))')
[ "$packaged" = "$version" ] ||
  fail "package.json at $tag says version $packaged, the tag says $version: bump package.json and tag again"
git show "$commit:CHANGELOG.md" | grep -Eq "^## \[?$(printf '%s' "$version" | sed 's/\./\\./g')\]?( |$)" ||
  fail "CHANGELOG.md at $tag has no '## $version' entry"

newest=$(git tag --list "$major.*" | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -1)
if [ "$newest" != "$tag" ]; then
  echo "move-major-tag: $newest is newer than $tag; $major stays where it is"
  exit 0
fi

git tag --force "$major" "$commit" >/dev/null
git push --force "$remote" "refs/tags/$major"
echo "move-major-tag: $major now points at $tag ($commit)"
