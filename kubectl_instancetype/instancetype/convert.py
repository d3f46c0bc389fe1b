"""Conversion of legacy objects to ``instancetype.kubevirt.io/v1beta1`` and ``kubevirt.io/v1`` (pure, no I/O).

Inputs, oldest first (spec sections 5.4 and 5.5):

* ``flavor.kubevirt.io/v1alpha1`` ``VirtualMachine{,Cluster}Flavor``: KubeVirt v0.48-v0.52 wrote a ``profiles[]``
  list (``name``, ``default``, ``cpu``); v0.53-v0.55 a ``spec`` with ``cpu.guest``/``memory.guest``. Preferences
  of the same group (v0.54, v0.55) already have the v1beta1 shape.
* ``instancetype.kubevirt.io/v1alpha1``/``v1alpha2``: the v1beta1 shape with plain (not pointer) ``cpu.model``,
  ``dedicatedCPUPlacement``, ``isolateEmulatorThread`` and ``preferredCPUTopology``. v1beta1 input is accepted
  too and only normalised (deprecated topology spellings).
* ``kubevirt.io`` VirtualMachines with the old ``spec.flavor`` matcher.
* ``kubevirt.io`` VirtualMachineInstancePresets (and the older kind name VirtualMachinePreset): their
  preference-like settings become a VirtualMachinePreference; a preset that fixes both the vCPU count and the
  memory also yields a VirtualMachineInstancetype.

Every field of the input either lands in the output or is named in a warning; nothing is dropped silently
(server-managed metadata such as ``uid`` and ``resourceVersion`` aside: it cannot be created anyway).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

INSTANCETYPE_API = "instancetype.kubevirt.io/v1beta1"
VM_API = "kubevirt.io/v1"
FLAVOR_GROUP = "flavor.kubevirt.io"
INSTANCETYPE_GROUP = "instancetype.kubevirt.io"
KUBEVIRT_GROUP = "kubevirt.io"
PRESET_KINDS = ("VirtualMachineInstancePreset", "VirtualMachinePreset")
PRESET_EXCLUDE_ANNOTATION = "virtualmachineinstancepresets.admission.kubevirt.io/exclude"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# Old kind -> v1beta1 kind. VM matcher kinds are renamed with the same table.
KIND_MAP = {
    "VirtualMachineFlavor": "VirtualMachineInstancetype",
    "VirtualMachineClusterFlavor": "VirtualMachineClusterInstancetype",
    "VirtualMachineInstancetype": "VirtualMachineInstancetype",
    "VirtualMachineClusterInstancetype": "VirtualMachineClusterInstancetype",
    "VirtualMachinePreference": "VirtualMachinePreference",
    "VirtualMachineClusterPreference": "VirtualMachineClusterPreference",
}
INSTANCETYPE_KINDS = ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
PREFERENCE_KINDS = ("VirtualMachinePreference", "VirtualMachineClusterPreference")

# Deprecated topology spellings (v1.4 introduced the short names; KubeVirt warns on the old ones).
TOPOLOGY_RENAMES = {
    "preferSockets": "sockets",
    "preferCores": "cores",
    "preferThreads": "threads",
    "preferSpread": "spread",
    "preferAny": "any",
}
TOPOLOGIES = frozenset(TOPOLOGY_RENAMES.values())

# The v1beta1 spec fields of KubeVirt v1.9 (from its CRD schemas), two levels deep: section -> its keys, or
# None for a leaf/opaque value whose inner shape is a kubevirt.io/v1 type that did not change.
INSTANCETYPE_FIELDS: dict[str, frozenset[str] | None] = {
    "annotations": None,
    "cpu": frozenset(
        {"dedicatedCPUPlacement", "guest", "isolateEmulatorThread", "maxSockets", "model", "numa", "realtime"}
    ),
    "gpus": None,
    "hostDevices": None,
    "ioThreads": frozenset({"supplementalPoolThreadCount"}),
    "ioThreadsPolicy": None,
    "launchSecurity": None,
    "memory": frozenset({"guest", "hugepages", "maxGuest", "overcommitPercent"}),
    "nodeSelector": None,
    "schedulerName": None,
}
PREFERENCE_FIELDS: dict[str, frozenset[str] | None] = {
    "annotations": None,
    "clock": frozenset({"preferredClockOffset", "preferredTimer"}),
    "cpu": frozenset({"preferredCPUFeatures", "preferredCPUTopology", "spreadOptions"}),
    "devices": frozenset(
        {
            "preferredAutoattachGraphicsDevice",
            "preferredAutoattachInputDevice",
            "preferredAutoattachMemBalloon",
            "preferredAutoattachPodInterface",
            "preferredAutoattachSerialConsole",
            "preferredBlockMultiQueue",
            "preferredCdromBus",
            "preferredDisableHotplug",
            "preferredDiskBlockSize",
            "preferredDiskBus",
            "preferredDiskCache",
            "preferredDiskDedicatedIoThread",
            "preferredDiskIO",
            "preferredInputBus",
            "preferredInputType",
            "preferredInterfaceMasquerade",
            "preferredInterfaceModel",
            "preferredLunBus",
            "preferredNetworkInterfaceMultiQueue",
            "preferredPanicDeviceModel",
            "preferredRng",
            "preferredSoundModel",
            "preferredTPM",
            "preferredUseVirtioTransitional",
            "preferredVideoType",
            "preferredVirtualGPUOptions",
        }
    ),
    "features": frozenset(
        {"preferredAcpi", "preferredApic", "preferredHyperv", "preferredKvm", "preferredPvspinlock", "preferredSmm"}
    ),
    "firmware": frozenset(
        {"preferredEfi", "preferredUseBios", "preferredUseBiosSerial", "preferredUseEfi", "preferredUseSecureBoot"}
    ),
    "machine": frozenset({"preferredMachineType"}),
    "preferSpreadSocketToCoreRatio": None,
    "preferredArchitecture": None,
    "preferredLaunchSecurity": None,
    "preferredSubdomain": None,
    "preferredTerminationGracePeriodSeconds": None,
    "requirements": frozenset({"architecture", "cpu", "memory"}),
    "volumes": frozenset({"preferredStorageClassName"}),
}

# What KubeVirt's preset mechanism merged into a VMI (v0.58 mutators/preset.go, mergeDomainSpec): other
# preset fields were accepted by the schema and ignored.
PRESET_MERGED = ("resources.requests", "cpu", "firmware", "clock", "features", "devices.watchdog", "ioThreadsPolicy")

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
# Preference fields KubeVirt applies even when the VM sets the field (spec 6.5: "always overwritten").
_OVERRIDING = (
    ("features", "preferredAcpi", "features.acpi"),
    ("devices", "preferredDisableHotplug", "devices.disableHotplug"),
)
_KEPT_METADATA = ("name", "generateName", "namespace", "labels", "annotations")
_SERVER_METADATA = frozenset(
    {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp"}
)


@dataclass
class Preset:
    """A preset as the ``--vms`` report needs it: its selector, its domain, and what it was converted to."""

    kind: str
    name: str
    namespace: str | None
    selector: dict[str, Any]
    domain: dict[str, Any]
    preference: str | None
    instancetype: str | None


@dataclass
class Conversion:
    """The converted objects (input order), the warnings about fields left behind, and the presets seen."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    presets: list[Preset] = field(default_factory=list)


