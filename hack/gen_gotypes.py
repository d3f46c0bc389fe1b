#!/usr/bin/env python3
"""Write (or check) the Go field table of kubevirt.io/api's ``v1.VirtualMachine`` that
``kubectl_instancetype/golang/gojson.py`` applies (what a Go Unmarshal -> Marshal of the typed VM writes).

    python3 hack/gen_gotypes.py           # builds hack/kubevirtref/gotypes (cached) and writes the table
    python3 hack/gen_gotypes.py --check   # fails when the committed table is not what the Go types say

``make gotypes`` runs the first. Needs Go (the module cache holds kubevirt.io/api at KubeVirt's version).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / "hack" / "kubevirtref" / "build-gotypes.sh"
sys.path.insert(0, str(REPO))

from kubectl_instancetype.golang.gojson import DATA_DIR, VIRTUAL_MACHINE_TABLE  # noqa: E402

TARGET = Path(DATA_DIR) / f"{VIRTUAL_MACHINE_TABLE}.json"


def generate() -> str:
    """The table as the Go types give it (builds the generator once; cached by source hash)."""
    built = subprocess.run(["bash", str(BUILD)], check=True, capture_output=True, text=True, timeout=1800)
    binary = built.stdout.strip().splitlines()[-1]
    return subprocess.run([binary], check=True, capture_output=True, text=True, timeout=120).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table; write nothing")
    args = parser.parse_args()
    text = generate()
    if args.check:
        if TARGET.read_text() != text:
            print(f"{TARGET.relative_to(REPO)} differs from the Go types: run make gotypes", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
