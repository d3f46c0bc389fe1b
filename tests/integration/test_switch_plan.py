"""``switch --plan``, ``--refresh`` and ``--wait`` against the bare control plane: the objects KubeVirt's
controller would write (a VMI, the VM's start revision, the KubeVirt CR) are written here as it writes them,
so these tests cover what the plugin reads and writes. What the real controller then does is in
test_switch_kubevirt.py."""

from __future__ import annotations

import itertools

import pytest

from tests.conftest import EXPAND_NS as NS
from tests.conftest import controller_revision, halted_vm, serve_kinds

pytestmark = pytest.mark.controlplane

NAMES = (f"plan-vm-{index}" for index in itertools.count())
SMALL = {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}}


@pytest.fixture(scope="module")
def kubevirt_kinds(plain_plane) -> None:
    """VirtualMachineInstance and KubeVirt served, with KubeVirt v1.9.0's own schemas."""
    serve_kinds(plain_plane, ("VirtualMachineInstance", "KubeVirt"))


@pytest.fixture
def namespace(plain_plane, kubevirt_kinds) -> str:
    plain_plane.ensure_namespace(NS)
    return NS


def _put(plain_plane, path: str, body: dict) -> dict:
    code, answer = plain_plane.request("PUT", path, body)
    if code == 404 and path.endswith("/status"):  # KubeVirt's own VMI CRD has no status subresource
        code, answer = plain_plane.request("PUT", path.removesuffix("/status"), body)
    assert code == 200, answer
    return answer


def _running(plain_plane, namespace: str, *, sockets: int = 1, guest: str = "2Gi", migratable: bool = False):
    """A VM on u1.small with its status refs, start revision and VMI as virt-controller leaves them."""
    vm = plain_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, {"name": "fedora"}))
    name, uid = vm["metadata"]["name"], vm["metadata"]["uid"]
    it_rev = controller_revision(plain_plane, vm, "VirtualMachineClusterInstancetype", "u1.small", SMALL)
    vm["status"] = {"instancetypeRef": {"name": "u1.small", "controllerRevisionRef": {"name": it_rev}}}
    vm_path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{name}"
    vm = _put(plain_plane, vm_path + "/status", vm)
    start_spec = {**vm["spec"], "instancetype": {"name": "u1.small", "revisionName": it_rev}}
    start = f"revision-start-vm-{uid}-{vm['metadata']['generation']}"
    plain_plane.apply(
        {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {"name": start, "namespace": namespace},
            "revision": vm["metadata"]["generation"],
            "data": {"spec": start_spec},
        }
    )
    conditions = [{"type": "LiveMigratable", "status": "True"}] if migratable else []
    vmi = plain_plane.apply(
        {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachineInstance",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "architecture": "amd64",
                "domain": {
                    "cpu": {"sockets": sockets, "cores": 1, "threads": 1, "maxSockets": 4},
                    "memory": {"guest": guest, "maxGuest": "8Gi"},
                    "devices": {},
                },
            },
        }
    )
    vmi["status"] = {
        "phase": "Running",
        "virtualMachineRevisionName": start,
        "memory": {"guestAtBoot": guest, "guestCurrent": guest},
        "conditions": conditions,
    }
    _put(plain_plane, f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachineinstances/{name}/status", vmi)
    return name


def test_plan_for_a_running_vm(plain_cli, plain_plane, namespace) -> None:
    name = _running(plain_plane, namespace)
    result = plain_cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.large", "--plan")
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"virtualmachine.kubevirt.io/{name} (running; rollout strategy LiveUpdate")
    assert lines[1] == "  instancetype: u1.small -> u1.large"
    assert lines[3].split() == ["FIELD", "NOW", "NEW", "WHEN"]
    assert lines[4].split()[:4] == ["domain.cpu.sockets", "1", "2", "live"]
    assert lines[5].split(None, 3) == [
        "domain.memory.guest",
        "2Gi",
        "8Gi",
        "after restart: memory updated in template spec. Memory-hotplug is only available for migratable VMs",
    ]
    assert lines[7] == (
        'The VM will carry RestartRequired: "memory updated in template spec. '
        'Memory-hotplug is only available for migratable VMs".'
    )


