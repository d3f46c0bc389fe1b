#!/usr/bin/env bash
# Builds gotypes (gotypes/main.go: the JSON field table of kubevirt.io/api's v1.VirtualMachine, read from the Go
# types by reflection) from this wrapper module into a per-version cache and prints its path:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/kubevirtref/<version>-<go version>-<os>-<arch>/gotypes
# Rebuilt only when gotypes/main.go or go.sum changed (source-hash stamp). It imports kubevirt.io/api and
# apimachinery only: about 30 s cold on 2 cores. Used by hack/gen_gotypes.py and tests/unit/test_gojson.py.
set -euo pipefail
cd "$(dirname "$0")"
KUBEVIRT_VERSION="$(cat KUBEVIRT_VERSION)"
export GOFLAGS=-mod=mod
# virt-template modules required by KubeVirt's go.mod are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/kubevirtref/${KUBEVIRT_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/gotypes"
STAMP="$(cat gotypes/main.go go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR"
if [ ! -x "$OUT" ] || [ "$(cat "$OUT.stamp" 2>/dev/null)" != "$STAMP" ]; then
  echo "building gotypes (kubevirt.io/api of kubevirt.io/kubevirt@${KUBEVIRT_VERSION}) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w" -o "$OUT.tmp" ./gotypes
  mv "$OUT.tmp" "$OUT"
  printf '%s' "$STAMP" > "$OUT.stamp"
fi
echo "$OUT"
