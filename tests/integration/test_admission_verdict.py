"""KubeVirt's verdict on what the plugin reads from -f, against the real kube-apiserver and virt-api: the API
server's strict-decoding and schema words equal the offline ones (golang/structural.py over the embedded
schemas), the VMs the real virt-api denies (an input device that is not a tablet, an interface without a binding,
SEV without UEFI) are denied by the offline rules (instancetype/vmrules.py) with the same words, and expand -f,
lint -f, adopt and convert print KubeVirt's words when the cluster answers."""

from __future__ import annotations

import copy
import subprocess

import pytest
import yaml

from kubectl_instancetype.errors import APIError
from kubectl_instancetype.golang.structural import (
    load_schemas,
    strict_decoding_message,
    unknown_fields,
)
from kubectl_instancetype.instancetype.expand import admission_problems
from kubectl_instancetype.kube.resources import BY_KIND
from kubectl_instancetype.usecases.fieldcheck import check

pytestmark = pytest.mark.controlplane

VALIDATOR = 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '


def _session(control_plane, namespace: str):
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
    from kubectl_instancetype.kube.session import Session

    options = ConnectionOptions(kubeconfig=str(control_plane.kubeconfig("admin")), namespace=namespace)
    return Session(options, {}, "/nonexistent")


def _server_says(control_plane, namespace: str, obj: dict) -> APIError | None:
    """The real API server's answer to a strict dry-run create of ``obj`` (None: admitted)."""
    resource = BY_KIND[obj["kind"]]
    with _session(control_plane, namespace) as session:
        try:
            session.client().create(
                resource, obj, namespace if resource.namespaced else None, dry_run=True, field_validation="Strict"
            )
        except APIError as exc:
            return exc
    return None


def _vm(name: str, template_spec: dict, **spec: object) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name},
        "spec": {"runStrategy": "Halted", "template": {"spec": template_spec}, **spec},
    }


PREFERENCE = {
    "apiVersion": "instancetype.kubevirt.io/v1beta1",
    "kind": "VirtualMachinePreference",
    "metadata": {"name": "typo"},
    "spec": {"devices": {"preferedDiskBus": "virtio"}, "cpu": {"preferredCPUTopology": "sockets", "zzz": 1}},
}


@pytest.mark.parametrize(
    "obj",
    [
        PREFERENCE,
        _vm("unknown", {"domain": {"devices": {}}}, zeta=1),
        {**_vm("meta", {"domain": {"devices": {}}}), "metadata": {"name": "meta", "labelz": {"a": "b"}}},
        {
            **_vm("nested", {"domain": {"devices": {"disks": [{"name": "d", "disk": {"buss": "virtio"}}]}}}),
            "extra": True,
        },
    ],
    ids=["preference-two-fields", "vm-spec", "vm-metadata", "vm-list-item-and-root"],
)
def test_unknown_fields_are_the_servers_bytes(control_plane, namespace, obj) -> None:
    answer = _server_says(control_plane, namespace, obj)
    schema = load_schemas()[obj["kind"]]
    version = obj["apiVersion"].rsplit("/", 1)[-1]
    assert answer is not None and answer.code == 400 and answer.reason == "BadRequest"
    assert answer.message == strict_decoding_message(obj["kind"], version, unknown_fields(obj, schema))


@pytest.mark.parametrize(
    "obj",
    [
        {**PREFERENCE, "spec": {"cpu": {"spreadOptions": {"ratio": "two"}}}},
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "it"},
            "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi", "overcommitPercent": 150}},
        },
        _vm("reboot", {"domain": {"devices": {}, "rebootPolicy": "Never"}}),
        _vm("input", {"domain": {"devices": {"inputs": [{"name": "i", "bus": "usb"}]}}}),
    ],
    ids=["type", "maximum", "enum", "required-filled-by-the-mutating-webhook"],
)
def test_schema_violations_are_the_servers_words(control_plane, namespace, obj) -> None:
    answer = _server_says(control_plane, namespace, obj)
    problems = check(obj, "in.yaml")
    errors = problems.invalid if problems is not None else ()
    assert answer is not None and answer.reason == "Invalid", answer
    if obj["metadata"]["name"] == "input":
        # KubeVirt's mutating webhook writes Go's "type": "" before the schema is checked: no schema error, and
        # the validating webhook's words instead
        assert errors == () and answer.message == VALIDATOR + "Input device can have only tablet type."
        return
    assert [(c.get("field"), c.get("message")) for c in answer.causes] == [(e.path, e.body) for e in errors]