class _Context:
    """Warnings about one input object, prefixed with its kind and name."""

    def __init__(self, conversion: Conversion, kind: str, name: str):
        self.conversion = conversion
        self.prefix = f"{kind} {name}" if name else kind

    def warn(self, message: str) -> None:
        self.conversion.warnings.append(f"{self.prefix}: {message}")

    def no_home(self, path: str, value: Any) -> None:
        self.warn(f"{path}: {_render(value)} has no field in {INSTANCETYPE_API}; not converted")


# ---------------------------------------------------------------------------------------------------- parsing


def parse_documents(text: str) -> list[dict[str, Any]]:
    """The objects in ``text``: multi-document YAML or JSON, ``kind: List`` (and ``*List``) flattened.

    Raises :class:`InputError` for text that is neither, or documents that are not objects.
    """
    stripped = text.lstrip()
    documents: list[Any]
    if stripped.startswith(("{", "[")):
        try:
            documents = [json.loads(text)]
        except ValueError:
            documents = _load_yaml(text)
    else:
        documents = _load_yaml(text)
    objects: list[dict[str, Any]] = []
    for index, document in enumerate(documents, 1):
        _flatten(document, index, objects)
    return objects


def _loader() -> Any:
    """PyYAML's safe loader without the timestamp resolver: Kubernetes' YAML reads unquoted dates as strings
    (json.dumps and the Go printer could not handle ``datetime`` values anyway)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return Loader


def _load_yaml(text: str) -> list[Any]:
    import yaml

    try:
        return list(yaml.load_all(text, Loader=_loader()))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"error parsing input as YAML or JSON{where}: {problem}") from exc


def _flatten(document: Any, index: int, out: list[dict[str, Any]]) -> None:
    if document is None:
        return  # an empty document (a trailing ---)
    if isinstance(document, list):
        for item in document:
            _flatten(item, index, out)
        return
    if not isinstance(document, dict):
        raise InputError(f"document {index}: expected an object with apiVersion and kind, got {_render(document)}")
    kind = document.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(document.get("items"), list):
        for item in document["items"]:
            _flatten(item, index, out)
        return
    if not document.get("apiVersion") or not kind:
        raise InputError(f"document {index}: Object 'Kind' is missing or 'apiVersion' is missing in the object")
    out.append(document)


# ---------------------------------------------------------------------------------------------------- conversion


def convert(objects: Iterable[Mapping[str, Any]], *, default_memory: str | None = None) -> Conversion:
    """Convert every object; raise :class:`InputError` for a kind this command does not read.

    ``default_memory`` fills ``memory.guest`` of flavors that have none (profile flavors of KubeVirt v0.48-v0.52
    and v0.53-v0.55 flavors without memory): v1beta1 requires it.
    """
    conversion = Conversion()
    items = [copy.deepcopy(dict(obj)) for obj in objects]
    profiles = _profile_names(items)
    for obj in items:
        group = str(obj.get("apiVersion", "")).rpartition("/")[0]
        kind = str(obj.get("kind", ""))
        name = str((obj.get("metadata") or {}).get("name") or (obj.get("metadata") or {}).get("generateName") or "")
        ctx = _Context(conversion, kind, name)
        if group == FLAVOR_GROUP and kind in ("VirtualMachineFlavor", "VirtualMachineClusterFlavor"):
            conversion.objects.extend(_convert_flavor(obj, ctx, default_memory))
        elif (group == FLAVOR_GROUP and kind in PREFERENCE_KINDS) or (
            group == INSTANCETYPE_GROUP and kind in INSTANCETYPE_KINDS + PREFERENCE_KINDS
        ):
            conversion.objects.append(_convert_type(obj, ctx, default_memory))
        elif group == KUBEVIRT_GROUP and kind == "VirtualMachine":
            conversion.objects.append(_convert_vm(obj, ctx, profiles))
        elif group == KUBEVIRT_GROUP and kind in PRESET_KINDS:
            conversion.objects.extend(_convert_preset(obj, ctx, conversion))
        else:
            raise _unsupported(obj)
    return conversion


def _unsupported(obj: Mapping[str, Any]) -> InputError:
    name = (obj.get("metadata") or {}).get("name") or ""
    return InputError(
        f'cannot convert {obj.get("kind")} "{name}" ({obj.get("apiVersion")}): convert reads flavor.kubevirt.io/v1alpha1 '
        "flavors and preferences, instancetype.kubevirt.io instance types and preferences, kubevirt.io "
        "VirtualMachines and VirtualMachineInstancePresets"
    )


def _metadata(obj: Mapping[str, Any], ctx: _Context, name: str | None = None) -> dict[str, Any]:
    source = dict(obj.get("metadata") or {})
    metadata: dict[str, Any] = {}
    for key in _KEPT_METADATA:
        if source.get(key) not in (None, "", {}):
            metadata[key] = copy.deepcopy(source[key])
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        # It describes the old object; kubectl apply would compute wrong patches from it.
        annotations = {key: value for key, value in annotations.items() if key != LAST_APPLIED}
        if annotations:
            metadata["annotations"] = annotations
        else:
            del metadata["annotations"]
    if name is not None:
        metadata.pop("generateName", None)
        metadata["name"] = name
    for key, value in source.items():
        if key not in _KEPT_METADATA and key not in _SERVER_METADATA and value not in (None, "", [], {}):
            ctx.warn(f"metadata.{key} refers to the old object; not converted")
    return metadata


def _object(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": INSTANCETYPE_API, "kind": kind, "metadata": metadata, "spec": spec}


def _profile_names(items: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    """(new kind, flavor name, profile name or "") -> instance type name, for profile flavors in the input."""
    names: dict[tuple[str, str, str], str] = {}
    for obj in items:
        if obj.get("kind") in ("VirtualMachineFlavor", "VirtualMachineClusterFlavor") and "profiles" in obj:
            kind = KIND_MAP[str(obj["kind"])]
            flavor = str((obj.get("metadata") or {}).get("name") or "")
            for profile in _profiles(obj):
                new_name = _profile_instancetype_name(flavor, profile, obj)
                names[(kind, flavor, str(profile.get("name") or ""))] = new_name
                if _is_default_profile(profile, obj):
                    names[(kind, flavor, "")] = new_name
    return names


def _profiles(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [profile for profile in obj.get("profiles") or () if isinstance(profile, dict)]


def _is_default_profile(profile: Mapping[str, Any], flavor: Mapping[str, Any]) -> bool:
    profiles = _profiles(flavor)
    return bool(profile.get("default")) or len(profiles) == 1


def _profile_instancetype_name(flavor: str, profile: Mapping[str, Any], obj: Mapping[str, Any]) -> str:
    """The default (or only) profile keeps the flavor's name; the others become ``<flavor>.<profile>``."""
    if _is_default_profile(profile, obj):
        return flavor
    return f"{flavor}.{profile.get('name')}"


