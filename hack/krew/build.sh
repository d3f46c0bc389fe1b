#!/usr/bin/env bash
# Builds the real krew (installed as kubectl-krew, so that `kubectl krew ...` finds it) and krew-index's
# validate-krew-manifest from the wrapper module into a per-version cache:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/krew/<krew version>-<go version>-<os>-<arch>/
# Prints that directory. A binary that is already there is not rebuilt (a cold build takes about 20 s).
set -euo pipefail
cd "$(dirname "$0")"
KREW_VERSION="$(cat KREW_VERSION)"
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${KUBECTL_INSTANCETYPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype}"
BIN_DIR="${CACHE_ROOT}/krew/${KREW_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
# krew prints its version from this variable (`kubectl krew version`); the release build sets it the same way.
STAMP="-X sigs.k8s.io/krew/internal/version.gitTag=${KREW_VERSION}"
build() {  # build <output name> <package>
  local out="$BIN_DIR/$1"
  [ -x "$out" ] && return 0
  echo "building $1 ($2) into $BIN_DIR" >&2
  CGO_ENABLED=0 go build -p 2 -trimpath -ldflags "-s -w ${STAMP}" -o "$out.tmp" "$2"
  mv "$out.tmp" "$out"
}
build kubectl-krew sigs.k8s.io/krew/cmd/krew
build validate-krew-manifest sigs.k8s.io/krew/cmd/validate-krew-manifest
echo "$BIN_DIR"
