#!/usr/bin/env bash
# publish.sh TAG DIR...: attaches the release's files found in DIR... (`python -m hack.release assets` lists them
# and fails if one is missing: each platform's archive and .sha256, instancetype.yaml, the sdist and the wheel) to
# the GitHub release TAG, created with generated notes if it does not exist yet (a re-run replaces the assets).
# Needs the gh CLI and GH_TOKEN (the release workflow's token, contents: write).
set -euo pipefail
tag="$1"
shift
listing="$(python -m hack.release assets "$@")"
mapfile -t assets <<<"$listing"
if gh release view "$tag" >/dev/null 2>&1; then
  gh release upload "$tag" --clobber "${assets[@]}"
else
  gh release create "$tag" --verify-tag --title "$tag" --generate-notes "${assets[@]}"
fi