def _convert_flavor(obj: dict[str, Any], ctx: _Context, default_memory: str | None) -> list[dict[str, Any]]:
    if "profiles" not in obj:
        return [_convert_type(obj, ctx, default_memory)]
    kind = KIND_MAP[str(obj["kind"])]
    flavor = str((obj.get("metadata") or {}).get("name") or "")
    if default_memory is None:
        raise InputError(
            f"{ctx.prefix}: a profile flavor (KubeVirt v0.48-v0.52) has no memory and "
            f"{INSTANCETYPE_API} requires spec.memory.guest: give it with --memory"
        )
    for key in obj:
        if key not in ("apiVersion", "kind", "metadata", "profiles", "status"):
            ctx.no_home(key, obj[key])
    converted = []
    for index, profile in enumerate(_profiles(obj)):
        path = f"profiles[{index}]"
        rest = dict(profile)
        rest.pop("name", None)
        rest.pop("default", None)
        cpu = dict(rest.pop("cpu", None) or {})
        counts = _counts(cpu)
        spec: dict[str, Any] = {"cpu": {"guest": _vcpus(cpu)}, "memory": {"guest": default_memory}}
        if set(counts) - {"sockets"}:
            # v1beta1 instance types give vCPUs as sockets unless a preference says otherwise.
            topology = _topology(counts)
            hint = (
                "spec.cpu: " + _render(topology)
                if topology
                else "no preferredCPUTopology gives it; the vCPUs become sockets"
            )
            layout = ", ".join(f"{key} {value}" for key, value in counts.items())
            ctx.warn(
                f"{path}.cpu: the topology ({layout}) belongs in the VM's preference ({hint}); "
                f"the instance type keeps the count ({spec['cpu']['guest']} vCPUs)"
            )
        _take_cpu_settings(cpu, spec["cpu"])
        if cpu:
            for key, value in cpu.items():
                ctx.warn(
                    f"{path}.cpu.{key}: {_render(value)} belongs in a preference "
                    f"({_cpu_preference_hint(key)}); not converted"
                )
        for key, value in rest.items():
            ctx.no_home(f"{path}.{key}", value)
        name = _profile_instancetype_name(flavor, profile, obj)
        converted.append(_object(kind, _metadata(obj, ctx, name), spec))
    return converted


