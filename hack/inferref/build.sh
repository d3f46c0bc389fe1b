#!/usr/bin/env bash
# Builds inferref (main.go: KubeVirt's own pkg/instancetype/infer on a real client) into a per-version cache
# (hack/lib/gobuild.sh) and prints the binary's path: .../inferref/<kubevirt version>-<go>-<os>-<arch>/inferref
# A binary whose stamp (hash of main.go, go.mod and go.sum) matches is not rebuilt.
# The differential test (tests/integration/test_infer_differential.py) runs it next to the plugin's resolver.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir inferref "$(cat KUBEVIRT_VERSION)"
gobuild "$BIN_DIR/inferref" "$(gobuild_stamp main.go go.mod go.sum)" "" .
echo "$BIN_DIR/inferref"
