"""Which instance types suit a preference, and in which order to offer them.

An instance type fits a preference when a VirtualMachine referencing both would pass KubeVirt's VM
admission: the preference's requirements (the one implementation, :func:`.requirements.unmet_requirement`,
with KubeVirt's messages) and the spread-topology divisibility rule that admission runs before them
(``pkg/instancetype/preference/validation/cpu.go``, as the expansion engine implements it). On top of that come the user's own minimums
(``--min-cpu``, ``--min-memory``). Fitting types are ranked smallest first: vCPUs, then guest memory, then
overcommit percentage (none first), then the fewest special features (dedicated CPUs, hugepages, NUMA,
realtime, GPUs), then name, so that ``u1`` comes before ``d1`` or ``cx1`` of the same size.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..golang.quantity import QuantityError, canonical_quantity, parse_quantity
from ..records import dataclass, field
from .requirements import unmet_requirement

ARCH_NODE_LABEL = "kubernetes.io/arch"


def spread_problem(instancetype: Mapping[str, Any], preference: Mapping[str, Any]) -> str | None:
    """KubeVirt's VM-admission message when the instance type's vCPUs cannot be spread as the preference
    asks (``CheckSpreadCPUTopology``), else None. Both arguments are specs. The check is the expansion
    engine's (:func:`.expand.topology.check_spread`, tested against KubeVirt's own code)."""
    from .expand.topology import check_spread

    conflict = check_spread(instancetype, preference)
    return conflict.error() if conflict is not None else None


def node_architecture_problem(instancetype: Mapping[str, Any], architecture: str | None) -> str | None:
    """An instance type whose nodeSelector pins ``kubernetes.io/arch`` to another architecture than the one the
    VM will request can never be scheduled with it (KubeVirt admits it; the scheduler finds no node)."""
    pinned = (instancetype.get("nodeSelector") or {}).get(ARCH_NODE_LABEL)
    if architecture and pinned and pinned != architecture:
        return f"instance type selects {ARCH_NODE_LABEL}={pinned} nodes but the VM requests architecture {architecture}"
    return None


@dataclass(frozen=True)
class Minimums:
    """The user's own floor: ``--min-cpu`` and ``--min-memory`` (None: not given)."""

    cpu: int | None = None
    memory: str | None = None

    def memory_bytes(self) -> Fraction | None:
        """``--min-memory`` in bytes (raises :class:`QuantityError` on a bad quantity)."""
        return None if self.memory is None else parse_quantity(self.memory)


@dataclass
class Verdict:
    """Whether an instance type fits, and why (one reason per unmet check, or what it meets when it fits)."""

    fits: bool
    reasons: list[str] = field(default_factory=list)
    # what the failed checks are about: "cpu", "memory", "architecture"
    dimensions: set[str] = field(default_factory=set)

    @property
    def reason(self) -> str:
        """The REASON cell."""
        return "; ".join(self.reasons)


def _guest_cpu(spec: Mapping[str, Any]) -> int:
    value = (spec.get("cpu") or {}).get("guest")
    try:
        return int(value) if value is not None and not isinstance(value, bool) else 0
    except (TypeError, ValueError):
        return 0


def _guest_memory(spec: Mapping[str, Any]) -> Fraction:
    value = (spec.get("memory") or {}).get("guest")
    try:
        return parse_quantity(str(value)) if value is not None else Fraction(0)
    except QuantityError:
        return Fraction(0)


def evaluate(
    instancetype: Mapping[str, Any],
    preference: Mapping[str, Any] | None,
    minimums: Minimums = Minimums(),
    architecture: str | None = None,
) -> Verdict:
    """Check one instance type spec against a preference spec (None: no preference), the minimums and
    the architecture the VM requests (None: the preference's ``preferredArchitecture``, as KubeVirt's
    mutating webhook fills it)."""
    preference = preference or {}
    problems: list[str] = []
    dimensions: set[str] = set()
    spread = spread_problem(instancetype, preference)
    if spread:
        problems.append(spread)
        dimensions.add("cpu")
    template: dict[str, Any] = {"architecture": architecture} if architecture else {}
    # KubeVirt stops at the first unmet requirement; asking again without the ones already reported
    # gives every reason, each in KubeVirt's words.
    requirements = dict(preference.get("requirements") or {})
    while requirements:
        problem = unmet_requirement(instancetype, {**preference, "requirements": requirements}, template)
        if not problem:
            break
        problems.append(problem)
        key = "cpu" if " CPU " in problem else "memory" if " Memory " in problem else "architecture"
        dimensions.add(key)
        if requirements.pop(key, None) is None:
            break  # a message of another shape: report it once and stop
    arch = node_architecture_problem(instancetype, architecture or preference.get("preferredArchitecture"))
    if arch:
        problems.append(arch)
        dimensions.add("architecture")
    cpu, memory = _guest_cpu(instancetype), _guest_memory(instancetype)
    if minimums.cpu is not None and cpu < minimums.cpu:
        problems.append(f"{cpu} vCPU is below --min-cpu {minimums.cpu}")
        dimensions.add("cpu")
    floor = minimums.memory_bytes()
    if floor is not None and memory < floor:
        problems.append(
            f"{_show_memory(instancetype)} is below --min-memory {canonical_quantity(str(minimums.memory))}"
        )
        dimensions.add("memory")
    if problems:
        return Verdict(False, problems, dimensions)
    return Verdict(True, [_fit_reason(instancetype, preference, cpu)])


