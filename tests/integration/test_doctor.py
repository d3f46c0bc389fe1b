"""``doctor`` on revisions KubeVirt's real virt-controller stored, which each test then deletes, replaces or
leaves behind; the recovery command doctor prints is run with the real kubectl and virt-controller answers it.

One plane (the session's, KubeVirt v1.9.0); each test has its own namespace.
"""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from tests.conftest import revised, run_cli

pytestmark = pytest.mark.controlplane

DISK = "src:quay.io/containerdisks/fedora:41"
CRS = "/apis/apps/v1/namespaces/{ns}/controllerrevisions"


def _cli(plane, *args: str, user: str = "admin"):
    return run_cli(list(args), environ={"HOME": "/nonexistent", "KUBECONFIG": str(plane.kubeconfig(user))})


def _vm_object(namespace: str, name: str) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": namespace},
    }


def _create_vm(plane, namespace: str, name: str, instancetype: str, preference: str | None = None) -> dict:
    args = ["create", "vm", "--name", name, "-n", namespace, "--instancetype", instancetype]
    args += ["--preference", preference] if preference else []
    result = _cli(plane, *args, "--run-strategy", "Halted", "--volume-containerdisk", DISK)
    assert result.exit_code == 0, result.stderr
    return revised(plane, _vm_object(namespace, name))


def _ref(vm: dict, key: str) -> str:
    return vm["status"][f"{key}Ref"]["controllerRevisionRef"]["name"]


def _ref_or_empty(vm: dict | None) -> str:
    return (((vm or {}).get("status", {}).get("instancetypeRef") or {}).get("controllerRevisionRef") or {}).get(
        "name", ""
    )


def _doctor(plane, namespace: str, *args: str) -> tuple[int, list[dict], str]:
    result = _cli(plane, "doctor", "-n", namespace, "-o", "json", *args)
    return result.exit_code, json.loads(result.stdout)["items"], result.stderr


def _until(what: str, probe, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := probe()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout:g}s")
        time.sleep(0.2)
    return value


def _delete_revision(plane, namespace: str, name: str) -> None:
    status, answer = plane.request("DELETE", CRS.format(ns=namespace) + f"/{name}")
    assert status == 200, answer


def test_a_deleted_revision_is_an_error_and_the_printed_command_recovers_the_vm(control_plane, namespace) -> None:
    vm = _create_vm(control_plane, namespace, "broken", "u1.small", "fedora")
    assert _cli(control_plane, "doctor", "-n", namespace).stderr == (
        f"1 VirtualMachine(s) and 2 ControllerRevision(s) in namespace {namespace} checked: no problems found\n"
    )
    lost = _ref(vm, "instancetype")
    _delete_revision(control_plane, namespace, lost)

    result = _cli(control_plane, "doctor", "-n", namespace)
    assert result.exit_code == 1
    header, row = result.stdout.splitlines()
    assert header.split()[:2] == ["SEVERITY", "OBJECT"]
    assert row.split()[:2] == ["error", "virtualmachine/broken"]
    assert f"ControllerRevision {lost} named by status.instancetypeRef does not exist" in row
    assert result.stderr.startswith("error: 1 error(s) found")

    code, [finding], _ = _doctor(control_plane, namespace)
    assert (code, finding["check"], finding["namespace"]) == (1, "missing-revision", namespace)
    command = finding["whatToDo"].split(": ", 1)[1]
    assert command == (
        f"kubectl patch vm/broken -n {namespace} --subresource=status --type=json -p "
        '\'[{"op":"remove","path":"/status/instancetypeRef/controllerRevisionRef"}]\''
    )
    env = {
        "PATH": f"{control_plane.kubectl.parent}:/usr/bin:/bin",
        "KUBECONFIG": str(control_plane.kubeconfig("admin")),
        "HOME": "/nonexistent",
    }
    patched = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=30)
    assert patched.returncode == 0, patched.stderr
    # virt-controller stores a copy of the live u1.small again (KubeVirt names it by the object's uid and
    # generation, so under the same name) and records it in status.instancetypeRef
    _until(
        "virt-controller stored no new revision",
        lambda: (
            _ref_or_empty(control_plane.get(vm)) == lost
            and control_plane.request("GET", CRS.format(ns=namespace) + f"/{lost}")[0] == 200
        ),
    )
    assert _doctor(control_plane, namespace)[:2] == (0, [])


