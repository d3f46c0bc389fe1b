#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the actionlint wrapper module for the version in ACTIONLINT_VERSION.
set -euo pipefail
cd "$(dirname "$0")"
ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-$(cat ACTIONLINT_VERSION)}"
export GOFLAGS=-mod=mod
rm -f go.mod go.sum
go mod init kubectl-instancetype/hack/actionlint >/dev/null 2>&1
go mod edit -go=1.26.0
go mod edit -require="github.com/rhysd/actionlint@${ACTIONLINT_VERSION}"
go mod edit -tool=github.com/rhysd/actionlint/cmd/actionlint
go mod tidy
