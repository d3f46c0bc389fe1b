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
from tests.conftest import controller_revision, halted_vm

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


def test_expand_a_stored_vm(cli, control_plane, namespace, mocker) -> None:
    name = next(NAMES)
    stored = control_plane.apply(halted_vm(name, namespace, {"name": "u1.medium"}, {"name": "fedora"}))
    spy = mocker.spy(Transport, "request")
    result = cli("expand", f"vm/{name}", "-n", namespace)
    assert (result.exit_code, result.stderr) == (0, "")
    # one GET for the VM, one per reference
    assert sorted(call.args[2].split("?")[0].rsplit("/", 2)[-2] for call in spy.call_args_list) == [
        "virtualmachineclusterinstancetypes",
        "virtualmachineclusterpreferences",
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
    assert template["metadata"]["annotations"] == {"vm.kubevirt.io/os": "linux"}


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
    # the live u1.small has 1 vCPU; the revisions hold an older spec with 2, as if the object changed since
    older = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}
    pinned = control_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, None))
    pinned["spec"]["instancetype"]["revisionName"] = controller_revision(
        control_plane, pinned, "VirtualMachineClusterInstancetype", "u1.small", older
    )
    path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{pinned['metadata']['name']}"
    status, answer = control_plane.request("PUT", path, pinned)
    assert status == 200, answer
    result = cli("expand", f"vm/{pinned['metadata']['name']}", "-n", namespace, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 2

    # v1.5+: the reference lives in status; it only counts while it is for the matcher's current name
    stored = control_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, None))
    revision = controller_revision(control_plane, stored, "VirtualMachineClusterInstancetype", "u1.small", older)
    stored["status"] = {"instancetypeRef": {"name": "u1.small", "controllerRevisionRef": {"name": revision}}}
    path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{stored['metadata']['name']}/status"
    status, answer = control_plane.request("PUT", path, stored)
    assert status == 200, answer
    result = cli("expand", f"vm/{stored['metadata']['name']}", "-n", namespace, "-o", "json")
    assert json.loads(result.stdout)["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 2
    assert "status" not in json.loads(result.stdout) or "instancetypeRef" not in json.loads(result.stdout)["status"]


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

    conflicting = next(NAMES)
    control_plane.apply(
        halted_vm(conflicting, namespace, {"name": "u1.medium"}, None, domain={"devices": {}, "cpu": {"cores": 2}})
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


def test_server_side_expansion_needs_kubevirt(cli, control_plane, namespace, tmp_path) -> None:
    name = next(NAMES)
    control_plane.apply(halted_vm(name, namespace, {"name": "u1.medium"}, None))
    result = cli("expand", f"vm/{name}", "-n", namespace, "--server")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: the server does not serve KubeVirt's expand-spec subresource (subresources.kubevirt.io/v1); "
        "expand without --server to expand locally\n"
    )
    manifest = tmp_path / "vm.yaml"
    manifest.write_text(yaml.safe_dump(halted_vm("from-file", namespace, {"name": "u1.medium"}, None)))
    result = cli("expand", "-f", str(manifest), "--server")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "expand-vm-spec subresource" in result.stderr
