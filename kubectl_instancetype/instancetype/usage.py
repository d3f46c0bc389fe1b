"""``usage``: who uses which instance type and preference, pure. The use case lists the objects; this module
reads the references out of them, tells live generations from older ones, adds up vCPUs and memory, and says
what a delete would break.

A reference is a matcher (``spec.instancetype`` / ``spec.preference``) of a VirtualMachine, of a
VirtualMachinePool's ``spec.virtualMachineTemplate`` or of a VirtualMachineTemplate's ``spec.virtualMachine``
(whose ``${PARAMETER}`` placeholders take the parameter's ``value``), by name or through ``inferFromVolume``
(resolved by the caller). ControllerRevisions hold copies: their ``instancetype.kubevirt.io/object-*`` labels
say of which object and generation (``pkg/instancetype/revision``).

What a delete breaks (KubeVirt v1.9.0, ``pkg/instancetype/find``, ``pkg/instancetype/controller/vm``): a VM whose
recorded ControllerRevision still exists runs on that copy and does not notice; a VM without one (never synced,
or its revision gone) stops with ``FailedFindInstancetype`` / ``FailedFindPreference``; a pool cannot create
replicas; a template cannot make VMs. Deleting a ControllerRevision a VM records sends that VM back to the live
object, or to the same failure when it is gone too (ssp-operator #1556).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..golang.quantity import QuantityError, parse_quantity
from . import kinds
from .listing import format_bytes

INSTANCETYPE = "instancetype"
PREFERENCE = "preference"
CLUSTER_KINDS = {INSTANCETYPE: kinds.CLUSTER_INSTANCETYPE.kind, PREFERENCE: kinds.CLUSTER_PREFERENCE.kind}
NAMESPACED_KINDS = {INSTANCETYPE: kinds.INSTANCETYPE.kind, PREFERENCE: kinds.PREFERENCE.kind}

_PARAMETER = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


@dataclass(frozen=True, order=True)
class Target:
    """An instance type or preference: its kind, namespace ("" for the cluster kinds) and name."""

    kind: str
    namespace: str
    name: str

    @property
    def key(self) -> str:
        """``instancetype`` or ``preference``."""
        return INSTANCETYPE if "Instancetype" in self.kind else PREFERENCE

    def __str__(self) -> str:
        return f"{self.kind.lower()}/{self.name}"


@dataclass(frozen=True)
class Use:
    """One object that needs ``target``: a VM, pool, template or ControllerRevision, and how."""

    target: Target
    user_kind: str
    user_name: str
    namespace: str
    via: str
    revision: str = ""
    revision_generation: int | None = None
    live_generation: int | None = None
    running: bool = False
    replicas: int = 1
    vcpus: int = 0
    memory: Fraction = Fraction(0)
    breaks: str = ""

    @property
    def user(self) -> str:
        """``kind/name`` of the user."""
        return f"{self.user_kind.lower()}/{self.user_name}"

    @property
    def generation(self) -> str:
        """``live``, ``older (2 of 3)`` or ``-``: whether the user runs the object's current generation."""
        if self.revision_generation is None or self.live_generation is None:
            return "-"
        if self.revision_generation == self.live_generation:
            return f"live ({self.live_generation})"
        return f"older ({self.revision_generation} of {self.live_generation})"


@dataclass
class Totals:
    """Per target: how many of each user, and the vCPUs and memory the VMs using an instance type get."""

    vms: int = 0
    running: int = 0
    pools: int = 0
    replicas: int = 0
    templates: int = 0
    revisions: int = 0
    older: int = 0
    vcpus: int = 0
    memory: Fraction = field(default_factory=Fraction)

    @property
    def memory_text(self) -> str:
        """The memory total as a quantity (``6Gi``), ``-`` for none."""
        return format_bytes(self.memory) if self.memory else "-"


