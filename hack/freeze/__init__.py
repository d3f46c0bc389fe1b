"""The frozen one-folder build of the plugin (PyInstaller ``--onedir``): runs with no Python of ours installed.

krew can ship only an archive of regular files with one executable, and the plugin's dependency closure holds
compiled code (PyYAML's C loader, the official client's dependencies), so the krew package is a frozen build
per os/arch. One-folder rather than one-file: a one-file build unpacks itself into a temporary folder on every
start.

The build is cached by a hash of everything that goes into it (our sources, pyproject.toml, this folder, the
interpreter and platform) under ``~/.cache/kubectl-instancetype/freeze/``; the freezer and the runtime
dependencies live in a build virtualenv of their own there, so the frozen build holds only what the plugin
imports. ``python -m hack.freeze`` builds (or finds) it and prints its folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PACKAGE = "kubectl_instancetype"
EXECUTABLE = "kubectl-instancetype"
# Cached builds unused for this long are removed when another one is made (each is about 40 MB).
STALE_AFTER_SECONDS = 3 * 24 * 3600


class FreezeError(RuntimeError):
    """The frozen build could not be made (the freezer's output tail is in the message)."""


def cache_root() -> Path:
    """``~/.cache/kubectl-instancetype`` (or ``$KUBECTL_INSTANCETYPE_CACHE``, as the Go build scripts use)."""
    explicit = os.environ.get("KUBECTL_INSTANCETYPE_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kubectl-instancetype"


def go_platform() -> tuple[str, str]:
    """This machine's (GOOS, GOARCH), the names krew's selectors use."""
    arch = platform.machine().lower()
    arch = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm", "i686": "386", "i386": "386"}.get(arch, arch)
    return sys.platform.replace("win32", "windows"), arch


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            yield path


def source_hash() -> str:
    """A hash of every input of the frozen build: our package, pyproject.toml, this folder, the interpreter."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version}|{platform.platform()}|{go_platform()}".encode())
    inputs = [*_files(REPO / PACKAGE), *_files(HERE), REPO / "pyproject.toml", REPO / "LICENSE"]
    for path in inputs:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def runtime_requirements() -> list[str]:
    """The plugin's runtime dependencies, as pyproject.toml declares them."""
    with (REPO / "pyproject.toml").open("rb") as handle:
        return list(tomllib.load(handle)["project"]["dependencies"])


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    # Several worktrees (and pytest sessions) share the cache: one builder at a time, the others wait and reuse.
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: a release runner builds alone
        yield
        return
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(argv: list[str], **kwargs: object) -> None:
    result = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        raise FreezeError(f"{' '.join(argv[:3])} ... failed:\n{(result.stdout + result.stderr)[-3000:]}")


def build_venv(root: Path) -> Path:
    """The virtualenv holding the freezer and the runtime dependencies (built once per their versions)."""
    requirements = [*runtime_requirements(), *_freezer_requirements()]
    key = hashlib.sha256(f"{sys.version}|{requirements}".encode()).hexdigest()[:16]
    venv = root / f"venv-py{sys.version_info.major}.{sys.version_info.minor}-{key}"
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    if (venv / ".complete").exists():
        return python
    shutil.rmtree(venv, ignore_errors=True)
    # The interpreter the venv is made from must be a real one (not a venv's), so that the frozen build
    # bundles its shared library; sys._base_executable is that interpreter when we run in a venv.
    base = getattr(sys, "_base_executable", sys.executable)
    _run([base, "-m", "venv", str(venv)])
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements])
    (venv / ".complete").touch()
    return python


def _freezer_requirements() -> list[str]:
    lines = (HERE / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _pyinstaller(python: Path, work: Path) -> Path:
    # What goes in, and which of PyInstaller's run-time hooks are left out, is in the spec file.
    argv = [
        str(python),
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level=WARN",
        f"--distpath={work / 'dist'}",
        f"--workpath={work / 'build'}",
        str(HERE / f"{EXECUTABLE}.spec"),
    ]
    _run(argv, cwd=work)
    return work / "dist" / EXECUTABLE


def _prune(root: Path, keep: Path) -> None:
    now = time.time()
    for entry in root.glob("build-*"):
        if entry != keep and now - entry.stat().st_mtime > STALE_AFTER_SECONDS:
            shutil.rmtree(entry, ignore_errors=True)


def frozen_dir() -> Path:
    """Build the one-folder frozen plugin for this machine (once per source hash) and return its folder.

    The folder holds the executable ``kubectl-instancetype`` and ``_internal/`` (the interpreter, our modules
    and the dependencies).
    """
    root = cache_root() / "freeze"
    goos, goarch = go_platform()
    target = root / f"build-{goos}-{goarch}-{source_hash()}"
    folder = target / EXECUTABLE
    if (target / ".complete").exists():
        os.utime(target)
        return folder
    with _locked(root / ".lock"):
        if (target / ".complete").exists():
            return folder
        python = build_venv(root)
        with tempfile.TemporaryDirectory(prefix="freeze-", dir=root) as tmp:
            built = _pyinstaller(python, Path(tmp))
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            shutil.move(str(built), folder)
        (target / ".complete").touch()
        _prune(root, target)
    return folder
