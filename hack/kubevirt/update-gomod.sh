#!/usr/bin/env bash
# Regenerates hack/kubevirt/<KUBEVIRT_VERSION>/go.mod and go.sum: kubevirt.io/kubevirt at that version with its
# replace lines (hack/kubevirt-gomod.sh), virt-api and virt-controller as tools, KubeVirt's own go.sum as the seed,
# and, when the module proxy refuses the virt-template version KubeVirt requires, local replacement modules
# (see common.sh).
source "$(dirname "$0")/common.sh"
prepare_src
cd "$SRC_DIR"
rm -f go.mod go.sum
KUBEVIRT_DIR="$(module_dir "kubevirt.io/kubevirt@$KUBEVIRT_VERSION")"
REQUIRED="$(go mod edit -json "$KUBEVIRT_DIR/go.mod" | python3 -c '
import json, sys
print(next((r["Version"] for r in json.load(sys.stdin)["Require"] if r["Path"] == "kubevirt.io/virt-template-api"), ""))')"
BEFORE_TIDY="cp '$KUBEVIRT_DIR/go.sum' go.sum && chmod u+w go.sum"
if [ -n "$REQUIRED" ] && ! go mod download "kubevirt.io/virt-template-api@$REQUIRED" 2>/dev/null; then
  echo "kubevirt.io/virt-template-api@$REQUIRED cannot be downloaded: local replacements from $VIRT_TEMPLATE_BASE" >&2
  make_virt_template_modules
  BEFORE_TIDY+=" && go mod edit -replace=kubevirt.io/virt-template-api=./virt-template-api"
  BEFORE_TIDY+=" -replace=kubevirt.io/virt-template-client-go=./virt-template-client-go"
fi
export BEFORE_TIDY
bash "$HERE/../kubevirt-gomod.sh" kubectl-instancetype/hack/kubevirt "$KUBEVIRT_VERSION" \
  kubevirt.io/kubevirt/cmd/virt-api kubevirt.io/kubevirt/cmd/virt-controller
mkdir -p "$MODULE_DIR"
cp go.mod go.sum "$MODULE_DIR/"
echo "wrote $MODULE_DIR/go.mod and go.sum" >&2