def _cpu_preference_hint(key: str) -> str:
    if key in ("sockets", "cores", "threads"):
        return "spec.cpu.preferredCPUTopology"
    if key == "features":
        return "spec.cpu.preferredCPUFeatures"
    return "no v1beta1 field"


def _vcpus(cpu: dict[str, Any]) -> int:
    """sockets x cores x threads (zero or unset counts as 1), as KubeVirt counts a VMI's vCPUs."""
    count = 1
    for key in ("sockets", "cores", "threads"):
        value = cpu.pop(key, None)
        if isinstance(value, int) and value > 0:
            count *= value
    return count


def _take_cpu_settings(cpu: dict[str, Any], target: dict[str, Any]) -> None:
    """Move the instance-type CPU settings of a kubevirt.io/v1 CPU from ``cpu`` to ``target``."""
    model = cpu.pop("model", None)
    if model:
        target["model"] = model
    for key in ("dedicatedCPUPlacement", "isolateEmulatorThread"):
        value = cpu.pop(key, None)
        if value:
            target[key] = True
    for key in ("numa", "realtime", "maxSockets"):
        if key in cpu:
            target[key] = cpu.pop(key)


def _convert_type(obj: dict[str, Any], ctx: _Context, default_memory: str | None) -> dict[str, Any]:
    old_kind = str(obj["kind"])
    kind = KIND_MAP[old_kind]
    for key in obj:
        if key not in ("apiVersion", "kind", "metadata", "spec", "status"):
            ctx.no_home(key, obj[key])
    spec = dict(obj.get("spec") or {})
    if kind in INSTANCETYPE_KINDS:
        new_spec = _instancetype_spec(spec, ctx, default_memory)
    else:
        new_spec = _preference_spec(spec, ctx)
    return _object(kind, _metadata(obj, ctx), new_spec)


def _instancetype_spec(spec: dict[str, Any], ctx: _Context, default_memory: str | None) -> dict[str, Any]:
    cpu = dict(spec.get("cpu") or {})
    # v1alpha* wrote model "" and false booleans for "unset"; v1beta1 pointers would turn them into
    # settings (and into conflicts with VMs that set them), so they are left out rather than copied.
    if cpu.get("model") == "":
        del cpu["model"]
    for key in ("dedicatedCPUPlacement", "isolateEmulatorThread"):
        if cpu.get(key) is False:
            del cpu[key]
    memory = dict(spec.get("memory") or {})
    if memory.get("guest") in (None, ""):
        if default_memory is None:
            raise InputError(
                f"{ctx.prefix}: spec.memory.guest is required by {INSTANCETYPE_API}: give it with --memory"
            )
        memory["guest"] = default_memory
    if "guest" not in cpu:
        raise InputError(f"{ctx.prefix}: spec.cpu.guest is required by {INSTANCETYPE_API}")
    source = {**spec, "cpu": cpu, "memory": memory}
    return _known_fields(source, INSTANCETYPE_FIELDS, ctx)


def _preference_spec(spec: dict[str, Any], ctx: _Context) -> dict[str, Any]:
    source = copy.deepcopy(spec)
    cpu = source.get("cpu")
    if isinstance(cpu, dict):
        topology = cpu.get("preferredCPUTopology")
        if topology in (None, ""):
            cpu.pop("preferredCPUTopology", None)
        elif topology in TOPOLOGY_RENAMES:
            cpu["preferredCPUTopology"] = TOPOLOGY_RENAMES[topology]
        elif topology not in TOPOLOGIES:
            ctx.warn(f"spec.cpu.preferredCPUTopology: unknown preferredCPUTopology {topology}; not converted")
            del cpu["preferredCPUTopology"]
    return _known_fields(source, PREFERENCE_FIELDS, ctx)


def _known_fields(source: dict[str, Any], fields: Mapping[str, frozenset[str] | None], ctx: _Context) -> dict[str, Any]:
    """Copy the fields v1beta1 knows; warn about every other one."""
    out: dict[str, Any] = {}
    for key, value in source.items():
        if key not in fields:
            ctx.no_home(f"spec.{key}", value)
            continue
        known = fields[key]
        if known is None or not isinstance(value, dict):
            out[key] = value
            continue
        section = {}
        for child, child_value in value.items():
            if child in known:
                section[child] = child_value
            else:
                ctx.no_home(f"spec.{key}.{child}", child_value)
        if section or not value:
            out[key] = section
    return out


