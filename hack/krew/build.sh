#!/usr/bin/env bash
# Builds the real krew (installed as kubectl-krew, so that `kubectl krew ...` finds it) and krew-index's
# validate-krew-manifest from the wrapper module into a per-version cache (hack/lib/gobuild.sh):
#   .../krew/<krew version>-<go version>-<os>-<arch>/
# Prints that directory. A binary that is already there is not rebuilt (a cold build takes about 20 s).
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir krew "$(cat KREW_VERSION)"
# krew prints its version from this variable (`kubectl krew version`); the release build sets it the same way.
VERSION_STAMP="-X sigs.k8s.io/krew/internal/version.gitTag=${VERSION}"
gobuild "$BIN_DIR/kubectl-krew" "" "$VERSION_STAMP" sigs.k8s.io/krew/cmd/krew
gobuild "$BIN_DIR/validate-krew-manifest" "" "$VERSION_STAMP" sigs.k8s.io/krew/cmd/validate-krew-manifest
echo "$BIN_DIR"
