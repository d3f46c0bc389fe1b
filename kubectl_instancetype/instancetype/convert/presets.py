"""VirtualMachineInstancePresets (and the older VirtualMachinePreset): their preference-like settings become a
VirtualMachinePreference; a preset that fixes both the vCPU count and the memory also yields a
VirtualMachineInstancetype. What the preset mechanism merged is in KubeVirt v0.58's
``pkg/virt-api/webhooks/mutating-webhook/mutators/preset.go``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ...errors import InputError
from ..jsoncopy import clone
from .context import Context, Conversion, Preset, converted_metadata, new_object, render
from .cpu import count_vcpus, cpu_counts, take_cpu_settings, topology_for
from .schema import PRESET_MERGED

# Preset spec.domain.devices booleans and objects -> preference devices fields.
_DEVICE_FIELDS = {
    "autoattachGraphicsDevice": "preferredAutoattachGraphicsDevice",
    "autoattachMemBalloon": "preferredAutoattachMemBalloon",
    "autoattachPodInterface": "preferredAutoattachPodInterface",
    "autoattachSerialConsole": "preferredAutoattachSerialConsole",
    "autoattachInputDevice": "preferredAutoattachInputDevice",
    "disableHotplug": "preferredDisableHotplug",
    "useVirtioTransitional": "preferredUseVirtioTransitional",
    "blockMultiQueue": "preferredBlockMultiQueue",
    "networkInterfaceMultiqueue": "preferredNetworkInterfaceMultiQueue",
    "rng": "preferredRng",
    "tpm": "preferredTPM",
}


_FEATURE_FIELDS = {
    "acpi": "preferredAcpi",
    "apic": "preferredApic",
    "hyperv": "preferredHyperv",
    "kvm": "preferredKvm",
    "pvspinlock": "preferredPvspinlock",
    "smm": "preferredSmm",
}


# Preference fields KubeVirt applies even when the VM sets the field (kubevirt.io/kubevirt
# pkg/instancetype/preference/apply: features.go sets ACPI and device.go DisableHotplug unconditionally).
_OVERRIDING = (
    ("features", "preferredAcpi", "features.acpi"),
    ("devices", "preferredDisableHotplug", "devices.disableHotplug"),
)


class _Taker:
    """Removes the fields it converts from a copy of the preset domain; what is left is reported."""

    def __init__(self, domain: Mapping[str, Any]):
        self.rest: dict[str, Any] = clone(dict(domain))
        # Domain sections (devices.* and resources.* by their child) that reached the output.
        self.converted: set[str] = set()

    def take(self, *path: str, converted: bool = True) -> Any:
        """Remove and return the value at ``path`` (None when absent); ``converted=False`` for a value that is
        only reported."""
        node: Any = self.rest
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict) or path[-1] not in node:
            return None
        value = node.pop(path[-1])
        self._prune(path[:-1])
        if converted:
            self.mark(path)
        return value

    def mark(self, path: tuple[str, ...]) -> None:
        """Record that the field at ``path`` was converted."""
        self.converted.add(".".join(path[:2]) if path[0] in ("devices", "resources") and len(path) > 1 else path[0])

    def _prune(self, path: tuple[str, ...]) -> None:
        for depth in range(len(path), 0, -1):
            parent: Any = self.rest
            for key in path[: depth - 1]:
                parent = parent.get(key)
            if isinstance(parent, dict) and parent.get(path[depth - 1]) in ({}, [], None):
                parent.pop(path[depth - 1], None)

    def leaves(self, prefix: str) -> list[tuple[str, Any]]:
        found: list[tuple[str, Any]] = []
        for key, value in self.rest.items():
            _leaves(value, f"{prefix}.{key}", found)
        return found


def _leaves(node: Any, path: str, out: list[tuple[str, Any]]) -> None:
    if isinstance(node, dict) and node:
        for key, value in node.items():
            _leaves(value, f"{path}.{key}", out)
    else:
        out.append((path, node))


def convert_preset(obj: dict[str, Any], ctx: Context, conversion: Conversion) -> list[dict[str, Any]]:
    metadata = obj.get("metadata") or {}
    name = str(metadata.get("name") or "")
    spec = dict(obj.get("spec") or {})
    for key in obj:
        if key not in ("apiVersion", "kind", "metadata", "spec", "status"):
            ctx.no_home(key, obj[key])
    for key in spec:
        if key not in ("selector", "domain"):
            ctx.no_home(f"spec.{key}", spec[key])
    domain = dict(spec.get("domain") or {})
    taker = _Taker(domain)
    preference: dict[str, Any] = {}
    instancetype = _preset_instancetype(taker, ctx)
    _preset_cpu_preferences(taker, preference, instancetype is not None, ctx)
    _preset_features(taker, preference)
    _preset_firmware(taker, preference)
    _preset_clock(taker, preference)
    machine_type = taker.take("machine", "type")
    if machine_type:
        preference["machine"] = {"preferredMachineType": machine_type}
    _preset_devices(taker, preference, ctx)
    if instancetype is None:
        for keys in (("memory", "guest"), ("resources", "requests", "memory"), ("resources", "limits", "memory")):
            value = taker.take(*keys, converted=False)
            if value is not None:
                ctx.warn(
                    f"spec.domain.{'.'.join(keys)}: {render(value)}: a preference cannot fix memory and the preset "
                    "fixes no vCPU count for an instance type; not converted"
                )
    launch_security = taker.take("launchSecurity")
    if launch_security is not None:
        preference["preferredLaunchSecurity"] = launch_security
    for section, key, field_path in _OVERRIDING:
        if key in preference.get(section, {}):
            ctx.warn(
                f"spec.domain.{field_path}: the preference's {key} overrides a VM's own setting (KubeVirt applies it "
                "unconditionally); the preset left VMs that set it alone"
            )
    for path, value in taker.leaves("spec.domain"):
        ctx.no_home(path, value)
    ignored = sorted(
        key
        for key in taker.converted
        if not any(key == merged or key.startswith(merged + ".") for merged in PRESET_MERGED)
    )
    if ignored:
        ctx.warn(
            "spec.domain."
            + ", spec.domain.".join(ignored)
            + ": never applied by KubeVirt's preset mechanism; the converted objects will apply "
            + ("it" if len(ignored) == 1 else "them")
        )
    out_metadata = converted_metadata(obj, ctx)
    objects = []
    if preference:
        objects.append(new_object("VirtualMachinePreference", clone(out_metadata), preference))
    else:
        ctx.warn("no preference-like settings; no VirtualMachinePreference written")
    if instancetype is not None:
        objects.append(new_object("VirtualMachineInstancetype", clone(out_metadata), instancetype))
    conversion.presets.append(
        Preset(
            kind=str(obj.get("kind")),
            name=name,
            namespace=metadata.get("namespace"),
            selector=dict(spec.get("selector") or {}),
            domain=domain,
            preference=name if preference else None,
            instancetype=name if instancetype is not None else None,
        )
    )
    return objects


def _preset_instancetype(taker: _Taker, ctx: Context) -> dict[str, Any] | None:
    """An instance type when the preset fixes both the vCPU count and the memory; None otherwise."""
    rest = taker.rest
    cpu: dict[str, Any] = rest["cpu"] if isinstance(rest.get("cpu"), dict) else {}
    resources = rest.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    has_topology = any(isinstance(cpu.get(key), int) and cpu[key] > 0 for key in ("sockets", "cores", "threads"))
    cpu_quantity = limits.get("cpu") or requests.get("cpu")
    memory_guest = (rest.get("memory") or {}).get("guest")
    memory = memory_guest or requests.get("memory") or limits.get("memory")
    if not (has_topology or cpu_quantity) or not memory:
        return None
    if has_topology:
        vcpus = count_vcpus(dict(cpu))
    else:
        # Without a topology KubeVirt gives the VMI ceil(limits.cpu, else requests.cpu) vCPUs, as cores.
        vcpus = max(1, math.ceil(_quantity(str(cpu_quantity))))
    instancetype_cpu: dict[str, Any] = {"guest": vcpus}
    cpu_settings = dict(cpu)
    take_cpu_settings(cpu_settings, instancetype_cpu)
    for key in ("model", "dedicatedCPUPlacement", "isolateEmulatorThread", "numa", "realtime", "maxSockets"):
        taker.take("cpu", key)
    instancetype_memory: dict[str, Any] = {"guest": memory}
    if memory_guest:
        taker.take("memory", "guest")
    elif requests.get("memory"):
        taker.take("resources", "requests", "memory")
    else:
        taker.take("resources", "limits", "memory")
    for key in ("hugepages", "maxGuest"):
        value = taker.take("memory", key)
        if value is not None:
            instancetype_memory[key] = value
    spec: dict[str, Any] = {"cpu": instancetype_cpu, "memory": instancetype_memory}
    for path, key in (
        (("ioThreadsPolicy",), "ioThreadsPolicy"),
        (("ioThreads",), "ioThreads"),
        (("devices", "gpus"), "gpus"),
        (("devices", "hostDevices"), "hostDevices"),
    ):
        value = taker.take(*path)
        if value is not None:
            spec[key] = value
    if not has_topology:
        # The vCPU count came from the CPU quantity; an instance type sets no CPU request or limit.
        for section in ("limits", "requests"):
            quantity = taker.take("resources", section, "cpu", converted=False)
            if quantity is not None:
                ctx.warn(
                    f"spec.domain.resources.{section}.cpu: {render(quantity)}: the instance type gives {vcpus} vCPUs "
                    "(cpu.guest) and sets no CPU request or limit"
                )
    return spec


def _preset_cpu_preferences(taker: _Taker, preference: dict[str, Any], with_instancetype: bool, ctx: Context) -> None:
    cpu = taker.rest.get("cpu")
    if not isinstance(cpu, dict):
        return
    out: dict[str, Any] = {}
    features = taker.take("cpu", "features")
    if features:
        out["preferredCPUFeatures"] = features
    counts = cpu_counts(cpu)
    topology = topology_for(counts)
    if topology is not None:
        out.update(topology)
        if with_instancetype:
            # The instance type carries the count; the preference carries the shape.
            for key in ("sockets", "cores", "threads"):
                taker.take("cpu", key)
        else:
            for key, value in counts.items():
                taker.take("cpu", key, converted=False)
                ctx.warn(
                    f"spec.domain.cpu.{key}: {value}: a preference cannot fix a vCPU count and the preset fixes no "
                    f"memory for an instance type; converted to preferredCPUTopology {topology['preferredCPUTopology']} only"
                )
    elif counts:
        layout = ", ".join(f"{key} {value}" for key, value in counts.items())
        for key in counts:
            taker.take("cpu", key, converted=False)
        outcome = "the instance type's vCPUs become sockets" if with_instancetype else "not converted"
        ctx.warn(f"spec.domain.cpu: no preferredCPUTopology gives the layout {layout}; {outcome}")
    if with_instancetype:
        for key in ("sockets", "cores", "threads"):
            if cpu.get(key) in (0, 1):
                taker.take("cpu", key)
    if out:
        preference["cpu"] = out


def _preset_features(taker: _Taker, preference: dict[str, Any]) -> None:
    out = {}
    for key, target in _FEATURE_FIELDS.items():
        value = taker.take("features", key)
        if value is not None:
            out[target] = value
    if out:
        preference["features"] = out


def _preset_firmware(taker: _Taker, preference: dict[str, Any]) -> None:
    out: dict[str, Any] = {}
    bios = taker.take("firmware", "bootloader", "bios")
    if isinstance(bios, dict):
        out["preferredUseBios"] = True
        if "useSerial" in bios:
            out["preferredUseBiosSerial"] = bios.pop("useSerial")
        if bios:
            taker.rest.setdefault("firmware", {}).setdefault("bootloader", {})["bios"] = bios
    efi = taker.take("firmware", "bootloader", "efi")
    if isinstance(efi, dict):
        out["preferredEfi"] = efi
    if out:
        preference["firmware"] = out


def _preset_clock(taker: _Taker, preference: dict[str, Any]) -> None:
    out: dict[str, Any] = {}
    offset = {}
    for key in ("utc", "timezone"):
        value = taker.take("clock", key)
        if value is not None:
            offset[key] = value
    if offset:
        out["preferredClockOffset"] = offset
    timer = taker.take("clock", "timer")
    if timer is not None:
        out["preferredTimer"] = timer
    if out:
        preference["clock"] = out


def _preset_devices(taker: _Taker, preference: dict[str, Any], ctx: Context) -> None:
    out: dict[str, Any] = {}
    for key, target in _DEVICE_FIELDS.items():
        value = taker.take("devices", key)
        if value is not None:
            out[target] = value
    sound = taker.rest.get("devices", {}).get("sound") if isinstance(taker.rest.get("devices"), dict) else None
    if isinstance(sound, dict) and sound.get("model"):
        out["preferredSoundModel"] = taker.take("devices", "sound", "model")
    video = taker.take("devices", "video", "type")
    if video:
        out["preferredVideoType"] = video
    _common_list_field(taker, ("devices", "disks"), ("disk", "bus"), "preferredDiskBus", out, ctx)
    _common_list_field(taker, ("devices", "disks"), ("cdrom", "bus"), "preferredCdromBus", out, ctx)
    _common_list_field(taker, ("devices", "disks"), ("lun", "bus"), "preferredLunBus", out, ctx)
    _common_list_field(taker, ("devices", "disks"), ("cache",), "preferredDiskCache", out, ctx)
    _common_list_field(taker, ("devices", "disks"), ("io",), "preferredDiskIO", out, ctx)
    _common_list_field(taker, ("devices", "disks"), ("blockSize",), "preferredDiskBlockSize", out, ctx)
    _common_list_field(taker, ("devices", "disks"), ("dedicatedIOThread",), "preferredDiskDedicatedIoThread", out, ctx)
    _common_list_field(taker, ("devices", "interfaces"), ("model",), "preferredInterfaceModel", out, ctx)
    _common_list_field(taker, ("devices", "interfaces"), ("masquerade",), "preferredInterfaceMasquerade", out, ctx)
    _common_list_field(taker, ("devices", "inputs"), ("bus",), "preferredInputBus", out, ctx)
    _common_list_field(taker, ("devices", "inputs"), ("type",), "preferredInputType", out, ctx)
    _common_list_field(taker, ("devices", "panicDevices"), ("model",), "preferredPanicDeviceModel", out, ctx)
    if out:
        preference["devices"] = out


def _common_list_field(
    taker: _Taker,
    list_path: tuple[str, ...],
    item_path: tuple[str, ...],
    target: str,
    out: dict[str, Any],
    ctx: Context,
) -> None:
    """A preference holds one value for every disk (interface, input): take it when the list agrees on it."""
    node: Any = taker.rest
    for key in list_path:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, list):
        return
    values = []
    for item in node:
        value: Any = item
        for key in item_path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            values.append(value)
    if not values:
        return
    if any(value != values[0] for value in values):
        return  # left in place: reported with the other unconverted fields
    out[target] = values[0]
    taker.mark(list_path)
    for item in node:
        parent: Any = item
        for key in item_path[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if isinstance(parent, dict):
            parent.pop(item_path[-1], None)
    del ctx


def _quantity(text: str) -> float:
    from ...golang.quantity import QuantityError, parse_quantity

    try:
        return float(parse_quantity(text))
    except QuantityError as exc:
        raise InputError(f"quantities must match the regular expression: {text}") from exc
