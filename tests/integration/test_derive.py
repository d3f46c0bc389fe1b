"""``derive`` against the real control plane: the copy is created, accepted by KubeVirt's schema, and found by list."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import yaml

pytestmark = pytest.mark.controlplane

NAMESPACE = "derive-tests"


@pytest.fixture
def namespace(control_plane) -> str:
    control_plane.ensure_namespace(NAMESPACE)
    return NAMESPACE


@pytest.fixture
def derived(control_plane, namespace) -> Iterator[str]:
    """The name the test derives in ``namespace``, deleted afterwards (other tests count every namespace)."""
    yield "u1.medium.6g"
    control_plane.delete(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "u1.medium.6g", "namespace": namespace},
        }
    )


def test_derive_then_list_by_memory_finds_it(cli, namespace, derived) -> None:
    created = cli("derive", "u1.medium", "--name", "u1.medium.6g", "--memory", "6Gi", "-n", namespace)
    assert (created.exit_code, created.stderr) == (0, "")
    assert created.stdout == "virtualmachineinstancetype.instancetype.kubevirt.io/u1.medium.6g created\n"
    found = cli("list", "--namespaced", "-n", namespace, "--memory", "6Gi")
    assert [line.split()[:4] for line in found.stdout.splitlines()] == [
        ["NAME", "KIND", "CPU", "MEMORY"],
        ["u1.medium.6g", "namespaced", "1", "6Gi"],
    ]
    by_origin = cli(
        "list", "--namespaced", "-n", namespace, "-l", "instancetype.kubevirt.io/derived-from=u1.medium", "-o", "name"
    )
    assert by_origin.stdout == "virtualmachineinstancetype.instancetype.kubevirt.io/u1.medium.6g\n"
    again = cli("derive", "u1.medium", "--name", "u1.medium.6g", "--memory", "6Gi", "-n", namespace)
    assert again.exit_code == 1
    assert again.stderr == (
        'Error from server (AlreadyExists): virtualmachineinstancetypes.instancetype.kubevirt.io "u1.medium.6g" already exists\n'
    )


def test_derive_from_a_namespaced_source(cli) -> None:
    # -n names the namespace of a namespaced source and of the copy; client dry run writes nothing
    result = cli(
        "derive",
        "virtualmachineinstancetype/u1.large",
        "--name",
        "u1.large.3c",
        "--cpu",
        "3",
        "-n",
        "catalog",
        "--dry-run",
        "-o",
        "yaml",
    )
    assert result.exit_code == 0, result.stderr
    obj = yaml.safe_load(result.stdout)
    assert (obj["kind"], obj["metadata"]["namespace"], obj["spec"]["cpu"]["guest"]) == (
        "VirtualMachineInstancetype",
        "catalog",
        3,
    )
    missing = cli("derive", "virtualmachineinstancetype/u1.large", "--name", "x", "-n", "alice")
    assert missing.stderr == (
        'error: virtualmachineinstancetype "u1.large" not found in namespace "alice" '
        '(a VirtualMachineClusterInstancetype named "u1.large" exists: use u1.large)\n'
    )


def test_derive_cluster_scoped_from_the_cluster(cli, control_plane) -> None:
    target = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "cx1.large.6c"},
    }
    try:
        result = cli("derive", "cx1.large", "--name", "cx1.large.6c", "--cpu", "6", "--memory", "12Gi", "-o", "json")
        assert result.exit_code == 0, result.stderr
        answer = json.loads(result.stdout)
        assert answer["metadata"]["uid"]  # the server's answer
        stored = control_plane.get(target)
        assert stored["spec"]["cpu"] == {
            "dedicatedCPUPlacement": True,
            "guest": 6,
            "isolateEmulatorThread": True,
            "maxSockets": 6,
            "numa": {"guestMappingPassthrough": {}},
        }
        assert stored["metadata"]["labels"]["instancetype.kubevirt.io/cpu"] == "6"
        listed = cli("list", "--scope=cluster", "--cpu", "6", "-o", "name")
        assert listed.stdout == "virtualmachineclusterinstancetype.instancetype.kubevirt.io/cx1.large.6c\n"
    finally:
        control_plane.delete(target)


def test_server_dry_run_and_checks_send_nothing(cli, control_plane, namespace) -> None:
    dry = cli(
        "derive",
        "m1.large",
        "--name",
        "m1.large.20g",
        "--memory",
        "20Gi",
        "--namespaced",
        "-n",
        namespace,
        "--dry-run=server",
        "-o",
        "yaml",
    )
    assert dry.exit_code == 0, dry.stderr
    assert yaml.safe_load(dry.stdout)["spec"]["memory"] == {"guest": "20Gi", "hugepages": {"pageSize": "2Mi"}}
    assert (
        control_plane.get(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": "VirtualMachineInstancetype",
                "metadata": {"name": "m1.large.20g", "namespace": namespace},
            }
        )
        is None
    )
    refused = cli("derive", "cx1.large1gi", "--name", "x", "--memory", "1536Mi", "-n", namespace)
    assert refused.exit_code == 1
    assert refused.stderr.startswith(
        "error: --memory 1536Mi is not a multiple of the hugepages page size 1Gi of cx1.large1gi"
    )
    missing = cli("derive", "u1.mediun", "--name", "x")
    assert (
        missing.stderr == 'error: virtualmachineclusterinstancetype "u1.mediun" not found (did you mean u1.medium?)\n'
    )
