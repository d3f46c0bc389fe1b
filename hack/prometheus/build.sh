#!/usr/bin/env bash
# Builds Prometheus (github.com/prometheus/prometheus at PROMETHEUS_VERSION: cmd/prometheus and cmd/promtool) from
# this wrapper module (update-gomod.sh: Prometheus's own go.sum as the seed) into a per-version cache and prints the
# folder:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/prometheus/<version>-<go version>-<os>-<arch>/{prometheus,promtool}
# The tests run the real Prometheus with KubeVirt's recording rules (hack/kubevirtref/rules) over TSDB blocks that
# promtool backfills. Tags: netgo, remove_all_sd (no cloud service discovery: plugins/plugin_*.go are built only
# without it) and no builtinassets (web/ui/ui.go serves no UI assets then; the query API is all we use). Binaries
# whose stamp (hash of go.mod and go.sum) matches are not rebuilt. Cold build at -p 2 on a loaded 2-core machine:
# about ten minutes for both.
set -euo pipefail
cd "$(dirname "$0")"
source ../gocache.sh
VERSION="$(cat PROMETHEUS_VERSION)"
export GOFLAGS=-mod=mod
gocache_lock prometheus "$VERSION"
STAMP="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
# The version stamp is what Prometheus's own release build sets (.promu.yml: -X .../common/version.Version etc.).
LDFLAGS="-s -w -X github.com/prometheus/common/version.Version=$(cat "$(go list -m -f '{{.Dir}}' github.com/prometheus/prometheus)/VERSION")"
LDFLAGS+=" -X github.com/prometheus/common/version.Branch=HEAD -X github.com/prometheus/common/version.BuildUser=kubectl-instancetype"
for tool in promtool prometheus; do
  if ! gocache_fresh "$BIN_DIR/$tool" "$STAMP"; then
    echo "building $tool ${VERSION} into $BIN_DIR" >&2
    CGO_ENABLED=0 go build -p "${PROMETHEUS_BUILD_PARALLEL:-2}" -trimpath -tags netgo,remove_all_sd \
      -ldflags "$LDFLAGS" -o "$BIN_DIR/$tool.tmp" "github.com/prometheus/prometheus/cmd/$tool"
    gocache_done "$BIN_DIR/$tool" "$STAMP"
  fi
done
echo "$BIN_DIR"
