"""Preference application (``pkg/instancetype/preference/apply``): fill only what the VM left unset, in KubeVirt's
order, with KubeVirt's exceptions (``acpi`` and ``disableHotplug`` always overwrite)."""

from __future__ import annotations

from ._tree import PREFERENCE, Json, Provenance, child, clone, is_set
from .instancetype import apply_annotations

_AUTOATTACH = (
    ("preferredAutoattachGraphicsDevice", "autoattachGraphicsDevice"),
    ("preferredAutoattachMemBalloon", "autoattachMemBalloon"),
    ("preferredAutoattachPodInterface", "autoattachPodInterface"),
    ("preferredAutoattachSerialConsole", "autoattachSerialConsole"),
    ("preferredAutoattachInputDevice", "autoattachInputDevice"),
)
_DEVICE_BOOLS = (
    ("preferredUseVirtioTransitional", "useVirtioTransitional"),
    ("preferredBlockMultiQueue", "blockMultiQueue"),
    ("preferredNetworkInterfaceMultiQueue", "networkInterfaceMultiqueue"),
)
_HYPERV = (
    "evmcs",
    "frequencies",
    "ipi",
    "reenlightenment",
    "relaxed",
    "reset",
    "runtime",
    "spinlocks",
    "synic",
    "synictimer",
    "tlbflush",
    "vapic",
    "vpindex",
    "vendorid",
)
_BINDINGS = ("bridge", "slirp", "masquerade", "sriov", "macvtap", "passt", "passtBinding", "binding")


class _Filler:
    """Sets fields of the template spec and records them as the preference's."""

    def __init__(self, base: str, provenance: Provenance) -> None:
        self.base = base
        self.provenance = provenance

    def record(self, path: str) -> None:
        self.provenance.record(f"{self.base}.{path}", PREFERENCE)

    def set(self, target: Json, key: str, value: object, path: str) -> None:
        target[key] = clone(value)
        self.record(path)


def _cpu(preference: Json, spec: Json, fill: _Filler) -> None:
    features = (preference.get("cpu") or {}).get("preferredCPUFeatures")
    if not features:
        return
    # KubeVirt assumes domain.cpu exists (an instance type always creates it); without one it would
    # dereference nil, so it is created here.
    cpu = child(child(spec, "domain"), "cpu")
    present = {feature.get("name") for feature in cpu.get("features") or []}
    for feature in features:
        if feature.get("name") not in present:
            cpu["features"] = [*(cpu.get("features") or []), clone(feature)]
            fill.record(f"domain.cpu.features[{len(cpu['features']) - 1}]")


def _disks(devices_pref: Json, devices: Json, fill: _Filler) -> None:
    for index, disk in enumerate(devices.get("disks") or []):
        at = f"domain.devices.disks[{index}]"
        if not any(is_set(disk, kind) for kind in ("disk", "cdrom", "lun")):
            disk["disk"] = {}
        if is_set(disk, "disk"):
            target = disk["disk"]
            if devices_pref.get("preferredDiskBus") and not target.get("bus"):
                fill.set(target, "bus", devices_pref["preferredDiskBus"], f"{at}.disk.bus")
            if is_set(devices_pref, "preferredDiskBlockSize") and not is_set(disk, "blockSize"):
                fill.set(disk, "blockSize", devices_pref["preferredDiskBlockSize"], f"{at}.blockSize")
            if devices_pref.get("preferredDiskCache") and not disk.get("cache"):
                fill.set(disk, "cache", devices_pref["preferredDiskCache"], f"{at}.cache")
            if devices_pref.get("preferredDiskIO") and not disk.get("io"):
                fill.set(disk, "io", devices_pref["preferredDiskIO"], f"{at}.io")
            if (
                is_set(devices_pref, "preferredDiskDedicatedIoThread")
                and not is_set(disk, "dedicatedIOThread")
                and target.get("bus") == "virtio"
            ):
                fill.set(
                    disk, "dedicatedIOThread", devices_pref["preferredDiskDedicatedIoThread"], f"{at}.dedicatedIOThread"
                )
        elif is_set(disk, "cdrom"):
            if devices_pref.get("preferredCdromBus") and not disk["cdrom"].get("bus"):
                fill.set(disk["cdrom"], "bus", devices_pref["preferredCdromBus"], f"{at}.cdrom.bus")
        elif devices_pref.get("preferredLunBus") and not disk["lun"].get("bus"):
            fill.set(disk["lun"], "bus", devices_pref["preferredLunBus"], f"{at}.lun.bus")


def _on_pod_network(name: object, spec: Json) -> bool:
    for network in spec.get("networks") or []:
        if network.get("name") == name:
            return is_set(network, "pod")
    return False


