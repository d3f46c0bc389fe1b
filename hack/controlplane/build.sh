#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kubectl and kube-controller-manager from the wrapper module into a per-version cache:
#   ~/.cache/kubectl-instancetype/controlplane/<kube version>-<go version>-<os>-<arch>/
# Prints that directory. A binary that is already there is not rebuilt (a cold build takes ~3 min).
set -euo pipefail
cd "$(dirname "$0")"
KUBE_VERSION="$(cat KUBE_VERSION)"
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
BIN_DIR="${CACHE_ROOT}/controlplane/${KUBE_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
MINOR="${KUBE_VERSION#v1.}"; MINOR="${MINOR%%.*}"
STAMP=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  STAMP+=" -X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${MINOR} -X ${pkg}.gitTreeState=clean"
done
build() {  # build <output name> <package>
  local out="$BIN_DIR/$1"
  [ -x "$out" ] && return 0
  mkdir -p "$(dirname "$out")"
  echo "building $1 ($2) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -tags grpcnotrace -ldflags "-s -w${STAMP}" -o "$out.tmp" "$2"
  mv "$out.tmp" "$out"
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
build "printref-$(cat printref/main.go go.sum | sha256sum | cut -c1-16)/printref" ./printref
echo "$BIN_DIR"
