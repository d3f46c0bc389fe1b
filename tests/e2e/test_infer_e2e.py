"""``kubectl instancetype infer`` and ``label`` through the real kubectl (v1.36.3) against the local control plane."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import (
    IT_LABEL as IT,
)
from tests.conftest import (
    PREF_LABEL as PREF,
)
from tests.conftest import (
    pvc_object as pvc,
)

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]

NS = "infer-e2e"


@pytest.fixture
def kubectl(control_plane, plugin_path, tmp_path):
    """Run the real kubectl with the plugin on PATH."""

    def invoke(*args: str, user: str = "admin") -> subprocess.CompletedProcess:
        environ = {"PATH": plugin_path, "HOME": str(tmp_path), "KUBECONFIG": str(control_plane.kubeconfig(user))}
        return subprocess.run(
            [str(control_plane.kubectl), *args], env=environ, capture_output=True, text=True, timeout=60
        )

    return invoke


@pytest.fixture
def claims(control_plane) -> None:
    control_plane.ensure_namespace(NS)
    control_plane.apply(pvc(NS, "fedora", {IT: "u1.medium", PREF: "fedora"}))
    control_plane.apply(pvc(NS, "blank"))


def test_infer_pvc_through_kubectl(kubectl, claims) -> None:
    result = kubectl("instancetype", "infer", "pvc/fedora", "-n", NS, "-o", "wide")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "MATCHER        NAME        KIND     RESULT     CHAIN",
        f"instancetype   u1.medium   <none>   inferred   PersistentVolumeClaim {NS}/fedora -> labels",
        f"preference     fedora      <none>   inferred   PersistentVolumeClaim {NS}/fedora -> labels",
    ]


def test_label_then_infer_through_kubectl(kubectl, claims) -> None:
    labelled = kubectl(
        "instancetype",
        "label",
        "pvc/blank",
        "-n",
        NS,
        "--default-instancetype",
        "u1.small",
        "--default-preference",
        "rhel.9",
    )
    assert (labelled.returncode, labelled.stdout) == (0, "persistentvolumeclaim/blank labeled\n")
    # kubectl itself sees the labels the plugin wrote
    escaped = IT.replace(".", "\\.")
    shown = kubectl("get", "pvc/blank", "-n", NS, "-o", "jsonpath={.metadata.labels['" + escaped + "']}")
    assert shown.stdout == "u1.small"
    result = kubectl("instancetype", "infer", "pvc", "blank", "-n", NS)
    assert result.stdout.splitlines()[1].split() == ["instancetype", "u1.small", "<none>", "inferred"]


def test_infer_missing_pvc_fails_in_one_line(kubectl, claims) -> None:
    result = kubectl("instancetype", "infer", "pvc/nothing", "-n", NS)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == 'error: persistentvolumeclaims "nothing" not found\n'
