"""The real kubectl finds ``kubectl instancetype`` on PATH and runs it against the local control plane."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]


@pytest.fixture
def kubectl(control_plane, plugin_path, tmp_path):
    """Run the real kubectl (v1.36.3, built by the harness) with the plugin on PATH."""

    def invoke(*args: str, user: str = "admin") -> subprocess.CompletedProcess:
        environ = {"PATH": plugin_path, "HOME": str(tmp_path), "KUBECONFIG": str(control_plane.kubeconfig(user))}
        return subprocess.run(
            [str(control_plane.kubectl), *args], env=environ, capture_output=True, text=True, timeout=60
        )

    return invoke


def test_done_when_through_kubectl(kubectl) -> None:
    result = kubectl("instancetype", "list", "--min-cpu", "4", "--max-cpu", "4", "--class", "general.purpose")
    assert (result.returncode, result.stderr) == (0, "")
    header, *rows = result.stdout.splitlines()
    assert header.startswith("NAME        KIND      CPU   MEMORY   CLASS             AGE")
    assert [row.split()[:5] for row in rows] == [["u1.xlarge", "cluster", "4", "16Gi", "general.purpose"]]


def test_plugin_is_listed_by_kubectl(kubectl) -> None:
    result = kubectl("plugin", "list", "--name-only")
    assert "kubectl-instancetype" in result.stdout.split()


def test_version_through_kubectl(kubectl) -> None:
    result = kubectl("instancetype", "version")
    assert result.returncode == 0
    assert result.stdout.splitlines()[1] == "Server Version: v1.36.3"


def test_errors_keep_kubectl_exit_status_and_one_line(kubectl, without_instancetype_view) -> None:
    result = kubectl("instancetype", "list", user="mallory")
    # the plugin's exit status and its one line, passed on by kubectl unchanged
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        'error: virtualmachineclusterinstancetypes.instancetype.kubevirt.io is forbidden: User "mallory" cannot list '
        'resource "virtualmachineclusterinstancetypes" in API group "instancetype.kubevirt.io" at the cluster scope; '
        'virtualmachineinstancetypes.instancetype.kubevirt.io is forbidden: User "mallory" cannot list resource '
        '"virtualmachineinstancetypes" in API group "instancetype.kubevirt.io" in the namespace "mallory"\n',
    )


def test_help_uses_the_kubectl_prefix(kubectl) -> None:
    result = kubectl("instancetype", "list", "--help")
    assert result.returncode == 0
    assert "Usage:\n  kubectl instancetype list [KIND] [NAME...] [flags]" in result.stdout


def test_completion_helper_serves_kubectl(kubectl) -> None:
    commands = kubectl("__complete", "instancetype", "")
    assert commands.returncode == 0
    lines = commands.stdout.splitlines()
    assert {"list", "version"} <= {line.split("\t")[0] for line in lines}
    assert lines[-1] == ":4"
    flags = kubectl("__complete", "instancetype", "list", "--min-")
    assert {line.split("\t")[0] for line in flags.stdout.splitlines()[:-1]} == {"--min-cpu", "--min-memory"}
    kinds = kubectl("__complete", "instancetype", "list", "pre")
    assert kinds.stdout.splitlines()[0].split("\t")[0] == "preferences"


def test_create_vm_through_kubectl(kubectl, control_plane) -> None:
    control_plane.ensure_namespace("demo")
    result = kubectl(
        "instancetype",
        "create",
        "vm",
        "--instancetype",
        "u1.medium",
        "--preference",
        "fedora",
        "--volume-containerdisk",
        "src:quay.io/containerdisks/fedora:41",
        "-n",
        "demo",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("virtualmachine.kubevirt.io/vm-") and result.stdout.endswith(" created\n")
    name = result.stdout.split("/", 1)[1].split()[0]
    stored = kubectl(
        "get", "virtualmachine", name, "-n", "demo", "-o", "jsonpath={.spec.instancetype.name}/{.spec.preference.name}"
    )
    assert stored.stdout == "u1.medium/fedora"


def test_create_vm_dry_run_yaml_through_kubectl(kubectl) -> None:
    result = kubectl(
        "instancetype",
        "create",
        "vm",
        "--name",
        "printed",
        "--instancetype",
        "u1.medium",
        "--dry-run=client",
        "-o",
        "yaml",
    )
    assert result.returncode == 0
    assert result.stdout.splitlines()[:5] == [
        "apiVersion: kubevirt.io/v1",
        "kind: VirtualMachine",
        "metadata:",
        "  name: printed",
        "spec:",
    ]


def test_create_vm_missing_instancetype_through_kubectl(kubectl) -> None:
    # KubeVirt admits a VM whose instance type does not exist (v1.6+); the plugin warns with the closest name
    result = kubectl(
        "instancetype", "create", "vm", "--name", "typo", "--instancetype", "u1.mediun", "--dry-run=server"
    )
    assert (result.returncode, result.stdout) == (0, "virtualmachine.kubevirt.io/typo created (server dry run)\n")
    assert result.stderr == (
        'Warning: virtualmachineclusterinstancetype "u1.mediun" not found (did you mean u1.medium?): '
        "a VirtualMachine naming it stays stopped until it exists\n"
    )


def test_every_global_flag_may_come_before_the_command(kubectl, control_plane, without_instancetype_view) -> None:
    """cobra's persistent flags: kubectl's global flags (options.ConnectionFlags) before the command, impersonation
    included, as kubectl takes them."""
    ok = kubectl(
        "instancetype", "--as", "carol", f"--kubeconfig={control_plane.kubeconfig('admin')}", "--request-timeout=30s",
        "list", "--scope=cluster", "--class", "general.purpose", "--size", "medium", "-o", "name",
    )  # fmt: skip
    assert (ok.returncode, ok.stdout, ok.stderr) == (
        0,
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.medium\n",
        "",
    )
    refused = kubectl("instancetype", "--as=mallory", "--as-group", "nobody", "list", "--scope=cluster")
    assert refused.returncode == 1
    assert 'User "mallory"' in refused.stderr and refused.stderr.count("\n") == 1
