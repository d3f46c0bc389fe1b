"""The Python channels: the release's wheel in a fresh virtualenv, ``pipx install .`` and ``uv tool install .``.

Each installs from the source tree into folders of the test (dependencies come from PyPI, through the
installers' own caches), and the real kubectl then finds both executables with only that install's ``bin``
folder, kubectl's folder and /usr/bin:/bin on PATH: ``kubectl instancetype version --client`` runs the plugin,
``kubectl __complete instancetype ""`` runs the completion helper the package installs: the generated sh script
(a script of the wheel, which all three installers put beside the plugin), answering static lines itself and
handing live ones to the plugin beside it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_instancetype import __version__

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
# The interpreter behind the test virtualenv: new virtualenvs are made from it, not from a venv's copy.
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)
INSTALL_TIMEOUT = 600


def _installer_env(**extra: str) -> dict[str, str]:
    """The test's environment for an installer, without the test virtualenv leaking into it."""
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if Path(sys.prefix) not in Path(p).parents
    )
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


def _install(argv: list[str], **env: str) -> None:
    result = subprocess.run(
        argv, capture_output=True, text=True, env=_installer_env(**env), timeout=INSTALL_TIMEOUT, cwd=REPO
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]


def _kubectl(control_plane, bin_dir: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": f"{bin_dir}:{control_plane.bin_dir}:/usr/bin:/bin",
        "HOME": str(home),
        "KUBECONFIG": str(control_plane.kubeconfig("admin")),
    }
    return subprocess.run(
        [str(control_plane.kubectl), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _assert_works_through_kubectl(control_plane, bin_dir: Path, home: Path) -> None:
    assert (bin_dir / "kubectl-instancetype").is_file()
    helper = bin_dir / "kubectl_complete-instancetype"
    assert helper.read_text().startswith("#!/bin/sh\n")  # the generated sh helper, not a Python console script
    assert helper.read_text() == (REPO / "kubectl_instancetype" / "cli" / "completion_helper.sh").read_text()
    version = _kubectl(control_plane, bin_dir, home, "instancetype", "version", "--client")
    assert (version.returncode, version.stdout, version.stderr) == (0, f"Client Version: v{__version__}\n", "")
    completion = _kubectl(control_plane, bin_dir, home, "__complete", "instancetype", "")
    assert completion.returncode == 0
    lines = completion.stdout.splitlines()
    assert {"list", "version"} <= {line.split("\t")[0] for line in lines}
    assert lines[-1] == ":4"
    # a live line: the sh helper hands it to the plugin installed beside it, which asks the control plane
    live = _kubectl(control_plane, bin_dir, home, "__complete", "instancetype", "-n", "")
    assert live.returncode == 0
    assert {"default", "kube-system"} <= {line.split("\t")[0] for line in live.stdout.splitlines()}


def test_wheel_in_a_fresh_virtualenv(control_plane, python_dist, tmp_path) -> None:
    # the release's wheel (uv build, twine check), installed into a clean virtualenv by hack.release.check_dist
    assert python_dist.wheel.name == f"kubectl_instancetype-{__version__}-py3-none-any.whl"
    _assert_works_through_kubectl(control_plane, python_dist.venv_bin, tmp_path)
    # the server's version too: the installed plugin talks to the control plane
    full = _kubectl(control_plane, python_dist.venv_bin, tmp_path, "instancetype", "version")
    assert full.stdout.splitlines()[:3] == [
        f"Client Version: v{__version__}",
        "Server Version: v1.36.3",
        "KubeVirt Version: v1.9.0",
    ]


def test_pipx_install(control_plane, tmp_path) -> None:
    pipx = tmp_path / "pipx"
    _install(
        [sys.executable, "-m", "pipx", "install", "--python", BASE_PYTHON, str(REPO)],
        PIPX_HOME=str(pipx / "home"),
        PIPX_BIN_DIR=str(pipx / "bin"),
        PIPX_MAN_DIR=str(pipx / "man"),
    )
    _assert_works_through_kubectl(control_plane, pipx / "bin", tmp_path)


def test_uv_tool_install(control_plane, tmp_path) -> None:
    from uv import find_uv_bin

    tools = tmp_path / "uv"
    _install(
        [find_uv_bin(), "tool", "install", "--quiet", str(REPO)],
        UV_TOOL_DIR=str(tools / "tools"),
        UV_TOOL_BIN_DIR=str(tools / "bin"),
        # the interpreter this machine has; uv would otherwise be free to download one
        UV_PYTHON=BASE_PYTHON,
        UV_PYTHON_DOWNLOADS="never",
    )
    _assert_works_through_kubectl(control_plane, tools / "bin", tmp_path)
