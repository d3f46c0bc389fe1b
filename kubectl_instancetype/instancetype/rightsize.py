"""``rightsize``: which VMs are over- or under-provisioned, and the instance type each should move to, pure.

The use case measures each VM in Prometheus (KubeVirt's own ``kubevirt_vmi_*`` domain stats and recording rules) and
hands in what it measured (:class:`Measured`); this module turns that into a verdict and a recommended type.

Verdicts are AWS Compute Optimizer's words (its "Finding" values for EC2 instances):

- ``Insufficient data``: the window holds less than the minimum history at the VM's current size. Compute
  Optimizer needs 30 hours of metrics within its 14-day window; so do we (:data:`MIN_HISTORY_SECONDS`).
- ``Under-provisioned``: at least one of CPU or memory does not meet the measured need (the percentile plus the
  headroom), or the guest was under memory pressure (below).
- ``Over-provisioned``: both meet the need, and a smaller type (fewer vCPUs or less memory, more of neither) meets
  it too.
- ``Optimized``: both meet the need and no smaller type does.

Memory pressure counts against shrinking, as KubeVirt's own alerts treat it (``pkg/monitoring/rules/alerts/vms.go``):
``KubeVirtVMGuestMemoryPressure`` (headroom ratio below 5 % together with more than 5 major faults/s or more than
1 MiB/s of swap traffic, for 5 minutes) and ``KubeVirtVMGuestMemoryAvailableLow`` (headroom below 3 % for 30
minutes). A VM that was in either state within the window is never offered less memory: it is Under-provisioned
on memory and the type recommended has more than it has now.

The recommended type is the smallest (:func:`.recommend.rank_key`) that meets the need, in this order of search:
the VM's own series first (``u1`` stays ``u1``), then any other series. A candidate must keep the VM's special
features (dedicated CPUs, isolated emulator thread, NUMA, realtime, hugepages, GPUs, host devices: the same set as
the current type, :func:`.recommend.feature_names`), pass the checks KubeVirt's VM admission runs for the VM's
preference (``admit``; by default :func:`.recommend.evaluate`: the preference's requirements and spread rule in
KubeVirt's words), and fit some node now (``fits``; None, "unknown", when the cluster has no nodes to judge by:
the candidate is kept and the use case says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..golang.quantity import QuantityError, parse_quantity
from .recommend import evaluate, feature_names, rank_key, series_of

OVER = "Over-provisioned"
UNDER = "Under-provisioned"
OPTIMIZED = "Optimized"
INSUFFICIENT = "Insufficient data"
VERDICTS = (OVER, UNDER, OPTIMIZED, INSUFFICIENT)

# AWS Compute Optimizer: "at least 30 consecutive hours of metric data" within the 14-day lookback.
MIN_HISTORY_SECONDS = 30 * 3600
DEFAULT_WINDOW_SECONDS = 14 * 24 * 3600
DEFAULT_PERCENTILE = 95.0
DEFAULT_HEADROOM = Fraction(20, 100)

# KubeVirt v1.9.0 pkg/monitoring/rules/alerts/vms.go
PRESSURE_HEADROOM_RATIO = 0.05  # KubeVirtVMGuestMemoryPressure: vmi:kubevirt_vmi_memory_headroom_ratio:sum < 0.05
PRESSURE_MAJOR_FAULTS = 5.0  # ... and (vmi:kubevirt_vmi_pgmajfaults:rate5m > 5
PRESSURE_SWAP_BYTES = 1048576.0  # ... or vmi:kubevirt_vmi_swap_traffic_bytes:rate5m > 1048576), for: 5m
PRESSURE_FOR_SECONDS = 5 * 60
LOW_AVAILABLE_RATIO = 0.03  # KubeVirtVMGuestMemoryAvailableLow: headroom ratio < 0.03 ..., for: 30m
LOW_AVAILABLE_FOR_SECONDS = 30 * 60

CPU_FROM_VCPU = "vcpu"  # kubevirt_vmi_vcpu_seconds_total: guest vCPU time
CPU_FROM_TOTAL = "cpu"  # kubevirt_vmi_cpu_usage_seconds_total: vCPU plus hypervisor time
MEMORY_FROM_BALLOON = "balloon"  # available - usable (vmi:kubevirt_vmi_memory_used_bytes:sum)
MEMORY_FROM_RESIDENT = "resident"  # kubevirt_vmi_memory_resident_bytes, capped at kubevirt_vmi_memory_domain_bytes


@dataclass(frozen=True)
class Policy:
    """How to size: the percentile of use that must fit, the headroom above it, and the minimum history."""

    percentile: float = DEFAULT_PERCENTILE
    headroom: Fraction = DEFAULT_HEADROOM
    window_seconds: int = DEFAULT_WINDOW_SECONDS
    min_history_seconds: int = MIN_HISTORY_SECONDS


@dataclass(frozen=True)
class Measured:
    """What Prometheus says about one VM over the window, at its current size.

    ``cpu`` and ``cpu_peak`` are vCPUs busy (CPU seconds per second) at the percentile and at most; ``memory`` and
    ``memory_peak`` are bytes in use; ``history_seconds`` how much of the window has samples; the pressure fields
    are seconds spent in the states of KubeVirt's two memory alerts; the sources say which series were read."""

    cpu: float | None
    cpu_peak: float | None
    memory: float | None
    memory_peak: float | None
    history_seconds: float
    cpu_source: str = CPU_FROM_VCPU
    memory_source: str = MEMORY_FROM_BALLOON
    pressure_seconds: float = 0.0
    low_available_seconds: float = 0.0
    min_headroom_ratio: float | None = None


