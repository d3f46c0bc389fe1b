"""``kubevirt.io`` VirtualMachines: matcher kinds renamed, ``spec.flavor`` resolved to ``spec.instancetype``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .context import Context, converted_metadata
from .flavors import flavor_matcher
from .schema import KIND_MAP, VM_API


def convert_vm(obj: dict[str, Any], ctx: Context, profiles: Mapping[tuple[str, str, str], str]) -> dict[str, Any]:
    vm: dict[str, Any] = {"apiVersion": VM_API, "kind": "VirtualMachine", "metadata": converted_metadata(obj, ctx)}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata", "status"):
            vm[key] = value
    spec = vm.get("spec")
    if not isinstance(spec, dict):
        return vm
    spec = vm["spec"] = dict(spec)
    running_strategy(spec, ctx)
    flavor = spec.pop("flavor", None)
    for key in ("instancetype", "preference"):
        if isinstance(spec.get(key), dict):
            spec[key] = _matcher(spec[key], f"spec.{key}", ctx)
    if isinstance(flavor, dict):
        if spec.get("instancetype"):
            ctx.warn("spec.flavor: the VM also has spec.instancetype, which is kept; spec.flavor not converted")
        else:
            spec["instancetype"] = flavor_matcher(flavor, ctx, profiles)
    return vm


def _matcher(matcher: Mapping[str, Any], path: str, ctx: Context) -> dict[str, Any]:
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


def running_strategy(spec: dict[str, Any], ctx: Context) -> None:
    """``spec.running`` (deprecated) -> ``spec.runStrategy``: true is Always, anything else Halted, as KubeVirt maps
    them (kubevirt.io/api core/v1 types.go, VirtualMachine.RunStrategy). Both given (KubeVirt refuses the pair:
    "running and runstrategy are mutually exclusive"), runStrategy is kept and running named in a warning."""
    if "running" not in spec:
        return
    running = spec.pop("running")
    if spec.get("runStrategy"):
        ctx.warn(f"spec.running: {str(running).lower()} dropped: spec.runStrategy {spec['runStrategy']} is kept")
    else:
        spec["runStrategy"] = "Always" if running is True else "Halted"
