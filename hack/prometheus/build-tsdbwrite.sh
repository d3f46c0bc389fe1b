#!/usr/bin/env bash
# Builds tsdbwrite (./tsdbwrite: a fleet's history written as TSDB blocks with Prometheus's own tsdb package, for
# bench/rightsize.py at 10,000 VMs x 14 days) from this wrapper module's graph (the same Prometheus v0.316.0 as
# build.sh) into a per-version cache (hack/lib/gobuild.sh) and prints the binary's path:
# .../tsdbwrite/<version>-<go version>-<os>-<arch>/tsdbwrite. -mod=readonly: go.mod stays as it is (a rewrite would
# change build.sh's stamp and rebuild Prometheus). One package at a time (-p 1): about 20 s with a warm Go cache.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir tsdbwrite "$(cat PROMETHEUS_VERSION)"
STAMP="$(gobuild_stamp tsdbwrite/main.go go.mod go.sum)"
GOBUILD_PARALLEL=1 gobuild "$BIN_DIR/tsdbwrite" "$STAMP" "" ./tsdbwrite -mod=readonly
echo "$BIN_DIR/tsdbwrite"