def _convert_vm(obj: dict[str, Any], ctx: _Context, profiles: Mapping[tuple[str, str, str], str]) -> dict[str, Any]:
    vm: dict[str, Any] = {"apiVersion": VM_API, "kind": "VirtualMachine", "metadata": _metadata(obj, ctx)}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata", "status"):
            vm[key] = value
    spec = vm.get("spec")
    if not isinstance(spec, dict):
        return vm
    spec = vm["spec"] = dict(spec)
    flavor = spec.pop("flavor", None)
    for key in ("instancetype", "preference"):
        if isinstance(spec.get(key), dict):
            spec[key] = _matcher(spec[key], f"spec.{key}", ctx)
    if isinstance(flavor, dict):
        if spec.get("instancetype"):
            ctx.warn("spec.flavor: the VM also has spec.instancetype, which is kept; spec.flavor not converted")
        else:
            spec["instancetype"] = _flavor_matcher(flavor, ctx, profiles)
    return vm


def _matcher(matcher: Mapping[str, Any], path: str, ctx: _Context) -> dict[str, Any]:
    out = dict(matcher)
    kind = str(matcher.get("kind") or "")
    if kind and kind not in KIND_MAP:
        ctx.warn(f"{path}.kind: unknown kind {kind}; kept as is")
    elif kind:
        out["kind"] = KIND_MAP[kind]
    if matcher.get("revisionName"):
        # Kept: v1beta1-era revisions are fine. Revisions KubeVirt v0.56-v0.59 stored hold v1alpha1/v1alpha2
        # objects, which v1.7 and later cannot decode; nothing in the VM says which one this is.
        ctx.warn(
            f"{path}.revisionName: {matcher['revisionName']} kept; if that ControllerRevision holds a v1alpha1 or "
            "v1alpha2 object, KubeVirt v1.7+ cannot read it: remove revisionName"
        )
    return out


def _flavor_matcher(
    matcher: Mapping[str, Any], ctx: _Context, profiles: Mapping[tuple[str, str, str], str]
) -> dict[str, Any]:
    """``spec.flavor`` -> ``spec.instancetype``: kinds renamed, profiles resolved to their instance types."""
    name = str(matcher.get("name") or "")
    kind = str(matcher.get("kind") or "")
    new_kind = KIND_MAP.get(kind, kind) if kind else ""
    if kind and kind not in KIND_MAP:
        ctx.warn(f"spec.flavor.kind: unknown kind {kind}; kept as is")
    profile = str(matcher.get("profile") or "")
    # An empty kind meant the cluster-wide kind, for flavors as for instance types.
    scope = new_kind or "VirtualMachineClusterInstancetype"
    if any(key[:2] == (scope, name) for key in profiles):
        if (scope, name, profile) in profiles:
            name = profiles[(scope, name, profile)]
        else:
            wanted = f"profile {profile}" if profile else "default profile"
            ctx.warn(f"spec.flavor: flavor {name} has no {wanted}; referencing instance type {name}")
    elif profile:
        name = f"{name}.{profile}"
        ctx.warn(
            f"spec.flavor.profile: {profile} referenced without its flavor in the input; assuming instance type {name}"
        )
    out: dict[str, Any] = {"name": name}
    if new_kind:
        out["kind"] = new_kind
    if matcher.get("revisionName"):
        # The ControllerRevision holds a flavor.kubevirt.io object, which KubeVirt v1.7+ cannot read.
        ctx.warn(f"spec.flavor.revisionName: {matcher['revisionName']} stores a flavor.kubevirt.io object; dropped")
    for key, value in matcher.items():
        if key not in ("name", "kind", "profile", "revisionName"):
            out[key] = value
    return out


# ---------------------------------------------------------------------------------------------------- presets


class _Taker:
    """Removes the fields it converts from a copy of the preset domain; what is left is reported."""

    def __init__(self, domain: Mapping[str, Any]):
        self.rest: dict[str, Any] = copy.deepcopy(dict(domain))
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


def _convert_preset(obj: dict[str, Any], ctx: _Context, conversion: Conversion) -> list[dict[str, Any]]:
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
                    f"spec.domain.{'.'.join(keys)}: {_render(value)}: a preference cannot fix memory and the preset "
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
    out_metadata = _metadata(obj, ctx)
    objects = []
    if preference:
        objects.append(_object("VirtualMachinePreference", copy.deepcopy(out_metadata), preference))
    else:
        ctx.warn("no preference-like settings; no VirtualMachinePreference written")
    if instancetype is not None:
        objects.append(_object("VirtualMachineInstancetype", copy.deepcopy(out_metadata), instancetype))
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


def _preset_instancetype(taker: _Taker, ctx: _Context) -> dict[str, Any] | None:
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
        vcpus = _vcpus(dict(cpu))
    else:
        # Without a topology KubeVirt gives the VMI ceil(limits.cpu, else requests.cpu) vCPUs, as cores.
        vcpus = max(1, math.ceil(_quantity(str(cpu_quantity))))
    instancetype_cpu: dict[str, Any] = {"guest": vcpus}
    cpu_settings = dict(cpu)
    _take_cpu_settings(cpu_settings, instancetype_cpu)
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
                    f"spec.domain.resources.{section}.cpu: {_render(quantity)}: the instance type gives {vcpus} vCPUs "
                    "(cpu.guest) and sets no CPU request or limit"
                )
    return spec


