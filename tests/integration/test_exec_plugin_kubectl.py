"""A missing absolute exec plugin path: the plugin's line is the real kubectl's last line, word for word."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import exec_plugin_kubeconfig as kubeconfig
from tests.conftest import run_cli

pytestmark = pytest.mark.controlplane


def test_missing_absolute_plugin_path_reads_as_kubectl(control_plane, tmp_path: Path) -> None:
    path = kubeconfig(tmp_path, "/no/such/plugin")
    theirs = subprocess.run(
        [str(control_plane.kubectl), "--kubeconfig", str(path), "get", "namespaces"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    ours = run_cli(["list", "--kubeconfig", str(path)], environ={"HOME": str(tmp_path)})
    assert theirs.stderr.splitlines()[-1] == (
        "Unable to connect to the server: getting credentials: exec: fork/exec /no/such/plugin: no such file or directory"
    )
    assert ours.stderr == "error: " + theirs.stderr.splitlines()[-1] + "\n"
