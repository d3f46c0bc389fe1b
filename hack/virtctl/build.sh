#!/usr/bin/env bash
# Builds KubeVirt's virtctl from the wrapper module into a per-version cache:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/virtctl/<version>-<go version>-<os>-<arch>/virtctl
# Prints the binary's path. A binary that is already there is not rebuilt (a cold build takes minutes).
# The differential tests (tests/unit/test_virtctl_differential.py) run this binary next to our builders.
set -euo pipefail
cd "$(dirname "$0")"
VIRTCTL_VERSION="$(cat VIRTCTL_VERSION)"
export GOFLAGS=-mod=mod
# virt-template modules required by KubeVirt v1.8 are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/virtctl/${VIRTCTL_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/virtctl"
if [ ! -x "$OUT" ]; then
  mkdir -p "$BIN_DIR"
  echo "building virtctl ${VIRTCTL_VERSION} into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w" -o "$OUT.tmp" kubevirt.io/kubevirt/cmd/virtctl
  mv "$OUT.tmp" "$OUT"
fi
echo "$OUT"
