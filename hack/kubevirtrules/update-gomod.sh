#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the kubevirtrules wrapper module (rules/main.go: KubeVirt's pkg/monitoring/rules) for
# one KubeVirt version (KUBEVIRT_VERSION), seeded with KubeVirt's own go.sum: github.com/rhobs/operator-observability-toolkit
# v0.0.30, which pkg/monitoring/rules imports, is missing from the checksum database.
set -euo pipefail
cd "$(dirname "$0")"
VERSION="${KUBEVIRT_VERSION:-$(cat KUBEVIRT_VERSION)}"
export GOFLAGS=-mod=mod
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine,github.com/rhobs/operator-observability-toolkit"
KUBEVIRT_DIR="$(go mod download -json "kubevirt.io/kubevirt@$VERSION" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])')"
export BEFORE_TIDY="cp '$KUBEVIRT_DIR/go.sum' go.sum && chmod u+w go.sum"
exec bash ../kubevirt-gomod.sh kubectl-instancetype/hack/kubevirtrules "$VERSION"
