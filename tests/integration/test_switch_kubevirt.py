"""``switch --plan`` against KubeVirt's real virt-controller (and virt-api's webhooks): the plan's verdict equals
the RestartRequired condition the controller sets, for sockets up within and beyond maxSockets, sockets down,
memory up and down, vCPUs landing in cores, dedicated CPUs, arm64 and a Stage rollout.

There is no kubelet: VMIs stay in phase Scheduling and are never migratable, which is what the plan reads too
(``LiveMigratable`` absent). The instance types are namespaced ones made for each case, so that only the field
under test changes.
"""

from __future__ import annotations

import json
import time

import pytest

pytestmark = pytest.mark.controlplane

TIMEOUT = 60.0


def _kubevirt_running(plane) -> bool:
    code, _ = plane.request(
        "GET", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/virt-api-mutator"
    )
    return code == 200


@pytest.fixture
def kv(control_plane):
    if not _kubevirt_running(control_plane):
        pytest.skip("the control plane runs no KubeVirt virt-api/virt-controller")
    return control_plane


@pytest.fixture
def ns(kv, request):
    """A fresh namespace per test (deleted afterwards when the plane can)."""
    import re
    import secrets

    name = (
        re.sub(r"[^a-z0-9-]+", "-", request.node.name.lower()).strip("-")[:40].strip("-") + "-" + secrets.token_hex(3)
    )
    kv.ensure_namespace(name)
    yield name
    delete = getattr(kv, "delete_namespace", None)
    if delete is not None:
        delete(name)


def _instancetype(name: str, namespace: str, cpu: int, memory: str, **cpu_extra) -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"cpu": {"guest": cpu, **cpu_extra}, "memory": {"guest": memory}},
    }


def _preference(name: str, namespace: str, topology: str) -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"cpu": {"preferredCPUTopology": topology}},
    }


def _vm(name: str, namespace: str, instancetype: str, preference: str | None, architecture: str | None) -> dict:
    spec: dict = {
        "domain": {"devices": {}},
        "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
    }
    if architecture:
        spec["architecture"] = architecture
    vm: dict = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runStrategy": "Always",
            "instancetype": {"name": instancetype, "kind": "VirtualMachineInstancetype"},
            "template": {"spec": spec},
        },
    }
    if preference:
        vm["spec"]["preference"] = {"name": preference, "kind": "VirtualMachinePreference"}
    return vm


def _get(plane, path: str) -> dict | None:
    code, answer = plane.request("GET", path)
    return answer if code == 200 else None


