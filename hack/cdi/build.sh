#!/usr/bin/env bash
# Builds cdi-apiserver (apiserver/: CDI's cmd/cdi-apiserver with -listen/-port) and cdi-manifests (manifests/: the
# CRDs, RBAC, APIService and webhooks CDI's operator writes) from this wrapper module into a per-version cache, and
# prints that folder:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/cdi/<version>-<go version>-<os>-<arch>/
# A binary is rebuilt only when its sources change (go.sum and our Go files). Cold: about 90 s on 2 cores.
# cdi-apiserver carries CDI's version (kubevirt.io/containerized-data-importer/pkg/version, as CDI's
# hack/build/version.sh stamps it).
set -euo pipefail
cd "$(dirname "$0")"
CDI_VERSION="$(cat CDI_VERSION)"
export GOFLAGS=-mod=mod
export GONOSUMDB=kubevirt.io/containerized-data-importer
CACHE_ROOT="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
BIN_DIR="${CACHE_ROOT}/cdi/${CDI_VERSION}-$(go env GOVERSION)-$(go env GOOS)-$(go env GOARCH)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
exec 9>"$BIN_DIR.lock"
flock 9
stamp_of() { cat go.sum "$1"/*.go | sha256sum | cut -c1-16; }
fresh() { [ -x "$BIN_DIR/$1" ] && [ "$(cat "$BIN_DIR/$1.stamp" 2>/dev/null)" = "$(stamp_of "$2")" ]; }
if fresh cdi-manifests manifests && fresh cdi-apiserver apiserver; then
  echo "$BIN_DIR"
  exit 0
fi
BUILD_DATE="$(go mod download -json "kubevirt.io/containerized-data-importer@$CDI_VERSION" | python3 -c '
import json, sys
print(json.load(open(json.load(sys.stdin)["Info"]))["Time"][:19] + "Z")')"
VERSION_PKG=kubevirt.io/containerized-data-importer/pkg/version
STAMP="-X $VERSION_PKG.gitVersion=$CDI_VERSION -X $VERSION_PKG.gitTreeState=clean -X $VERSION_PKG.buildDate=$BUILD_DATE"
build() {  # build <output name> <package folder>
  local out="$BIN_DIR/$1" stamp
  stamp="$(stamp_of "$2")"
  fresh "$1" "$2" && return 0
  echo "building $1 (kubevirt.io/containerized-data-importer@$CDI_VERSION) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w $STAMP" -o "$out.tmp" "./$2"
  mv "$out.tmp" "$out"
  printf '%s' "$stamp" > "$out.stamp"
}
build cdi-manifests manifests
build cdi-apiserver apiserver
echo "$BIN_DIR"