def _interfaces(devices_pref: Json, devices: Json, spec: Json, fill: _Filler) -> None:
    for index, interface in enumerate(devices.get("interfaces") or []):
        at = f"domain.devices.interfaces[{index}]"
        if devices_pref.get("preferredInterfaceModel") and not interface.get("model"):
            fill.set(interface, "model", devices_pref["preferredInterfaceModel"], f"{at}.model")
        if (
            is_set(devices_pref, "preferredInterfaceMasquerade")
            and not any(is_set(interface, binding) for binding in _BINDINGS)
            and _on_pod_network(interface.get("name"), spec)
        ):
            fill.set(interface, "masquerade", devices_pref["preferredInterfaceMasquerade"], f"{at}.masquerade")


def _inputs(devices_pref: Json, devices: Json, fill: _Filler) -> None:
    for index, device in enumerate(devices.get("inputs") or []):
        for preferred, key in (("preferredInputBus", "bus"), ("preferredInputType", "type")):
            if devices_pref.get(preferred) and not device.get(key):
                fill.set(device, key, devices_pref[preferred], f"domain.devices.inputs[{index}].{key}")


def _panic_devices(devices_pref: Json, devices: Json, fill: _Filler) -> None:
    model = devices_pref.get("preferredPanicDeviceModel")
    if model is None:
        return
    if not devices.get("panicDevices"):
        devices["panicDevices"] = [{"model": model}]
        fill.record("domain.devices.panicDevices[0]")
        return
    for index, device in enumerate(devices["panicDevices"]):
        if device.get("model") is None:
            fill.set(device, "model", model, f"domain.devices.panicDevices[{index}].model")


def _devices(preference: Json, spec: Json, fill: _Filler) -> None:
    devices_pref = preference.get("devices")
    if devices_pref is None:
        return
    devices = child(child(spec, "domain"), "devices")
    for preferred, key in _DEVICE_BOOLS:
        if is_set(devices_pref, preferred) and not is_set(devices, key):
            fill.set(devices, key, devices_pref[preferred], f"domain.devices.{key}")
    if is_set(devices_pref, "preferredDisableHotplug"):
        # KubeVirt cannot tell an unset disableHotplug from false, so the preference always wins.
        if devices_pref["preferredDisableHotplug"]:
            fill.set(devices, "disableHotplug", True, "domain.devices.disableHotplug")
        else:
            devices.pop("disableHotplug", None)
    sound = devices.get("sound")
    if devices_pref.get("preferredSoundModel") and sound is not None and not sound.get("model"):
        fill.set(sound, "model", devices_pref["preferredSoundModel"], "domain.devices.sound.model")
    for preferred, key in (("preferredRng", "rng"), ("preferredTPM", "tpm")):
        if is_set(devices_pref, preferred) and not is_set(devices, key):
            fill.set(devices, key, devices_pref[preferred], f"domain.devices.{key}")
    if is_set(devices_pref, "preferredVideoType"):
        video = child(devices, "video")
        if not video.get("type"):
            fill.set(video, "type", devices_pref["preferredVideoType"], "domain.devices.video.type")
    for preferred, key in _AUTOATTACH:
        if is_set(devices_pref, preferred) and not is_set(devices, key):
            fill.set(devices, key, devices_pref[preferred], f"domain.devices.{key}")
    _disks(devices_pref, devices, fill)
    _interfaces(devices_pref, devices, spec, fill)
    _inputs(devices_pref, devices, fill)
    _panic_devices(devices_pref, devices, fill)


def _features(preference: Json, spec: Json, fill: _Filler) -> None:
    features_pref = preference.get("features")
    if features_pref is None:
        return
    features = child(child(spec, "domain"), "features")
    # (acpi is a struct in KubeVirt's Features, so Go always writes it: the Go round trip adds it, golang/gojson.py)
    if is_set(features_pref, "preferredAcpi"):
        # KubeVirt cannot tell an unset acpi from an empty one, so the preference always wins.
        fill.set(features, "acpi", features_pref["preferredAcpi"], "domain.features.acpi")
    if is_set(features_pref, "preferredApic") and not is_set(features, "apic"):
        fill.set(features, "apic", features_pref["preferredApic"], "domain.features.apic")
    hyperv_pref = features_pref.get("preferredHyperv")
    if hyperv_pref is not None:
        hyperv = child(features, "hyperv")
        for name in _HYPERV:
            if is_set(hyperv_pref, name) and not is_set(hyperv, name):
                fill.set(hyperv, name, hyperv_pref[name], f"domain.features.hyperv.{name}")
    for preferred, key in (("preferredKvm", "kvm"), ("preferredPvspinlock", "pvspinlock"), ("preferredSmm", "smm")):
        if is_set(features_pref, preferred) and not is_set(features, key):
            fill.set(features, key, features_pref[preferred], f"domain.features.{key}")


