"""Exec credential plugins that cannot be run, hang, or write without end: one line each, within the bounds
(``--request-timeout``, :data:`MAX_OUTPUT`), and no plugin process left behind. The plugin runs before any
request, so no server is needed (the address is never dialled)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kubectl_instancetype.kube.kubeconfig.exec_credential import MAX_OUTPUT
from tests.conftest import exec_plugin_kubeconfig as kubeconfig
from tests.conftest import run_cli

pytestmark = pytest.mark.posix("#!/bin/sh exec plugins and os.kill")

V1 = "client.authentication.k8s.io/v1"


def plugin(tmp_path: Path, body: str) -> str:
    script = tmp_path / "plugin"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return str(script)


def run(tmp_path: Path, command: str, *args: str):
    return run_cli(
        ["version", "--kubeconfig", str(kubeconfig(tmp_path, command)), *args],
        environ={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )


def test_a_missing_absolute_path_is_gos_fork_exec_line(tmp_path: Path) -> None:
    result = run(tmp_path, "/no/such/plugin")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: Unable to connect to the server: getting credentials: exec: fork/exec /no/such/plugin: "
        "no such file or directory\n"
    )


def test_a_missing_relative_path_resolves_against_the_kubeconfig(tmp_path: Path) -> None:
    result = run(tmp_path, "./bin/plugin")
    assert result.stderr == (
        f"error: Unable to connect to the server: getting credentials: exec: fork/exec {tmp_path}/bin/plugin: "
        "no such file or directory\n"
    )


def test_a_plugin_that_is_not_executable(tmp_path: Path) -> None:
    path = tmp_path / "plugin"
    path.write_text("#!/bin/sh\n")
    result = run(tmp_path, str(path))
    assert result.stderr == (
        f"error: Unable to connect to the server: getting credentials: exec: fork/exec {path}: permission denied\n"
    )


def test_a_hanging_plugin_is_bounded_by_the_request_timeout(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    command = plugin(tmp_path, f"echo $$ > {marker}\nexec sleep 60\n")
    started = time.monotonic()
    result = run(tmp_path, command, "--request-timeout", "1s")
    assert time.monotonic() - started < 30  # a bound, not a figure: without it the test would take 60 s
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: Unable to connect to the server: getting credentials: exec: executable {command} did not finish "
        "within --request-timeout=1s\n"
    )
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(pid, 0)  # killed and reaped, not left running


def test_a_plugin_writing_without_end_is_cut_off(tmp_path: Path) -> None:
    command = plugin(tmp_path, "exec cat /dev/zero\n")
    result = run(tmp_path, command, "--request-timeout", "30s")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: Unable to connect to the server: getting credentials: exec: executable {command} wrote more than "
        f"{MAX_OUTPUT >> 20} MiB on stdout, more than a credential holds\n"
    )