@dataclass(frozen=True)
class Candidate:
    """An instance type that could be recommended: its kind, name, namespace (None: cluster-wide) and spec."""

    kind: str
    name: str
    spec: Mapping[str, Any]
    namespace: str | None = None
    vcpus: int = field(init=False, compare=False)  # spec.cpu.guest, read once
    memory_bytes: int = field(init=False, compare=False)  # spec.memory.guest in bytes, read once
    rank: tuple[Any, ...] = field(init=False, compare=False, repr=False)  # recommend.rank_key, once
    features: tuple[str, ...] = field(init=False, compare=False, repr=False)  # recommend.feature_names, once

    series: str = field(init=False, compare=False, repr=False)  # u1 of u1.large; the name itself without a dot

    def __post_init__(self) -> None:
        object.__setattr__(self, "series", series_of(self.name))
        object.__setattr__(self, "features", tuple(feature_names(self.spec)))
        object.__setattr__(self, "vcpus", guest_cpu(self.spec))
        object.__setattr__(self, "memory_bytes", guest_memory(self.spec))
        object.__setattr__(self, "rank", rank_key(self.spec, self.name, self.namespace))


@dataclass(frozen=True)
class Need:
    """What the VM needs: whole vCPUs and bytes of guest memory, and whether memory must grow (pressure)."""

    cpu: int
    memory: int
    memory_must_grow: bool
    pressure: str  # the alert's words when there was pressure, else ""


@dataclass(frozen=True)
class Sizing:
    """The answer for one VM."""

    verdict: str
    reason: str
    need: Need | None
    recommended: Candidate | None
    cpu_change: int  # vCPUs the recommendation adds (positive) or saves (negative)
    memory_change: int  # bytes likewise
    rejected: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (name, why) of skipped smaller types


def guest_cpu(spec: Mapping[str, Any]) -> int:
    """The type's vCPUs (``spec.cpu.guest``), 0 when missing or malformed."""
    value = (spec.get("cpu") or {}).get("guest")
    try:
        return int(value) if value is not None and not isinstance(value, bool) else 0
    except (TypeError, ValueError):
        return 0


def guest_memory(spec: Mapping[str, Any]) -> int:
    """The type's guest memory in bytes (``spec.memory.guest``), 0 when missing or malformed."""
    value = (spec.get("memory") or {}).get("guest")
    try:
        return math.ceil(parse_quantity(str(value))) if value is not None else 0
    except QuantityError:
        return 0


