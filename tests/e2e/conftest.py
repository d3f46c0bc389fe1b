"""Session fixtures for the packaging tests: the real krew and the frozen krew package, each built once."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def krew_binaries() -> Path:
    """The folder holding ``kubectl-krew`` and ``validate-krew-manifest`` (hack/krew/build.sh, cached)."""
    if not shutil.which("go"):
        pytest.skip("Go is not installed: cannot build krew")
    result = subprocess.run(["bash", str(REPO / "hack" / "krew" / "build.sh")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return Path(result.stdout.strip().splitlines()[-1])


@dataclass
class KrewPackage:
    """What ``make krew`` produces, built into a folder of the test session."""

    archive: Path
    manifest: Path


@pytest.fixture(scope="session")
def krew_package(tmp_path_factory: pytest.TempPathFactory) -> KrewPackage:
    """The frozen one-folder build (cached by source hash), packed, with its krew-index manifest."""
    from hack.krew import package

    archive, manifest, _ = package(tmp_path_factory.mktemp("krew-package"))
    return KrewPackage(archive, manifest)


@dataclass
class PythonDist:
    """What ``make dist`` builds and ``make dist-check`` checked: the sdist, the wheel, and the clean virtualenv
    the wheel was installed into (its executables already ran once)."""

    sdist: Path
    wheel: Path
    venv_bin: Path
    log: list[str]


@pytest.fixture(scope="session")
def python_dist(tmp_path_factory: pytest.TempPathFactory) -> PythonDist:
    """The release's Python step, once per session: ``uv build``, ``twine check --strict``, the wheel installed
    into a new virtualenv and run (hack.release.build_dist and check_dist)."""
    from hack.release import build_dist, check_dist, venv_bin

    root = tmp_path_factory.mktemp("python-dist")
    sdist, wheel = build_dist(root / "dist")
    log = check_dist(root / "dist", root / "venv")
    return PythonDist(sdist, wheel, venv_bin(root / "venv"), log)
