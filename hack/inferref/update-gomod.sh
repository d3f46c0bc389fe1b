#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the inferref wrapper module for one KubeVirt version (pkg/instancetype/infer
# needs none of the virt-template modules that keep cmd/virtctl from building at v1.9.0).
# The replace lines are copied from the published kubevirt.io/kubevirt go.mod; its two local
# staging replaces (./staging/src/kubevirt.io/{api,client-go}) become the published modules of the
# same version, so a version bump is one file (KUBEVIRT_VERSION).
set -euo pipefail
cd "$(dirname "$0")"
KUBEVIRT_VERSION="${KUBEVIRT_VERSION:-$(cat KUBEVIRT_VERSION)}"
export GOFLAGS=-mod=mod
rm -f go.mod go.sum
go mod init kubectl-instancetype/hack/inferref >/dev/null 2>&1
go mod edit -go=1.26.0
GOMOD=$(go mod download -json "kubevirt.io/kubevirt@${KUBEVIRT_VERSION}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["GoMod"])')
go mod edit -json "$GOMOD" | KUBEVIRT_VERSION="$KUBEVIRT_VERSION" python3 -c '
import json, os, sys
version = os.environ["KUBEVIRT_VERSION"]
for r in json.load(sys.stdin).get("Replace") or []:
    old, new = r["Old"]["Path"], r["New"]
    if new["Path"].startswith("./staging/src/"):
        target = new["Path"][len("./staging/src/"):] + "@" + version
    else:
        target = new["Path"] + ("@" + new["Version"] if new.get("Version") else "")
    print(old + "=" + target)' | while read -r replacement; do
  go mod edit -replace="${replacement}"
done
go mod edit -require="kubevirt.io/kubevirt@${KUBEVIRT_VERSION}"
go mod tidy