def pressure(measured: Measured) -> str:
    """KubeVirt's alert that the VM's memory state would have fired within the window ("" when none)."""
    if measured.pressure_seconds >= PRESSURE_FOR_SECONDS:
        return (
            "KubeVirtVMGuestMemoryPressure: low usable memory with elevated major faults and/or swap IO "
            f"for {_duration(measured.pressure_seconds)}"
        )
    if measured.low_available_seconds >= LOW_AVAILABLE_FOR_SECONDS:
        return (
            "KubeVirtVMGuestMemoryAvailableLow: very low available memory (<3% headroom) "
            f"for {_duration(measured.low_available_seconds)}"
        )
    return ""


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h{minutes % 60}m" if minutes >= 60 else f"{minutes}m"


def need(measured: Measured, policy: Policy, current: Mapping[str, Any]) -> Need:
    """The percentile plus the headroom, in whole vCPUs (at least one) and bytes; memory under pressure must grow
    past what the VM has now."""
    # exact rational arithmetic on the floats' integer ratios: ceil(cpu x factor - 1e-9) and ceil(memory x factor),
    # as Fraction computes them, without a Fraction per VM (10,000 VMs: a quarter of the sizing's time)
    factor = 1 + Fraction(policy.headroom)
    p, q = factor.numerator, factor.denominator
    n, d = float(measured.cpu or 0.0).as_integer_ratio()
    cpu = max(1, -((d * q - n * p * 10**9) // (d * q * 10**9)))
    n, d = float(measured.memory or 0.0).as_integer_ratio()
    memory = -((-n * p) // (d * q))
    why = pressure(measured)
    if why:
        memory = max(memory, guest_memory(current) + 1)
    return Need(cpu, memory, bool(why), why)


def _meets(candidate: Candidate, wanted: Need) -> bool:
    return candidate.vcpus >= wanted.cpu and candidate.memory_bytes >= wanted.memory


def default_admit(preference: Mapping[str, Any] | None, architecture: str | None = None) -> Callable[[Candidate], str]:
    """KubeVirt's VM-admission checks of a type against the VM's preference (requirements, spread), as
    :func:`.recommend.evaluate` runs them; "" when admitted, else KubeVirt's message. Each type is checked once
    (share one per preference across VMs)."""

    seen: dict[tuple[str, str, str | None], str] = {}

    def admit(candidate: Candidate) -> str:
        key = (candidate.kind, candidate.name, candidate.namespace)
        if key not in seen:
            verdict = evaluate(candidate.spec, preference, architecture=architecture)
            seen[key] = "" if verdict.fits else verdict.reason
        return seen[key]

    return admit


def size(
    current: Candidate,
    measured: Measured | None,
    candidates: list[Candidate],
    policy: Policy = Policy(),
    admit: Callable[[Candidate], str] | None = None,
    fits: Callable[[Candidate], bool | None] | None = None,
    order: tuple[list[Candidate], list[Candidate]] | None = None,
) -> Sizing:
    """The verdict for a VM of type ``current`` that used ``measured`` (None: no samples at all), choosing among
    ``candidates`` (the cluster's types, :func:`ranked`; ``current`` among them or not). ``order``: :func:`ordered`
    of ``current`` and ``candidates`` when the caller has it (the same for every VM of a type)."""
    if measured is None or measured.history_seconds < policy.min_history_seconds:
        held = 0.0 if measured is None else measured.history_seconds
        return Sizing(
            INSUFFICIENT,
            f"{_duration(held)} of history at the current size; at least {policy.min_history_seconds // 3600}h "
            "within the window are needed",
            None,
            None,
            0,
            0,
        )
    if measured.cpu is None or measured.memory is None:
        missing = "CPU" if measured.cpu is None else "memory"
        return Sizing(INSUFFICIENT, f"no {missing} samples in the window", None, None, 0, 0)
    admit = admit or default_admit(None)
    wanted = need(measured, policy, current.spec)
    have_cpu, have_memory = current.vcpus, current.memory_bytes
    short = []
    if wanted.cpu > have_cpu:
        short.append(f"CPU needs {wanted.cpu} vCPU, has {have_cpu}")
    if wanted.memory_must_grow:
        short.append(wanted.pressure)
    elif wanted.memory > have_memory:
        short.append(f"memory needs {_bytes(wanted.memory)}, has {_bytes(have_memory)}")
    features = current.features
    rejected: list[tuple[str, str]] = []

    def first(pool: list[Candidate], smaller_only: bool) -> Candidate | None:
        for candidate in pool:
            if not _meets(candidate, wanted):
                continue
            if _same(candidate, current):
                return candidate
            if smaller_only and not _smaller(candidate, current):
                continue
            if candidate.features != features:
                continue  # another kind of type altogether: not a resize
            denial = admit(candidate)
            if denial:
                rejected.append((candidate.name, denial))
                continue
            if fits is not None and fits(candidate) is False:
                rejected.append((candidate.name, "fits no node now"))
                continue
            return candidate
        return None

    same, others = order or ordered(current, candidates)
    choice = first(same, False)
    if choice is None or (_same(choice, current) and "." not in current.name):
        # nothing in the series meets the need, or the type has no series (a name without a dot): any series
        other = first(others, choice is not None)
        choice = other or choice
    if short:
        if choice is None or _same(choice, current):
            return Sizing(UNDER, "; ".join(short) + "; no type meets the need", wanted, None, 0, 0, tuple(rejected))
        return _sized(UNDER, "; ".join(short), wanted, choice, current, rejected)
    if choice is None or _same(choice, current):
        return Sizing(
            OPTIMIZED,
            f"{_usage(measured, policy)} fits {current.name} and no smaller type",
            wanted,
            current,
            0,
            0,
            tuple(rejected),
        )
    return _sized(OVER, f"{_usage(measured, policy)} fits {choice.name}", wanted, choice, current, rejected)


def _same(a: Candidate, b: Candidate) -> bool:
    return (a.kind, a.name, a.namespace) == (b.kind, b.name, b.namespace)


def _sized(
    verdict: str, reason: str, wanted: Need, choice: Candidate, current: Candidate, rejected: list[tuple[str, str]]
) -> Sizing:
    return Sizing(
        verdict,
        reason,
        wanted,
        choice,
        choice.vcpus - current.vcpus,
        choice.memory_bytes - current.memory_bytes,
        tuple(rejected),
    )


def _usage(measured: Measured, policy: Policy) -> str:
    percentile = f"p{policy.percentile:g}"
    return (
        f"{percentile} {measured.cpu or 0:.2f} vCPU, {_bytes(math.ceil(measured.memory or 0))} "
        f"+{float(policy.headroom) * 100:g}% headroom"
    )


def _smaller(candidate: Candidate, than: Candidate) -> bool:
    cpu, memory = candidate.vcpus, candidate.memory_bytes
    return cpu <= than.vcpus and memory <= than.memory_bytes and (cpu, memory) != (than.vcpus, than.memory_bytes)


def ranked(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Smallest first (:func:`.recommend.rank_key`); :func:`size` takes a list so ordered as it is (sort once for
    many VMs)."""
    return sorted(candidates, key=lambda c: c.rank)


def ordered(current: Candidate, candidates: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """The current type's series (``u1`` of ``u1.large``, with the current type in its place) and the other series,
    each smallest first (``candidates`` come ranked: :func:`ranked`)."""
    series, key = current.series, (current.kind, current.name, current.namespace)
    if "." not in current.name:
        same = [c for c in candidates if (c.kind, c.name, c.namespace) == key]
        others = [c for c in candidates if (c.kind, c.name, c.namespace) != key]
    else:
        same = [c for c in candidates if c.series == series]
        others = [c for c in candidates if c.series != series]
    if not any((c.kind, c.name, c.namespace) == key for c in same):
        same = ranked([*same, current])
    return same, others


def _bytes(value: int) -> str:
    """Bytes as the largest binary unit that keeps two decimals honest (``1.5Gi``, ``512Mi``)."""
    for unit, size in (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if abs(value) >= size:
            return f"{value / size:.2f}".rstrip("0").rstrip(".") + unit
    return str(value)


def show_bytes(value: int | float | None) -> str:
    """Bytes for a table cell ("" for None)."""
    return "" if value is None else _bytes(math.ceil(value))