def test_drift_deprecated_identical_and_orphaned_revisions(control_plane, namespace) -> None:
    instancetype = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {
            "name": "old-small",
            "namespace": namespace,
            "labels": {"instancetype.kubevirt.io/deprecated": "true"},
        },
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    control_plane.apply(instancetype)
    kept = _create_vm(control_plane, namespace, "kept", "virtualmachineinstancetype/old-small")
    gone = _create_vm(control_plane, namespace, "gone", "virtualmachineinstancetype/old-small")
    kept_rev, gone_rev = _ref(kept, "instancetype"), _ref(gone, "instancetype")
    status, answer = control_plane.request(
        "PATCH",
        f"/apis/instancetype.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachineinstancetypes/old-small",
        {"spec": {"memory": {"guest": "2Gi"}}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer
    # what a VM deleted with --cascade=orphan (or a revision restored without its owner) leaves: a revision
    # without owner references that no VM names
    status, answer = control_plane.request(
        "PATCH",
        CRS.format(ns=namespace) + f"/{gone_rev}",
        {"metadata": {"ownerReferences": None}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer
    control_plane.delete(gone)
    _until(
        "the VM was not deleted",
        lambda: control_plane.get(gone) is None,
        timeout=60,
    )

    code, items, stderr = _doctor(control_plane, namespace)
    assert (code, stderr) == (0, "")
    found = sorted((i["severity"], i["check"], i["object"]) for i in items)
    assert found == [
        ("info", "identical-revisions", f"controllerrevision/{min(kept_rev, gone_rev)}"),
        ("info", "orphan-revision", f"controllerrevision/{gone_rev}"),
        ("warning", "deprecated", "virtualmachine/kept"),
        ("warning", "drift", "virtualmachine/kept"),
    ]
    by_check = {i["check"]: i for i in items}
    assert by_check["drift"]["finding"] == (
        "virtualmachineinstancetype/old-small changed since the VM's revision was stored (generation 1 -> 2): "
        "the VM keeps the old spec"
    )
    assert by_check["orphan-revision"]["whatToDo"] == f"kubectl delete controllerrevision {gone_rev} -n {namespace}"
    assert by_check["orphan-revision"]["finding"] == "owned by no VirtualMachine, and no VM names it"


def test_a_revision_stored_in_a_removed_version_is_an_error(control_plane, namespace) -> None:
    vm = _create_vm(control_plane, namespace, "alpha", "u1.small")
    name = _ref(vm, "instancetype")
    status, revision = control_plane.request("GET", CRS.format(ns=namespace) + f"/{name}")
    assert status == 200
    # what KubeVirt v1.6 and older stored: the object as instancetype.kubevirt.io/v1alpha2 (data is immutable, so
    # the revision is replaced under its name)
    _delete_revision(control_plane, namespace, name)
    revision["data"]["apiVersion"] = "instancetype.kubevirt.io/v1alpha2"
    for key in ("resourceVersion", "uid", "creationTimestamp", "managedFields"):
        revision["metadata"].pop(key, None)
    status, answer = control_plane.request("POST", CRS.format(ns=namespace), revision)
    assert status == 201, answer

    code, items, _ = _doctor(control_plane, namespace)
    assert code == 1
    [finding] = [i for i in items if i["check"] == "unserved-version"]
    assert (finding["severity"], finding["object"]) == ("error", f"controllerrevision/{name}")
    assert finding["finding"] == (
        "holds a VirtualMachineClusterInstancetype as instancetype.kubevirt.io/v1alpha2, which this cluster's CRD "
        "no longer serves: virtualmachine/alpha cannot start or change"
    )


def test_what_rbac_forbids_is_a_warning_and_never_no_problems(control_plane) -> None:
    result = _cli(control_plane, "doctor", "-n", "mallory", user="mallory")
    assert result.exit_code == 0
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert 'Warning: cannot list virtualmachines.kubevirt.io in the namespace "mallory": forbidden' in lines
    assert lines[-1].startswith("Warning: doctor could not check everything (")
    assert "no problems" not in result.stderr
