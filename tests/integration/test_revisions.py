"""``revisions`` and ``switch`` against the control plane, on the ControllerRevisions KubeVirt's own virt-controller
records there."""

from __future__ import annotations

import itertools

import pytest

from kubectl_instancetype.catalog.loader import load_catalog
from tests.conftest import EXPAND_NS as NS
from tests.conftest import halted_vm, revised, run_on

pytestmark = pytest.mark.controlplane

NAMES = (f"revisions-vm-{index}" for index in itertools.count())


def _changing_instancetype(control_plane, namespace: str, name: str) -> dict:
    """A namespaced instance type with 2 vCPUs (recorded by virt-controller once a VM uses it), then changed."""
    instancetype = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}},
    }
    control_plane.delete(instancetype)
    control_plane.apply(instancetype)
    return instancetype


def _change_to_one_vcpu(control_plane, instancetype: dict) -> None:
    live = control_plane.get(instancetype)
    live["spec"]["cpu"]["guest"] = 1
    meta = instancetype["metadata"]
    path = f"/apis/instancetype.kubevirt.io/v1beta1/namespaces/{meta['namespace']}/virtualmachineinstancetypes/{meta['name']}"
    code, answer = control_plane.request("PUT", path, live)
    assert code == 200, answer


@pytest.fixture
def namespace(control_plane) -> str:
    control_plane.ensure_namespace(NS)
    return NS


def _put(control_plane, vm: dict, status: bool = False) -> dict:
    """PUT ``vm``'s spec (or status) over the stored VM, again on a conflict (virt-controller writes it too)."""
    path = f"/apis/kubevirt.io/v1/namespaces/{vm['metadata']['namespace']}/virtualmachines/{vm['metadata']['name']}"
    for _ in range(20):
        body = control_plane.get(vm)
        body["status" if status else "spec"] = vm["status" if status else "spec"]
        code, answer = control_plane.request("PUT", path + ("/status" if status else ""), body)
        if code != 409:
            break
    assert code == 200, answer
    return answer


def _stored(control_plane, name: str, namespace: str) -> dict:
    return control_plane.get(
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": namespace}}
    )


def test_revisions_from_status_refs_with_a_changed_object(cli, control_plane, namespace) -> None:
    instancetype = _changing_instancetype(control_plane, namespace, "revisions-type")
    matcher = {"kind": "VirtualMachineInstancetype", "name": "revisions-type"}
    vm = revised(control_plane, control_plane.apply(halted_vm(next(NAMES), namespace, matcher, {"name": "fedora"})))
    it_rev = vm["status"]["instancetypeRef"]["controllerRevisionRef"]["name"]
    pref_rev = vm["status"]["preferenceRef"]["controllerRevisionRef"]["name"]
    _change_to_one_vcpu(control_plane, instancetype)
    result = cli("revisions", f"vm/{vm['metadata']['name']}", "-n", namespace)
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "MATCHER",
        "KIND",
        "NAME",
        "REVISION",
        "RECORDED",
        "IN",
        "STORED",
        "GEN",
        "LIVE",
        "GEN",
        "CHANGED",
    ]
    assert lines[1].split() == [
        "instancetype",
        "virtualmachineinstancetype",
        "revisions-type",
        it_rev,
        "status",
        "1",
        "2",
        "yes",
    ]
    assert lines[2].split() == [
        "preference",
        "virtualmachineclusterpreference",
        "fedora",
        pref_rev,
        "status",
        "1",
        "1",
        "no",
    ]
    assert "Revisions recorded in: status references (KubeVirt v1.5+)" in result.stdout
    assert (
        f"--- controllerrevision/{it_rev} spec\n+++ virtualmachineinstancetype/revisions-type spec (live)\n"
        in result.stdout
    )
    assert "-  guest: 2\n+  guest: 1\n" in result.stdout


def test_revisions_without_any_recorded(bare_plane) -> None:
    # nothing records revisions where no virt-controller runs (on a KubeVirt cluster: until it has synced the VM)
    namespace = NS
    bare_plane.ensure_namespace(namespace)
    bare_plane.apply(next(o for o in load_catalog().instancetypes if o["metadata"]["name"] == "u1.small"))
    vm = bare_plane.apply(
        halted_vm(next(NAMES), namespace, {"name": "u1.small", "kind": "VirtualMachineClusterInstancetype"}, None)
    )
    result = run_on(bare_plane, "revisions", f"vm/{vm['metadata']['name']}", "-n", namespace)
    assert result.stdout.splitlines()[1].split() == [
        "instancetype",
        "virtualmachineclusterinstancetype",
        "u1.small",
        "-",
        "-",
        "-",
        "1",
        "-",
    ]
    plain = bare_plane.apply(halted_vm(next(NAMES), namespace, None, None))
    result = run_on(bare_plane, "revisions", f"vm/{plain['metadata']['name']}", "-n", namespace)
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"virtualmachine/{plain['metadata']['name']} has no instance type and no preference\n"


