"""The whole-VM admission rules checked offline (instancetype/vmrules.py), on the messages and fields of
KubeVirt v1.9.0's admitters (vmi-create-admitter.go validateInputDevices, network/admitter/binding.go,
webhooks/amd64.go ValidateLaunchSecurityAmd64); the real virt-api's words are held in
tests/integration/test_admission_verdict.py."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype.expand import ClusterDefaults, admission_problems, expand_vm
from kubectl_instancetype.instancetype.vmrules import whole_vm_problems

BASE = "spec.template.spec"


def _causes(spec: dict) -> list[tuple[str, str]]:
    return [(p.path, p.error()) for p in whole_vm_problems(spec)]


@pytest.mark.parametrize(
    ("inputs", "want"),
    [
        ([{"name": "t", "type": "tablet", "bus": "usb"}], []),
        ([{"name": "t", "type": "tablet"}], []),
        (
            [{"name": "k", "bus": "usb"}],
            [(f"{BASE}.domain.devices.inputs[0].type", "Input device can have only tablet type.")],
        ),
        (
            [{"name": "k", "type": "keyboard", "bus": "ps2"}],
            [
                (f"{BASE}.domain.devices.inputs[0].bus", "Input device can have only virtio or usb bus."),
                (f"{BASE}.domain.devices.inputs[0].type", "Input device can have only tablet type."),
            ],
        ),
    ],
)
def test_input_devices(inputs: list, want: list) -> None:
    assert _causes({"domain": {"devices": {"inputs": inputs}}}) == want


@pytest.mark.parametrize(
    ("iface", "want"),
    [
        ({"name": "default", "masquerade": {}}, []),
        ({"name": "default", "binding": {"name": "passt"}}, []),
        ({"name": "default"}, ["logical default interface must have exactly one binding method or binding plugin"]),
        (
            {"name": "net1", "bridge": {}, "masquerade": {}},
            ["logical net1 interface must have exactly one binding method or binding plugin"],
        ),
    ],
)
def test_interface_binding(iface: dict, want: list) -> None:
    got = _causes({"domain": {"devices": {"interfaces": [iface]}}})
    assert [message for _, message in got] == want
    assert all(path == f"{BASE}.domain.devices.interfaces[0]" for path, _ in got)


@pytest.mark.parametrize(
    ("domain", "want"),
    [
        ({"launchSecurity": {"sev": {}}}, ["SEV requires OVMF (UEFI)"]),
        (
            {"launchSecurity": {"sev": {}}, "firmware": {"bootloader": {"efi": {}}}},
            ["SEV does not work along with SecureBoot"],
        ),
        ({"launchSecurity": {"sev": {}}, "firmware": {"bootloader": {"efi": {"secureBoot": False}}}}, []),
        ({"launchSecurity": {"sev": {}, "tdx": {}}}, ["One and only one launchSecurity type can be set"]),
        (
            {
                "launchSecurity": {"tdx": {}},
                "features": {"smm": {}},
                "firmware": {"bootloader": {"efi": {"persistent": True}}},
            },
            ["TDX does not work along with SMM", "TDX does not work along with Persistent EFI variables"],
        ),
    ],
)
def test_launch_security(domain: dict, want: list) -> None:
    got = _causes({"domain": domain})
    assert [message for _, message in got] == want
    assert all(path == f"{BASE}.launchSecurity" for path, _ in got)


def test_launch_security_on_arm64_and_s390x() -> None:
    spec = {"architecture": "arm64", "domain": {"launchSecurity": {"sev": {}}}}
    assert _causes(spec) == [(f"{BASE}.launchSecurity", "No launchSecurity support for architecture: arm64")]
    assert _causes({**spec, "architecture": "s390x"}) == []


def _vm(spec: dict, **matchers: dict) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm"},
        "spec": {"runStrategy": "Always", "template": {"spec": spec}, **matchers},
    }


def test_a_preference_makes_the_vm_valid_as_kubevirt_applies_it_first() -> None:
    """The rules run on the spec the instance type and preference produce (vms-admitter.go Admit)."""
    vm = _vm({"domain": {"devices": {"inputs": [{"name": "i", "bus": "usb"}]}}}, preference={"name": "p"})
    assert [p.error() for p in admission_problems(vm, None, {}, whole_vm=True)] == [
        "Input device can have only tablet type."
    ]
    fixed = {"devices": {"preferredInputType": "tablet"}}
    assert admission_problems(vm, None, fixed, whole_vm=True) == []
    assert admission_problems(vm, None, {}) == []  # the instance type checks alone do not look at devices


def test_expand_with_checks_refuses_what_admission_denies() -> None:
    it = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "launchSecurity": {"sev": {}}}
    vm = _vm({"domain": {"devices": {}}}, instancetype={"name": "it"})
    result = expand_vm(vm, it, None, defaults=ClusterDefaults(), check=True)
    assert result.vm is None and result.error == "SEV requires OVMF (UEFI)"
    assert expand_vm(vm, it, None, defaults=ClusterDefaults()).vm is not None  # --skip-checks: KubeVirt's expand
    plain = _vm(
        {"domain": {"devices": {"interfaces": [{"name": "default"}]}}, "networks": [{"name": "default", "pod": {}}]}
    )
    refused = expand_vm(plain, None, None, check=True)
    assert refused.error == "logical default interface must have exactly one binding method or binding plugin"


def test_lint_says_no_only_when_it_knows_the_types(tmp_path) -> None:
    """Offline, lint -f judges a VM by the whole-VM rules when the file or the catalog holds its types; a VM
    naming a preference neither holds gets no verdict (the preference could fill what the rules look at)."""
    import yaml

    from tests.conftest import run_cli

    devices = {"inputs": [{"name": "k", "type": "keyboard", "bus": "usb"}]}
    keyboard = {"domain": {"devices": devices, "memory": {"guest": "2Gi"}}}  # fedora's requirements met
    known = _vm(keyboard, preference={"name": "fedora"})  # the catalog's
    unknown = _vm(keyboard, preference={"name": "nowhere"})
    unknown["metadata"]["name"] = "vm2"
    path = tmp_path / "vms.yaml"
    path.write_text(yaml.safe_dump_all([known, unknown]))
    result = run_cli(["lint", "-f", str(path)])
    assert result.exit_code == 1
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("virtualmachine/vm", f"{BASE}.domain.devices.inputs[0].type", "admission")
    ]
    assert "Input device can have only tablet type." in result.stdout
    assert result.stderr.startswith("checked offline (no kubeconfig): ")
