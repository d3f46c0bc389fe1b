"""``create vm`` against KubeVirt's real webhooks: the server's verdict, explained; ``--dry-run=client`` says the
same words without sending anything; ``version`` reads KubeVirt's and CDI's versions from the cluster."""

from __future__ import annotations

import itertools
import json

import pytest

from kubectl_instancetype.kube.transport import Transport

pytestmark = pytest.mark.controlplane

NAMES = (f"verdict-vm-{index}" for index in itertools.count())
DISK = "src:quay.io/containerdisks/fedora:41"


def _session(control_plane, namespace: str):
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
    from kubectl_instancetype.kube.session import Session

    options = ConnectionOptions(kubeconfig=str(control_plane.kubeconfig("admin")), namespace=namespace)
    return Session(options, {}, "/nonexistent")


def _stored(control_plane, namespace: str, name: str):
    return control_plane.get(
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": namespace}}
    )


def test_a_requirement_denial_is_kubevirts_with_what_to_do(cli, control_plane, namespace) -> None:
    name = next(NAMES)
    args = ["create", "vm", "--name", name, "-n", namespace, "--instancetype", "u1.nano", "--preference", "windows.11"]
    sent = cli(*args)
    message = (
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
        "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by instance type, "
        "preference requires 2 vCPU; the smallest instance types that satisfy preference windows.11: u1.2xmedium, "
        "d1.2xmedium, cx1.large (kubectl instancetype recommend --preference windows.11)\n"
    )
    assert (sent.exit_code, sent.stdout, sent.stderr) == (1, "", message)
    assert _stored(control_plane, namespace, name) is None
    # --dry-run=client sends nothing and says the same words; --dry-run=server asks the webhooks.
    for dry_run in ("client", "server"):
        answer = cli(*args, f"--dry-run={dry_run}")
        assert (answer.exit_code, answer.stdout, answer.stderr) == (1, "", message), dry_run


def test_client_dry_run_reads_and_never_writes(cli, namespace, mocker) -> None:
    spy = mocker.spy(Transport, "request")
    result = cli(
        "create", "vm", "-n", namespace, "--instancetype", "u1.medium", "--preference", "fedora", "--dry-run=client"
    )
    assert result.exit_code == 0, result.stderr
    assert {call.args[1] for call in spy.call_args_list} == {"GET"}


def test_a_missing_instance_type_is_admitted_as_kubevirt_does_with_a_warning(cli, control_plane, namespace) -> None:
    name = next(NAMES)
    result = cli(
        "create", "vm", "--name", name, "-n", namespace, "--instancetype", "u1.mediun", "--run-strategy", "Halted"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        'Warning: virtualmachineclusterinstancetype "u1.mediun" not found (did you mean u1.medium?): '
        "a VirtualMachine naming it stays stopped until it exists\n"
    )
    assert result.stdout == f"virtualmachine.kubevirt.io/{name} created\n"
    assert _stored(control_plane, namespace, name)["spec"]["instancetype"] == {"name": "u1.mediun"}


def test_a_conflict_from_a_manifest_is_denied_by_the_validating_webhook(control_plane, namespace) -> None:
    from kubectl_instancetype.usecases.creating import create_vm
    from kubectl_instancetype.usecases.preflight import AdmissionDenied

    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": next(NAMES)},
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"name": "u1.medium"},
            "template": {"spec": {"domain": {"cpu": {"sockets": 2}, "devices": {}}}},
        },
    }
    with _session(control_plane, namespace) as session, pytest.raises(AdmissionDenied) as denied:
        create_vm(session, vm, dry_run="none")
    assert denied.value.render() == (
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
        "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type; "
        "the instance type u1.medium sets these fields: remove them from the VirtualMachine"
    )


def test_whole_vm_validation_the_preflight_does_not_model_is_the_servers_word(cli, control_plane, namespace) -> None:
    """KubeVirt validates the whole VM (here an input device that is not a tablet); the server's message stands."""
    from kubectl_instancetype.usecases.creating import create_vm
    from kubectl_instancetype.usecases.preflight import AdmissionDenied

    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": next(NAMES)},
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"name": "u1.medium"},
            "template": {
                "spec": {"domain": {"devices": {"inputs": [{"name": "in", "bus": "usb", "type": "keyboard"}]}}}
            },
        },
    }
    with _session(control_plane, namespace) as session, pytest.raises(AdmissionDenied) as denied:
        create_vm(session, vm, dry_run="server")
    assert denied.value.render().startswith(
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
    )
    assert "Input device can have only tablet type." in denied.value.render()


def test_version_reads_kubevirt_and_cdi_from_the_cluster(cli, control_plane) -> None:
    from kubectl_instancetype import __version__

    result = cli("version")
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        f"Client Version: v{__version__}",
        "Server Version: v1.36.3",
        f"KubeVirt Version: {control_plane.kubevirt_version}",
    ]
    assert lines[3] == "CDI Version: v1.64.0"  # the CDI resource's status.observedVersion
    as_json = cli("version", "-o", "json")
    assert (as_json.exit_code, as_json.stderr) == (0, "")
    assert json.loads(as_json.stdout) == {
        "clientVersion": {"gitVersion": f"v{__version__}"},
        "serverVersion": {"gitVersion": "v1.36.3"},
        "kubevirtVersion": {"gitVersion": control_plane.kubevirt_version},
        "cdiVersion": {"gitVersion": "v1.64.0"},
    }
