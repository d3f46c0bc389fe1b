"""``revisions`` and ``switch`` on VMs whose ControllerRevisions KubeVirt's real virt-controller stored.

Each test runs once per KubeVirt version the harness builds (``kubevirt_plane``). VMs are created with the
plugin; the controller stores a ControllerRevision per matcher and records it in ``status.*Ref`` (v1.5+). After
``switch`` the controller answers: a new revision (the old one kept), and for a running VM either a live update
(the VMI's sockets) or the ``RestartRequired`` condition with KubeVirt's message.
"""

from __future__ import annotations

import itertools
import time

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.controlplane

NAMES = (f"rev-vm-{index}" for index in itertools.count())
DISK = "src:quay.io/containerdisks/fedora:41"
WAIT = 60.0


def _cli(plane, *args: str):
    return run_cli(list(args), environ={"HOME": "/nonexistent", "KUBECONFIG": str(plane.kubeconfig("admin"))})


@pytest.fixture(scope="module", autouse=True)
def _namespaces_go_afterwards():
    yield
    for name, plane in USED.items():
        plane.delete_namespace(name)


def _namespace(plane) -> str:
    name = f"revisions-{plane.kubevirt_version.replace('.', '-')}"
    plane.ensure_namespace(name)
    USED[name] = plane
    return name


USED: dict[str, object] = {}


def _vm(plane, namespace: str, name: str) -> dict:
    return plane.get(
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": namespace}}
    )


def _vmi(plane, namespace: str, name: str) -> dict | None:
    return plane.get(
        {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachineInstance",
            "metadata": {"name": name, "namespace": namespace},
        }
    )


