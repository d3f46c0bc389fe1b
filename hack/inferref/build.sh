#!/usr/bin/env bash
# Builds inferref (main.go: KubeVirt's own pkg/instancetype/infer on a real client) into a per-version cache:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/inferref/<kubevirt version>-<go version>-<os>-<arch>/inferref
# Prints the binary's path. A binary whose stamp (hash of main.go and go.sum) matches is not rebuilt.
# The differential test (tests/integration/test_infer_differential.py) runs it next to the plugin's resolver.
set -euo pipefail
cd "$(dirname "$0")"
KUBEVIRT_VERSION="$(cat KUBEVIRT_VERSION)"
export GOFLAGS=-mod=mod
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/inferref/${KUBEVIRT_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/inferref"
STAMP="$(cat main.go go.mod go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
if ! { [ -x "$OUT" ] && [ "$(cat "$OUT.stamp" 2>/dev/null)" = "$STAMP" ]; }; then
  echo "building inferref (kubevirt.io/kubevirt@${KUBEVIRT_VERSION} pkg/instancetype/infer) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w" -o "$OUT.tmp" .
  mv "$OUT.tmp" "$OUT"
  printf '%s' "$STAMP" > "$OUT.stamp"
fi
echo "$OUT"
