#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the virtctl wrapper module for one KubeVirt version (VIRTCTL_VERSION).
set -euo pipefail
cd "$(dirname "$0")"
# virt-template modules required by KubeVirt v1.8 are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
exec bash ../kubevirt-gomod.sh kubectl-instancetype/hack/virtctl "${VIRTCTL_VERSION:-$(cat VIRTCTL_VERSION)}" \
  kubevirt.io/kubevirt/cmd/virtctl
