"""Conversion of legacy objects to ``instancetype.kubevirt.io/v1beta1`` and ``kubevirt.io/v1`` (pure, no I/O).

Inputs, oldest first, one module each:

* :mod:`.flavors`: ``flavor.kubevirt.io/v1alpha1`` ``VirtualMachine{,Cluster}Flavor``: KubeVirt v0.48-v0.52 wrote
  a ``profiles[]`` list (``name``, ``default``, ``cpu``); v0.53-v0.55 a ``spec`` with ``cpu.guest``/``memory.guest``.
  Preferences of the same group (v0.54, v0.55) already have the v1beta1 shape.
* :mod:`.alpha`: ``instancetype.kubevirt.io/v1alpha1``/``v1alpha2``: the v1beta1 shape with plain (not pointer)
  ``cpu.model``, ``dedicatedCPUPlacement``, ``isolateEmulatorThread`` and ``preferredCPUTopology``. v1beta1 input
  is accepted too and only normalised (deprecated topology spellings).
* :mod:`.vms`: ``kubevirt.io`` VirtualMachines with the old ``spec.flavor`` matcher.
* :mod:`.presets`: ``kubevirt.io`` VirtualMachineInstancePresets (and the older kind name VirtualMachinePreset):
  their preference-like settings become a VirtualMachinePreference; a preset that fixes both the vCPU count and
  the memory also yields a VirtualMachineInstancetype. :mod:`.report` says what they did to given VMs.

Every field of the input either lands in the output or is named in a warning; nothing is dropped silently
(server-managed metadata such as ``uid`` and ``resourceVersion`` aside: it cannot be created anyway).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeGuard

from ...errors import InputError
from ...golang.strconv import go_quote
from ..jsoncopy import clone
from ..kinds import INSTANCETYPE_KINDS, PREFERENCE_KINDS
from .alpha import convert_type
from .context import Context, Conversion, Preset
from .flavors import convert_flavor, profile_names
from .presets import convert_preset
from .report import report_presets, rewrite_vms
from .schema import FLAVOR_GROUP, INSTANCETYPE_GROUP, KUBEVIRT_GROUP, PRESET_KINDS
from .vms import convert_vm

__all__ = [
    "Conversion",
    "Preset",
    "apply_order",
    "convert",
    "format_selector",
    "nothing_written",
    "report_presets",
    "rewrite_vms",
]


def convert(objects: Iterable[Mapping[str, Any]], *, default_memory: str | None = None) -> Conversion:
    """Convert every object; raise :class:`InputError` for a kind this command does not read.

    ``default_memory`` fills ``memory.guest`` of flavors that have none (profile flavors of KubeVirt v0.48-v0.52
    and v0.53-v0.55 flavors without memory): v1beta1 requires it.
    """
    conversion = Conversion()
    # Converters of types and presets edit their copy; VMs (most of a large List) are only read: convert_vm
    # copies what it changes and the preset report clones the domain it merges into. Not copying them halves
    # the time of a 100,000-VM List's conversion.
    items = [obj if _read_only(obj) else clone(dict(obj)) for obj in objects]
    profiles = profile_names(items)
    for obj in items:
        group = str(obj.get("apiVersion", "")).rpartition("/")[0]
        kind = str(obj.get("kind", ""))
        name = str((obj.get("metadata") or {}).get("name") or (obj.get("metadata") or {}).get("generateName") or "")
        ctx = Context(conversion, kind, name)
        if group == FLAVOR_GROUP and kind in ("VirtualMachineFlavor", "VirtualMachineClusterFlavor"):
            conversion.objects.extend(convert_flavor(obj, ctx, default_memory))
        elif (group == FLAVOR_GROUP and kind in PREFERENCE_KINDS) or (
            group == INSTANCETYPE_GROUP and kind in INSTANCETYPE_KINDS + PREFERENCE_KINDS
        ):
            conversion.objects.append(convert_type(obj, ctx, default_memory))
        elif group == KUBEVIRT_GROUP and kind == "VirtualMachine":
            conversion.vms.append(obj)
            conversion.objects.append(convert_vm(obj, ctx, profiles))
        elif group == KUBEVIRT_GROUP and kind == "VirtualMachineInstance":
            # Read only to match presets of the same input against (presets acted on VMIs); nothing to convert.
            conversion.vms.append(obj)
        elif group == KUBEVIRT_GROUP and kind in PRESET_KINDS:
            conversion.objects.extend(convert_preset(obj, ctx, conversion))
        else:
            raise _unsupported(obj)
    _undeprecate(conversion)
    if not conversion.presets:
        for obj in conversion.vms:
            if obj.get("kind") == "VirtualMachineInstance":
                name = (obj.get("metadata") or {}).get("name") or ""
                raise InputError(
                    f"cannot convert VirtualMachineInstance {go_quote(str(name))}: convert reads "
                    "VirtualMachineInstances only to "
                    "match the VirtualMachineInstancePresets of the same input against them, and the input holds "
                    "none; convert the VirtualMachine that starts it"
                )
    return conversion


def _undeprecate(conversion: Conversion) -> None:
    """Lint's fixes on every converted instance type and preference (:func:`..lint.fix`: deprecated spellings
    rewritten only where every VM gets the same), so that what convert prints passes ``lint``; each rewrite is
    named in a warning, and what cannot be rewritten stays for lint to report."""
    from ..lint import fix

    for index, obj in enumerate(conversion.objects):
        if obj.get("kind") not in INSTANCETYPE_KINDS + PREFERENCE_KINDS:
            continue
        fixed, corrected = fix(obj)
        if not corrected:
            continue
        conversion.objects[index] = fixed
        ctx = Context(conversion, str(obj.get("kind")), str((obj.get("metadata") or {}).get("name") or ""))
        for finding in corrected:
            ctx.warn(f"{finding.path} is deprecated: written as {finding.replacement}")


def _read_only(obj: Mapping[str, Any]) -> TypeGuard[dict[str, Any]]:
    return type(obj) is dict and obj.get("kind") in ("VirtualMachine", "VirtualMachineInstance")


def format_selector(selector: Mapping[str, Any]) -> str:
    """A label selector as apimachinery's ``metav1.FormatLabelSelector`` writes it (``<none>`` when empty)."""
    parts = [f"{key}={value}" for key, value in sorted((selector.get("matchLabels") or {}).items())]
    for expression in selector.get("matchExpressions") or ():
        key, operator = expression.get("key"), str(expression.get("operator") or "")
        values = ",".join(sorted(str(value) for value in expression.get("values") or ()))
        if operator == "In":
            parts.append(f"{key} in ({values})")
        elif operator == "NotIn":
            parts.append(f"{key} notin ({values})")
        elif operator == "Exists":
            parts.append(str(key))
        elif operator == "DoesNotExist":
            parts.append(f"!{key}")
        else:
            parts.append(f"{key} {operator} ({values})")
    return ",".join(parts) or "<none>"


