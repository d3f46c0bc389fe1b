# Sourced by build.sh and update-gomod.sh: the KubeVirt version, its cache folders, and the build folder.
#
# The wrapper module of each version lives in hack/kubevirt/<version>/ (go.mod, go.sum). It is built in a copy
# under the cache (SRC_DIR) because KubeVirt v1.9.0 requires kubevirt.io/virt-template-api and -client-go
# v0.2.0, which the module proxy refuses (403): the go.mod replaces them with local modules (./virt-template-api,
# ./virt-template-client-go) that make_virt_template_modules generates there from the published v0.1.7 modules,
# their v1alpha1 packages renamed v1beta1. virt-api and virt-controller use only the group and resource names,
# the v1beta1.VirtualMachineTemplate types and the clientset's TemplateV1beta1().RESTClient() of them
# (pkg/controller/virtinformers.go, pkg/storage/admitters/vmexport.go, pkg/storage/export/export). Nothing
# outside the repository and the cache is used.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KUBEVIRT_VERSION="${KUBEVIRT_VERSION:-$(cat "$HERE/KUBEVIRT_VERSION")}"
MODULE_DIR="$HERE/$KUBEVIRT_VERSION"
VIRT_TEMPLATE_BASE=v0.1.7
export GOFLAGS=-mod=mod
# virt-template v0.1.7 and KubeVirt's own dependency github.com/rhobs/operator-observability-toolkit are missing
# from the checksum database: their sums come from KubeVirt's go.sum, which update-gomod.sh seeds go.sum with.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
CACHE_ROOT="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
SRC_DIR="$CACHE_ROOT/kubevirt/src-$KUBEVIRT_VERSION"
BIN_DIR="$CACHE_ROOT/kubevirt/${KUBEVIRT_VERSION}-$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)"

module_dir() {  # module_dir MODULE@VERSION: download (once) and print the module's folder in the module cache
  go mod download -json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit(d.get("Error")))'
}

make_virt_template_modules() {  # into the current folder: ./virt-template-api, ./virt-template-client-go
  local name source
  for name in virt-template-api virt-template-client-go; do
    source="$(module_dir "kubevirt.io/$name@$VIRT_TEMPLATE_BASE")"
    rm -rf "$name"
    cp -r "$source" "$name"
    chmod -R u+w "$name"
    find "$name" -depth -name '*v1alpha1*' | while read -r path; do
      mv "$path" "$(dirname "$path")/$(basename "$path" | sed 's/v1alpha1/v1beta1/g')"
    done
    find "$name" -type f -name '*.go' -exec sed -i 's/v1alpha1/v1beta1/g; s/V1alpha1/V1beta1/g' {} +
  done
}

prepare_src() {  # the build folder: this version's go.mod/go.sum, our Go sources, the generated modules
  mkdir -p "$SRC_DIR"
  rm -rf "$SRC_DIR/manifests"
  cp -r "$HERE/manifests" "$SRC_DIR/manifests"
  if [ -f "$MODULE_DIR/go.mod" ]; then cp "$MODULE_DIR/go.mod" "$MODULE_DIR/go.sum" "$SRC_DIR/"; fi
  if grep -q '=> ./virt-template-api' "$SRC_DIR/go.mod" 2>/dev/null; then
    (cd "$SRC_DIR" && make_virt_template_modules)
  fi
}

# Build tags of the manifests program for this KubeVirt minor version (manifests/crds_v1_*.go).
build_tags() {
  local minor="${KUBEVIRT_VERSION#v1.}"; minor="${minor%%.*}"
  [ "$minor" -le 8 ] && echo "kubevirt_v1_8" || echo ""
}
