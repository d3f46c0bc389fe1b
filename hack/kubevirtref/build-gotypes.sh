#!/usr/bin/env bash
# Builds gotypes (gotypes/main.go: the JSON field table of kubevirt.io/api's v1.VirtualMachine, read from the Go
# types by reflection) from this wrapper module into a per-version cache (hack/lib/gobuild.sh) and prints its path:
#   .../kubevirtref/<version>-<go version>-<os>-<arch>/gotypes
# Rebuilt only when gotypes/main.go or go.sum changed (source-hash stamp). It imports kubevirt.io/api and
# apimachinery only: about 30 s cold on 2 cores. Used by hack/gen_gotypes.py and tests/unit/test_gojson.py.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
source ./env.sh
gobuild_bin_dir kubevirtref "$KUBEVIRT_VERSION"
gobuild "$BIN_DIR/gotypes" "$(gobuild_stamp gotypes/main.go go.sum)" "" ./gotypes
echo "$BIN_DIR/gotypes"
