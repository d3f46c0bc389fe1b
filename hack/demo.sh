#!/usr/bin/env bash
# A short tour of the plugin through the real kubectl, against the local control plane (make demo).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN_DIR="$(.venv/bin/python -m hack.localcluster bin-dir)"
export KUBECONFIG="$PWD/.cluster/kubeconfig"
export PATH="$PWD/.venv/bin:$BIN_DIR:$PATH"
export HOME="${DEMO_HOME:-$PWD/.cluster/home}"  # no stray ~/.kube/cache or kuberc
mkdir -p "$HOME"

step() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$@"
}

step kubectl instancetype version
step kubectl plugin list --name-only
step kubectl instancetype list --min-cpu 4 --max-cpu 4 --class general.purpose
step kubectl instancetype list --min-memory 16Gi --max-memory 32Gi --class memory.intensive -o wide
step kubectl instancetype list --hugepages=1Gi --cpu 2 -A
step kubectl instancetype list preferences --os-type windows --min-memory 4Gi
step kubectl instancetype list preferences --arch arm64 -o name
step kubectl get virtualmachineclusterinstancetypes -l instancetype.kubevirt.io/cpu=4

cat <<MSG

The control plane keeps running. To use it from this shell:
  export KUBECONFIG=$KUBECONFIG PATH=$PWD/.venv/bin:$BIN_DIR:\$PATH
Stop it with: make cluster-down
MSG
