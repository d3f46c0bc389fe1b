"""``expand vm/NAME`` against the real control plane: stored VMs, both kinds of reference, ControllerRevisions
created the way KubeVirt's controller names and labels them, inference, failures and ``--server``."""

from __future__ import annotations

import itertools
import json

import pytest
import yaml

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.instancetype.expand import expand_vm
from kubectl_instancetype.kube.transport import Transport
from tests.conftest import EXPAND_NS as NS
from tests.conftest import halted_vm, revised, run_on

pytestmark = pytest.mark.controlplane

NAMES = (f"expand-vm-{index}" for index in itertools.count())


@pytest.fixture
def namespace(control_plane) -> str:
    control_plane.ensure_namespace(NS)
    return NS


def _catalog_spec(kind: str, name: str) -> dict:
    catalog = load_catalog()
    objects = catalog.instancetypes if "Instancetype" in kind else catalog.preferences
    return next(obj["spec"] for obj in objects if obj["metadata"]["name"] == name)


def test_expand_a_storedhalted_vm(cli, control_plane, namespace, mocker) -> None:
    name = next(NAMES)
    stored = revised(
        control_plane, control_plane.apply(halted_vm(name, namespace, {"name": "u1.medium"}, {"name": "fedora"}))
    )
    spy = mocker.spy(Transport, "request")
    result = cli("expand", f"vm/{name}", "-n", namespace)
    assert (result.exit_code, result.stderr) == (0, "")
    # one GET for the VM, one per reference: the ControllerRevisions virt-controller recorded in its status
    assert sorted(call.args[2].split("?")[0].rsplit("/", 2)[-2] for call in spy.call_args_list) == [
        "controllerrevisions",
        "controllerrevisions",
        "virtualmachines",
    ]
    expected = expand_vm(
        stored,
        _catalog_spec("VirtualMachineClusterInstancetype", "u1.medium"),
        _catalog_spec("VirtualMachineClusterPreference", "fedora"),
    ).vm
    assert yaml.safe_load(result.stdout) == expected
    template = expected["spec"]["template"]
    assert template["spec"]["domain"]["memory"] == {"guest": "4Gi"}
    assert template["spec"]["domain"]["devices"]["disks"] == [{"disk": {"bus": "virtio"}, "name": "containerdisk"}]
    # the preference's annotation, beside what KubeVirt's webhook adds (v1.9: kubevirt.io/pci-topology-version)
    assert template["metadata"]["annotations"]["vm.kubevirt.io/os"] == "linux"


def test_namespaced_kinds_explain_and_diff(cli, control_plane) -> None:
    name = next(NAMES)
    control_plane.apply(
        halted_vm(
            name,
            "catalog",
            {"kind": "VirtualMachineInstancetype", "name": "o1.medium"},
            {"kind": "virtualmachinepreference", "name": "ubuntu"},
        )
    )
    explained = cli("expand", f"vm/{name}", "-n", "catalog", "--explain")
    assert explained.exit_code == 0, explained.stderr
    rows = {line.split()[0]: line.split()[1:] for line in explained.stdout.splitlines()[1:]}
    assert rows["spec.template.spec.domain.resources.requests.memory"] == ["2Gi", "instancetype"]  # o1: 50 % overcommit
    assert rows["spec.template.spec.domain.devices.disks[0].disk.bus"] == ["virtio", "preference"]
    diff = cli("expand", f"vm/{name}", "-n", "catalog", "--diff")
    assert diff.exit_code == 0 and "+      memory: 2Gi\n" in diff.stdout


