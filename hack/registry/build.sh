#!/usr/bin/env bash
# Builds the CNCF distribution registry (github.com/distribution/distribution/v3, cmd/registry, the version in
# REGISTRY_VERSION) into a per-version cache and prints its path:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/registry/<version>-<go version>-<os>-<arch>/registry
# The image tests (tests/integration/test_infer_image.py) start it on loopback with images they push.
# A binary whose stamp (hash of go.mod and go.sum) matches is not rebuilt.
set -euo pipefail
cd "$(dirname "$0")"
REGISTRY_VERSION="$(cat REGISTRY_VERSION)"
export GOFLAGS=-mod=mod
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/registry/${REGISTRY_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/registry"
STAMP="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
if ! { [ -x "$OUT" ] && [ "$(cat "$OUT.stamp" 2>/dev/null)" = "$STAMP" ]; }; then
  echo "building the distribution registry ${REGISTRY_VERSION} into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w" -o "$OUT.tmp" github.com/distribution/distribution/v3/cmd/registry
  mv "$OUT.tmp" "$OUT"
  printf '%s' "$STAMP" > "$OUT.stamp"
fi
echo "$OUT"
