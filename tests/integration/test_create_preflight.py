"""create vm's pre-flight on the real control plane: inference resolved first, then the expansion engine's
admission checks (conflicts, spread divisibility, requirements), all before anything is written."""

from __future__ import annotations

import itertools

import pytest
import yaml

from kubectl_instancetype.kube.transport import Transport

pytestmark = pytest.mark.controlplane

NAMESPACE = "preflight-tests"
LABEL = "instancetype.kubevirt.io/"
NAMES = (f"preflight-vm-{index}" for index in itertools.count())


@pytest.fixture(scope="module")
def objects(control_plane):
    """The volumes and types the tests need; removed afterwards (other modules count namespaced objects)."""
    control_plane.ensure_namespace(NAMESPACE)
    yield from _objects(control_plane)


def _objects(control_plane):
    for name, labels in (
        ("labelled-disk", {f"{LABEL}default-instancetype": "u1.medium", f"{LABEL}default-preference": "fedora"}),
        ("plain-disk", {}),
    ):
        control_plane.apply(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
            }
        )
    control_plane.apply(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "three-cpus", "namespace": NAMESPACE},
            "spec": {"cpu": {"guest": 3}, "memory": {"guest": "1Gi"}},
        }
    )
    control_plane.apply(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": "spread-pairs", "namespace": NAMESPACE},
            "spec": {"cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"ratio": 2}}},
        }
    )
    yield
    for kind, api_version, name in (
        ("VirtualMachineInstancetype", "instancetype.kubevirt.io/v1beta1", "three-cpus"),
        ("VirtualMachinePreference", "instancetype.kubevirt.io/v1beta1", "spread-pairs"),
    ):
        control_plane.delete(
            {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": NAMESPACE}}
        )


def stored_vm(control_plane, name: str) -> dict | None:
    return control_plane.get(
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": NAMESPACE}}
    )


def test_inference_is_resolved_and_reported_before_creating(cli, control_plane, objects) -> None:
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, "-n", NAMESPACE, "--volume-pvc", "src:labelled-disk")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        "Inferred instancetype: u1.medium (virtualmachineclusterinstancetype) from volume labelled-disk: "
        f"PersistentVolumeClaim {NAMESPACE}/labelled-disk -> labels",
        "Inferred preference: fedora (virtualmachineclusterpreference) from volume labelled-disk: "
        f"PersistentVolumeClaim {NAMESPACE}/labelled-disk -> labels",
    ]
    # Without --resolve-inference the server is left to infer, as virtctl's manifest asks: KubeVirt's mutating
    # webhook stores what the pre-flight reported.
    spec = stored_vm(control_plane, name)["spec"]
    assert (spec["instancetype"], spec["preference"]) == ({"name": "u1.medium"}, {"name": "fedora"})


def test_resolve_inference_writes_the_names(cli, control_plane, objects) -> None:
    name = next(NAMES)
    result = cli(
        "create", "vm", "--name", name, "-n", NAMESPACE, "--volume-pvc", "src:labelled-disk", "--resolve-inference"
    )
    assert result.exit_code == 0, result.stderr
    spec = stored_vm(control_plane, name)["spec"]
    assert (spec["instancetype"], spec["preference"]) == ({"name": "u1.medium"}, {"name": "fedora"})
    # Under Ignore, an inferred instance type removes the VM's own memory, as admission does.
    assert "memory" not in spec["template"]["spec"]["domain"]


def test_explicit_inference_from_an_unlabelled_volume_fails_with_kubevirts_message(
    cli, control_plane, objects, mocker
) -> None:
    name = next(NAMES)
    spy = mocker.spy(Transport, "request")
    result = cli(
        "create",
        "vm",
        "--name",
        name,
        "-n",
        NAMESPACE,
        "--volume-pvc",
        "src:plain-disk",
        "--infer-instancetype-from",
        "plain-disk",
    )
    assert (result.exit_code, result.stdout) == (1, "")
    # KubeVirt's words first, then the volume, the objects read and the command that fixes it
    assert result.stderr.startswith(
        'Error from server: admission webhook "virtualmachines-mutator.kubevirt.io" denied the request: '
        "unable to find required instancetype.kubevirt.io/default-instancetype label on the volume ("
    )
    assert result.stderr.endswith(
        f"; label the PersistentVolumeClaim with the instancetype to use: kubectl instancetype label "
        f"pvc/plain-disk -n {NAMESPACE} --default-instancetype NAME\n"
    )
    # KubeVirt's verdict: the VM was sent and denied, nothing exists
    assert [call.args[1] for call in spy.call_args_list].count("POST") == 1
    assert stored_vm(control_plane, name) is None


def test_implicit_inference_that_the_server_would_drop_is_said_and_the_vm_created(cli, control_plane, objects) -> None:
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, "-n", NAMESPACE, "--volume-pvc", "src:plain-disk")
    assert result.exit_code == 0, result.stderr
    assert "with inferFromVolumeFailurePolicy Ignore the server drops spec.instancetype" in result.stderr
    assert stored_vm(control_plane, name) is not None


def test_spread_divisibility_is_kubevirts_verdict_explained(cli, control_plane, objects) -> None:
    name = next(NAMES)
    flags = [
        "--instancetype",
        "virtualmachineinstancetype/three-cpus",
        "--preference",
        "virtualmachinepreference/spread-pairs",
    ]
    message = (
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
        "3 vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or "
        "Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the preference; choose an instance type whose vCPU "
        "count the preference virtualmachinepreference/spread-pairs's spread topology divides, or a preference that "
        "does not spread\n"
    )
    result = cli("create", "vm", "--name", name, "-n", NAMESPACE, *flags)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)
    assert stored_vm(control_plane, name) is None
    # --skip-checks sends it as built (nothing is read first): KubeVirt's webhook still denies it.
    skipped = cli("create", "vm", "--name", name, "-n", NAMESPACE, "--skip-checks", *flags)
    assert skipped.exit_code == 1 and skipped.stderr.startswith(message.split("; choose")[0] + "; choose")


def test_client_dry_run_checks_when_the_cluster_answers(cli, control_plane, objects) -> None:
    result = cli(
        "create",
        "vm",
        "--name",
        "never-sent",
        "-n",
        NAMESPACE,
        "--volume-pvc",
        "src:labelled-disk",
        "--resolve-inference",
        "--dry-run=client",
        "-o",
        "yaml",
    )
    assert result.exit_code == 0, result.stderr
    printed = yaml.safe_load(result.stdout)
    assert printed["spec"]["instancetype"] == {"name": "u1.medium"}
    assert "Inferred instancetype: u1.medium" in result.stderr
    failing = cli(
        "create",
        "vm",
        "--name",
        "never-sent",
        "-n",
        NAMESPACE,
        "--dry-run=client",
        "--instancetype",
        "virtualmachineinstancetype/three-cpus",
        "--preference",
        "virtualmachinepreference/spread-pairs",
    )
    assert (failing.exit_code, failing.stdout) == (1, "")
    missing = cli("create", "vm", "--name", "never-sent", "-n", NAMESPACE, "--dry-run=client", "--instancetype", "nope")
    assert missing.exit_code == 0 and missing.stderr.startswith(
        'Warning: virtualmachineclusterinstancetype "nope" not found'
    )
