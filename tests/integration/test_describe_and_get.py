"""describe, get and global flags before the command, against the local control plane."""

from __future__ import annotations

import time

import pytest

from kubectl_instancetype.cli.commands import hoist_global_flags

pytestmark = [pytest.mark.controlplane]

VM = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "describe-user", "namespace": "catalog"},
    "spec": {
        "runStrategy": "Halted",
        "instancetype": {"name": "u1.medium"},
        "preference": {"name": "fedora", "kind": "VirtualMachineClusterPreference"},
        "template": {"spec": {"domain": {"devices": {}}}},
    },
}


@pytest.fixture
def vm_user(control_plane):
    control_plane.apply(VM)
    yield
    control_plane.delete(VM)
    # virt-controller's finalizer keeps the VM a moment: the next test's apply must not find it terminating
    for _ in range(300):
        if control_plane.get(VM) is None:
            break
        time.sleep(0.1)


def page_fields(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith(" "):
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def test_describe_instancetype(cli, vm_user) -> None:
    result = cli("describe", "vmcf/u1.medium")
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    fields = page_fields(result.stdout)
    assert fields["Name"] == "u1.medium"
    assert fields["Kind"] == "VirtualMachineClusterInstancetype (vmcf, instancetype.kubevirt.io)"
    assert fields["Catalog"] == "common-instancetypes v1.7.0 (kubevirt.io)"
    assert "  CPU:     1 vCPU\n  Memory:  4Gi\n" in result.stdout
    assert "fedora" in fields["Preferences it satisfies"].split(", ")
    assert "windows.11" not in fields["Preferences it satisfies"]  # requires 2 vCPUs
    assert "  virtualmachine/describe-user in catalog\n" in result.stdout
    assert fields["Measured use"] == "kubectl instancetype rightsize vm/NAME -n NAMESPACE --prometheus-url URL"


def test_describe_preference_lists_the_smallest_fitting_types_and_users(cli, vm_user) -> None:
    result = cli("describe", "fedora")  # a NAME alone: no such instance type, so the preference
    assert result.exit_code == 0, result.stderr
    fields = page_fields(result.stdout)
    assert fields["Kind"].startswith("VirtualMachineClusterPreference (vmcp")
    assert fields["Instance types that satisfy it"].startswith("u1.small, ")
    assert "  virtualmachine/describe-user in catalog\n" in result.stdout
    assert "  devices.preferredDiskBus:" in result.stdout


def test_describe_missing_names_the_scopes_and_close_names(cli) -> None:
    result = cli("describe", "vmcp/fedor")
    assert result.exit_code == 1
    assert result.stderr == (
        'error: no preference named "fedor" cluster-wide (virtualmachineclusterpreferences); '
        'for "fedor" did you mean fedora?\n'
    )


def test_global_flags_before_the_command(cli) -> None:
    result = cli("-n", "catalog", "list", "--namespaced", "--cpu", "4", "--class", "general.purpose", "-o", "name")
    assert (result.exit_code, result.stdout) == (0, "virtualmachineinstancetype.instancetype.kubevirt.io/u1.xlarge\n")
    assert hoist_global_flags(["--context=x", "-v", "6", "create", "vm", "--", "a"]) == [
        "create",
        "vm",
        "--context=x",
        "-v",
        "6",
        "--",
        "a",
    ]
    assert hoist_global_flags(["--help"]) == ["--help"]


def test_get_prints_one_object_alone(cli) -> None:
    result = cli("get", "vmcf/u1.medium", "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterInstancetype\n"
    )
    several = cli("get", "vmcp", "fedora", "windows.11", "-o", "jsonpath={.kind}:{.items[*].metadata.name}")
    assert several.stdout == "List:fedora windows.11"
    nothing = cli("get")
    assert (nothing.exit_code, nothing.stdout) == (1, "")
    assert nothing.stderr.startswith("error: you must specify the type of resource to get: a kind (vmcf, ")


def test_get_with_a_kind_alone_prints_every_object_of_it(cli) -> None:
    """kubectl get vmcp prints them all; so does the plugin's get (the same rows as list vmcp)."""
    got = cli("get", "vmcp", "-o", "name")
    assert got.exit_code == 0, got.stderr
    assert got.stdout == cli("list", "vmcp", "-o", "name").stdout
    assert "virtualmachineclusterpreference.instancetype.kubevirt.io/fedora\n" in got.stdout
