#!/usr/bin/env bash
# Builds rhysd/actionlint (cmd/actionlint, the version in ACTIONLINT_VERSION) from the wrapper module into a
# per-version cache (hack/lib/gobuild.sh) and prints the binary's path: .../actionlint/<version>-<go>-<os>-<arch>/actionlint
# tests/unit/test_workflows.py runs it on .github/workflows. A binary whose stamp (hash of go.mod and go.sum)
# matches is not rebuilt (a cold build takes about 30 s).
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
gobuild_bin_dir actionlint "$(cat ACTIONLINT_VERSION)"
# `actionlint -version` prints this variable (the release build stamps it the same way)
gobuild "$BIN_DIR/actionlint" "$(gobuild_stamp go.mod go.sum)" "-X github.com/rhysd/actionlint.version=${VERSION}" \
  github.com/rhysd/actionlint/cmd/actionlint
echo "$BIN_DIR/actionlint"
