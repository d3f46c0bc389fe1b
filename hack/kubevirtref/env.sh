# The Go environment both kubevirtref build scripts (build.sh, build-gotypes.sh) build in. Sourced.
KUBEVIRT_VERSION="$(cat KUBEVIRT_VERSION)"
export GOFLAGS=-mod=mod
# virt-template modules required by KubeVirt's go.mod are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
