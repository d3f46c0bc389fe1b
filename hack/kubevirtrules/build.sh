#!/usr/bin/env bash
# Builds rules/main.go (KubeVirt's own pkg/monitoring/rules, printed as a Prometheus rule file) from this wrapper
# module into a per-version cache (hack/lib/gobuild.sh), runs it, and prints the path of the rule file it wrote:
#   .../kubevirtrules/<version>-<go version>-<os>-<arch>/kubevirt-rules.yaml
# The tests' real Prometheus loads that file (--rule-files): the recording rules rightsize reads
# (vmi:kubevirt_vmi_memory_used_bytes:sum, vmi:kubevirt_vmi_memory_headroom_ratio:sum, ...) come from KubeVirt's
# code, not from a copy. Rebuilt only when rules/main.go or go.sum changed (source-hash stamp); about a minute cold.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
# The virt-template modules and github.com/rhobs/operator-observability-toolkit v0.0.30 are missing from the
# checksum database; their sums come from KubeVirt's go.sum (update-gomod.sh).
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine,github.com/rhobs/operator-observability-toolkit"
gobuild_bin_dir kubevirtrules "$(cat KUBEVIRT_VERSION)"
OUT="$BIN_DIR/kubevirtrules"
STAMP="$(gobuild_stamp rules/main.go go.sum)"
if [ "$(cat "$OUT.stamp" 2>/dev/null)" != "$STAMP" ] || [ ! -s "$BIN_DIR/kubevirt-rules.yaml" ]; then
  gobuild "$OUT" "$STAMP" "" ./rules
  "$OUT" kubevirt > "$BIN_DIR/kubevirt-rules.yaml.tmp"
  mv "$BIN_DIR/kubevirt-rules.yaml.tmp" "$BIN_DIR/kubevirt-rules.yaml"
fi
echo "$BIN_DIR/kubevirt-rules.yaml"
