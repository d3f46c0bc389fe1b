#!/usr/bin/env bash
# Builds KWOK (sigs.k8s.io/kwok, cmd/kwok, the version in KWOK_VERSION) from the wrapper module into a per-version
# cache (hack/lib/gobuild.sh) and prints its path: .../kwok/<version>-<go version>-<os>-<arch>/kwok
# KWOK keeps simulated Nodes Ready and moves the pods bound to them through its stages (hack/localcluster/kwok.py
# starts it beside the local kube-apiserver). A binary whose stamp (hash of go.mod and go.sum) matches is not
# rebuilt; a cold build fetches KWOK's k8s.io v0.33 graph and took about 12 minutes at -p 1 on a loaded 2-core
# machine.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir kwok "$(cat KWOK_VERSION)"
# The version stamp is what KWOK's own release build sets (hack/releases.sh: -X .../pkg/consts.Version).
gobuild "$BIN_DIR/kwok" "$(gobuild_stamp go.mod go.sum)" "-X sigs.k8s.io/kwok/pkg/consts.Version=${VERSION#v}" \
  sigs.k8s.io/kwok/cmd/kwok
echo "$BIN_DIR/kwok"