def _preset_cpu_preferences(taker: _Taker, preference: dict[str, Any], with_instancetype: bool, ctx: _Context) -> None:
    cpu = taker.rest.get("cpu")
    if not isinstance(cpu, dict):
        return
    out: dict[str, Any] = {}
    features = taker.take("cpu", "features")
    if features:
        out["preferredCPUFeatures"] = features
    counts = _counts(cpu)
    topology = _topology(counts)
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


def _counts(cpu: Mapping[str, Any]) -> dict[str, int]:
    """The sockets/cores/threads above 1 of a kubevirt.io/v1 CPU."""
    return {key: cpu[key] for key in ("sockets", "cores", "threads") if isinstance(cpu.get(key), int) and cpu[key] > 1}


def _topology(counts: Mapping[str, int]) -> dict[str, Any] | None:
    """The preferredCPUTopology (and spreadOptions) that gives these sockets/cores/threads, if one does."""
    keys = set(counts)
    if len(keys) == 1:
        return {"preferredCPUTopology": next(iter(keys))}
    if keys == {"sockets", "cores"}:
        return {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCores", "ratio": counts["cores"]}}
    # KubeVirt admits only a ratio of 2 when spreading over cores and threads.
    if keys == {"cores", "threads"} and counts["threads"] == 2:
        return {"preferredCPUTopology": "spread", "spreadOptions": {"across": "CoresThreads", "ratio": 2}}
    if keys == {"sockets", "cores", "threads"} and counts["threads"] == 2:
        return {
            "preferredCPUTopology": "spread",
            "spreadOptions": {"across": "SocketsCoresThreads", "ratio": counts["cores"]},
        }
    return None


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


def _preset_devices(taker: _Taker, preference: dict[str, Any], ctx: _Context) -> None:
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
    ctx: _Context,
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
    from .quantity import QuantityError, parse_quantity

    try:
        return float(parse_quantity(text))
    except QuantityError as exc:
        raise InputError(f"quantities must match the regular expression: {text}") from exc


# ---------------------------------------------------------------------------------------------------- selectors


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``: an empty selector matches everything.

    Raises :class:`InputError` with apimachinery's message for an unknown operator or missing values.
    """
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key = expression.get("key")
        operator = expression.get("operator")
        values = list(expression.get("values") or ())
        if operator in ("In", "NotIn"):
            if not values:
                raise InputError(
                    "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
                )
            present = key in labels and labels[key] in values
            if present != (operator == "In"):
                return False
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                raise InputError(
                    f"values: Invalid value: {_go_strings(values)}: values set must be empty for exists and does not exist"
                )
            if (key in labels) != (operator == "Exists"):
                return False
        else:
            raise InputError(f'"{operator}" is not a valid label selector operator')
    return True


def _go_strings(values: list[Any]) -> str:
    return "[]string{" + ", ".join(json.dumps(str(value)) for value in values) + "}"


# ---------------------------------------------------------------------------------------------------- preset report


@dataclass
class VMReport:
    """What the preset mechanism would have done to one VM, and what it should reference instead."""

    name: str
    kind: str = "VirtualMachine"
    matched: list[str] = field(default_factory=list)
    excluded: bool = False
    messages: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    recommendation: str = ""


def report_presets(presets: list[Preset], vms: Iterable[Mapping[str, Any]]) -> list[str]:
    """Report lines: the VMs each preset's selector matches, the preset mechanism's messages per VM, and the
    preference (and instance type) each VM should reference.

    Presets act on the VMI a VM starts, whose labels and annotations come from ``spec.template.metadata``;
    only presets in the VM's namespace apply (a missing namespace counts as the same one).
    """
    vm_list = []
    for vm in vms:
        if vm.get("kind") not in ("VirtualMachine", "VirtualMachineInstance"):
            name = (vm.get("metadata") or {}).get("name") or ""
            raise InputError(
                f'cannot match presets against {vm.get("kind")} "{name}": give VirtualMachines or '
                "VirtualMachineInstances"
            )
        vm_list.append(vm)
    reports = [_vm_report(presets, vm) for vm in vm_list]
    lines = []
    for preset in presets:
        names = [report.name for report in reports if preset.name in report.matched]
        target = ", ".join(names) if names else "no VirtualMachine"
        lines.append(f"{preset.kind} {preset.name} matches {target}")
    for report in reports:
        subject = f"{report.kind} {report.name}"
        if report.excluded:
            lines.append(
                f'{subject}: excluded from presets ({PRESET_EXCLUDE_ANNOTATION}: "true"); nothing to reference'
            )
            continue
        lines.extend(f"{subject}: {message}" for message in report.messages)
        lines.append(f"{subject}: {report.recommendation}")
    return lines


def _vm_report(presets: list[Preset], vm: Mapping[str, Any]) -> VMReport:
    metadata = vm.get("metadata") or {}
    spec = vm.get("spec") or {}
    if vm.get("kind") == "VirtualMachineInstance":
        # The preset mechanism acted on VMIs directly: their own labels, annotations and domain.
        template: Mapping[str, Any] = {"metadata": metadata, "spec": spec}
    else:
        template = spec.get("template") or {}
    template_meta = template.get("metadata") or {}
    labels = {str(key): str(value) for key, value in (template_meta.get("labels") or {}).items()}
    report = VMReport(str(metadata.get("name") or ""), str(vm.get("kind")))
    namespace = metadata.get("namespace")
    matching = [
        preset
        for preset in presets
        if (not namespace or not preset.namespace or preset.namespace == namespace)
        and selector_matches(preset.selector, labels)
    ]
    report.matched = [preset.name for preset in matching]
    if (template_meta.get("annotations") or {}).get(PRESET_EXCLUDE_ANNOTATION) == "true":
        report.excluded = True
        return report
    if not matching:
        report.recommendation = "matches no preset; nothing to reference"
        return report
    domain = copy.deepcopy(((template.get("spec") or {}).get("domain")) or {})
    errors = []
    for index, preset in enumerate(matching):
        for earlier in matching[:index]:
            conflicts = merge_conflicts(preset.domain, earlier.domain)
            if conflicts:
                errors.append(f"presets '{preset.name}' and '{earlier.name}' conflict: {_aggregate(conflicts)}")
    if errors:
        report.messages.append(f"VirtualMachinePresets cannot be applied due to conflicts: {_aggregate(errors)}")
        report.recommendation = "no preset was applied to it (they conflict); reference at most one of " + ", ".join(
            preset.preference or preset.name for preset in matching
        )
        return report
    for preset in matching:
        conflicts = merge_conflicts(preset.domain, domain)
        applied = merge_domain(preset.domain, domain)
        kind = "VirtualMachineInstancePreset"
        if applied:
            report.applied.append(preset.name)
            if conflicts:
                report.messages.append(
                    f"Some settings were not applied for {kind} '{preset.name}': {_aggregate(conflicts)}"
                )
        else:
            text = _aggregate(conflicts) if conflicts else "<nil>"
            report.messages.append(f"Unable to apply {kind} '{preset.name}': {text}")
    report.recommendation = _recommendation(report, matching, vm)
    return report


def _recommendation(report: VMReport, matching: list[Preset], vm: Mapping[str, Any]) -> str:
    spec = vm.get("spec") or {}
    applied = [preset for preset in matching if preset.name in report.applied]
    if not applied:
        return "no preset was applied to it; referencing a converted preference would change it"
    if len(applied) > 1:
        names = ", ".join(preset.preference or preset.name for preset in applied)
        return f"a VM references one preference: merge {names} into one and reference it"
    preset = applied[0]
    references, notes = [], []
    own = spec.get("preference")
    if preset.preference and isinstance(own, dict) and own.get("name"):
        own_kind = own.get("kind") or "VirtualMachineClusterPreference"
        notes.append(
            f"already references {own_kind} {own.get('name')}: merge VirtualMachinePreference {preset.preference} into it"
        )
    elif preset.preference:
        references.append(_reference("preference", "VirtualMachinePreference", preset.preference))
    if preset.preference:
        notes.extend(_overridden(preset, vm))
    if preset.instancetype:
        if _has_own_size(vm):
            notes.append(f"it sets CPU or memory itself, so instance type {preset.instancetype} would conflict")
        elif spec.get("instancetype"):
            notes.append("it keeps its own instance type")
        else:
            references.append(_reference("instancetype", "VirtualMachineInstancetype", preset.instancetype))
    if not references and not notes:
        return f"the preset {preset.name} converted to nothing it could reference"
    if not references:
        return "; ".join(notes)
    if report.kind == "VirtualMachineInstance":
        text = "a VirtualMachineInstance references nothing: start it from a VirtualMachine that references "
    else:
        text = "should reference "
    return "; ".join([text + " and ".join(references), *notes])


def _overridden(preset: Preset, vm: Mapping[str, Any]) -> list[str]:
    """The VM's own settings that the preference would override where the preset left them alone."""
    domain = _domain(vm)
    notes = []
    for path in (("features", "acpi"), ("devices", "disableHotplug")):
        preset_value: Any = preset.domain
        own: Any = domain
        for key in path:
            preset_value = preset_value.get(key) if isinstance(preset_value, dict) else None
            own = own.get(key) if isinstance(own, dict) else None
        if preset_value is not None and own is not None and not _equal(preset_value, own):
            notes.append(
                f"the preference would override its {'.'.join(path)} ({_render(own)} -> {_render(preset_value)})"
            )
    return notes


def _domain(vm: Mapping[str, Any]) -> dict[str, Any]:
    spec = vm.get("spec") or {}
    if vm.get("kind") != "VirtualMachineInstance":
        spec = (spec.get("template") or {}).get("spec") or {}
    domain = spec.get("domain")
    return domain if isinstance(domain, dict) else {}


def _reference(field_name: str, kind: str, name: str) -> str:
    return f"{kind} {name} (spec.{field_name}: {{kind: {kind}, name: {name}}})"


def _has_own_size(vm: Mapping[str, Any]) -> bool:
    domain = _domain(vm)
    cpu = domain.get("cpu") or {}
    resources = domain.get("resources") or {}
    return bool(
        any(cpu.get(key) for key in ("sockets", "cores", "threads"))
        or (domain.get("memory") or {}).get("guest")
        or any(
            (resources.get(section) or {}).get(key) for section in ("requests", "limits") for key in ("cpu", "memory")
        )
    )


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: the message alone, or ``[a, b]``."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def _normal(value: Any) -> Any:
    """Drop what Go's semantic equality ignores in JSON form: null values and empty lists."""
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items() if item is not None and item != []}
    if isinstance(value, list):
        return [_normal(item) for item in value]
    return value