def _firmware(preference: Json, spec: Json, fill: _Filler) -> None:
    firmware_pref = preference.get("firmware")
    if firmware_pref is None:
        return
    bootloader = child(child(child(spec, "domain"), "firmware"), "bootloader")
    at = "domain.firmware.bootloader"
    if firmware_pref.get("preferredUseBios") and not is_set(bootloader, "bios") and not is_set(bootloader, "efi"):
        fill.set(bootloader, "bios", {}, f"{at}.bios")
    if (
        is_set(firmware_pref, "preferredUseBiosSerial")
        and is_set(bootloader, "bios")
        and not is_set(bootloader["bios"], "useSerial")
    ):
        fill.set(bootloader["bios"], "useSerial", firmware_pref["preferredUseBiosSerial"], f"{at}.bios.useSerial")
    if not is_set(bootloader, "efi") and not is_set(bootloader, "bios") and is_set(firmware_pref, "preferredEfi"):
        # preferredEfi replaces the deprecated preferredUseEfi / preferredUseSecureBoot, which are then ignored.
        fill.set(bootloader, "efi", firmware_pref["preferredEfi"], f"{at}.efi")
        return
    if firmware_pref.get("preferredUseEfi") and not is_set(bootloader, "efi") and not is_set(bootloader, "bios"):
        fill.set(bootloader, "efi", {}, f"{at}.efi")
    if (
        is_set(firmware_pref, "preferredUseSecureBoot")
        and is_set(bootloader, "efi")
        and not is_set(bootloader["efi"], "secureBoot")
    ):
        fill.set(bootloader["efi"], "secureBoot", firmware_pref["preferredUseSecureBoot"], f"{at}.efi.secureBoot")


def _machine(preference: Json, spec: Json, fill: _Filler) -> None:
    machine_type = (preference.get("machine") or {}).get("preferredMachineType")
    if not machine_type:
        return
    machine = child(child(spec, "domain"), "machine")
    if not machine.get("type"):
        fill.set(machine, "type", machine_type, "domain.machine.type")


def _clock(preference: Json, spec: Json, fill: _Filler) -> None:
    clock_pref = preference.get("clock")
    if clock_pref is None:
        return
    clock = child(child(spec, "domain"), "clock")
    offset = clock_pref.get("preferredClockOffset")
    # No partial merge: the offset is taken only when the VM sets neither utc nor timezone.
    if offset is not None and not is_set(clock, "utc") and not is_set(clock, "timezone"):
        for key in ("utc", "timezone"):
            if is_set(offset, key):
                fill.set(clock, key, offset[key], f"domain.clock.{key}")
    if is_set(clock_pref, "preferredTimer") and not is_set(clock, "timer"):
        fill.set(clock, "timer", clock_pref["preferredTimer"], "domain.clock.timer")


def apply_preference(base: str, preference: Json | None, spec: Json, metadata: Json, provenance: Provenance) -> None:
    """Fill the template ``spec`` and its ``metadata`` from ``preference`` where the VM left fields unset."""
    if preference is None:
        return
    fill = _Filler(base, provenance)
    _cpu(preference, spec, fill)
    _devices(preference, spec, fill)
    _features(preference, spec, fill)
    _firmware(preference, spec, fill)
    _machine(preference, spec, fill)
    _clock(preference, spec, fill)
    if not spec.get("subdomain") and preference.get("preferredSubdomain"):
        fill.set(spec, "subdomain", preference["preferredSubdomain"], "subdomain")
    grace = preference.get("preferredTerminationGracePeriodSeconds")
    if grace is not None and not is_set(spec, "terminationGracePeriodSeconds"):
        fill.set(spec, "terminationGracePeriodSeconds", grace, "terminationGracePeriodSeconds")
    if preference.get("preferredArchitecture") and not spec.get("architecture"):
        fill.set(spec, "architecture", preference["preferredArchitecture"], "architecture")
    annotations_path = base.rsplit(".", 1)[0] + ".metadata.annotations"
    apply_annotations(preference.get("annotations"), metadata, provenance, annotations_path, PREFERENCE)
    if is_set(preference, "preferredLaunchSecurity"):
        domain = child(spec, "domain")
        if not is_set(domain, "launchSecurity"):
            fill.set(domain, "launchSecurity", preference["preferredLaunchSecurity"], "domain.launchSecurity")