def test_revision_name_and_status_refs(cli, control_plane, namespace) -> None:
    # virt-controller records the instance type as it is when the VM is created; the instance type then changes
    # (2 vCPUs -> 1) and the expansion keeps using the recorded revision.
    instancetype = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "pinned-type", "namespace": namespace},
        "spec": {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}},
    }
    control_plane.delete(instancetype)
    control_plane.apply(instancetype)
    matcher = {"kind": "VirtualMachineInstancetype", "name": "pinned-type"}
    stored = revised(control_plane, control_plane.apply(halted_vm(next(NAMES), namespace, matcher, None)))
    revision = stored["status"]["instancetypeRef"]["controllerRevisionRef"]["name"]
    live = control_plane.get(instancetype)
    live["spec"]["cpu"]["guest"] = 1
    path = f"/apis/instancetype.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachineinstancetypes/pinned-type"
    status, answer = control_plane.request("PUT", path, live)
    assert status == 200, answer

    # v1.5+: the reference lives in status; it only counts while it is for the matcher's current name
    result = cli("expand", f"vm/{stored['metadata']['name']}", "-n", namespace, "-o", "json")
    assert result.exit_code == 0, result.stderr
    expanded = json.loads(result.stdout)
    assert expanded["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 2
    assert "instancetypeRef" not in (expanded.get("status") or {})

    # before v1.5 the controller wrote the revision's name into the matcher (spec.instancetype.revisionName)
    pinned = revised(control_plane, control_plane.apply(halted_vm(next(NAMES), namespace, matcher, None)))
    path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{pinned['metadata']['name']}"
    for _ in range(20):  # virt-controller writes the VM too: again on a conflict
        pinned = control_plane.get(pinned)
        pinned["spec"]["instancetype"]["revisionName"] = revision
        status, answer = control_plane.request("PUT", path, pinned)
        if status != 409:
            break
    assert status == 200, answer
    result = cli("expand", f"vm/{pinned['metadata']['name']}", "-n", namespace, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 2


def test_infer_from_a_labelled_pvc(cli, control_plane, namespace) -> None:
    control_plane.apply(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "expand-fedora-root",
                "namespace": namespace,
                "labels": {
                    "instancetype.kubevirt.io/default-instancetype": "u1.large",
                    "instancetype.kubevirt.io/default-preference": "fedora",
                },
            },
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }
    )
    name = next(NAMES)
    template = {
        "domain": {"devices": {}, "memory": {"guest": "512Mi"}},
        "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "expand-fedora-root"}}],
    }
    policy = {"inferFromVolume": "root", "inferFromVolumeFailurePolicy": "Ignore"}
    control_plane.apply(halted_vm(name, namespace, dict(policy), dict(policy), **template))
    result = cli("expand", f"vm/{name}", "-n", namespace)
    assert result.exit_code == 0, result.stderr
    domain = yaml.safe_load(result.stdout)["spec"]["template"]["spec"]["domain"]
    assert domain["memory"] == {"guest": "8Gi"} and domain["cpu"]["sockets"] == 2


def test_failures(cli, control_plane, namespace) -> None:
    missing = next(NAMES)
    control_plane.apply(halted_vm(missing, namespace, {"name": "u1.nope"}, None))
    result = cli("expand", f"vm/{missing}", "-n", namespace)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == 'error: virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u1.nope" not found\n'

    # KubeVirt's webhook admits a VM whose instance type does not exist yet; the conflict appears when it does.
    conflicting = next(NAMES)
    later = {"kind": "VirtualMachineInstancetype", "name": f"{conflicting}-type"}
    control_plane.apply(halted_vm(conflicting, namespace, later, None, domain={"devices": {}, "cpu": {"cores": 2}}))
    control_plane.apply(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": later["name"], "namespace": namespace},
            "spec": {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}},
        }
    )
    result = cli("expand", f"vm/{conflicting}", "-n", namespace)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "error: VM field(s) spec.template.spec.domain.cpu.cores conflicts with selected instance type\n",
    )

    result = cli("expand", "vm/does-not-exist", "-n", namespace)
    assert (result.exit_code, result.stdout) == (1, "")
    assert "does-not-exist" in result.stderr and "not found" in result.stderr


def test_server_side_expansion_needs_kubevirt(bare_plane, tmp_path) -> None:
    name, namespace = next(NAMES), "no-kubevirt"
    bare_plane.ensure_namespace(namespace)
    bare_plane.apply(halted_vm(name, namespace, {"name": "u1.medium"}, None))
    result = run_on(bare_plane, "expand", f"vm/{name}", "-n", namespace, "--server")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: the server does not serve KubeVirt's expand-spec subresource (subresources.kubevirt.io/v1); "
        "expand without --server to expand locally\n"
    )
    manifest = tmp_path / "vm.yaml"
    manifest.write_text(yaml.safe_dump(halted_vm("from-file", namespace, {"name": "u1.medium"}, None)))
    result = run_on(bare_plane, "expand", "-f", str(manifest), "--server")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "expand-vm-spec subresource" in result.stderr
