#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the krew wrapper module for the version in KREW_VERSION.
# (The module proxy serves exact versions only: v0.4.4 is the newest it hands out here.)
set -euo pipefail
cd "$(dirname "$0")"
KREW_VERSION="${KREW_VERSION:-$(cat KREW_VERSION)}"
export GOFLAGS=-mod=mod
rm -f go.mod go.sum
go mod init kubectl-instancetype/hack/krew >/dev/null 2>&1
go mod edit -go=1.26.0
go mod edit -require="sigs.k8s.io/krew@${KREW_VERSION}"
go mod edit -tool=sigs.k8s.io/krew/cmd/krew -tool=sigs.k8s.io/krew/cmd/validate-krew-manifest
go mod tidy
