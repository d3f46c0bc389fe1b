#!/usr/bin/env bash
# Builds KubeVirt's virtctl (and goref, see goref/main.go) from the wrapper module into a per-version cache
# (hack/lib/gobuild.sh):
#   .../virtctl/<version>-<go version>-<os>-<arch>/virtctl
#   .../ref-<hash of goref's source>/{goref,virtctl -> ../virtctl}
# Prints virtctl's path. A binary that is already there is not rebuilt (virtctl cold: about 3 minutes on
# 2 cores). The differential tests (tests/unit/test_virtctl_differential.py) run both next to our code.
set -euo pipefail
cd "$(dirname "$0")"
source ../lib/gobuild.sh
VIRTCTL_VERSION="$(cat VIRTCTL_VERSION)"
export GOFLAGS=-mod=mod
# virt-template modules required by KubeVirt v1.8 are missing from the checksum database.
export GONOSUMDB="kubevirt.io/virt-template-api,kubevirt.io/virt-template-client-go,kubevirt.io/virt-template-engine"
gobuild_bin_dir virtctl "$VIRTCTL_VERSION"
# No version stamp on purpose: virtctl then never contacts a server to compare versions after an error.
gobuild "$BIN_DIR/virtctl" "" "" kubevirt.io/kubevirt/cmd/virtctl
# goref is content-addressed (ref-<hash of its source>/, with virtctl linked next to it): worktrees whose goref
# sources differ each keep their own binary instead of rebuilding one another's. The tests look for the
# directory of the source they see (tests/unit/test_virtctl_differential.py).
REF_DIR="ref-$(gobuild_stamp goref/main.go go.sum)"
gobuild "$BIN_DIR/$REF_DIR/goref" "" "" ./goref
ln -sfn ../virtctl "$BIN_DIR/$REF_DIR/virtctl"
echo "$BIN_DIR/virtctl"
