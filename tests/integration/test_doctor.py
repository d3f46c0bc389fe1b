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


def _ref_or_empty_key(vm: dict | None, key: str) -> str:
    return (((vm or {}).get("status", {}).get(f"{key}Ref") or {}).get("controllerRevisionRef") or {}).get("name", "")


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


def _orphaned(plane, namespace: str, name: str, instancetype: str) -> str:
    """The name of an orphan: the revision virt-controller stored for a new VM ``name``, left without owner
    references when the VM is deleted (as ``--cascade=orphan`` leaves it), so that no VM owns or names it."""
    vm = _create_vm(plane, namespace, name, instancetype)
    orphan = _ref(vm, "instancetype")
    status, answer = plane.request(
        "PATCH",
        CRS.format(ns=namespace) + f"/{orphan}",
        {"metadata": {"ownerReferences": None}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer
    plane.delete(vm)
    _until("the VM was not deleted", lambda: plane.get(vm) is None, timeout=60)
    return orphan


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
    kept_rev = _ref(kept, "instancetype")
    # what a VM deleted with --cascade=orphan (or a revision restored without its owner) leaves: a revision
    # without owner references that no VM names, here identical to kept's (both stored from generation 1)
    gone_rev = _orphaned(control_plane, namespace, "gone", "virtualmachineinstancetype/old-small")
    status, answer = control_plane.request(
        "PATCH",
        f"/apis/instancetype.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachineinstancetypes/old-small",
        {"spec": {"memory": {"guest": "2Gi"}}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer

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


def test_what_rbac_forbids_is_one_warning_and_never_no_problems(control_plane) -> None:
    result = _cli(control_plane, "doctor", "-n", "mallory", user="mallory")
    assert result.exit_code == 0
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(
        "Warning: doctor could not check everything (forbidden to list virtualmachines.kubevirt.io, "
        "controllerrevisions.apps, virtualmachineinstances.kubevirt.io, virtualmachinesnapshotcontents.snapshot.kubevirt.io, "
        "virtualmachineinstancetypes.instancetype.kubevirt.io, virtualmachinepreferences.instancetype.kubevirt.io in the "
        'namespace "mallory"; forbidden to get customresourcedefinitions.apiextensions.k8s.io '
    )
    assert line.endswith("every check on VMs and ControllerRevisions: findings may be missing")
    assert "no problems" not in result.stderr
    fixed = _cli(control_plane, "doctor", "-n", "mallory", "--fix", user="mallory")
    assert (fixed.exit_code, fixed.stdout) == (0, "")
    assert fixed.stderr.startswith("Warning: doctor could not check everything (")


def test_fix_clears_a_missing_reference_and_virt_controller_stores_a_new_copy(control_plane, namespace) -> None:
    vm = _create_vm(control_plane, namespace, "stuck", "u1.small", "fedora")
    lost = _ref(vm, "preference")
    _delete_revision(control_plane, namespace, lost)

    for dry_run, suffix in (("client", "(dry run)"), ("server", "(server dry run)")):
        # as lint --fix: 0 when every error can be fixed
        result = _cli(control_plane, "doctor", "-n", namespace, "--fix", f"--dry-run={dry_run}")
        assert result.exit_code == 0, result.stderr
        assert result.stdout == (
            f"virtualmachine.kubevirt.io/stuck -n {namespace} patched {suffix}: removed "
            f"status.preferenceRef.controllerRevisionRef (ControllerRevision {lost} does not exist)\n"
        )
        assert _ref_or_empty_key(control_plane.get(vm), "preference") == lost  # nothing written

    result = _cli(control_plane, "doctor", "-n", namespace, "--fix")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"virtualmachine.kubevirt.io/stuck -n {namespace} patched: removed "
        f"status.preferenceRef.controllerRevisionRef (ControllerRevision {lost} does not exist)\n"
    )
    _until(
        "virt-controller stored no new revision",
        lambda: (
            _ref_or_empty_key(control_plane.get(vm), "preference") == lost
            and control_plane.request("GET", CRS.format(ns=namespace) + f"/{lost}")[0] == 200
        ),
    )
    assert _doctor(control_plane, namespace)[:2] == (0, [])
    again = _cli(control_plane, "doctor", "-n", namespace, "--fix")
    assert (again.exit_code, again.stdout) == (0, "")
    assert again.stderr == f"no problems found in namespace {namespace}: nothing to fix\n"


def test_fix_leaves_a_reference_whose_object_is_gone_too(control_plane, namespace) -> None:
    instancetype = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "short-lived", "namespace": namespace},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    control_plane.apply(instancetype)
    vm = _create_vm(control_plane, namespace, "lonely", "virtualmachineinstancetype/short-lived")
    lost = _ref(vm, "instancetype")
    _delete_revision(control_plane, namespace, lost)
    control_plane.delete(instancetype)

    result = _cli(control_plane, "doctor", "-n", namespace, "--fix")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        f"Warning: not fixed: virtualmachine/lonely -n {namespace} (missing-revision): "
        "virtualmachineinstancetype/short-lived does not exist either: recreate it, or switch the VM to another "
        "instancetype, then run --fix again",
        "error: 1 error(s) remain: the VMs named cannot start or change until fixed (listed above)",
    ]


def test_fix_deletes_an_orphan_and_a_server_dry_run_keeps_it(control_plane, namespace) -> None:
    _create_vm(control_plane, namespace, "kept", "u1.small")
    orphan = _orphaned(control_plane, namespace, "gone", "u1.small")
    _, items, _ = _doctor(control_plane, namespace)
    assert [(i["check"], i["object"]) for i in items if i["check"] == "orphan-revision"] == [
        ("orphan-revision", f"controllerrevision/{orphan}")
    ]
    dry = _cli(control_plane, "doctor", "-n", namespace, "--fix", "--dry-run=server")
    assert dry.stdout.startswith(f"controllerrevision.apps/{orphan} -n {namespace} deleted (server dry run): ")
    assert control_plane.request("GET", CRS.format(ns=namespace) + f"/{orphan}")[0] == 200

    result = _cli(control_plane, "doctor", "-n", namespace, "--fix")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"controllerrevision.apps/{orphan} -n {namespace} deleted: owned by no VirtualMachine, and no VM names it\n"
    )
    # the orphan held the same copy as kept's revision: without it, nothing is identical any more
    assert result.stderr == ""
    assert control_plane.request("GET", CRS.format(ns=namespace) + f"/{orphan}")[0] == 404
    assert _doctor(control_plane, namespace)[:2] == (0, [])


