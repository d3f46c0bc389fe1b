"""``python -m hack.release STEP``: one step of the release (see :mod:`hack.release`); one ``error:`` line and
exit 1 when a check fails."""

import argparse
import sys
from pathlib import Path

from hack.freeze import FreezeError
from hack.krew import PackageError

from . import (
    PYTHON_DIST_DIR,
    RELEASE_DIR,
    ReleaseError,
    build_dist,
    build_release_archive,
    check_dist,
    check_versions,
    krew_binaries,
    release_assets,
    release_manifest,
    smoke,
)

parser = argparse.ArgumentParser(prog="python -m hack.release")
steps = parser.add_subparsers(dest="step", required=True)
version = steps.add_parser("version", help="the tag, the package, plugin.yaml and .krew.yaml agree")
version.add_argument("--tag", help="the git tag being released (GITHUB_REF_NAME)")
archive = steps.add_parser("archive", help="freeze and pack this platform's archive and its .sha256")
archive.add_argument("--out", type=Path, default=RELEASE_DIR)
smoke_step = steps.add_parser("smoke", help="run the frozen executable of an archive (default: this platform's)")
smoke_step.add_argument("archive", type=Path, nargs="?")
manifest = steps.add_parser("manifest", help="instancetype.yaml from every platform's archive, validated by krew")
manifest.add_argument("--dir", type=Path, default=RELEASE_DIR)
dist = steps.add_parser("dist", help="build the sdist and the wheel")
dist.add_argument("--out", type=Path, default=PYTHON_DIST_DIR)
dist_check = steps.add_parser("dist-check", help="twine check, install the wheel into a clean venv and run it")
dist_check.add_argument("--out", type=Path, default=PYTHON_DIST_DIR)
dist_check.add_argument("--venv", type=Path, default=Path("build") / "dist-check-venv")
assets = steps.add_parser("assets", help="the files the GitHub release carries (all required), one per line")
assets.add_argument("dirs", type=Path, nargs="+")
args = parser.parse_args()

try:
    if args.step == "version":
        print(check_versions(args.tag))
    elif args.step == "archive":
        built = build_release_archive(args.out)
        print(built)
        print(f"{built}.sha256")
    elif args.step == "smoke":
        target = args.archive
        if target is None:
            from hack.freeze import go_platform
            from hack.krew import archive_name

            target = RELEASE_DIR / archive_name(*go_platform())
        print("\n".join(smoke(target)))
    elif args.step == "manifest":
        print("\n".join(release_manifest(args.dir, krew_binaries())))
    elif args.step == "dist":
        for path in build_dist(args.out):
            print(path)
    elif args.step == "assets":
        print("\n".join(str(path) for path in release_assets(args.dirs)))
    elif args.step == "dist-check":
        print("\n".join(check_dist(args.out, args.venv)))
except (ReleaseError, PackageError, FreezeError) as exc:
    sys.stderr.write(f"error: {exc}\n")
    sys.exit(1)
