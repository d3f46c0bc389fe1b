"""``instancetype.kubevirt.io/v1alpha1``/``v1alpha2`` objects (and flavor-group preferences): the v1beta1 shape
with plain (not pointer) CPU fields and deprecated topology spellings; every field v1beta1 lacks is reported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import InputError
from ..jsoncopy import clone
from ..kinds import INSTANCETYPE_KINDS
from .context import Context, converted_metadata, new_object
from .schema import (
    INSTANCETYPE_API,
    INSTANCETYPE_FIELDS,
    KIND_MAP,
    PREFERENCE_FIELDS,
    TOPOLOGIES,
    TOPOLOGY_RENAMES,
)


def convert_type(obj: dict[str, Any], ctx: Context, default_memory: str | None) -> dict[str, Any]:
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
    return new_object(kind, converted_metadata(obj, ctx), new_spec)


def _instancetype_spec(spec: dict[str, Any], ctx: Context, default_memory: str | None) -> dict[str, Any]:
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


def _preference_spec(spec: dict[str, Any], ctx: Context) -> dict[str, Any]:
    source = clone(spec)
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


def _known_fields(source: dict[str, Any], fields: Mapping[str, frozenset[str] | None], ctx: Context) -> dict[str, Any]:
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