def nothing_written(conversion: Conversion, source: str) -> str:
    """Why a conversion of ``source`` wrote no object: what the input held and what to do instead."""
    found = [
        f"{preset.kind} {preset.name} (selector: {format_selector(preset.selector)})" for preset in conversion.presets
    ]
    found += [f"{vm.get('kind')} {(vm.get('metadata') or {}).get('name') or ''}" for vm in conversion.vms]
    text = "nothing to write: " + (", ".join(found) if found else "the input") + " converted to no object"
    if conversion.presets:
        text += (
            "; a preset becomes a preference only for its preference-like settings and an instance type only when "
            "it fixes both the vCPU count and the memory (see the warnings above for what it held). The VMs it "
            "matches keep what it gave them only if they set it themselves or reference an instance type: "
            f"`kubectl instancetype convert -f {source} --vms VMS.yaml` (or `--from-cluster`) lists them, with "
            "what the preset mechanism did to each"
        )
    return text


def _unsupported(obj: Mapping[str, Any]) -> InputError:
    name = (obj.get("metadata") or {}).get("name") or ""
    return InputError(
        f"cannot convert {obj.get('kind')} {go_quote(str(name))} ({obj.get('apiVersion')}): convert reads "
        "flavor.kubevirt.io/v1alpha1 "
        "flavors and preferences, instancetype.kubevirt.io instance types and preferences, kubevirt.io "
        "VirtualMachines and VirtualMachineInstancePresets"
    )


def apply_order(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Objects in creation order: instance types and preferences before the VMs that reference them."""
    rank: Callable[[dict[str, Any]], int] = lambda obj: 1 if obj.get("kind") == "VirtualMachine" else 0  # noqa: E731
    return sorted(objects, key=rank)
