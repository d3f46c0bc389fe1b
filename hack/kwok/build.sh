#!/usr/bin/env bash
# Builds KWOK (sigs.k8s.io/kwok, cmd/kwok, the version in KWOK_VERSION) from the wrapper module into a per-version
# cache and prints its path:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype/kwok/<version>-<go version>-<os>-<arch>/kwok
# KWOK keeps simulated Nodes Ready and moves the pods bound to them through its stages (hack/localcluster/kwok.py
# starts it beside the local kube-apiserver). A binary whose stamp (hash of go.mod and go.sum) matches is not
# rebuilt; a cold build fetches KWOK's k8s.io v0.33 graph and took about 12 minutes at -p 1 on a loaded 2-core
# machine.
set -euo pipefail
cd "$(dirname "$0")"
KWOK_VERSION="$(cat KWOK_VERSION)"
export GOFLAGS=-mod=mod
GO_VERSION="$(go env GOVERSION)"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-instancetype"
BIN_DIR="${CACHE_ROOT}/kwok/${KWOK_VERSION}-${GO_VERSION}-$(go env GOOS)-$(go env GOARCH)"
OUT="$BIN_DIR/kwok"
STAMP="$(cat go.mod go.sum | sha256sum | cut -c1-16)"
mkdir -p "$BIN_DIR"
# One build per cache folder at a time: test sessions in several worktrees run this script at once, and two builds
# of one binary race on its .tmp file; flock makes the second wait, then find the binary built (util-linux; skipped
# where it is missing).
if command -v flock >/dev/null 2>&1; then exec 9>"$BIN_DIR/.build.lock"; flock 9; fi
if ! { [ -x "$OUT" ] && [ "$(cat "$OUT.stamp" 2>/dev/null)" = "$STAMP" ]; }; then
  echo "building kwok ${KWOK_VERSION} into $BIN_DIR" >&2
  # The version stamp is what KWOK's own release build sets (hack/releases.sh: -X .../pkg/consts.Version).
  CGO_ENABLED=0 go build -p "${KWOK_BUILD_PARALLEL:-2}" -trimpath \
    -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" -o "$OUT.tmp" sigs.k8s.io/kwok/cmd/kwok
  mv "$OUT.tmp" "$OUT"
  printf '%s' "$STAMP" > "$OUT.stamp"
fi
echo "$OUT"
