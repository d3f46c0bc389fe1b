#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kubectl, kube-controller-manager and kube-scheduler from the wrapper module into a
# per-version cache (hack/lib/gobuild.sh):
#   ~/.cache/kubectl-instancetype/controlplane/<kube version>-<go version>-<os>-<arch>/
# Prints that directory. A binary that is already there is not rebuilt (a cold build takes ~3 min).
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
KUBE_VERSION="$(cat KUBE_VERSION)"
gobuild_bin_dir controlplane "$KUBE_VERSION"
MINOR="${KUBE_VERSION#v1.}"; MINOR="${MINOR%%.*}"
VERSION_STAMP=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  VERSION_STAMP+=" -X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${MINOR} -X ${pkg}.gitTreeState=clean"
done
build() {  # build <output name> <package>
  gobuild "$BIN_DIR/$1" "" "${VERSION_STAMP# }" "$2" -tags grpcnotrace
}
build etcd go.etcd.io/etcd/server/v3
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kubectl k8s.io/kubernetes/cmd/kubectl
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
# printref (printref/main.go): kubectl's printers from this very module graph, for the printer differential tests
# (tests/unit/test_printers_differential.py). Content-addressed like goref (printref-<hash of its source>/), so
# worktrees with different sources keep their own; built with kubectl's flags, it reuses kubectl's compiled
# packages from the Go build cache (a link, seconds).
build "printref-$(gobuild_stamp printref/main.go go.sum)/printref" ./printref
echo "$BIN_DIR"
