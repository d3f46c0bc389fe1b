#!/usr/bin/env bash
# Regenerates go.mod/go.sum of the CDI wrapper module (cdi-apiserver with a port flag, CDI's manifests) for one CDI
# version (CDI_VERSION). CDI's replace lines are copied from its published go.mod; its local staging replace
# (./staging/src/kubevirt.io/containerized-data-importer-api) becomes the published module of the same version, and
# the one broken line (k8s.io/dynamic-resource-allocation => dynamic-resource-allocation v0.31.5, a path without a
# domain) is skipped: nothing CDI's apiserver builds imports that module.
set -euo pipefail
cd "$(dirname "$0")"
CDI_VERSION="${CDI_VERSION:-$(cat CDI_VERSION)}"
export GOFLAGS=-mod=mod
# The checksum database answers 404 for CDI itself.
export GONOSUMDB=kubevirt.io/containerized-data-importer
rm -f go.mod go.sum
go mod init kubectl-instancetype/hack/cdi >/dev/null 2>&1
go mod edit -go=1.26.0
GOMOD=$(go mod download -json "kubevirt.io/containerized-data-importer@${CDI_VERSION}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["GoMod"])')
go mod edit -json "$GOMOD" | VERSION="$CDI_VERSION" python3 -c '
import json, os, sys
version = os.environ["VERSION"]
for r in json.load(sys.stdin).get("Replace") or []:
    old, new = r["Old"]["Path"], r["New"]
    if new["Path"].startswith("./staging/src/"):
        target = new["Path"][len("./staging/src/"):] + "@" + version
    elif "." not in new["Path"].split("/")[0]:
        continue  # not a module path (CDI v1.64.0: dynamic-resource-allocation)
    else:
        target = new["Path"] + ("@" + new["Version"] if new.get("Version") else "")
    print(old + "=" + target)' | while read -r replacement; do
  go mod edit -replace="${replacement}"
done
go mod edit -require="kubevirt.io/containerized-data-importer@${CDI_VERSION}"
# Some of CDI's pinned dependencies (github.com/openshift/library-go) are missing from the checksum database: CDI's
# own go.sum holds their sums.
cp "$(go mod download -json "kubevirt.io/containerized-data-importer@${CDI_VERSION}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["Dir"])')/go.sum" go.sum
chmod u+w go.sum
go mod tidy
