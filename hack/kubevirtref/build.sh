#!/usr/bin/env bash
# Builds kubevirtref (ref/main.go: KubeVirt's own pkg/instancetype/expand on JSON cases) from this wrapper module
# into a per-version cache and prints its path:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/kubevirtref/<version>-<go version>-<os>-<arch>/kubevirtref
# A binary that is already there is rebuilt only when ref/main.go or go.sum changed (source-hash stamp).
# Cold build: about a minute on 2 cores. Used by tests/unit/test_expand_differential.py.
set -euo pipefail
cd "$(dirname "$0")"
KUBEVIRT_VERSION="$(cat KUBEVIRT_VERSION)"
export GOFLAGS=-mod=mod
# virt-template modules required by KubeVirt's go.mod are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/kubevirtref/${KUBEVIRT_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/kubevirtref"
STAMP="$(cat ref/main.go go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
if [ ! -x "$OUT" ] || [ "$(cat "$OUT.stamp" 2>/dev/null)" != "$STAMP" ]; then
  echo "building kubevirtref (kubevirt.io/kubevirt@${KUBEVIRT_VERSION}) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w" -o "$OUT.tmp" ./ref
  mv "$OUT.tmp" "$OUT"
  printf '%s' "$STAMP" > "$OUT.stamp"
fi
echo "$OUT"