def _show_memory(spec: Mapping[str, Any]) -> str:
    value = (spec.get("memory") or {}).get("guest")
    try:
        return canonical_quantity(str(value))
    except (QuantityError, ValueError):
        return str(value)


def _fit_reason(instancetype: Mapping[str, Any], preference: Mapping[str, Any], cpu: int) -> str:
    requirements = preference.get("requirements") or {}
    parts = []
    required_cpu = (requirements.get("cpu") or {}).get("guest")
    parts.append(f"{cpu} vCPU" + (f" >= {required_cpu} required" if required_cpu is not None else ""))
    required_memory = (requirements.get("memory") or {}).get("guest")
    parts.append(
        _show_memory(instancetype)
        + (f" >= {canonical_quantity(str(required_memory))} required" if required_memory else "")
    )
    if requirements.get("architecture"):
        parts.append(f"architecture {requirements['architecture']}")
    return ", ".join(parts)


def features(instancetype: Mapping[str, Any]) -> int:
    """How many special placement features the type asks of a node (fewer ranks first)."""
    cpu = instancetype.get("cpu") or {}
    memory = instancetype.get("memory") or {}
    return sum(
        (
            bool(cpu.get("dedicatedCPUPlacement")),
            bool(cpu.get("isolateEmulatorThread")),
            "numa" in cpu,
            "realtime" in cpu,
            bool(memory.get("hugepages")),
            bool(instancetype.get("gpus")),
            bool(instancetype.get("hostDevices")),
        )
    )


def rank_key(instancetype: Mapping[str, Any], name: str, namespace: str | None) -> tuple[Any, ...]:
    """Smallest first: vCPUs, guest memory, overcommit percentage, special features, name, scope."""
    overcommit = int((instancetype.get("memory") or {}).get("overcommitPercent") or 0)
    return (
        _guest_cpu(instancetype),
        _guest_memory(instancetype),
        overcommit,
        features(instancetype),
        name,
        namespace or "",
    )


def near_miss(verdict: Verdict) -> bool:
    """A rejected type worth showing with ``--show-rejected``: it falls short in one dimension only (vCPUs,
    memory or architecture), so one step up in its series (or another architecture) would fit."""
    return not verdict.fits and len(verdict.dimensions) == 1


def series_of(name: str) -> str:
    """The series of a ``<series>.<size>`` name (common-instancetypes' parse rule: split at the first dot)."""
    return name.split(".", 1)[0]


def feature_names(instancetype: Mapping[str, Any]) -> list[str]:
    """The special placement features :func:`features` counts, by name."""
    cpu, memory = instancetype.get("cpu") or {}, instancetype.get("memory") or {}
    present = (
        ("dedicated CPUs", bool(cpu.get("dedicatedCPUPlacement"))),
        ("isolated emulator thread", bool(cpu.get("isolateEmulatorThread"))),
        ("NUMA", "numa" in cpu),
        ("realtime", "realtime" in cpu),
        ("hugepages", bool(memory.get("hugepages"))),
        ("GPUs", bool(instancetype.get("gpus"))),
        ("host devices", bool(instancetype.get("hostDevices"))),
    )
    return [name for name, found in present if found]


def rank_reason(instancetype: Mapping[str, Any], key: tuple[Any, ...], previous: tuple[Any, ...] | None) -> str:
    """Why a type ranks where it does: the first part of :func:`rank_key` (the cost order) in which it follows
    the type ranked above it."""
    if previous is None:
        return "ranked first: the smallest fit"
    special = feature_names(instancetype)
    reasons = (
        f"more vCPUs than the one above ({key[0]} > {previous[0]})",
        "more memory than the one above",
        f"memory overcommitted {key[2]}% (more than the one above)",
        "same size as the one above, more special features (" + (", ".join(special) or "?") + ")",
        "same size and features as the one above; by name",
        "same as the one above; by scope",
    )
    for index, reason in enumerate(reasons):
        if key[index] != previous[index]:
            return reason
    return reasons[-1]
