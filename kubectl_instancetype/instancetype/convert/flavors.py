"""``flavor.kubevirt.io/v1alpha1`` flavors: KubeVirt v0.48-v0.52's ``profiles[]`` become one instance type per
profile (the default one keeps the flavor's name); v0.53-v0.55 flavors have the v1beta1 shape. A VM's
``spec.flavor`` matcher becomes ``spec.instancetype``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import InputError
from .alpha import convert_type
from .context import Context, converted_metadata, new_object, render
from .cpu import count_vcpus, cpu_counts, cpu_preference_hint, take_cpu_settings, topology_for
from .schema import INSTANCETYPE_API, KIND_MAP


def profile_names(items: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
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


def convert_flavor(obj: dict[str, Any], ctx: Context, default_memory: str | None) -> list[dict[str, Any]]:
    if "profiles" not in obj:
        return [convert_type(obj, ctx, default_memory)]
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
        counts = cpu_counts(cpu)
        spec: dict[str, Any] = {"cpu": {"guest": count_vcpus(cpu)}, "memory": {"guest": default_memory}}
        if set(counts) - {"sockets"}:
            # v1beta1 instance types give vCPUs as sockets unless a preference says otherwise.
            topology = topology_for(counts)
            hint = (
                "spec.cpu: " + render(topology)
                if topology
                else "no preferredCPUTopology gives it; the vCPUs become sockets"
            )
            layout = ", ".join(f"{key} {value}" for key, value in counts.items())
            ctx.warn(
                f"{path}.cpu: the topology ({layout}) belongs in the VM's preference ({hint}); "
                f"the instance type keeps the count ({spec['cpu']['guest']} vCPUs)"
            )
        take_cpu_settings(cpu, spec["cpu"])
        if cpu:
            for key, value in cpu.items():
                ctx.warn(
                    f"{path}.cpu.{key}: {render(value)} belongs in a preference "
                    f"({cpu_preference_hint(key)}); not converted"
                )
        for key, value in rest.items():
            ctx.no_home(f"{path}.{key}", value)
        name = _profile_instancetype_name(flavor, profile, obj)
        converted.append(new_object(kind, converted_metadata(obj, ctx, name), spec))
    return converted


def flavor_matcher(
    matcher: Mapping[str, Any], ctx: Context, profiles: Mapping[tuple[str, str, str], str]
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
