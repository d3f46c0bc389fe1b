#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the control-plane wrapper module for one Kubernetes version.
# The staging replace lines are derived from the published k8s.io/kubernetes go.mod (every
# requirement at v0.0.0 maps to its v0.<minor>.<patch> tag), so a version bump is one variable.
set -euo pipefail
cd "$(dirname "$0")"
KUBE_VERSION="${KUBE_VERSION:-$(cat KUBE_VERSION)}"
STAGING_VERSION="v0.${KUBE_VERSION#v1.}"
rm -f go.mod go.sum
go mod init kubectl-instancetype/hack/controlplane >/dev/null 2>&1
go mod edit -go=1.26.0
GOMOD=$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["GoMod"])')
go mod edit -json "$GOMOD" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["Require"]:
    if r["Version"] == "v0.0.0":
        print(r["Path"])' | while read -r module; do
  go mod edit -replace="${module}=${module}@${STAGING_VERSION}"
done
go mod edit -require="k8s.io/kubernetes@${KUBE_VERSION}"
go mod edit -tool=k8s.io/kubernetes/cmd/kube-apiserver
go mod edit -tool=k8s.io/kubernetes/cmd/kubectl
go mod edit -tool=k8s.io/kubernetes/cmd/kube-controller-manager
go mod edit -tool=go.etcd.io/etcd/server/v3
go mod tidy
