"""Impersonation on the real API server: the admin acting ``--as`` a restricted user (or through the kubeconfig's
``as``) is refused exactly where the real kubectl, impersonating the same way, is refused; a user who may not
impersonate is refused as kubectl is."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.controlplane

CLUSTER_FORBIDDEN = (
    'virtualmachineclusterinstancetypes.instancetype.kubevirt.io is forbidden: User "{user}" cannot list resource '
    '"virtualmachineclusterinstancetypes" in API group "instancetype.kubevirt.io" at the cluster scope'
)


def kubectl(control_plane, *args: str, kubeconfig: Path | None = None) -> subprocess.CompletedProcess:
    path = kubeconfig or control_plane.kubeconfig("admin")
    return subprocess.run(
        [str(control_plane.kubectl), "--kubeconfig", str(path), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def admin_kubeconfig_acting_as(control_plane, tmp_path: Path, **impersonation) -> Path:
    """The admin kubeconfig with ``as``/``as-groups``... in its user entry."""
    import yaml

    document = yaml.safe_load(control_plane.kubeconfig("admin").read_text())
    for entry in document["users"]:
        entry["user"].update(impersonation)
    path = tmp_path / "kubeconfig-acting"
    path.write_text(json.dumps(document))
    return path


def test_as_flag_is_refused_where_kubectl_is_refused(control_plane, without_instancetype_view) -> None:
    admin = str(control_plane.kubeconfig("admin"))
    ours = run_cli(["list", "--scope=cluster", "--kubeconfig", admin, "--as", "mallory"])
    theirs = kubectl(control_plane, "get", "virtualmachineclusterinstancetypes", "--as", "mallory")
    assert theirs.returncode == 1
    assert theirs.stderr.strip() == "Error from server (Forbidden): " + CLUSTER_FORBIDDEN.format(user="mallory")
    assert ours.exit_code == 1
    assert ours.stderr == "error: " + CLUSTER_FORBIDDEN.format(user="mallory") + "\n"


def test_as_flag_sees_what_the_impersonated_user_sees(control_plane) -> None:
    admin = str(control_plane.kubeconfig("admin"))
    acting = run_cli(
        ["list", "-n", "carol", "--kubeconfig", admin, "--as", "carol", "--cpu", "1", "--size", "nano", "-o", "name"]
    )
    direct = run_cli(
        [
            "list",
            "-n",
            "carol",
            "--kubeconfig",
            str(control_plane.kubeconfig("carol")),
            "--cpu",
            "1",
            "--size",
            "nano",
            "-o",
            "name",
        ]
    )
    assert acting.exit_code == 0, acting.stderr
    assert (acting.stdout, acting.stderr) == (direct.stdout, direct.stderr)
    assert acting.stderr.startswith("Warning: virtualmachineinstancetypes.instancetype.kubevirt.io is forbidden")


def test_as_group_grants_what_the_group_may(control_plane) -> None:
    admin = str(control_plane.kubeconfig("admin"))
    ours = run_cli(
        ["list", "--scope=cluster", "--kubeconfig", admin, "--as", "mallory", "--as-group", "system:masters"]
    )
    theirs = kubectl(
        control_plane, "get", "virtualmachineclusterinstancetypes", "--as", "mallory", "--as-group", "system:masters"
    )
    assert theirs.returncode == 0 and ours.exit_code == 0, ours.stderr
    assert "u1.nano" in ours.stdout and "u1.nano" in theirs.stdout


def test_kubeconfig_as_is_honoured_as_kubectl_honours_it(
    control_plane, tmp_path: Path, without_instancetype_view
) -> None:
    path = admin_kubeconfig_acting_as(control_plane, tmp_path, **{"as": "mallory"})
    ours = run_cli(["list", "--scope=cluster", "--kubeconfig", str(path)])
    theirs = kubectl(control_plane, "get", "virtualmachineclusterinstancetypes", kubeconfig=path)
    assert theirs.returncode == 1 and CLUSTER_FORBIDDEN.format(user="mallory") in theirs.stderr
    assert ours.stderr == "error: " + CLUSTER_FORBIDDEN.format(user="mallory") + "\n"


def test_kubeconfig_as_groups_without_as_is_refused_as_kubectl_refuses_it(control_plane, tmp_path: Path) -> None:
    path = admin_kubeconfig_acting_as(control_plane, tmp_path, **{"as-groups": ["system:masters"]})
    ours = run_cli(["list", "--scope=cluster", "--kubeconfig", str(path)])
    theirs = kubectl(control_plane, "get", "virtualmachineclusterinstancetypes", kubeconfig=path)
    assert theirs.returncode == 1
    sentence = "without impersonating a user"
    assert sentence in theirs.stderr
    assert ours.exit_code == 1 and sentence in ours.stderr and ours.stderr.count("\n") == 1


def test_a_user_who_may_not_impersonate_is_refused(control_plane, without_instancetype_view) -> None:
    mallory = str(control_plane.kubeconfig("mallory"))
    ours = run_cli(["list", "--scope=cluster", "--kubeconfig", mallory, "--as", "admin"])
    theirs = kubectl(
        control_plane, "get", "virtualmachineclusterinstancetypes", "--as", "admin", kubeconfig=Path(mallory)
    )
    # the server's sentence (Kubernetes 1.36 words it per verb: "cannot impersonate-on:user-info:list ..."); kubectl
    # first logs its failed discovery of the aggregated APIs (KubeVirt's and CDI's) on lines of their own
    prefix = "Error from server (Forbidden): "
    last = theirs.stderr.strip().splitlines()[-1]
    assert theirs.returncode == 1 and last.startswith(prefix) and "cannot impersonate" in last
    assert ours.exit_code == 1
    assert ours.stderr == "error: " + last[len(prefix) :] + "\n"
