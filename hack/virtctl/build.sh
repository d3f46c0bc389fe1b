#!/usr/bin/env bash
# Builds KubeVirt's virtctl (and goref, see goref/main.go) from the wrapper module into a per-version cache:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/virtctl/<version>-<go version>-<os>-<arch>/virtctl
#   .../ref-<hash of goref's source>/{goref,virtctl -> ../virtctl}
# Prints virtctl's path. A binary that is already there is not rebuilt (virtctl cold: about 3 minutes on
# 2 cores). The differential tests (tests/unit/test_virtctl_differential.py) run both next to our code.
set -euo pipefail
cd "$(dirname "$0")"
VIRTCTL_VERSION="$(cat VIRTCTL_VERSION)"
export GOFLAGS=-mod=mod
# virt-template modules required by KubeVirt v1.8 are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/virtctl/${VIRTCTL_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
build() {  # build <output name> <package> [source stamp]
  local out="$BIN_DIR/$1" stamp="${3:-}"
  # A stamp (the hash of a source we own) rebuilds the binary when that source changes.
  if [ -x "$out" ] && { [ -z "$stamp" ] || [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; }; then
    return 0
  fi
  echo "building $1 ($2) into $BIN_DIR" >&2
  # No version stamp on purpose: virtctl then never contacts a server to compare versions after an error.
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w" -o "$out.tmp" "$2"
  mv "$out.tmp" "$out"
  [ -n "$stamp" ] && printf '%s' "$stamp" > "$out.stamp"
  return 0
}
build virtctl kubevirt.io/kubevirt/cmd/virtctl
# goref is content-addressed (ref-<hash of its source>/, with virtctl linked next to it): worktrees whose goref
# sources differ each keep their own binary instead of rebuilding one another's. The tests look for the
# directory of the source they see (tests/unit/test_virtctl_differential.py).
REF_DIR="ref-$(cat goref/main.go go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR/$REF_DIR"
build "$REF_DIR/goref" ./goref
ln -sfn ../virtctl "$BIN_DIR/$REF_DIR/virtctl"
echo "$BIN_DIR/virtctl"
