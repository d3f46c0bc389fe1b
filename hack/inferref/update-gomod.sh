#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the inferref wrapper module for one KubeVirt version (KUBEVIRT_VERSION);
# pkg/instancetype/infer needs none of the virt-template modules that keep cmd/virtctl from building at v1.9.0.
set -euo pipefail
cd "$(dirname "$0")"
exec bash ../kubevirt-gomod.sh kubectl-instancetype/hack/inferref "${KUBEVIRT_VERSION:-$(cat KUBEVIRT_VERSION)}"