def _equal(left: Any, right: Any) -> bool:
    return bool(_normal(left) == _normal(right))


def _quantities_equal(left: Any, right: Any) -> bool:
    from .quantity import QuantityError, parse_quantity

    try:
        return parse_quantity(str(left)) == parse_quantity(str(right))
    except QuantityError:
        return str(left) == str(right)


def merge_conflicts(preset: Mapping[str, Any], vmi: Mapping[str, Any]) -> list[str]:
    """KubeVirt's ``checkMergeConflicts`` (v0.58): the preset fields a VMI domain sets differently."""
    errors = []
    preset_requests = (preset.get("resources") or {}).get("requests") or {}
    vmi_requests = (vmi.get("resources") or {}).get("requests") or {}
    for key, value in preset_requests.items():
        if key in vmi_requests and not _quantities_equal(value, vmi_requests[key]):
            errors.append(f"spec.resources.requests[{key}]: {value} != {vmi_requests[key]}")
    for key, path in (("cpu", "spec.cpu"), ("firmware", "spec.firmware")):
        if preset.get(key) is not None and vmi.get(key) is not None and not _equal(preset[key], vmi[key]):
            errors.append(f"{path}: {_render(preset[key])} != {_render(vmi[key])}")
    preset_clock, vmi_clock = preset.get("clock"), vmi.get("clock")
    if isinstance(preset_clock, dict) and isinstance(vmi_clock, dict):
        preset_offset, vmi_offset = _clock_offset(preset_clock), _clock_offset(vmi_clock)
        if not _equal(preset_offset, vmi_offset):
            errors.append(f"spec.clock.clockoffset: {_render(preset_offset)} != {_render(vmi_offset)}")
        timers = preset_clock.get("timer"), vmi_clock.get("timer")
        if timers[0] is not None and timers[1] is not None and not _equal(*timers):
            errors.append(f"spec.clock.timer: {_render(preset_clock['timer'])} != {_render(vmi_clock['timer'])}")
    features = preset.get("features"), vmi.get("features")
    if features[0] is not None and features[1] is not None and not _equal(*features):
        errors.append(f"spec.features: {_render(preset['features'])} != {_render(vmi['features'])}")
    preset_watchdog = (preset.get("devices") or {}).get("watchdog")
    vmi_watchdog = (vmi.get("devices") or {}).get("watchdog")
    if preset_watchdog is not None and vmi_watchdog is not None and not _equal(preset_watchdog, vmi_watchdog):
        errors.append(f"spec.devices.watchdog: {_render(preset_watchdog)} != {_render(vmi_watchdog)}")
    policy, vmi_policy = preset.get("ioThreadsPolicy"), vmi.get("ioThreadsPolicy")
    if policy is not None and vmi_policy is not None and policy != vmi_policy:
        errors.append(f"spec.ioThreadsPolicy: {policy} != {vmi_policy}")
    return errors


