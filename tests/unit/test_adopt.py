"""adopt's choices and proof, on the embedded common-instancetypes catalog and KubeVirt's expansion rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.instancetype.adopt import Difference, adopt, need_of, os_hints

CATALOG = load_catalog()


def _by_name(objects: Any, name: str) -> Any:
    return next(obj for obj in objects if obj["metadata"]["name"] == name)


def flat(domain: dict[str, Any], annotations: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": {"domain": domain, **spec}}
    if annotations:
        template["metadata"] = {"annotations": annotations}
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "flat"},
        "spec": {"runStrategy": "Halted", "template": template},
    }


def test_an_exact_fit_proves_identical() -> None:
    """A VM written the way u1.medium + fedora expand: adopting it changes nothing."""
    fedora = _by_name(CATALOG.preferences, "fedora")["spec"]
    vm = flat(
        {
            "cpu": {"sockets": 1, "cores": 1, "threads": 1},
            "memory": {"guest": "4Gi"},
            "devices": {"disks": [{"name": "root", "disk": {"bus": "virtio"}}], "rng": {}},
        },
        {"vm.kubevirt.io/os": "fedora"},
        volumes=[{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
    )
    first = adopt(vm, CATALOG.instancetypes, CATALOG.preferences)
    # whatever the preference adds is listed; written into the VM, the adoption is exact
    assert first.instancetype["metadata"]["name"] == "u1.medium"
    assert first.preference["metadata"]["name"] == "fedora" and fedora
    from kubectl_instancetype.instancetype.expand import expand_vm

    completed = copy.deepcopy(vm)
    expanded = expand_vm(first.vm, first.instancetype["spec"], first.preference["spec"]).vm
    completed["spec"]["template"]["spec"] = copy.deepcopy(expanded["spec"]["template"]["spec"])
    second = adopt(completed, CATALOG.instancetypes, CATALOG.preferences)
    assert second.identical, second.changes
    assert second.compared > 10
    assert "spec.template.spec.domain.cpu.sockets" in second.removed


def test_changes_are_listed_field_by_field() -> None:
    vm = flat({"cpu": {"sockets": 2}, "memory": {"guest": "8Gi"}, "devices": {}}, {"vm.kubevirt.io/os": "fedora"})
    result = adopt(vm, CATALOG.instancetypes, CATALOG.preferences)
    assert result.instancetype["metadata"]["name"] == "u1.large"
    paths = [change.path for change in result.changes]
    assert "domain.devices.rng" in paths  # fedora's preferredRng adds one
    assert result.vm["spec"]["instancetype"] == {"name": "u1.large"}
    assert result.vm["spec"]["preference"] == {"name": "fedora"}
    assert "cpu" not in result.vm["spec"]["template"]["spec"]["domain"]  # emptied by the removal, not left as {}


def test_a_forced_smaller_type_shows_the_memory_change() -> None:
    vm = flat({"cpu": {"sockets": 2}, "memory": {"guest": "8Gi"}, "devices": {}})
    small = _by_name(CATALOG.instancetypes, "u1.small")
    result = adopt(vm, CATALOG.instancetypes, CATALOG.preferences, instancetype=small)
    assert Difference("domain.memory.guest", "8Gi", "2Gi") in result.changes
    assert Difference("domain.cpu.sockets", 2, 1) in result.changes


def test_resources_conflicting_with_the_type_are_removed() -> None:
    vm = flat(
        {"resources": {"requests": {"memory": "4Gi", "cpu": "1"}, "limits": {"memory": "4Gi"}}, "devices": {}},
    )
    result = adopt(vm, CATALOG.instancetypes, CATALOG.preferences)
    assert need_of(vm).memory == 4 * 2**30 and need_of(vm).vcpus == 1
    assert result.instancetype["metadata"]["name"] == "u1.medium"
    assert set(result.removed) >= {"spec.template.spec.domain.resources.requests.memory"}
    assert result.notes and "pass --preference" in result.notes[0]


@pytest.mark.parametrize(
    ("labels", "annotations", "image", "expected"),
    [
        ({"os.template.kubevirt.io/rhel9.4": "true"}, {}, None, "rhel.9"),
        ({}, {"vm.kubevirt.io/os": "windows2k22"}, None, "windows.2k22"),
        ({}, {}, "quay.io/containerdisks/centos-stream:9", None),
        ({}, {}, "quay.io/containerdisks/debian:12", "debian"),
    ],
)
def test_preference_from_guest_os_hints(labels: Any, annotations: Any, image: Any, expected: Any) -> None:
    vm = flat({"cpu": {"sockets": 4}, "memory": {"guest": "16Gi"}, "devices": {}})
    vm["spec"]["template"]["metadata"] = {"labels": labels, "annotations": annotations}
    if image:
        vm["spec"]["template"]["spec"]["volumes"] = [{"name": "root", "containerDisk": {"image": image}}]
    assert os_hints(vm)
    result = adopt(vm, CATALOG.instancetypes, CATALOG.preferences)
    chosen = result.preference["metadata"]["name"] if result.preference else None
    if expected is None:
        assert chosen is None or chosen.startswith("centos")
    else:
        assert chosen is not None and chosen.startswith(expected), chosen


def test_dedicated_cpus_pick_a_dedicated_series() -> None:
    vm = flat({"cpu": {"cores": 2, "dedicatedCpuPlacement": True}, "memory": {"guest": "8Gi"}, "devices": {}})
    result = adopt(vm, CATALOG.instancetypes, CATALOG.preferences)
    assert result.instancetype["spec"]["cpu"]["dedicatedCPUPlacement"] is True


def test_nothing_fits_and_already_typed() -> None:
    huge = adopt(flat({"cpu": {"cores": 512}, "devices": {}}), CATALOG.instancetypes, CATALOG.preferences)
    assert huge.vm is None and huge.problems[0].startswith("no instance type has at least 512 vCPU")
    typed = flat({"devices": {}})
    typed["spec"]["instancetype"] = {"name": "u1.small"}
    assert adopt(typed, CATALOG.instancetypes, CATALOG.preferences).problems == [
        "the VM already has an instance type or preference: use switch to change them"
    ]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--instancetype", "vmcf/u1.large"], "u1.large"),
        (["--instancetype", "virtualmachineclusterinstancetype/u1.large"], "u1.large"),
        (["--instancetype", "u1.large", "--preference", "vmcp/fedora"], "u1.large"),
    ],
)
def test_kind_prefixes_as_create_vm_takes_them(tmp_path, flags: list[str], expected: str) -> None:
    """Issue 29: adopt --instancetype vmf/clarge said "no such instancetype among the candidates"."""
    import json

    from tests.conftest import run_cli

    path = tmp_path / "vm.json"
    path.write_text(json.dumps(flat({"cpu": {"sockets": 2}, "memory": {"guest": "8Gi"}, "devices": {}})))
    result = run_cli(["adopt", "-f", str(path), "--catalog", *flags, "-o", "jsonpath={.spec.instancetype.name}"])
    assert (result.exit_code, result.stdout) == (0, expected), result.stderr
    wrong = run_cli(["adopt", "-f", str(path), "--catalog", "--instancetype", "vmp/u1.large"])
    assert (wrong.exit_code, wrong.stderr) == (
        1,
        'error: invalid --instancetype kind "vmp", supported values are: virtualmachineinstancetype, '
        "virtualmachineclusterinstancetype\n",
    )
    namespaced = run_cli(["adopt", "-f", str(path), "--catalog", "--instancetype", "vmf/u1.large"])
    assert (namespaced.exit_code, namespaced.stderr) == (
        1,
        'error: --instancetype "vmf/u1.large": no such instancetype among the candidates\n',
    )
