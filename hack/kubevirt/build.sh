#!/usr/bin/env bash
# Builds KubeVirt's virt-api and virt-controller and kubevirt-manifests (manifests/: the CRDs, webhook
# configurations, APIServices and RBAC virt-operator installs) from the wrapper module of KUBEVIRT_VERSION
# (default: the KUBEVIRT_VERSION file) into a per-version cache, and prints that folder:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/kubevirt/<version>-<go version>-<os>-<arch>/
# A binary that is there already is rebuilt only when its sources (go.sum, manifests/) change. Cold: about
# 2.5 minutes for the three on 2 cores. virt-api and virt-controller carry KubeVirt's version the way KubeVirt's
# hack/version.sh stamps it (kubevirt.io/client-go/version: gitVersion, gitCommit, gitTreeState, buildDate).
source "$(dirname "$0")/common.sh"
if [ ! -f "$MODULE_DIR/go.mod" ]; then
  echo "no wrapper module for KubeVirt $KUBEVIRT_VERSION: run KUBEVIRT_VERSION=$KUBEVIRT_VERSION $HERE/update-gomod.sh" >&2
  exit 1
fi
mkdir -p "$BIN_DIR" "$(dirname "$SRC_DIR")"
# One build of a version at a time on this machine (worktrees and test sessions share the cache).
exec 9>"$SRC_DIR.lock"
flock 9
SUM_STAMP="$(cat "$MODULE_DIR/go.sum" | sha256sum | cut -c1-16)"
MANIFESTS_STAMP="$(cat "$MODULE_DIR/go.sum" "$HERE"/manifests/*.go | sha256sum | cut -c1-16)"
fresh() { [ -x "$BIN_DIR/$1" ] && [ "$(cat "$BIN_DIR/$1.stamp" 2>/dev/null)" = "$2" ]; }
if fresh virt-api "$SUM_STAMP" && fresh virt-controller "$SUM_STAMP" && fresh kubevirt-manifests "$MANIFESTS_STAMP"; then
  echo "$BIN_DIR"
  exit 0
fi
prepare_src
cd "$SRC_DIR"
# The release's commit and date, as the module proxy records them (KubeVirt's hack/version.sh takes them from git).
INFO="$(go mod download -json "kubevirt.io/kubevirt@$KUBEVIRT_VERSION" | python3 -c '
import json, sys
info = json.load(sys.stdin)
print(json.load(open(info["Info"]))["Origin"]["Hash"] if "Origin" in json.load(open(info["Info"])) else "")')"
BUILD_DATE="$(go mod download -json "kubevirt.io/kubevirt@$KUBEVIRT_VERSION" | python3 -c '
import json, sys
print(json.load(open(json.load(sys.stdin)["Info"]))["Time"][:19] + "Z")')"
VERSION_PKG=kubevirt.io/client-go/version
STAMP="-X $VERSION_PKG.gitVersion=$KUBEVIRT_VERSION -X $VERSION_PKG.gitTreeState=clean -X $VERSION_PKG.buildDate=$BUILD_DATE"
[ -n "$INFO" ] && STAMP+=" -X $VERSION_PKG.gitCommit=$INFO"
build() {  # build <output name> <package> <stamp> [tags]
  fresh "$1" "$3" && return 0
  echo "building $1 (kubevirt.io/kubevirt@$KUBEVIRT_VERSION) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -tags "${4:-}" -ldflags "-s -w $STAMP" -o "$BIN_DIR/$1.tmp" "$2"
  mv "$BIN_DIR/$1.tmp" "$BIN_DIR/$1"
  printf '%s' "$3" > "$BIN_DIR/$1.stamp"
}
build kubevirt-manifests ./manifests "$MANIFESTS_STAMP" "$(build_tags)"
build virt-api kubevirt.io/kubevirt/cmd/virt-api "$SUM_STAMP"
build virt-controller kubevirt.io/kubevirt/cmd/virt-controller "$SUM_STAMP"
echo "$BIN_DIR"
