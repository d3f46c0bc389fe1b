#!/usr/bin/env bash
# Regenerates go.mod and go.sum of this wrapper module: github.com/prometheus/prometheus at PROMETHEUS_VERSION with
# cmd/prometheus and cmd/promtool as tools, Prometheus's own go.sum as the seed (so every dependency is the version
# and hash Prometheus's release was built and tested with).
set -euo pipefail
cd "$(dirname "$0")"
VERSION="$(cat PROMETHEUS_VERSION)"
export GOFLAGS=-mod=mod
rm -f go.mod go.sum
go mod init kubectl-instancetype/hack/prometheus >/dev/null 2>&1
DIR=$(go mod download -json "github.com/prometheus/prometheus@${VERSION}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])')
GO_DIRECTIVE=$(go mod edit -json "$DIR/go.mod" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Go"])')
go mod edit -go="$GO_DIRECTIVE" -require="github.com/prometheus/prometheus@${VERSION}" \
  -tool=github.com/prometheus/prometheus/cmd/prometheus -tool=github.com/prometheus/prometheus/cmd/promtool
cp "$DIR/go.sum" go.sum && chmod u+w go.sum
go mod tidy
echo "wrote go.mod and go.sum for prometheus ${VERSION}" >&2
