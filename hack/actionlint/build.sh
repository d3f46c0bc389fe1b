#!/usr/bin/env bash
# Builds rhysd/actionlint (cmd/actionlint, the version in ACTIONLINT_VERSION) from the wrapper module into a
# per-version cache and prints the binary's path:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/actionlint/<version>-<go version>-<os>-<arch>/actionlint
# tests/unit/test_workflows.py runs it on .github/workflows. A binary whose stamp (hash of go.mod and go.sum)
# matches is not rebuilt (a cold build takes about 30 s).
set -euo pipefail
cd "$(dirname "$0")"
ACTIONLINT_VERSION="$(cat ACTIONLINT_VERSION)"
export GOFLAGS=-mod=mod
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
BIN_DIR="${CACHE_ROOT}/actionlint/${ACTIONLINT_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/actionlint"
STAMP="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time (as the other build scripts): test sessions in several worktrees run this at
# once; flock makes the second wait, then find the binary built (util-linux; skipped where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
if ! { [ -x "$OUT" ] && [ "$(cat "$OUT.stamp" 2>/dev/null)" = "$STAMP" ]; }; then
  echo "building actionlint ${ACTIONLINT_VERSION} into $BIN_DIR" >&2
  # `actionlint -version` prints this variable (the release build stamps it the same way)
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w -X github.com/rhysd/actionlint.version=${ACTIONLINT_VERSION}" \
    -o "$OUT.tmp" github.com/rhysd/actionlint/cmd/actionlint
  mv "$OUT.tmp" "$OUT"
  printf '%s' "$STAMP" > "$OUT.stamp"
fi
echo "$OUT"