def target_of(matcher: Mapping[str, Any], key: str, namespace: str) -> Target | None:
    """The object a resolved matcher names (None without a name, or with a kind KubeVirt does not read): the
    namespaced kinds live in ``namespace``."""
    name = str(matcher.get("name") or "")
    kind = kinds.matcher_kind(str(matcher.get("kind") or ""), key)
    if not name or kind is None:
        return None
    return Target(kind.kind, namespace if kind.namespaced else "", name)


def substitute(value: Any, parameters: Mapping[str, str]) -> Any:
    """A VirtualMachineTemplate's ``${NAME}`` placeholders replaced by the parameters' values (unknown left)."""
    if isinstance(value, str):
        return _PARAMETER.sub(lambda found: parameters.get(found.group(1), found.group(0)), value)
    if isinstance(value, dict):
        return {key: substitute(item, parameters) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, parameters) for item in value]
    return value


def template_parameters(template: Mapping[str, Any]) -> dict[str, str]:
    """``spec.parameters`` of a VirtualMachineTemplate: name -> value (the default a request may override)."""
    found: dict[str, str] = {}
    for parameter in (template.get("spec") or {}).get("parameters") or []:
        if isinstance(parameter, Mapping) and parameter.get("name"):
            found[str(parameter["name"])] = str(parameter.get("value") or "")
    return found


def guest_size(spec: Mapping[str, Any] | None) -> tuple[int, Fraction]:
    """(vCPUs, guest memory bytes) of an instance type spec (0 when unset or unreadable)."""
    spec = spec or {}
    try:
        vcpus = int((spec.get("cpu") or {}).get("guest") or 0)
    except (TypeError, ValueError):
        vcpus = 0
    try:
        memory = parse_quantity(str((spec.get("memory") or {}).get("guest") or "0"))
    except QuantityError:
        memory = Fraction(0)
    return vcpus, memory


def stored_copy(revision: Mapping[str, Any]) -> tuple[Target, int | None] | None:
    """Which object (and generation) a ControllerRevision holds a copy of (None: not a copy of a type);
    :func:`.expand.revisions.revision_target` as a :class:`Target`."""
    from .expand.revisions import revision_target

    found = revision_target(revision)
    if found is None:
        return None
    kind, namespace, name, generation = found
    return Target(kind, namespace, name), generation


def delete_consequence(use: Use, revision_exists: bool) -> str:
    """What deleting ``use.target`` does to ``use``'s user ("" for a ControllerRevision: it is a copy)."""
    missing = "FailedFindInstancetype" if use.target.key == INSTANCETYPE else "FailedFindPreference"
    if use.user_kind == "VirtualMachine":
        if revision_exists:
            return (
                f"keeps running on {use.revision}; a restart is fine, but switching back or --refresh needs the object"
            )
        return f"has no stored copy: the controller stops it with {missing}"
    if use.user_kind == "VirtualMachinePool":
        return f"new replicas cannot be created ({missing})"
    if use.user_kind == "VirtualMachineTemplate":
        return "VMs made from it cannot start"
    return ""


def totals(uses: Iterable[Use]) -> dict[Target, Totals]:
    """Per target, the counts and the vCPUs and memory of the VMs (pools: every replica) using it."""
    result: dict[Target, Totals] = {}
    for use in uses:
        total = result.setdefault(use.target, Totals())
        if use.user_kind == "VirtualMachine":
            total.vms += 1
            total.running += 1 if use.running else 0
            total.older += 1 if use.generation.startswith("older") else 0
        elif use.user_kind == "VirtualMachinePool":
            total.pools += 1
            total.replicas += use.replicas
        elif use.user_kind == "VirtualMachineTemplate":
            total.templates += 1
        elif use.user_kind == "ControllerRevision":
            total.revisions += 1
        if use.user_kind in ("VirtualMachine", "VirtualMachinePool"):
            total.vcpus += use.vcpus * use.replicas
            total.memory += use.memory * use.replicas
    return result