def _until(what: str, probe, timeout: float = WAIT):
    """Poll ``probe`` until it returns something truthy; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"virt-controller did not {what} within {timeout:g}s")
        time.sleep(0.25)


def _revision_ref(vm: dict, key: str) -> str:
    return (((vm.get("status") or {}).get(f"{key}Ref") or {}).get("controllerRevisionRef") or {}).get("name", "")


def _create(plane, namespace: str, run_strategy: str, instancetype: str = "u1.small") -> str:
    name = next(NAMES)
    result = _cli(
        plane,
        "create",
        "vm",
        "--name",
        name,
        "-n",
        namespace,
        "--instancetype",
        instancetype,
        "--preference",
        "fedora",
        "--run-strategy",
        run_strategy,
        "--volume-containerdisk",
        DISK,
    )
    assert result.exit_code == 0, result.stderr
    _until(
        "store both revisions",
        lambda: all(_revision_ref(_vm(plane, namespace, name), key) for key in ("instancetype", "preference")),
    )
    return name


@pytest.mark.parametrize("run_strategy", ["Halted", "Always"])
def test_revisions_lists_what_the_controller_stored(kubevirt_plane, run_strategy) -> None:
    namespace = _namespace(kubevirt_plane)
    name = _create(kubevirt_plane, namespace, run_strategy)
    vm = _vm(kubevirt_plane, namespace, name)
    result = _cli(kubevirt_plane, "revisions", f"vm/{name}", "-n", namespace)
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[1:3]]
    assert rows == [
        [
            "instancetype",
            "virtualmachineclusterinstancetype",
            "u1.small",
            _revision_ref(vm, "instancetype"),
            "status",
            "1",
            "1",
            "no",
        ],
        [
            "preference",
            "virtualmachineclusterpreference",
            "fedora",
            _revision_ref(vm, "preference"),
            "status",
            "1",
            "1",
            "no",
        ],
    ]
    # The name KubeVirt gives a revision: <vm>-<object>-<version>-<uid>-<generation>
    assert _revision_ref(vm, "instancetype").startswith(f"{name}-u1.small-v1beta1-")
    # With kube-scheduler in the plane and no node for the launcher pod, virt-controller moves a started VM from
    # Starting to ErrorUnschedulable once the pod's PodScheduled condition says Unschedulable (pkg/virt-controller/
    # watch/vm.go getPrintableStatus); which one is read depends on timing, and on a loaded machine the status may
    # still read Stopped when the revisions are stored, so a started VM is waited for.
    expected = {"Stopped"} if run_strategy == "Halted" else {"Starting", "ErrorUnschedulable"}
    _until(
        f"print one of {sorted(expected)}",
        lambda: _vm(kubevirt_plane, namespace, name)["status"].get("printableStatus") in expected,
    )


def test_switch_on_a_stopped_vm_gets_a_new_revision_and_keeps_the_old(kubevirt_plane) -> None:
    namespace = _namespace(kubevirt_plane)
    name = _create(kubevirt_plane, namespace, "Halted")
    old = _revision_ref(_vm(kubevirt_plane, namespace, name), "instancetype")
    result = _cli(kubevirt_plane, "switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.large")
    assert result.exit_code == 0, result.stderr
    new = _until(
        "store a revision for u1.large",
        lambda: (ref := _revision_ref(_vm(kubevirt_plane, namespace, name), "instancetype")) != old and ref,
    )
    assert new.startswith(f"{name}-u1.large-v1beta1-")
    revisions = kubevirt_plane.get(
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": old, "namespace": namespace}}
    )
    assert revisions is not None  # the old revision is kept
    listed = _cli(kubevirt_plane, "revisions", f"vm/{name}", "-n", namespace)
    assert listed.stdout.splitlines()[1].split()[:4] == [
        "instancetype",
        "virtualmachineclusterinstancetype",
        "u1.large",
        new,
    ]


def test_switch_on_a_running_vm_is_live_updated_or_needs_a_restart(kubevirt_plane) -> None:
    namespace = _namespace(kubevirt_plane)
    name = _create(kubevirt_plane, namespace, "Always")
    _until("create the VMI", lambda: _vmi(kubevirt_plane, namespace, name))
    result = _cli(
        kubevirt_plane,
        "switch",
        f"vm/{name}",
        "-n",
        namespace,
        "--instancetype",
        "u1.large",
        "--wait",
        "--timeout",
        "60s",
    )
    assert result.exit_code == 0, result.stderr
    # --wait reports what the controller did, and that it is what the plan said
    reported = result.stdout.splitlines()[-3:]
    assert reported[0].startswith(f"instancetype revision: controllerrevision/{name}-u1.large-v1beta1-")
    assert reported[1:] == [
        'RestartRequired: "memory updated in template spec. Memory-hotplug is only available for migratable VMs"',
        "VMI domain.cpu.sockets: 1 -> 2",
    ]

    def restart_required():
        conditions = (_vm(kubevirt_plane, namespace, name).get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c.get("type") == "RestartRequired" and c.get("status") == "True"), None)

    condition = _until("set RestartRequired", restart_required)
    # u1.small -> u1.large: 1 -> 2 vCPUs (sockets, live) and 2Gi -> 8Gi (memory: only for migratable VMs)
    assert (
        condition["message"] == "memory updated in template spec. Memory-hotplug is only available for migratable VMs"
    )
    sockets = _until(
        "live-update the VMI's sockets",
        lambda: (
            ((_vmi(kubevirt_plane, namespace, name) or {}).get("spec") or {})
            .get("domain", {})
            .get("cpu", {})
            .get("sockets")
            == 2
        ),
    )
    assert sockets


def _owned(stdout: str) -> list[list[str]]:
    """The rows of the "ControllerRevisions owned by" table (the CREATED column left out)."""
    lines = stdout.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("ControllerRevisions owned by"))
    header = lines[start + 1]
    assert header.split() == ["REVISION", "HOLDS", "GENERATION", "CURRENT", "CREATED"]
    return [line.split()[:4] for line in lines[start + 2 :]]


def test_revisions_lists_every_revision_the_vm_owns(kubevirt_plane) -> None:
    """Issue 29: after a switch KubeVirt keeps the old copy, and a started VM has a revision-start-vm-...: all are
    listed, the ones in use marked; -A lists every VM's with a NAMESPACE column first."""
    namespace = _namespace(kubevirt_plane)
    switched = _create(kubevirt_plane, namespace, "Halted")
    old = _revision_ref(_vm(kubevirt_plane, namespace, switched), "instancetype")
    preference = _revision_ref(_vm(kubevirt_plane, namespace, switched), "preference")
    assert (
        _cli(kubevirt_plane, "switch", f"vm/{switched}", "-n", namespace, "--instancetype", "u1.large").exit_code == 0
    )
    new = _until(
        "store a revision for u1.large",
        lambda: (ref := _revision_ref(_vm(kubevirt_plane, namespace, switched), "instancetype")) != old and ref,
    )
    listed = _cli(kubevirt_plane, "revisions", f"vm/{switched}", "-n", namespace)
    assert (listed.exit_code, listed.stderr) == (0, "")
    assert sorted(_owned(listed.stdout)) == sorted(
        [
            [old, "virtualmachineclusterinstancetype/u1.small", "1", "-"],
            [preference, "virtualmachineclusterpreference/fedora", "1", "preference"],
            [new, "virtualmachineclusterinstancetype/u1.large", "1", "instancetype"],
        ]
    )

    started = _create(kubevirt_plane, namespace, "Always")
    vmi = _until(
        "record the VM's start revision on the VMI",
        lambda: ((_vmi(kubevirt_plane, namespace, started) or {}).get("status") or {}).get(
            "virtualMachineRevisionName"
        ),
    )
    uid = _vm(kubevirt_plane, namespace, started)["metadata"]["uid"]
    assert vmi.startswith(f"revision-start-vm-{uid}-")
    owned = _owned(_cli(kubevirt_plane, "revisions", f"vm/{started}", "-n", namespace).stdout)
    generation = vmi.rsplit("-", 1)[1]  # getVMRevisionName: revision-start-vm-<uid>-<generation>
    assert [vmi, f"virtualmachine/{started}", generation, "vmi"] in owned

    every = _cli(kubevirt_plane, "revisions", "-A")
    assert (every.exit_code, every.stderr) == (0, "")
    header, *rows = every.stdout.splitlines()
    assert header.split() == ["NAMESPACE", "VM", "REVISION", "HOLDS", "GENERATION", "CURRENT", "CREATED"]
    mine = {tuple(row.split()[:3]) for row in rows if row.startswith(namespace + " ")}
    assert {(namespace, switched, old), (namespace, switched, new), (namespace, started, vmi)} <= mine
    here = _cli(kubevirt_plane, "revisions", "-n", namespace)
    assert here.stdout.splitlines()[0].split()[0] == "VM"
    named = _cli(kubevirt_plane, "revisions", f"vm/{started}", "-A")
    assert (named.exit_code, named.stderr) == (
        1,
        "error: a resource cannot be retrieved by name across all namespaces\n",
    )