def test_fix_refuses_what_it_cannot_do_safely(control_plane) -> None:
    for args, message in (
        (("--dry-run",), "error: --dry-run goes with --fix: doctor alone writes nothing\n"),
        (("--fix", "-o", "json"), "error: --fix prints the changes it makes: it cannot go with -o\n"),
        (
            ("--fix", "--context", "a", "--context", "b"),
            "error: --fix writes: run it on one context at a time (--context NAME)\n",
        ),
    ):
        result = _cli(control_plane, "doctor", *args)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)


def test_doctor_across_contexts(fleet, namespace) -> None:
    plane = fleet.plane
    vm = _create_vm(plane, namespace, "broken", "u1.small")
    lost = _ref(vm, "instancetype")
    _delete_revision(plane, namespace, lost)

    result = fleet.run("doctor", "-n", namespace, "--all-contexts", "--context-timeout", "3s")
    assert result.exit_code == 1
    header, row = result.stdout.splitlines()
    assert header.split()[:3] == ["CONTEXT", "SEVERITY", "OBJECT"]
    assert row.split()[:3] == ["plane", "error", "virtualmachine/broken"]
    warned = [line for line in result.stderr.splitlines() if line.startswith("Warning: ")]
    assert [line.split('"')[1] for line in warned] == ["plane", "forbidden", "down", "slow"]
    assert (
        warned[0]
        == 'Warning: context "plane": 1 error(s) found: the VMs named cannot start or change until fixed (see WHAT TO DO)'
    )
    assert warned[1].startswith('Warning: context "forbidden": doctor could not check everything (forbidden to list ')
    assert "was refused - did you specify the right host or port?" in warned[2]
    assert warned[3] == 'Warning: context "slow": no answer within 3s (--context-timeout)'
    assert f'context "old": 0 VirtualMachine(s) and 0 ControllerRevision(s) in namespace {namespace} checked' in (
        result.stderr
    )

    result = fleet.run("doctor", "-n", namespace, "--contexts", "^(plane|old)$", "-o", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["kind"] == "List"
    by_context = {item["metadata"]["annotations"]["kubectl-instancetype/context"]: item for item in document["items"]}
    assert set(by_context) == {"plane", "old"}
    assert [i["check"] for i in by_context["plane"]["items"]] == ["missing-revision"]
    assert (by_context["old"]["items"], by_context["old"]["complete"]) == ([], True)


CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/virtualmachineclusterinstancetypes.instancetype.kubevirt.io"


def _copy(obj: dict, namespace: str | None = None) -> dict:
    """``obj`` as it can be created on another server: without what the first server set."""
    metadata = {
        k: v
        for k, v in obj["metadata"].items()
        if k not in ("resourceVersion", "uid", "creationTimestamp", "managedFields", "generation")
    }
    if namespace:
        metadata["namespace"] = namespace
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": metadata}


def test_api_versions_kubevirt_1_9_announces_nothing_and_a_cluster_serving_v1_is_told_what_to_rewrite(
    control_plane, namespace, tmp_path
) -> None:
    from hack.localcluster.fleet import start_server

    vm = _create_vm(control_plane, namespace, "next", "u1.small")
    revision_name = _ref(vm, "instancetype")
    # KubeVirt v1.9.0's CRD (virt-operator's, on the real plane) serves v1beta1 alone, not deprecated: the
    # revision virt-controller stored is no finding
    status, crd = control_plane.request("GET", CRD)
    assert status == 200
    assert [(v["name"], v["served"], v["storage"], v.get("deprecated", False)) for v in crd["spec"]["versions"]] == [
        ("v1beta1", True, True, False)
    ]
    assert _doctor(control_plane, namespace)[:2] == (0, [])

    # the next KubeVirt as a CRD announces it: v1 served and stored, v1beta1 still served but deprecated; the VM,
    # its real revision and u1.small copied onto a bare API server holding that CRD
    server = start_server(control_plane, "next", tmp_path / "next")
    try:
        server.ensure_namespace(namespace)
        status, revision = control_plane.request("GET", CRS.format(ns=namespace) + f"/{revision_name}")
        assert status == 200
        server.apply(_copy(control_plane.get(vm), namespace))
        status, answer = server.request(
            "PATCH",
            f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/next/status",
            {"status": control_plane.get(vm)["status"]},
            content_type="application/merge-patch+json",
        )
        assert status == 200, answer
        server.apply(_copy(revision, namespace))
        u1_small = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineClusterInstancetype"}
        server.apply(_copy(control_plane.get({**u1_small, "metadata": {"name": "u1.small"}})))
        status, crd = server.request("GET", CRD)
        assert status == 200
        [v1beta1] = crd["spec"]["versions"]
        crd["spec"]["versions"] = [
            {**v1beta1, "storage": False, "deprecated": True},
            {**v1beta1, "name": "v1", "storage": True},
        ]
        status, answer = server.request("PUT", CRD, crd)
        assert status == 200, answer
        _until(
            "v1 not served",
            lambda: (
                server.request("GET", "/apis/instancetype.kubevirt.io/v1/virtualmachineclusterinstancetypes")[0] == 200
            ),
        )
        assert server.request("GET", CRD)[1]["status"]["storedVersions"] == ["v1beta1", "v1"]

        def doctor_next() -> list[dict]:
            result = run_cli(
                ["doctor", "-n", namespace, "-o", "json"],
                environ={"HOME": "/nonexistent", "KUBECONFIG": str(server.kubeconfig("admin"))},
            )
            assert result.exit_code == 0, result.stderr
            return json.loads(result.stdout)["items"]

        stored, held = doctor_next()
        assert (stored["check"], stored["severity"], stored["object"]) == (
            "deprecated-version",
            "warning",
            "customresourcedefinition/virtualmachineclusterinstancetypes.instancetype.kubevirt.io",
        )
        assert (held["check"], held["object"]) == ("deprecated-version", f"controllerrevision/{revision_name}")
        assert held["finding"] == (
            "holds a VirtualMachineClusterInstancetype as instancetype.kubevirt.io/v1beta1, which this cluster's "
            "CRD marks deprecated: a KubeVirt that stops serving v1beta1 cannot read it"
        )
        # the printed storage migration, run with the real kubectl, leaves only the revision
        env = {
            "PATH": f"{control_plane.kubectl.parent}:/usr/bin:/bin",
            "KUBECONFIG": str(server.kubeconfig("admin")),
            "HOME": "/nonexistent",
        }
        command = stored["whatToDo"].split(": ", 1)[1].replace("; then ", " && ")
        done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert server.request("GET", CRD)[1]["status"]["storedVersions"] == ["v1"]
        assert [i["object"] for i in doctor_next()] == [held["object"]]
    finally:
        server.stop()


def test_what_a_real_vm_snapshot_keeps_is_no_orphan_and_fix_leaves_it(control_plane, namespace) -> None:
    vm = _create_vm(control_plane, namespace, "snapped", "u1.small")
    pinned = _ref(vm, "instancetype")
    # an offline snapshot copies only the revisions spec.*.revisionName names (kubevirt #18738): pin it first
    status, answer = control_plane.request(
        "PATCH",
        f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/snapped",
        {"spec": {"instancetype": {"revisionName": pinned}}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer
    snapshot = {
        "apiVersion": "snapshot.kubevirt.io/v1beta1",
        "kind": "VirtualMachineSnapshot",
        "metadata": {"name": "snap", "namespace": namespace},
        "spec": {"source": {"apiGroup": "kubevirt.io", "kind": "VirtualMachine", "name": "snapped"}},
    }
    status, answer = control_plane.request(
        "POST", f"/apis/snapshot.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachinesnapshots", snapshot
    )
    assert status == 201, answer
    # KubeVirt's snapshot controller stores its own copy, owned by the snapshot and named by the snapshot content
    # (pkg/storage/snapshot/source.go captureInstancetypeControllerRevision: the VM's name replaced by the
    # snapshot's)
    copy = pinned.replace("snapped", "snap", 1)
    _until(
        "the snapshot controller stored no copy",
        lambda: control_plane.request("GET", CRS.format(ns=namespace) + f"/{copy}")[0] == 200,
        timeout=60,
    )
    control_plane.delete(vm)
    _until("the VM was not deleted", lambda: control_plane.get(vm) is None, timeout=60)
    code, items, stderr = _doctor(control_plane, namespace)
    assert (code, stderr) == (0, "")
    assert [i for i in items if i["check"] == "orphan-revision"] == []
    # without its owner reference, the snapshot content still names it
    status, answer = control_plane.request(
        "PATCH",
        CRS.format(ns=namespace) + f"/{copy}",
        {"metadata": {"ownerReferences": None}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer
    fixed = _cli(control_plane, "doctor", "-n", namespace, "--fix")
    assert (fixed.exit_code, fixed.stdout) == (0, "")
    assert control_plane.request("GET", CRS.format(ns=namespace) + f"/{copy}")[0] == 200


def test_fix_clears_a_pinned_revision_name_through_kubevirts_webhook(control_plane, namespace) -> None:
    vm = _create_vm(control_plane, namespace, "pinned", "u1.small")
    lost = _ref(vm, "instancetype")
    status, answer = control_plane.request(
        "PATCH",
        f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/pinned",
        {"spec": {"instancetype": {"revisionName": lost}}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, answer
    _delete_revision(control_plane, namespace, lost)

    result = _cli(control_plane, "doctor", "-n", namespace, "--fix")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"virtualmachine.kubevirt.io/pinned -n {namespace} patched: removed {where} (ControllerRevision {lost} does "
        "not exist)"
        for where in ("spec.instancetype.revisionName", "status.instancetypeRef.controllerRevisionRef")
    ]
    stored = _until(
        "virt-controller stored no new revision",
        lambda: (
            _ref_or_empty_key(control_plane.get(vm), "instancetype")
            if control_plane.request("GET", CRS.format(ns=namespace) + f"/{lost}")[0] == 200
            else ""
        ),
    )
    assert stored == lost  # KubeVirt names the copy after u1.small's uid and generation: the same name again
    assert "revisionName" not in control_plane.get(vm)["spec"]["instancetype"]
    assert _doctor(control_plane, namespace)[:2] == (0, [])


def test_the_delete_fix_uses_preconditions_and_a_dry_run_the_server_honours(control_plane, namespace) -> None:
    from kubectl_instancetype.errors import APIError
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
    from kubectl_instancetype.kube.resources import CONTROLLER_REVISIONS
    from kubectl_instancetype.kube.session import Session

    revision = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "r"},
        "data": {"kind": "Example"},
        "revision": 1,
    }
    options = ConnectionOptions(kubeconfig=str(control_plane.kubeconfig("admin")), namespace=namespace)
    with Session(options, {}, "/nonexistent") as session:
        client = session.client()
        # created as Go clients send it (compact JSON: data is kept byte for byte and is immutable)
        created = client.create(CONTROLLER_REVISIONS, revision, namespace)
        judged = {"uid": created["metadata"]["uid"], "resourceVersion": created["metadata"]["resourceVersion"]}
        changed = client.patch(CONTROLLER_REVISIONS, "r", namespace, {"metadata": {"labels": {"changed": "yes"}}})
        with pytest.raises(APIError) as refused:
            client.delete(CONTROLLER_REVISIONS, "r", namespace, preconditions=judged)
        assert refused.value.code == 409
        current = {"uid": changed["metadata"]["uid"], "resourceVersion": changed["metadata"]["resourceVersion"]}
        client.delete(CONTROLLER_REVISIONS, "r", namespace, dry_run=True, preconditions=current)
        assert control_plane.request("GET", CRS.format(ns=namespace) + "/r")[0] == 200
        client.delete(CONTROLLER_REVISIONS, "r", namespace, preconditions=current)
    assert control_plane.request("GET", CRS.format(ns=namespace) + "/r")[0] == 404


def test_fix_leaves_an_orphan_that_changed_after_the_re_read_and_says_why(control_plane, namespace) -> None:
    """The race the delete preconditions exist for, made on the real server: --fix re-reads a namespace once,
    just before its first deletion; a writer then changes the second orphan (here, in the callback that reports
    the first deletion). The delete of the second is refused by the server (409, its resourceVersion moved) and
    doctor leaves it, saying why, instead of deleting what it did not judge."""
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
    from kubectl_instancetype.kube.session import Session
    from kubectl_instancetype.usecases.doctor import Change, DoctorRequest, doctor

    orphans = [
        _orphaned(control_plane, namespace, "first", "u1.small"),
        _orphaned(control_plane, namespace, "second", "u1.medium"),
    ]

    changed: list[str] = []

    def meanwhile(change: Change) -> None:
        changed.append(change.object)
        for other in orphans:
            if change.object != f"controllerrevision.apps/{other}":
                status, answer = control_plane.request(
                    "PATCH",
                    CRS.format(ns=namespace) + f"/{other}",
                    {"metadata": {"labels": {"touched": "meanwhile"}}},
                    content_type="application/merge-patch+json",
                )
                assert status == 200, answer

    options = ConnectionOptions(kubeconfig=str(control_plane.kubeconfig("admin")), namespace=namespace)
    with Session(options, {}, "/nonexistent") as session:
        report = doctor(session, DoctorRequest(fix=True, changed=meanwhile))

    assert len(changed) == 1, changed
    deleted = changed[0].removeprefix("controllerrevision.apps/")
    (kept,) = [name for name in orphans if name != deleted]
    assert [(c.object, c.verb) for c in report.changes] == [(changed[0], "deleted")]
    assert [(n.finding.object, n.reason) for n in report.not_fixed] == [
        (f"controllerrevision/{kept}", "it changed after it was re-checked (the delete's precondition failed)")
    ]
    assert control_plane.request("GET", CRS.format(ns=namespace) + f"/{deleted}")[0] == 404
    status, stored = control_plane.request("GET", CRS.format(ns=namespace) + f"/{kept}")
    assert status == 200 and stored["metadata"]["labels"]["touched"] == "meanwhile"
