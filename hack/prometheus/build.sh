#!/usr/bin/env bash
# Builds Prometheus (github.com/prometheus/prometheus at PROMETHEUS_VERSION: cmd/prometheus and cmd/promtool) from
# this wrapper module (update-gomod.sh: Prometheus's own go.sum as the seed) into a per-version cache
# (hack/lib/gobuild.sh) and prints the folder: .../prometheus/<version>-<go version>-<os>-<arch>/{prometheus,promtool}
# The tests run the real Prometheus with KubeVirt's recording rules (hack/kubevirtrules) over TSDB blocks that
# promtool backfills. Tags: netgo and remove_all_sd (no cloud service discovery: plugins/plugin_*.go are built only
# without it); builtinassets stays off (web/ui/ui.go then embeds no UI: the query API is all the tests use).
# Binaries whose stamp (hash of go.mod and go.sum) matches are not rebuilt. Cold build at -p 2 on a 2-core machine
# at load ~16 (other builds running): promtool 44 minutes (most of it client-go and the other service-discovery
# dependencies it links), then prometheus 9 more (they share most packages).
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir prometheus "$(cat PROMETHEUS_VERSION)"
STAMP="$(gobuild_stamp go.mod go.sum)"
# The version stamps Prometheus's own release build sets (.promu.yml: -X github.com/prometheus/common/version.*).
# go list -m prints no Dir for a module not yet in the module cache (a cold machine): download it first
go mod download github.com/prometheus/prometheus
PROMETHEUS_DIR="$(go list -m -f '{{.Dir}}' github.com/prometheus/prometheus)"
LDFLAGS="-X github.com/prometheus/common/version.Version=$(cat "$PROMETHEUS_DIR/VERSION")"
LDFLAGS+=" -X github.com/prometheus/common/version.Branch=HEAD -X github.com/prometheus/common/version.BuildUser=kubectl-instancetype"
for tool in promtool prometheus; do
  gobuild "$BIN_DIR/$tool" "$STAMP" "$LDFLAGS" "github.com/prometheus/prometheus/cmd/$tool" -tags netgo,remove_all_sd
done
echo "$BIN_DIR"