def test_plan_as_yaml_and_json(plain_cli, plain_plane, namespace) -> None:
    import json

    import yaml

    name = _running(plain_plane, namespace, migratable=True)
    result = plain_cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.medium", "--plan", "-o", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["kind"] == "SwitchPlan"
    assert document["restartRequired"] is None
    assert document["hotplugConditions"] == ["HotMemoryChange"]
    assert [(f["path"], f["when"]) for f in document["fields"]] == [("domain.memory.guest", "live")]
    as_yaml = plain_cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.medium", "--plan", "-o", "yaml")
    assert (as_yaml.exit_code, as_yaml.stderr) == (0, "")
    assert yaml.safe_load(as_yaml.stdout) == document  # the same plan, as YAML
    bad = plain_cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.medium", "--plan", "-o", "wide")
    assert bad.stderr.startswith('error: unable to match a printer suitable for the output format "wide"')


def test_rollout_strategy_from_the_kubevirt_cr(plain_cli, plain_plane, namespace) -> None:
    name = _running(plain_plane, namespace)
    plain_plane.ensure_namespace("kubevirt")
    kubevirt = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "KubeVirt",
        "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
        "spec": {"configuration": {"vmRolloutStrategy": "Stage"}},
    }
    if plain_plane.get(kubevirt) is not None:
        pytest.skip("a KubeVirt CR already exists on this plane")
    plain_plane.apply(kubevirt)
    try:
        result = plain_cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.medium", "--plan")
        assert result.exit_code == 0, result.stderr
        assert "rollout strategy Stage, from KubeVirt CR kubevirt/kubevirt" in result.stdout
        assert 'RestartRequired: "a non-live-updatable field was changed in the template spec"' in result.stdout
    finally:
        plain_plane.delete(kubevirt)


def test_refresh_pins_a_revision_of_the_current_generation(plain_cli, plain_plane, namespace) -> None:
    vm = plain_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, None))
    old = controller_revision(plain_plane, vm, "VirtualMachineClusterInstancetype", "u1.small", SMALL, generation=0)
    vm["status"] = {"instancetypeRef": {"name": "u1.small", "controllerRevisionRef": {"name": old}}}
    name = vm["metadata"]["name"]
    _put(plain_plane, f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{name}/status", vm)
    live = plain_plane.get(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineClusterInstancetype",
            "metadata": {"name": "u1.small"},
        }
    )
    plan = plain_cli("switch", f"vm/{name}", "-n", namespace, "--refresh", "--plan")
    assert plan.exit_code == 0, plan.stderr
    assert f"instancetype: u1.small -> u1.small (generation {live['metadata']['generation']})" in plan.stdout
    result = plain_cli("switch", f"vm/{name}", "-n", namespace, "--refresh", "--timeout", "1s")
    assert result.exit_code == 0, result.stderr
    # no controller here records it: the pin stays, and the user is told
    assert "spec.*.revisionName stays pinned" in result.stderr
    expected = f"{name}-u1.small-v1beta1-{live['metadata']['uid']}-{live['metadata']['generation']}"
    stored = plain_plane.get(
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": namespace}}
    )
    assert stored["spec"]["instancetype"] == {"name": "u1.small", "revisionName": expected}
    revision = plain_plane.get(
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": expected, "namespace": namespace}}
    )
    assert revision["metadata"]["labels"]["instancetype.kubevirt.io/object-name"] == "u1.small"
    assert revision["metadata"]["ownerReferences"][0]["uid"] == vm["metadata"]["uid"]
    assert revision["data"]["spec"] == live["spec"]
    assert "labels" not in revision["data"]["metadata"]
    # refreshing again: the pinned revision already holds the current generation
    again = plain_cli("switch", f"vm/{name}", "-n", namespace, "--refresh")
    assert again.exit_code == 0, again.stderr
    assert f"virtualmachine.kubevirt.io/{name} unchanged" in again.stdout


def test_wait_times_out_without_a_controller(plain_cli, plain_plane, namespace) -> None:
    vm = plain_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, None))
    name = vm["metadata"]["name"]
    result = plain_cli(
        "switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.medium", "--wait", "--timeout", "1s"
    )
    assert result.exit_code == 1
    assert "timed out after 1s waiting for the controller; what it had done by then:" in result.stdout
    assert result.stderr == (
        f"error: timed out after 1s waiting for the controller; see kubectl get vm {name} -o yaml\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--refresh", "--instancetype", "u1.small"], "--refresh keeps the types the VM names"),
        (["--instancetype", "u1.small", "--plan", "--wait"], "--wait waits for a write"),
        (["--instancetype", "u1.small", "--wait", "--timeout", "soon"], 'invalid argument "soon" for "--timeout"'),
    ],
)
def test_usage_errors(plain_cli, args, message) -> None:
    result = plain_cli("switch", "vm/x", *args)
    assert result.exit_code == 1 and result.stderr.startswith(f"error: {message}")
