#!/usr/bin/env bash
# Regenerates go.mod/go.sum of a Go wrapper module around kubevirt.io/kubevirt at one version; run from the
# module's folder by its update-gomod.sh:  kubevirt-gomod.sh MODULE-PATH VERSION [TOOL-PACKAGE...]
# BEFORE_TIDY (optional) is a command run just before `go mod tidy` (extra replaces, a seeded go.sum).
# The replace lines are copied from the published kubevirt.io/kubevirt go.mod; its two local staging replaces
# (./staging/src/kubevirt.io/{api,client-go}) become the published modules of the same version, so a version
# bump is one file.
set -euo pipefail
MODULE="$1" VERSION="$2"
shift 2
export GOFLAGS=-mod=mod
rm -f go.mod go.sum
go mod init "$MODULE" >/dev/null 2>&1
go mod edit -go=1.26.0
GOMOD=$(go mod download -json "kubevirt.io/kubevirt@${VERSION}" | python3 -c 'import json,sys;print(json.load(sys.stdin)["GoMod"])')
go mod edit -json "$GOMOD" | VERSION="$VERSION" python3 -c '
import json, os, sys
version = os.environ["VERSION"]
for r in json.load(sys.stdin).get("Replace") or []:
    old, new = r["Old"]["Path"], r["New"]
    if new["Path"].startswith("./staging/src/"):
        target = new["Path"][len("./staging/src/"):] + "@" + version
    else:
        target = new["Path"] + ("@" + new["Version"] if new.get("Version") else "")
    print(old + "=" + target)' | while read -r replacement; do
  go mod edit -replace="${replacement}"
done
go mod edit -require="kubevirt.io/kubevirt@${VERSION}"
for tool in "$@"; do go mod edit -tool="$tool"; done
if [ -n "${BEFORE_TIDY:-}" ]; then eval "$BEFORE_TIDY"; fi
go mod tidy