DENIED = {
    "input-not-tablet": (
        _vm("input", {"domain": {"devices": {"inputs": [{"name": "i", "bus": "usb", "type": "keyboard"}]}}}),
        "Input device can have only tablet type.",
    ),
    "interface-without-binding": (
        _vm(
            "iface",
            {
                "domain": {"devices": {"interfaces": [{"name": "default"}]}},
                "networks": [{"name": "default", "pod": {}}],
            },
        ),
        "logical default interface must have exactly one binding method or binding plugin",
    ),
    "sev-without-uefi": (
        _vm("sev", {"domain": {"devices": {}, "launchSecurity": {"sev": {}}}}),
        "SEV requires OVMF (UEFI)",
    ),
}


@pytest.mark.parametrize("case", sorted(DENIED))
def test_kubevirt_denies_what_the_offline_rules_deny(control_plane, namespace, case) -> None:
    vm, words = DENIED[case]
    answer = _server_says(control_plane, namespace, vm)
    offline = [problem.error() for problem in admission_problems(vm, None, None, whole_vm=True)]
    if answer is not None and "feature gate is not enabled" in answer.message:
        pytest.skip(f"this plane's KubeVirt CR does not enable the gate: {answer.message}")
    assert answer is not None and answer.message == VALIDATOR + words
    assert offline == [words]


def _file(tmp_path, *docs) -> str:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def test_expand_and_lint_print_kubevirts_words(cli, namespace, tmp_path) -> None:
    vm, words = DENIED["input-not-tablet"]
    path = _file(tmp_path, {**copy.deepcopy(vm), "spec": {**vm["spec"], "instancetype": {"name": "u1.small"}}})
    expanded = cli("expand", "-f", path, "-n", namespace)
    assert (expanded.exit_code, expanded.stdout) == (1, "")
    assert expanded.stderr == (
        f"Error from server (Invalid): {VALIDATOR}{words}; set type: tablet on the input device (or remove it)\n"
    )
    offline = cli("expand", "-f", path, "-n", namespace, "--offline")
    assert offline.exit_code == 1
    assert offline.stderr.endswith(f"error: spec.template.spec.domain.devices.inputs[0].type: {words}\n")
    linted = cli("lint", "-f", path, "-n", namespace)
    assert linted.exit_code == 1 and f"Error from server (Invalid): {VALIDATOR}{words}" in linted.stdout
    assert "checked offline" not in linted.stderr


def test_a_typo_is_refused_with_the_servers_words_and_a_did_you_mean(cli, control_plane, namespace, tmp_path) -> None:
    path = _file(tmp_path, {**PREFERENCE, "spec": {"devices": {"preferedDiskBus": "virtio"}}})
    refused = cli("expand", "-f", path, "-n", namespace)
    assert refused.exit_code == 1
    assert 'strict decoding error: unknown field "spec.devices.preferedDiskBus"; did you mean ' in refused.stderr
    # the real kubectl says the same words (its default --validate=strict)
    kubectl = subprocess.run(
        [str(control_plane.kubectl), "--kubeconfig", str(control_plane.kubeconfig()), "create", "--dry-run=server"]
        + ["-n", namespace, "-f", path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert 'strict decoding error: unknown field "spec.devices.preferedDiskBus"' in kubectl.stderr


def test_convert_and_adopt_ask_kubevirt(cli, namespace, tmp_path) -> None:
    """A converted VM KubeVirt denies (its interface has no binding) fails convert with KubeVirt's words; an
    adopted VM it admits is adopted with no offline line."""
    vm, words = DENIED["interface-without-binding"]
    path = _file(tmp_path, vm)
    converted = cli("convert", "-f", path, "-n", namespace)
    assert converted.exit_code == 1
    assert f"virtualmachine/iface: Error from server (Invalid): {VALIDATOR}{words}" in converted.stderr
    flat = _vm("flat", {"domain": {"cpu": {"sockets": 1}, "memory": {"guest": "4Gi"}, "devices": {}}})
    adopted = cli("adopt", "-f", _file(tmp_path, flat), "-n", namespace)
    assert adopted.exit_code == 0, adopted.stderr
    assert "checked offline" not in adopted.stderr
