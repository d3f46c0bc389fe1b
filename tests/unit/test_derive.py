"""derive: the copy, its labels, the checks (hugepages, maxSockets, maxGuest), and the command offline."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.catalog import load_catalog
from kubectl_instancetype.golang.quantity import parse_quantity
from kubectl_instancetype.instancetype.derive import DeriveError, derive
from tests.conftest import run_cli

CATALOG = load_catalog()


def source(name: str) -> dict:
    obj = CATALOG.instancetype(name)
    assert obj is not None
    return obj


def test_derive_memory_relabels() -> None:
    derived = derive(source("u1.medium"), name="u1.medium.6g", memory="6144Mi")
    assert derived == {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {
            "name": "u1.medium.6g",
            "labels": {
                "instancetype.kubevirt.io/class": "general.purpose",
                "instancetype.kubevirt.io/cpu": "1",
                "instancetype.kubevirt.io/derived-from": "u1.medium",
                "instancetype.kubevirt.io/icon-pf": "pficon-server-group",
                "instancetype.kubevirt.io/memory": "6Gi",
                "instancetype.kubevirt.io/version": "1",
            },
            "annotations": {"instancetype.kubevirt.io/displayName": "General Purpose"},
        },
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "6Gi"}},
    }
    # the catalog object is shared and read-only: it must be untouched
    assert source("u1.medium")["spec"] == {"cpu": {"guest": 1}, "memory": {"guest": "4Gi"}}


def test_derive_namespaced_drops_operator_metadata() -> None:
    operated = {
        **source("o1.large"),
        "metadata": {
            **source("o1.large")["metadata"],
            "uid": "x",
            "resourceVersion": "7",
            "labels": {**source("o1.large")["metadata"]["labels"], "app.kubernetes.io/managed-by": "virt-operator"},
            "annotations": {"kubevirt.io/install-strategy-version": "v1.9.0", "kubevirt.io/generation": "2"},
        },
    }
    derived = derive(operated, name="o1.large.3c", cpu=3, namespace="dev")
    assert derived["kind"] == "VirtualMachineInstancetype"
    assert derived["metadata"]["namespace"] == "dev"
    assert "annotations" not in derived["metadata"] and "uid" not in derived["metadata"]
    labels = derived["metadata"]["labels"]
    assert not any(key.startswith("app.kubernetes.io/") for key in labels)
    assert labels["instancetype.kubevirt.io/cpu"] == "3" and labels["instancetype.kubevirt.io/memory"] == "8Gi"
    assert "instancetype.kubevirt.io/size" not in labels and "instancetype.kubevirt.io/vendor" not in labels
    assert derived["spec"]["memory"] == {"guest": "8Gi", "overcommitPercent": 50}


def test_max_sockets_follows_the_vcpus_it_tracked() -> None:
    assert derive(source("cx1.large"), name="x", cpu=6)["spec"]["cpu"]["maxSockets"] == 6
    fixed = {"metadata": {"name": "fixed"}, "spec": {"cpu": {"guest": 2, "maxSockets": 4}, "memory": {"guest": "1Gi"}}}
    assert derive(fixed, name="x", cpu=4)["spec"]["cpu"]["maxSockets"] == 4
    with pytest.raises(
        DeriveError, match=r"^--cpu 6 is more than cpu.maxSockets 4 of fixed: .*maximum sockets allowed\)$"
    ):
        derive(fixed, name="x", cpu=6)


@pytest.mark.parametrize(
    "name,memory,message",
    [
        ("cx1.large1gi", "1536Mi", "--memory 1536Mi is not a multiple of the hugepages page size 1Gi of cx1.large1gi"),
        ("cx1.large1gi", "512Mi", "--memory 512Mi is smaller than the hugepages page size 1Gi of cx1.large1gi"),
        ("m1.large", "3Mi", "--memory 3Mi is not a multiple of the hugepages page size 2Mi of m1.large"),
        ("u1.medium", "0", '--memory must be more than 0 (got "0")'),
        ("u1.medium", "six", 'invalid --memory "six"'),
    ],
)
def test_memory_checks(name: str, memory: str, message: str) -> None:
    with pytest.raises(DeriveError) as raised:
        derive(source(name), name="x", memory=memory)
    assert str(raised.value).startswith(message)


def test_max_guest_and_cpu_floor() -> None:
    bounded = {"metadata": {"name": "b"}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi", "maxGuest": "4Gi"}}}
    with pytest.raises(DeriveError, match="^--memory 8Gi is more than memory.maxGuest 4Gi of b$"):
        derive(bounded, name="x", memory="8Gi")
    with pytest.raises(DeriveError, match=r"^--cpu must be at least 1 \(got 0\)$"):
        derive(bounded, name="x", cpu=0)


def test_long_source_name_becomes_an_annotation() -> None:
    long_name = "a" * 70
    derived = derive(
        {"metadata": {"name": long_name}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}, name="x"
    )
    assert derived["metadata"]["annotations"]["instancetype.kubevirt.io/derived-from"] == long_name
    assert "instancetype.kubevirt.io/derived-from" not in derived["metadata"]["labels"]


@given(pages=st.integers(min_value=1, max_value=512))
def test_whole_pages_of_2mi_are_accepted(pages: int) -> None:
    derived = derive(source("m1.large"), name="x", memory=f"{pages * 2}Mi")
    assert parse_quantity(derived["spec"]["memory"]["guest"]) == pages * 2 * 1024 * 1024
    assert derived["metadata"]["labels"]["instancetype.kubevirt.io/memory"] == derived["spec"]["memory"]["guest"]


# -- the command, offline (--catalog --dry-run=client needs no cluster) -------------------------------------------


def test_derive_command_yaml() -> None:
    result = run_cli(
        [
            "derive",
            "u1.medium",
            "--catalog",
            "--name",
            "u1.medium.6g",
            "--memory",
            "6Gi",
            "--dry-run=client",
            "-o",
            "yaml",
        ]
    )
    assert (result.exit_code, result.stderr) == (0, "")
    obj = yaml.safe_load(result.stdout)
    assert obj["metadata"]["labels"]["instancetype.kubevirt.io/derived-from"] == "u1.medium"
    assert obj["spec"]["memory"]["guest"] == "6Gi"


def test_derive_command_namespaced_dry_run() -> None:
    result = run_cli(
        ["derive", "cx1.large", "--catalog", "--name", "cx1.large.6c", "--cpu", "6", "-n", "dev", "--dry-run"]
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "virtualmachineinstancetype.instancetype.kubevirt.io/cx1.large.6c created (dry run)\n"


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["u1.mediun", "--catalog", "--name", "x", "--dry-run"],
            'error: instance type "u1.mediun" not found in the common-instancetypes v1.7.0 catalog (did you mean u1.medium?)',
        ),
        (
            ["cx1.large1gi", "--catalog", "--name", "x", "--memory", "1536Mi", "--dry-run"],
            "error: --memory 1536Mi is not a multiple of the hugepages page size 1Gi of cx1.large1gi: KubeVirt rejects the VM (memory must be a whole number of pages)",
        ),
        (
            ["pod/x", "--catalog", "--name", "x"],
            'error: invalid source kind "pod", supported values are: virtualmachineinstancetype, virtualmachineclusterinstancetype',
        ),
        (
            ["u1.medium", "--catalog", "--name", "x", "--dry-run=maybe"],
            'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".',
        ),
        (["u1.medium", "--name", "x", "--catalog-version", "v1.7.0"], "error: --catalog-version goes with --catalog"),
    ],
)
def test_derive_errors(args: list[str], message: str) -> None:
    result = run_cli(["derive", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message + "\n")
