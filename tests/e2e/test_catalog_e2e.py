"""recommend, matrix and catalog diff through the real kubectl (exit statuses included)."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]


@pytest.fixture
def kubectl(control_plane, plugin_path, tmp_path):
    """Run the real kubectl (v1.36.3, built by the harness) with the plugin on PATH."""

    def invoke(*args: str) -> subprocess.CompletedProcess:
        environ = {"PATH": plugin_path, "HOME": str(tmp_path), "KUBECONFIG": str(control_plane.kubeconfig("admin"))}
        return subprocess.run(
            [str(control_plane.kubectl), *args], env=environ, capture_output=True, text=True, timeout=60
        )

    return invoke


def test_recommend_and_matrix_through_kubectl(kubectl) -> None:
    recommended = kubectl("instancetype", "recommend", "--preference", "fedora", "--max", "1", "-o", "name")
    assert (recommended.returncode, recommended.stderr) == (0, "")
    assert recommended.stdout == "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.small\n"
    matrix = kubectl("instancetype", "matrix", "--scope=cluster", "--format", "grid")
    assert matrix.returncode == 0
    assert matrix.stdout.startswith("+----------+")


def test_catalog_diff_exit_code_through_kubectl(kubectl) -> None:
    # the harness loaded the same catalog: nothing differs
    same = kubectl("instancetype", "catalog", "diff", "--instancetypes-only", "--exit-code")
    # nothing on stdout (the patch), one status line on stderr (issue 29: a silent diff read as "did nothing")
    assert (same.returncode, same.stdout, same.stderr) == (
        0,
        "",
        "No differences: the cluster's 65 object(s) match common-instancetypes v1.7.0\n",
    )
    other = kubectl(
        "instancetype", "catalog", "diff", "--namespaced", "-n", "mallory", "--preferences-only", "--exit-code"
    )
    assert other.returncode == 1
    assert other.stdout.startswith(
        "--- /dev/null\n+++ catalog-v1.7.0/virtualmachinepreference.instancetype.kubevirt.io/alpine\n"
    )