def test_switch_on_a_v1_5_cluster_changes_the_name(cli, control_plane, namespace) -> None:
    vm = revised(
        control_plane, control_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, {"name": "fedora"}))
    )
    name = vm["metadata"]["name"]
    dry = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.large", "--dry-run")
    assert (dry.exit_code, dry.stderr) == (0, "")
    assert dry.stdout == (
        # the plane's KubeVirt CR sets no strategy: KubeVirt's default, read from the CR
        f"virtualmachine.kubevirt.io/{name} (not running; rollout strategy LiveUpdate, from KubeVirt CR "
        "kubevirt/kubevirt)\n"
        "  instancetype: u1.small -> u1.large\n"
        "\n"
        "FIELD                 NOW   NEW   WHEN\n"
        "domain.cpu.sockets    1     2     at next start\n"
        "domain.memory.guest   2Gi   8Gi   at next start\n"
        "\n"
        "The VM is not running: it gets the new values when it starts.\n"
    )
    assert _stored(control_plane, name, namespace)["spec"]["instancetype"] == {"name": "u1.small"}
    result = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.large")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith(dry.stdout)
    assert result.stdout.endswith(f"virtualmachine.kubevirt.io/{name} switched: instancetype u1.small -> u1.large\n")
    stored = _stored(control_plane, name, namespace)
    assert stored["spec"]["instancetype"] == {"name": "u1.large"} and stored["spec"]["preference"] == {"name": "fedora"}
    # and the expansion now uses the live u1.large, not the revision stored for u1.small
    expanded = cli("expand", f"vm/{name}", "-n", namespace, "--explain")
    assert "spec.template.spec.domain.memory.guest" in expanded.stdout and " 8Gi " in expanded.stdout


def test_switch_clears_a_pinned_revision_name(cli, control_plane, namespace) -> None:
    # On v1.5+ (status references) a revisionName in the matcher is a user's pin (KubeVirt v1.4 and older wrote
    # it themselves, not reproducible on this v1.9 plane); here the pin names the revision virt-controller recorded.
    vm = revised(control_plane, control_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, None)))
    vm["spec"]["instancetype"]["revisionName"] = vm["status"]["instancetypeRef"]["controllerRevisionRef"]["name"]
    _put(control_plane, vm)
    name = vm["metadata"]["name"]
    result = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "virtualmachineinstancetype/u1.medium")
    assert result.exit_code == 1  # the namespaced u1.medium is only in the catalog namespace
    assert result.stderr == (
        f'error: virtualmachineinstancetype "u1.medium" not found in namespace "{NS}" '
        '(a VirtualMachineClusterInstancetype named "u1.medium" exists: use --instancetype u1.medium)\n'
    )
    result = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.medium")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ("clearing spec.instancetype.revisionName (pinned) so that the new instancetype is taken\n")
    assert _stored(control_plane, name, namespace)["spec"]["instancetype"] == {"name": "u1.medium"}


def test_switch_checks_the_new_combination_first(cli, control_plane, namespace) -> None:
    vm = control_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.large"}, {"name": "windows.11"}))
    name = vm["metadata"]["name"]
    result = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.nano")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by instance "
        "type, preference requires 2 vCPU; the smallest instance types that satisfy preference windows.11: "
        "u1.2xmedium, d1.2xmedium, cx1.large (kubectl instancetype recommend --preference windows.11)\n"
    )
    # sent unchecked, KubeVirt's webhook denies the update in the same words, with the same hint
    skipped = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "u1.nano", "--skip-checks")
    assert skipped.exit_code == 1
    assert skipped.stderr.splitlines()[-1] == (
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
        "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by instance "
        "type, preference requires 2 vCPU; the smallest instance types that satisfy preference windows.11: "
        "u1.2xmedium, d1.2xmedium, cx1.large (kubectl instancetype recommend --preference windows.11)"
    )
    assert _stored(control_plane, name, namespace)["spec"]["instancetype"] == {"name": "u1.large"}
    conflicting = control_plane.apply(
        halted_vm(next(NAMES), namespace, None, None, domain={"devices": {}, "cpu": {"sockets": 2}})
    )
    result = cli("switch", f"vm/{conflicting['metadata']['name']}", "-n", namespace, "--instancetype", "u1.small")
    assert (
        result.stderr
        == "error: VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type\n"
    )
    assert (
        cli("switch", "vm/x", "-n", namespace).stderr
        == "error: nothing to switch: give --instancetype and/or --preference, or --refresh\n"
    )
    assert (
        cli("switch", "pod/x", "--instancetype", "u1.small").stderr
        == 'error: switch takes a VirtualMachine: vm/NAME, not "pod/x"\n'
    )


def test_switch_to_a_namespaced_type_named_without_a_kind_says_so(cli, control_plane, namespace) -> None:
    """A bare name means a cluster instance type (KubeVirt's default kind); when only a namespaced one holds the
    name, the error names it and where it is."""
    control_plane.apply(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "flows-only-here", "namespace": namespace},
            "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
        }
    )
    vm = control_plane.apply(halted_vm(next(NAMES), namespace, {"name": "u1.small"}, None))
    name = vm["metadata"]["name"]
    result = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "flows-only-here")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        'error: virtualmachineclusterinstancetype "flows-only-here" not found '
        f'(a VirtualMachineInstancetype named "flows-only-here" exists in namespace "{namespace}": '
        "use --instancetype vmf/flows-only-here)\n"
    )
    named = cli("switch", f"vm/{name}", "-n", namespace, "--instancetype", "vmf/flows-only-here", "--plan")
    assert named.exit_code == 0, named.stderr