def _wait(what: str, check, timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def _started(plane, namespace: str, name: str) -> dict:
    """Wait until the controller has stored the revisions and created the VMI from the start revision."""
    vm_path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{name}"
    vmi_path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachineinstances/{name}"

    def ready():
        vm = _get(plane, vm_path) or {}
        vmi = _get(plane, vmi_path) or {}
        ref = ((vm.get("status") or {}).get("instancetypeRef") or {}).get("controllerRevisionRef")
        return vmi if ref and (vmi.get("status") or {}).get("virtualMachineRevisionName") else None

    return _wait(f"virtualmachineinstance {name}", ready)


CASES = [
    # id, start type (cpu, memory, extra), new type, preference topology, architecture
    ("sockets up within maxSockets", (1, "2Gi", {}), (2, "2Gi", {}), None, None),
    ("sockets up beyond maxSockets", (1, "2Gi", {}), (8, "2Gi", {}), None, None),
    ("sockets down", (2, "2Gi", {}), (1, "2Gi", {}), None, None),
    ("memory up", (1, "2Gi", {}), (1, "4Gi", {}), None, None),
    ("memory down", (1, "4Gi", {}), (1, "2Gi", {}), None, None),
    ("vCPUs in cores", (1, "2Gi", {}), (2, "2Gi", {}), "cores", None),
    ("dedicated CPUs", (2, "2Gi", {}), (2, "2Gi", {"dedicatedCPUPlacement": True}), None, None),
    # an arm64 VMI gets no maxSockets, so KubeVirt answers "higher than what's available" before its ARM rule
    ("arm64 sockets up", (1, "2Gi", {}), (2, "2Gi", {}), None, "arm64"),
]


@pytest.mark.parametrize(
    ("start", "new", "topology", "architecture"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_plan_matches_the_controller(kv, cli, ns, start, new, topology, architecture) -> None:
    namespace = ns
    kv.apply(_instancetype("start", namespace, start[0], start[1], **start[2]))
    kv.apply(_instancetype("new", namespace, new[0], new[1], **new[2]))
    preference = None
    if topology:
        preference = "topology"
        kv.apply(_preference(preference, namespace, topology))
    kv.apply(_vm("vm", namespace, "start", preference, architecture))
    _started(kv, namespace, "vm")

    planned = cli(
        "switch", "vm/vm", "-n", namespace, "--instancetype", "virtualmachineinstancetype/new", "--plan", "-o", "json"
    )
    assert planned.exit_code == 0, planned.stderr
    plan = json.loads(planned.stdout)
    assert plan["virtualMachine"]["running"] is True

    done = cli(
        "switch",
        "vm/vm",
        "-n",
        namespace,
        "--instancetype",
        "virtualmachineinstancetype/new",
        "--wait",
        "--timeout",
        "60s",
        "-o",
        "json",
    )
    assert done.exit_code == 0, done.stderr
    outcome = json.loads(done.stdout)["outcome"]
    assert outcome["restartRequired"] == plan["restartRequired"], (plan, outcome)
    assert outcome["agreesWithPlan"] is True
    assert outcome["revisions"]["instancetype"].startswith("vm-new-v1beta1-")
    if plan["hotplugConditions"] == ["HotVCPUChange"]:
        vmi = _get(kv, f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachineinstances/vm")
        assert vmi["spec"]["domain"]["cpu"]["sockets"] == new[0]


def test_the_known_verdicts(kv, cli, ns) -> None:
    """The verdicts themselves, as seen on this plane (a VMI that never runs is never migratable)."""
    namespace = ns
    expected = {
        (2, "2Gi"): None,
        (8, "2Gi"): "CPU sockets updated in template spec to a value higher than what's available",
        (1, "4Gi"): "memory updated in template spec. Memory-hotplug is only available for migratable VMs",
    }
    kv.apply(_instancetype("start", namespace, 1, "2Gi"))
    for cpu, memory in expected:
        kv.apply(_instancetype(f"it-{cpu}-{memory.lower()}", namespace, cpu, memory))
    kv.apply(_vm("vm", namespace, "start", None, None))
    _started(kv, namespace, "vm")
    for (cpu, memory), message in expected.items():
        planned = cli(
            "switch",
            "vm/vm",
            "-n",
            namespace,
            "--instancetype",
            f"virtualmachineinstancetype/it-{cpu}-{memory.lower()}",
            "--plan",
            "-o",
            "json",
        )
        assert json.loads(planned.stdout)["restartRequired"] == message, planned.stdout


def test_refresh_moves_a_running_vm_to_the_current_generation(kv, cli, ns) -> None:
    """The instance type is edited in place (generation 2): KubeVirt keeps the VM on its stored copy until
    --refresh stores the current one; the controller records it and the pin comes off."""
    kv.apply(_instancetype("start", ns, 1, "2Gi"))
    kv.apply(_vm("vm", ns, "start", None, None))
    _started(kv, ns, "vm")
    path = f"/apis/instancetype.kubevirt.io/v1beta1/namespaces/{ns}/virtualmachineinstancetypes/start"
    edited = _get(kv, path)
    edited["spec"]["cpu"]["guest"] = 2
    code, answer = kv.request("PUT", path, edited)
    assert code == 200, answer
    result = cli("switch", "vm/vm", "-n", ns, "--refresh", "--wait", "--timeout", "60s", "-o", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert [(f["path"], f["when"]) for f in document["fields"]] == [("domain.cpu.sockets", "live")]
    assert document["outcome"]["agreesWithPlan"] is True
    revision = document["outcome"]["revisions"]["instancetype"]
    assert revision.startswith("vm-start-v1beta1-") and revision.endswith("-2")
    vm = _get(kv, f"/apis/kubevirt.io/v1/namespaces/{ns}/virtualmachines/vm")
    assert "revisionName" not in vm["spec"]["instancetype"]
    assert vm["status"]["instancetypeRef"]["controllerRevisionRef"]["name"] == revision


def test_adopt_a_running_flat_vm_with_the_plan(kv, cli, ns) -> None:
    """A running VM sized by hand: adopt --apply prints the live-update plan, and the controller agrees."""
    kv.apply(
        {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "flat", "namespace": ns},
            "spec": {
                "runStrategy": "Always",
                "template": {
                    "spec": {
                        "domain": {"cpu": {"sockets": 1}, "memory": {"guest": "2Gi"}, "devices": {}},
                        # an image name that names no guest OS: no preference is chosen
                        "volumes": [{"name": "root", "containerDisk": {"image": "registry.example/flat-disk:1"}}],
                    }
                },
            },
        }
    )
    vmi_path = f"/apis/kubevirt.io/v1/namespaces/{ns}/virtualmachineinstances/flat"
    _wait("the flat VM's VMI", lambda: (_get(kv, vmi_path) or {}).get("status", {}).get("virtualMachineRevisionName"))
    result = cli("adopt", "vm/flat", "-n", ns, "--instancetype", "u1.small", "--apply")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "virtualmachine/flat: instancetype u1.small, preference (none)"
    assert "proof: the adopted VM expands to exactly the original's spec" in result.stdout
    # the plan: an instance type spells out cores and threads the VM left at zero, which KubeVirt's comparison
    # (equality.Semantic on the applied templates) counts as a non-live change
    said = [line for line in result.stdout.splitlines() if line.startswith("The VM will carry RestartRequired: ")]
    expected = said[0].split(": ", 1)[1].strip('".') if said else None
    vm_path = f"/apis/kubevirt.io/v1/namespaces/{ns}/virtualmachines/flat"

    def verdict():
        vm = _get(kv, vm_path) or {}
        status = vm.get("status") or {}
        if not ((status.get("instancetypeRef") or {}).get("controllerRevisionRef")):
            return None
        conditions = {c["type"]: c for c in status.get("conditions") or []}
        found = (conditions.get("RestartRequired") or {}).get("message")
        return ("settled", found) if found == expected else None

    assert _wait("the controller's verdict on the adopted VM", verdict) == ("settled", expected)
