"""``python -m hack.krew [--out DIR]`` (``make krew``): freeze, pack and write the manifest for this machine.

``python -m hack.krew manifest [--out DIR] [--require-all]`` only writes the manifest from the archives
already in DIR (a release's last step, after gathering every platform's archive).
"""

import argparse
import sys
from pathlib import Path

from hack.freeze import FreezeError

from . import REPO, PackageError, package, write_manifest

parser = argparse.ArgumentParser(prog="python -m hack.krew")
parser.add_argument("step", nargs="?", choices=["all", "manifest"], default="all")
parser.add_argument("--out", type=Path, default=REPO / "dist" / "krew")
parser.add_argument("--require-all", action="store_true", help="fail unless every platform has an archive")
args = parser.parse_args()
try:
    if args.step == "manifest":
        manifest, missing = write_manifest(args.out, require_all=args.require_all)
    else:
        archive, manifest, missing = package(args.out)
        print(archive)
    print(manifest)
    if missing:
        sys.stderr.write(f"not in the manifest (no archive built here): {', '.join(missing)}\n")
except (FreezeError, PackageError) as exc:
    sys.stderr.write(f"error: {exc}\n")
    sys.exit(1)
