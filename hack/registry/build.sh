#!/usr/bin/env bash
# Builds the CNCF distribution registry (github.com/distribution/distribution/v3, cmd/registry, the version in
# REGISTRY_VERSION) into a per-version cache (hack/lib/gobuild.sh) and prints its path:
#   .../registry/<version>-<go version>-<os>-<arch>/registry
# The image tests (tests/integration/test_infer_image.py) start it on loopback with images they push.
# A binary whose stamp (hash of go.mod and go.sum) matches is not rebuilt.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir registry "$(cat REGISTRY_VERSION)"
gobuild "$BIN_DIR/registry" "$(gobuild_stamp go.mod go.sum)" "" github.com/distribution/distribution/v3/cmd/registry
echo "$BIN_DIR/registry"
