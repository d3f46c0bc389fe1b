#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the kubevirtref wrapper module (KubeVirt's own expand code) for one KubeVirt
# version (KUBEVIRT_VERSION).
set -euo pipefail
cd "$(dirname "$0")"
# virt-template modules required by KubeVirt's go.mod are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
exec bash ../kubevirt-gomod.sh kubectl-instancetype/hack/kubevirtref "${KUBEVIRT_VERSION:-$(cat KUBEVIRT_VERSION)}"
