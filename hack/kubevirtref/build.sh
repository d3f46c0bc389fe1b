#!/usr/bin/env bash
# Builds kubevirtref (ref/main.go: KubeVirt's own pkg/instancetype/expand on JSON cases) from this wrapper module
# into a per-version cache (hack/lib/gobuild.sh) and prints its path:
#   .../kubevirtref/<version>-<go version>-<os>-<arch>/kubevirtref
# A binary that is already there is rebuilt only when ref/main.go or go.sum changed (source-hash stamp).
# Cold build: about a minute on 2 cores. Used by tests/unit/test_expand_differential.py.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
source ./env.sh
gobuild_bin_dir kubevirtref "$KUBEVIRT_VERSION"
gobuild "$BIN_DIR/kubevirtref" "$(gobuild_stamp ref/main.go go.sum)" "" ./ref
echo "$BIN_DIR/kubevirtref"
