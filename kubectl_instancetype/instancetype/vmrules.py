"""The whole-VM admission rules KubeVirt applies to the spec an instance type and preference produce, as far as
they are cheap to know without a cluster: input devices, interface bindings and launch security.

KubeVirt's VM validating webhook (``pkg/virt-api/webhooks/validating-webhook/admitters/vms-admitter.go``,
``Admit``) applies the instance type and preference to a copy of the VM, sets the VMI-spec defaults, checks the
preference's requirements, and then validates the copy's template spec (``ValidateVirtualMachineInstanceSpec``
in ``vmi-create-admitter.go``). So a preference can make a VM valid (``preferredInputType: tablet`` fills an
input's type, ``preferredInterfaceMasquerade`` gives an interface its binding, ``preferredEfi`` the UEFI that SEV
needs) and an instance type invalid (``launchSecurity`` without UEFI). The rules ported here, in KubeVirt's
order within that function (every cause is collected):

- ``pkg/network/admitter/binding.go`` ``validateInterfaceBindingExists``: one binding per interface;
- ``vmi-create-admitter.go`` ``validateInputDevices``: bus ``usb``/``virtio``/unset, type ``tablet``;
- ``pkg/virt-api/webhooks/amd64.go`` ``ValidateLaunchSecurityAmd64`` (the cluster's feature gates are not
  known offline: they are taken as enabled, so "WorkloadEncryptionSEV feature gate is not enabled" is the
  server's alone): one type, TDX without SMM, UEFI, SecureBoot off for SEV/SNP, no persistent EFI for SNP/TDX,
  SEV attestation with ``startStrategy: Paused``, no bootable NICs.

Everything else ValidateVirtualMachineInstanceSpec checks (volumes, feature gates, probes, ...) is left to the
server's verdict.
"""

from __future__ import annotations

from typing import Any

from .expand.conflicts import Conflict

Json = dict[str, Any]


def whole_vm_problems(spec: Json, base: str = "spec.template.spec", *, architecture: str = "amd64") -> list[Conflict]:
    """The causes KubeVirt's VM admission gives the template ``spec`` (instance type and preference applied,
    defaults set) for the rules of this module, in KubeVirt's order; ``architecture`` when the spec sets none."""
    domain = _object(spec.get("domain"))
    devices = _object(domain.get("devices"))
    problems = _interface_bindings(base, devices)
    problems += _input_devices(base, devices)
    problems += _launch_security(base, spec, domain, devices, str(spec.get("architecture") or architecture))
    return problems


_BINDINGS = ("bridge", "masquerade", "sriov", "passt", "binding")


def _interface_bindings(base: str, devices: Json) -> list[Conflict]:
    """``validateInterfaceBindingExists``: exactly one binding method or binding plugin (a set pointer each)."""
    problems = []
    for index, iface in enumerate(_list(devices.get("interfaces"))):
        count = sum(1 for key in _BINDINGS if iface.get(key) is not None)
        if count != 1:
            problems.append(
                Conflict(
                    f"{base}.domain.devices.interfaces[{index}]",
                    f"logical {iface.get('name') or ''} interface must have exactly one binding method or binding plugin",
                )
            )
    return problems


def _input_devices(base: str, devices: Json) -> list[Conflict]:
    """``validateInputDevices``."""
    problems = []
    for index, device in enumerate(_list(devices.get("inputs"))):
        path = f"{base}.domain.devices.inputs[{index}]"
        if device.get("bus") not in ("virtio", "usb", "", None):
            problems.append(Conflict(f"{path}.bus", "Input device can have only virtio or usb bus."))
        if device.get("type") != "tablet":
            problems.append(Conflict(f"{path}.type", "Input device can have only tablet type."))
    return problems


def _launch_security(base: str, spec: Json, domain: Json, devices: Json, architecture: str) -> list[Conflict]:
    """``validateLaunchSecurity`` and, on amd64, ``ValidateLaunchSecurityAmd64`` (gates taken as enabled)."""
    security = domain.get("launchSecurity")
    if security is None:
        return []
    path = f"{base}.launchSecurity"  # KubeVirt's field: the template spec's child, not domain's
    if architecture == "s390x":
        return []
    if architecture != "amd64":
        return [Conflict(path, f"No launchSecurity support for architecture: {architecture}")]
    security = security if isinstance(security, dict) else {}
    selected = [name for key, name in (("sev", "SEV"), ("snp", "SNP"), ("tdx", "TDX")) if security.get(key) is not None]
    if len(selected) != 1:
        return [Conflict(path, "One and only one launchSecurity type can be set")]
    chosen = selected[0]
    problems = []
    smm = _object(domain.get("features")).get("smm")
    if chosen == "TDX" and isinstance(smm, dict) and smm.get("enabled") in (None, True):
        problems.append(Conflict(path, "TDX does not work along with SMM"))
    efi = _object(_object(domain.get("firmware")).get("bootloader")).get("efi")
    if not isinstance(efi, dict):
        problems.append(Conflict(path, f"{chosen} requires OVMF (UEFI)"))
    else:
        if chosen in ("SEV", "SNP") and efi.get("secureBoot") in (None, True):
            problems.append(Conflict(path, f"{chosen} does not work along with SecureBoot"))
        if chosen in ("SNP", "TDX") and efi.get("persistent") is True:
            problems.append(Conflict(path, f"{chosen} does not work along with Persistent EFI variables"))
    sev = security.get("sev")
    if isinstance(sev, dict) and spec.get("startStrategy") != "Paused" and sev.get("attestation") is not None:
        problems.append(Conflict(path, "SEV attestation requires VMI StartStrategy 'Paused'"))
    for iface in _list(devices.get("interfaces")):
        if iface.get("bootOrder") is not None:
            problems.append(Conflict(path, f"{chosen} does not work with bootable NICs: {iface.get('name') or ''}"))
    return problems


def _list(value: Any) -> list[Json]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _object(value: Any) -> Json:
    return value if isinstance(value, dict) else {}