def _clock_offset(clock: Mapping[str, Any]) -> dict[str, Any]:
    return {key: clock[key] for key in ("utc", "timezone") if key in clock}


def merge_domain(preset: Mapping[str, Any], vmi: dict[str, Any]) -> bool:
    """KubeVirt's ``mergeDomainSpec`` (v0.58): fill unset sections of ``vmi`` in place; True when any section of
    the preset ended up in the VMI (the preset counts as applied)."""
    applied = False
    preset_requests = (preset.get("resources") or {}).get("requests") or {}
    if preset_requests:
        resources = vmi.setdefault("resources", {})
        if not resources.get("requests"):
            resources["requests"] = copy.deepcopy(preset_requests)
        requests = resources["requests"]
        if set(requests) == set(preset_requests) and all(
            _quantities_equal(value, requests[key]) for key, value in preset_requests.items()
        ):
            applied = True

    def whole(key: str, container: dict[str, Any], value: Any) -> bool:
        if value is None:
            return False
        if container.get(key) is None:
            container[key] = copy.deepcopy(value)
        return _equal(container[key], value)

    applied = whole("cpu", vmi, preset.get("cpu")) or applied
    applied = whole("firmware", vmi, preset.get("firmware")) or applied
    preset_clock = preset.get("clock")
    if isinstance(preset_clock, dict):
        if vmi.get("clock") is None:
            vmi["clock"] = copy.deepcopy(_clock_offset(preset_clock))
        if _equal(vmi["clock"], preset_clock):
            applied = True
        if preset_clock.get("timer") is not None:
            applied = whole("timer", vmi["clock"], preset_clock["timer"]) or applied
    applied = whole("features", vmi, preset.get("features")) or applied
    watchdog = (preset.get("devices") or {}).get("watchdog")
    if watchdog is not None:
        applied = whole("watchdog", vmi.setdefault("devices", {}), watchdog) or applied
    applied = whole("ioThreadsPolicy", vmi, preset.get("ioThreadsPolicy")) or applied
    return applied


def _render(value: Any) -> str:
    """A value in messages: compact JSON with sorted keys (strings unquoted at the top level)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def apply_order(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Objects in creation order: instance types and preferences before the VMs that reference them."""
    rank: Callable[[dict[str, Any]], int] = lambda obj: 1 if obj.get("kind") == "VirtualMachine" else 0  # noqa: E731
    return sorted(objects, key=rank)
