"""``rightsize``: measure each VM that uses an instance type in Prometheus, then size it (:mod:`..instancetype.rightsize`).

The cluster is read once: the VMs in scope (one list in one answer, or the ones named), the cluster instance types and
preferences, and the namespaced ones of the namespaces in scope. Prometheus is asked a fixed number of instant
queries (:data:`QUERY_NAMES`), each aggregated ``by (namespace, name)`` over the window with a subquery
(``quantile_over_time(0.95, (...)[14d:1m])``), so the cost does not grow with the number of queries per VM: there
are none per VM.

Where the numbers come from, per VM (the report says which):

- CPU: ``rate(kubevirt_vmi_vcpu_seconds_total[5m])`` summed over the VM's vCPUs (guest time), else
  ``rate(kubevirt_vmi_cpu_usage_seconds_total[5m])`` (vCPU plus hypervisor time) for a VM without vCPU series.
- Memory: the balloon statistics, available - usable (KubeVirt's recording rule
  ``vmi:kubevirt_vmi_memory_used_bytes:sum`` when the server has it over the window, else the same expression on the
  raw series), else, for a guest that reports none, ``kubevirt_vmi_memory_resident_bytes`` capped at
  ``kubevirt_vmi_memory_domain_bytes``.
- Memory pressure: KubeVirt's alert expressions (``KubeVirtVMGuestMemoryPressure``,
  ``KubeVirtVMGuestMemoryAvailableLow``) on its recording rules ``vmi:kubevirt_vmi_memory_headroom_ratio:sum``,
  ``vmi:kubevirt_vmi_pgmajfaults:rate5m``/``rate30m`` and ``vmi:kubevirt_vmi_swap_traffic_bytes:rate5m``/``rate30m``,
  or their expressions on the raw series.

Only samples taken at the VM's current size count (its domain memory and vCPU count equal to their last values in
the window, ``@`` the query's time): a VM that changed type within the window is measured since the change, and
its history is that long.

When the server has rightsize's own recording rules over the whole window (``rightsize --print-rules``,
:mod:`..instancetype.rightsize_rules`), every measure is read from them instead (:class:`RecordedQueries`): plain
range functions over the recorded series, no subquery, for every VM whose size did not change within the window;
the percentiles from the 5-minute series, the peaks, the history, the lowest headroom and the size check from the
hourly roll-ups (the peaks, the history and the lowest headroom from the daily ones over the window's whole days
where the daily group is complete). The few VMs whose size changed (at most :data:`MAX_CHANGED_NAMES`, by name) are measured over the
5-minute series with the size filter, a 5-minute subquery over those VMs only (sent once the size check, which
goes out with the plain measures of every VM, names them: their answers replace those). The sources come with the
CPU and memory answers (the recorded series' ``source`` label), so no ``sources`` query is sent; the queries after
the probe go out together over :data:`PARALLEL_QUERIES` connections.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..instancetype.rightsize import Candidate, Measured, Sizing
    from ..kube.prometheus import Prometheus
    from ..kube.session import Session

QUERY_TIMEOUT = 60.0  # seconds for each query
RULES = {
    "used": "vmi:kubevirt_vmi_memory_used_bytes:sum",
    "headroom": "vmi:kubevirt_vmi_memory_headroom_ratio:sum",
    "faults5m": "vmi:kubevirt_vmi_pgmajfaults:rate5m",
    "swap5m": "vmi:kubevirt_vmi_swap_traffic_bytes:rate5m",
    "faults30m": "vmi:kubevirt_vmi_pgmajfaults:rate30m",
    "swap30m": "vmi:kubevirt_vmi_swap_traffic_bytes:rate30m",
}
BY = "by (namespace, name)"
PARALLEL_QUERIES = 4  # connections for the queries over rightsize's own rules, sent together
# at most this many VMs whose size changed get the size filter by name; more: it is applied to every VM
MAX_CHANGED_NAMES = 100
_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")
# The raw expressions of KubeVirt v1.9.0's recording rules (pkg/monitoring/rules/recordingrules/vmi.go)
RAW = {
    "used": "kubevirt_vmi_memory_available_bytes - kubevirt_vmi_memory_usable_bytes",
    "headroom": f"sum {BY} (kubevirt_vmi_memory_usable_bytes) / sum {BY} (kubevirt_vmi_memory_available_bytes)",
    "faults5m": f"sum {BY} (rate(kubevirt_vmi_memory_pgmajfault_total[5m]))",
    "swap5m": f"sum {BY} (rate(kubevirt_vmi_memory_swap_in_traffic_bytes[5m])) + "
    f"sum {BY} (rate(kubevirt_vmi_memory_swap_out_traffic_bytes[5m]))",
    "faults30m": f"sum {BY} (rate(kubevirt_vmi_memory_pgmajfault_total[30m]))",
    "swap30m": f"sum {BY} (rate(kubevirt_vmi_memory_swap_in_traffic_bytes[30m])) + "
    f"sum {BY} (rate(kubevirt_vmi_memory_swap_out_traffic_bytes[30m]))",
}
QUERY_NAMES = (
    "rules",
    "sources",
    "changed",
    "cpu",
    "cpu_peak",
    "memory",
    "memory_peak",
    "history",
    "headroom",
    "pressure",
    "low_available",
)


def _duration(seconds: int) -> str:
    """Seconds as a PromQL duration (``14d``, ``90m``, ``45s``)."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


@dataclass(frozen=True)
class Queries:
    """The PromQL of each measure for a window ending at ``at``, with or without KubeVirt's recording rules."""

    window: int
    step: int
    at: float
    percentile: float
    rules: frozenset[str] = frozenset()
    # the VMs whose size changed within the window (the ``changed`` query): None, not known (filter every VM);
    # empty, none did (no filter); else the names the filter is restricted to
    changed: frozenset[str] | None = None

    def _part(self, key: str) -> str:
        if key in self.rules:
            return f"sum {BY} ({RULES[key]})"
        return RAW[key] if key != "used" else f"sum {BY} ({RAW['used']})"

    def _size_checks(self, selector: str = "") -> tuple[str, str]:
        """Per VM, the steps at which its size (domain memory, then vCPU count) differs from its size at ``at``."""
        at = f" @ {self.at:.3f}"
        checks = [
            f"{how} {BY} ({series}{selector}) != on (namespace, name) {how} {BY} ({series}{selector}{at})"
            for how, series in (
                ("max", "kubevirt_vmi_memory_domain_bytes"),
                ("count", "kubevirt_vmi_vcpu_seconds_total"),
            )
        ]
        return checks[0], checks[1]

    def _current(self) -> str:
        """Drops a VM's samples taken at another size than its size at ``at`` (domain memory or vCPU count); a VM not
        running at ``at`` keeps them all. Only for the VMs in ``changed`` when it is known: for the others the check
        drops nothing (the ``changed`` query evaluates the same checks at the same steps), and it is most of a
        query's cost (bench/README.md)."""
        if self.changed is not None and not self.changed:
            return ""
        selector = ""
        if self.changed is not None:
            selector = '{name=~"' + "|".join(sorted(name.replace(".", "\\\\.") for name in self.changed)) + '"}'
        return "".join(f" unless on (namespace, name) ({check})" for check in self._size_checks(selector))

    def changes(self) -> str:
        """The VMs whose size at some step of the window differs from their size at ``at``: those ``_current``
        filters."""
        domain, vcpus = self._size_checks()
        return f"group {BY} ({self.over('count_over_time', domain)} or {self.over('count_over_time', vcpus)})"

    def cpu(self) -> str:
        return (
            f"(sum {BY} (rate(kubevirt_vmi_vcpu_seconds_total[5m])) or "
            f"sum {BY} (rate(kubevirt_vmi_cpu_usage_seconds_total[5m])))" + self._current()
        )

    def memory(self) -> str:
        resident = (
            f"(sum {BY} (kubevirt_vmi_memory_resident_bytes) < sum {BY} (kubevirt_vmi_memory_domain_bytes) "
            f"or sum {BY} (kubevirt_vmi_memory_domain_bytes))"
        )
        return f"({self._part('used')} or {resident})" + self._current()

    def pressure(self) -> str:
        # KubeVirtVMGuestMemoryPressure (pkg/monitoring/rules/alerts/vms.go)
        return (
            f"(({self._part('headroom')}) < 0.05 and (({self._part('faults5m')}) > 5 or "
            f"({self._part('swap5m')}) > 1048576))" + self._current()
        )

    def low_available(self) -> str:
        # KubeVirtVMGuestMemoryAvailableLow (pkg/monitoring/rules/alerts/vms.go)
        return (
            f"(({self._part('headroom')}) < 0.03 and ({self._part('swap30m')}) < 2048 and "
            f"({self._part('faults30m')}) < 1)" + self._current()
        )

    def over(self, function: str, inner: str, *args: str) -> str:
        head = ", ".join((*args, "")) if args else ""
        return f"{function}({head}({inner})[{_duration(self.window)}:{_duration(self.step)}])"

    def all(self) -> dict[str, str]:
        """Every measure's query but the probe (``rules``)."""
        q = f"{self.percentile / 100:g}"
        step = str(self.step)
        return {
            "sources": (
                f"label_replace(group {BY} (last_over_time(kubevirt_vmi_vcpu_seconds_total[{_duration(self.window)}])), "
                '"source", "vcpu", "", "") or label_replace(group '
                f"{BY} (last_over_time(kubevirt_vmi_memory_usable_bytes[{_duration(self.window)}])), "
                '"source", "balloon", "", "")'
            ),
            "changed": self.changes(),
            "cpu": self.over("quantile_over_time", self.cpu(), q),
            "cpu_peak": self.over("max_over_time", self.cpu()),
            "memory": self.over("quantile_over_time", self.memory(), q),
            "memory_peak": self.over("max_over_time", self.memory()),
            "history": f"{self.over('count_over_time', self.cpu())} * {step}",
            "headroom": self.over("min_over_time", f"({self._part('headroom')})" + self._current()),
            "pressure": f"{self.over('count_over_time', self.pressure())} * {step}",
            "low_available": f"{self.over('count_over_time', self.low_available())} * {step}",
        }

    def probes(self) -> tuple[str, str]:
        """Which recording rules the server has over the whole window: in its first and in its last two hours,
        KubeVirt's and rightsize's own (one series of each group; a name is there when both answers have it). Two
        hours: rightsize's hourly group records once an hour, at an offset of Prometheus's choosing, so its last
        point can be just over an hour old. Two queries, not one ``and``: a query's selectors are read from every
        block that overlaps any of them (the engine opens one querier over the whole query's time range; tsdb's
        blockQuerier.Select decodes the index entry of each matching series in each of its blocks), so one query
        with both ends read each series' index entries in every block of the window: at 10,000 VMs over 14 days,
        1.2-1.6 CPU seconds of Prometheus instead of 0.3 for the two (bench/README.md, "Right-sizing")."""
        from ..instancetype.rightsize_rules import PROBED

        names = "|".join((*RULES.values(), *PROBED))
        return tuple(  # type: ignore[return-value]
            f'count by (__name__) (last_over_time({{__name__=~"{names}"}}[2h] @ {at:.3f}))'
            for at in (self.at - self.window + 7200, self.at)
        )


def _names_regex(names: frozenset[str]) -> str:
    return "|".join(sorted(name.replace(".", "\\\\.") for name in names))


def scope_of(namespace: str | None, names: Sequence[str] = ()) -> str:
    """The matchers of the VMs asked for, for the queries over rightsize's own rules (:class:`RecordedQueries`):
    the namespace (None: every namespace) and the names (none: every VM there; more than :data:`MAX_CHANGED_NAMES`:
    the namespace's). A namespace or a name that is not a DNS name (the API server's never are) is left out, so
    that the matchers only ever narrow what is read: the VMs' measures are kept by namespace and name after."""
    matchers = []
    if namespace is not None and _NAME.fullmatch(namespace):
        matchers.append(f'namespace="{namespace}"')
    if names and len(names) <= MAX_CHANGED_NAMES and all(_NAME.fullmatch(name) for name in names):
        matchers.append(f'name=~"{_names_regex(frozenset(names))}"')
    return ",".join(matchers)


def _at(milliseconds: int) -> str:
    """A time in Unix milliseconds as PromQL's ``@`` takes it (seconds, three decimals, exact)."""
    return f"{milliseconds // 1000}.{milliseconds % 1000:03d}"


@dataclass(frozen=True)
class PartQueries:
    """One measure as a query per part of the window (:meth:`RecordedQueries.split`): ``texts``, (part, query)
    each, whose answers combine by ``how`` (``max``, ``min`` or ``sum``) over each VM's samples, times ``factor``
    (:func:`per_vm`, :class:`Combined`)."""

    how: str
    texts: tuple[tuple[str, str], ...]
    factor: int = 1


def per_vm(samples: Sequence[Any], how: str = "") -> dict[tuple[str, str], float]:
    """Each VM's value (by namespace and name) in one answer (its samples, :class:`..kube.prometheus.Sample`): its last
    sample's (``how`` empty), or the largest, the smallest or the sum (``max``, ``min``, ``sum``) of its samples, as
    PromQL's ``max``, ``min`` and ``sum by (namespace, name)`` put them together: a NaN gives way to any later value
    (Prometheus v0.316.0 promql/engine.go ``aggregation``, ``parser.MAX``: ``group.floatValue < f ||
    math.IsNaN(group.floatValue)``: the largest number, NaN only when all are), and the sums are of whole numbers
    here (counts of steps), exact in any order. A VM with two series (its CPU source changed within the window) gets
    the largest or smallest of both."""
    out: dict[tuple[str, str], float] = {}
    if not how:
        for sample in samples:
            labels = sample.labels
            out[labels.get("namespace", ""), labels.get("name", "")] = sample.value
        return out
    for sample in samples:
        labels = sample.labels
        key = (labels.get("namespace", ""), labels.get("name", ""))
        _fold(out, key, sample.value, how)
    return out


def _fold(into: dict[tuple[str, str], float], key: tuple[str, str], value: float, how: str) -> None:
    have = into.get(key)
    if have is None:
        into[key] = value
    elif how == "sum":
        into[key] = have + value
    elif (have < value if how == "max" else have > value) or have != have:
        into[key] = value


class Combined:
    """A measure's value per VM over the parts of a window, each part's answer (:func:`per_vm` with the same ``how``)
    folded in as it is read, by whichever thread got it (a lock: :func:`_fold` reads and then writes); the parts of
    the window come in long before the percentiles do, so the folding is done by the time those are. The same as over
    all their samples at once, in any order (the largest number, NaN only when all are; sums of whole numbers)."""

    def __init__(self, how: str, factor: int = 1):
        import threading

        self.how = how
        self.factor = factor
        self._values: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def add(self, part: dict[tuple[str, str], float]) -> None:
        """Fold in one part's value per VM (:func:`per_vm` with the same ``how``)."""
        with self._lock:
            into, how = self._values, self.how
            for key, value in part.items():
                _fold(into, key, value, how)

    def read(self, samples: Sequence[Any]) -> None:
        """Fold in one answer's samples."""
        self.add(per_vm(samples, self.how))

    def result(self) -> dict[tuple[str, str], float]:
        """Each VM's value, ``* factor``."""
        if self.factor != 1:
            return {key: value * self.factor for key, value in self._values.items()}
        return dict(self._values)


def _daily_run(got: dict[str, float], suffix: str) -> tuple[int, int] | None:
    """The first and last time (Unix milliseconds) of a completeness series' points, from :meth:`RecordedQueries.
    daily_check`'s count, first and last (``suffix``: "" or ``:8d``), when they are one a day without a gap."""
    from ..instancetype import rightsize_rules as rr

    count, first, last = (got.get(of + suffix) for of in ("count", "first", "last"))
    if count is None or first is None or last is None or not count >= 1:
        return None
    first_ms, last_ms = round(first * 1000), round(last * 1000)
    if last_ms - first_ms != (count - 1) * rr.DAY_MS:
        return None
    return first_ms, last_ms


@dataclass(frozen=True)
class RecordedQueries:
    """The PromQL of each measure over rightsize's own recorded series (:mod:`..instancetype.rightsize_rules`), for
    a window ending at ``at``: plain range functions (``quantile_over_time(0.95, SERIES[14d])``) for the VMs whose
    size did not change; for those in ``changed`` (None: not known, every VM), the 5-minute series with the size
    filter, through a 5-minute subquery."""

    window: int
    at: float
    percentile: float
    changed: frozenset[str] | None = None
    # only the part of each measure over the VMs in ``changed`` (a non-empty set): what :func:`_measure_recorded`
    # sends after the plain measures of every VM, whose answers for those names it replaces
    only_changed: bool = False
    # the first and last complete daily evaluation within the window (Unix milliseconds; :meth:`daily_check`): the
    # peaks, the history and the lowest headroom read the daily roll-ups over the days they cover; None: the hourly
    # roll-ups over the whole window
    days: tuple[int, int] | None = None
    # the matchers that narrow every VM's series to the VMs asked for (:func:`scope_of`: ``namespace="prod"``,
    # ``name=~"a|b"``); "": every VM
    scope: str = ""
    # the roll-ups over several days that stand for their days (:data:`..instancetype.rightsize_rules.LEVELS`): each
    # (days, first, last), the first and last daily evaluation within the window that recorded them complete (Unix
    # milliseconds), one a day from the first to the last
    levels: tuple[tuple[int, int, int], ...] = ()

    def _braced(self, *matchers: str) -> str:
        """A selector's matchers: :attr:`scope` and ``matchers``, in braces ("" when there are none)."""
        inner = ",".join(matcher for matcher in (self.scope, *matchers) if matcher)
        return "{" + inner + "}" if inner else ""

    def daily_check(self) -> str | None:
        """The daily evaluations that can stand for whole days of the window (their time minus a day at or after
        the window's start): their number, the first and the last time (``of``: count, first, last), from the
        series each complete daily evaluation records (:data:`..instancetype.rightsize_rules.COMPLETE`). None: the
        window holds no whole day."""
        from ..instancetype import rightsize_rules as rr

        if self.window < rr.DAILY_INTERVAL:
            return None
        span = f"{(self.window - rr.DAILY_INTERVAL) * 1000 + 1}ms"
        # and the same of each roll-up over several days' completeness series (``of``: count:8d, first:8d, ...)
        return " or ".join(
            f'label_replace({function}({series}[{span}] @ {self.at:.3f}), "of", "{of}{suffix}", "", "")'
            for series, suffix in (
                (rr.COMPLETE, ""),
                *(
                    (rr.LEVEL_COMPLETE[days], f":{days}d")
                    for days in rr.LEVELS
                    if days * rr.DAILY_INTERVAL < self.window
                ),
            )
            for function, of in (("count_over_time", "count"), ("min_over_time", "first"), ("max_over_time", "last"))
        )

    def with_days(self, samples: Sequence[Any]) -> RecordedQueries:
        """These queries reading the daily roll-ups over the days :meth:`daily_check`'s answer ``samples`` found
        complete, when they are one a day without a gap (a daily evaluation missed while the server was down, or one
        over a day without its 24 hourly evaluations, is a gap); else these queries as they are (the hourly roll-ups
        over the whole window)."""
        from dataclasses import replace

        got: dict[str, float] = {}
        for sample in samples:
            of = sample.labels.get("of", "")
            if of in got:
                return self  # more than one such series (several servers' answers merged): not ours to read
            got[of] = sample.value
        days = _daily_run(got, "")
        if days is None:
            return self
        levels = []
        for key in sorted(k for k in got if k.startswith("count:")):
            run = _daily_run(got, key[len("count") :])
            if run is not None and key[len("count:") : -1].isdigit():
                levels.append((int(key[len("count:") : -1]), *run))
        return replace(self, days=days, levels=tuple(sorted(levels)))

    def _parts(self, plain: str) -> list[tuple[str, str, int, int]] | None:
        """Where the daily roll-ups cover whole days of the window (:attr:`days`) and ``plain`` has a daily roll-up:
        the window's three disjoint parts, each read as (part, series, length, end) in milliseconds: the hourly
        roll-ups before the first day a daily evaluation covers, the daily ones (one range over them, or a few points
        of the roll-ups over several days where :attr:`levels` has them complete:
        :func:`..instancetype.rightsize_rules.day_reads`), and the hourly ones after the last daily evaluation (a range
        is open at its start). None: ``plain`` over the whole window."""
        from ..instancetype import rightsize_rules as rr

        daily = rr.DAILY_OF.get(plain)
        if self.days is None or daily is None:
            return None
        first, last = self.days
        day = rr.DAILY_INTERVAL * 1000
        at = round(self.at * 1000)
        start = at - self.window * 1000
        parts = []
        if first - day > start:
            parts.append(("head", plain, first - day - start, first - day))
        series, how = daily
        reads = rr.day_reads(first, last, self.levels, how)
        if reads is None:
            parts.append(("days", series, last - first + 1, last))
        else:
            # each a point (a range of 1 ms ending at it: the daily evaluation's sample), from one block
            levels = rr.LEVELS_OF[series]
            parts += [("days", levels[days] if days > 1 else series, 1, end) for days, end in reads]
        if at > last:
            parts.append(("tail", plain, at - last, at))
        return parts

    def _plain(self, function: str, plain: str, keep: str, head: str) -> str:
        """``function`` over the roll-up ``plain`` for the VMs ``keep`` selects, over the whole window (where the
        daily roll-ups cover whole days of it, :meth:`split` reads the same measures from them)."""
        return f"{function}({head}{plain}{keep}[{_duration(self.window)}])"

    def split(self) -> dict[str, PartQueries]:
        """The measures read over the daily roll-ups (:meth:`_parts`), each as one query per part of the window,
        for every VM: a query's selectors are read over the query's whole time range (bench/README.md,
        "Right-sizing"), so in :meth:`all`'s one query the hourly roll-ups of the window's first and last hours
        read every VM's index entries in every block of the window, and the daily ones in the blocks of the last
        hours; apart, each part reads only the blocks of its own time range (at 10,000 VMs x 14 days, the peak CPU
        1.99 -> 0.80 CPU seconds of Prometheus). :func:`per_vm` and :class:`Combined` put each VM's answers together
        as PromQL's ``max``, ``min`` and ``sum`` would over all of them. Empty: every measure is one query (no daily
        roll-ups read, or the size filter in use)."""
        from ..instancetype import rightsize_rules as rr

        if self.changed != frozenset() or self.days is None:
            return {}
        out = {}
        for name, function, plain, by, factor in (
            ("cpu_peak", "max_over_time", rr.CPU_MAX, "", 1),
            ("memory_peak", "max_over_time", rr.MEMORY_MAX, "", 1),
            ("history", "sum_over_time", rr.CPU_COUNT, f"sum {BY} ", INTERVAL_SECONDS),
            ("headroom", "min_over_time", rr.HEADROOM_MIN, "", 1),
        ):
            parts = self._parts(plain) or []
            texts = tuple(
                (
                    part,
                    f"{by}{'(' if by else ''}{function}({series}{self._braced()}[{length}ms] @ {_at(end)})"
                    + (")" if by else ""),
                )
                for part, series, length, end in parts
            )
            # history: each part summed by VM in Prometheus, those sums added here (whole numbers of steps: exact
            # in any order), then * the interval as all()'s ``sum by (namespace, name) (...) * 300``
            out[name] = PartQueries(rr.DAILY_OF[plain][1], texts, factor)
        return out

    def _selectors(self) -> tuple[str | None, str | None]:
        """The selector of the VMs read plainly and of those filtered (None: no such VMs)."""
        if self.changed is None:
            return None, self._braced()
        if not self.changed:
            return self._braced(), None
        names = _names_regex(self.changed)
        keep = None if self.only_changed else self._braced(f'name!~"{names}"')
        return keep, self._braced(f'name=~"{names}"')

    def _current(self, series: str, selector: str) -> str:
        """``series`` (5-minute) at the steps where the VM's size (domain memory, vCPU count) is its size at ``at``."""
        from ..instancetype import rightsize_rules as rr

        return f"{series}{selector}" + "".join(
            f" unless on (namespace, name) ({size}{selector} != on (namespace, name) "
            f"last_over_time({size}{selector}[10m] @ {self.at:.3f}))"
            for size in (rr.DOMAIN, rr.VCPUS)
        )

    def _measure(self, function: str, plain: str, series: str, *args: str, by: str = "") -> str:
        """``function`` over ``plain`` (the hourly roll-up or the 5-minute series) for the VMs whose size did not
        change, over the filtered 5-minute ``series`` for those that did."""
        head = ", ".join((*args, "")) if args else ""
        keep, changed = self._selectors()
        parts = []
        if keep is not None:
            parts.append(self._plain(function, plain, keep, head))
        if changed is not None:
            inner = function if function != "sum_over_time" else "count_over_time"
            parts.append(
                f"{inner}({head}({self._current(series, changed)})[{_duration(self.window)}:"
                f"{_duration(INTERVAL_SECONDS)}])"
            )
        text = " or ".join(parts)
        return f"{by} ({text})" if by else text

    def changes(self) -> str:
        """The VMs whose size (domain memory or vCPU count) was not the same at every 5-minute step of the window:
        changed within an hourly roll-up of the window, or within the last 65 minutes (the roll-ups span 65 minutes,
        so every two consecutive points are in one of them or in the last 65 minutes)."""
        window, recent = self._size_checks()
        return f"group {BY} (" + " or ".join(window + recent) + ")"

    def size_checks(self) -> tuple[str, str]:
        """:meth:`changes` as two queries, the window's size-change roll-ups and the last 65 minutes' ``changes()``:
        a query's selectors are read over its whole time range (bench/README.md, "Right-sizing"), so in one query
        the 65-minute ``changes()`` of every VM's size series read their index entries in every block of the
        window; alone, only in the last blocks (at 1,000 VMs x 14 days, 0.06 -> 0.014 CPU seconds of Prometheus)."""
        window, recent = self._size_checks()
        return f"group {BY} (" + " or ".join(window) + ")", f"group {BY} (" + " or ".join(recent) + ")"

    def _size_checks(self) -> tuple[list[str], list[str]]:
        from ..instancetype import rightsize_rules as rr

        w, selector = _duration(self.window), self._braced()
        window = [f"max_over_time({series}{selector}[{w}]) > 0" for series in (rr.DOMAIN_CHANGES, rr.VCPUS_CHANGES)]
        return window, [f"changes({series}{selector}[65m]) > 0" for series in (rr.DOMAIN, rr.VCPUS)]

    def all(self) -> dict[str, str]:
        """Every measure's query but the probe (``rules``) and ``sources`` (the CPU and memory answers carry it)."""
        from ..instancetype import rightsize_rules as rr

        q = f"{self.percentile / 100:g}"
        interval = str(INTERVAL_SECONDS)
        return {
            "changed": self.changes(),
            "cpu": self._measure("quantile_over_time", rr.CPU, rr.CPU, q),
            "cpu_peak": self._measure("max_over_time", rr.CPU_MAX, rr.CPU),
            "memory": self._measure("quantile_over_time", rr.MEMORY, rr.MEMORY, q),
            "memory_peak": self._measure("max_over_time", rr.MEMORY_MAX, rr.MEMORY),
            "history": self._measure("sum_over_time", rr.CPU_COUNT, rr.CPU, by=f"sum {BY}") + f" * {interval}",
            "headroom": self._measure("min_over_time", rr.HEADROOM_MIN, rr.HEADROOM),
            "pressure": self._measure("count_over_time", rr.PRESSURE, rr.PRESSURE, by=f"sum {BY}") + f" * {interval}",
            "low_available": self._measure("count_over_time", rr.LOW_AVAILABLE, rr.LOW_AVAILABLE, by=f"sum {BY}")
            + f" * {interval}",
        }


INTERVAL_SECONDS = 300  # rightsize_rules.INTERVAL, the 5-minute group's (kept here: the probe needs no import)


@dataclass(frozen=True)
class RightsizeRequest:
    """What to size: the VMs ``names`` (none: every VM in the namespace, or in all with ``all_namespaces``) that
    use an instance type, over ``window`` seconds at ``step`` seconds, at ``percentile`` plus ``headroom``."""

    names: tuple[str, ...] = ()
    all_namespaces: bool = False
    window: int = 14 * 86400
    step: int = 60
    percentile: float = 95.0
    headroom: Any = None  # a Fraction; None: the domain's default
    prometheus_url: str = ""
    prometheus_service: str = ""
    ca_file: str = ""
    token_file: str = ""
    now: float | None = None
    apply: bool = False
    allow_restart: bool = False


@dataclass(frozen=True)
class Applied:
    """``--apply`` for one VM: the ``switch --plan`` of its recommendation, whether it was written, and why not."""

    namespace: str
    name: str
    plan: Any  # a switching.SwitchPlan
    written: bool
    why_not: str = ""


@dataclass(frozen=True)
class VMSizing:
    """One VM's measures and verdict."""

    namespace: str
    name: str
    instancetype: str
    preference: str
    measured: Measured | None
    sizing: Sizing


@dataclass(frozen=True)
class RightsizeReport:
    """Every VM in scope that uses an instance type, the server asked, the queries sent, the recording rules used,
    and warnings."""

    vms: list[VMSizing]
    server: str
    queries: int
    rules_used: tuple[str, ...]
    window: int
    step: int
    percentile: float
    headroom: Any
    nodes_known: bool
    warnings: list[str] = field(default_factory=list)
    applied: list[Applied] = field(default_factory=list)
    rules_known: int = len(RULES)  # the recording rules rightsize asks for (rules_used: those the server had)
    rules_own: bool = False  # read from rightsize's own recording rules (rightsize --print-rules)


def connect(session: Session, request: RightsizeRequest) -> Prometheus:
    """The Prometheus the request names (``--prometheus-url``, else the service through the API server's proxy)."""
    from ..kube import prometheus

    if request.prometheus_url:
        return prometheus.direct(
            request.prometheus_url,
            ca_file=request.ca_file or None,
            token_file=request.token_file or None,
            environ=session.environ,
            log=session.log,
        )
    return prometheus.via_service(session.client(), request.prometheus_service, session.environ, session.log)


@dataclass(frozen=True)
class Measures:
    """Every VM's measures by (namespace, name), and the recording rules they were read from."""

    vms: dict[tuple[str, str], Measured]
    rules: frozenset[str]
    queries: int = 0  # queries sent
    own: bool = False  # read from rightsize's own recording rules (rules: their names)


def measure(
    server: Prometheus,
    request: RightsizeRequest,
    at: float,
    more: Callable[[], Prometheus] | None = None,
    scope: str = "",
) -> Measures:
    """Every VM's measures, from the fixed set of queries (:data:`QUERY_NAMES`; the two pressure queries are skipped
    when no VM's headroom ratio went below the alerts' thresholds, where they can only answer zero); and the
    recording rules used. Over rightsize's own rules, ``more`` opens the other connections the queries go out on
    together (None: one after the other on ``server``), and ``scope`` (:func:`scope_of`) narrows the VMs read to
    those asked for; the raw series are read for every VM (the measures of the others are dropped after)."""
    from dataclasses import replace

    from ..instancetype import rightsize as domain
    from ..instancetype import rightsize_rules as own

    queries = Queries(request.window, request.step, at, request.percentile)
    servers = [server] + ([more() for _ in range(PARALLEL_QUERIES - 1)] if more is not None else [])
    probes = [_query(text, at) for text in queries.probes()]
    first, last = in_threads(probes, servers[:2]) if len(servers) > 1 else [call(server) for call in probes]
    present = {s.labels.get("__name__", "") for s in first} & {s.labels.get("__name__", "") for s in last}
    sent = 2
    if all(name in present for name in own.PROBED):
        return _measure_recorded(servers, request, at, scope)
    rules = frozenset(key for key, name in RULES.items() if name in present)
    queries = Queries(request.window, request.step, at, request.percentile, rules)
    values: dict[str, dict[tuple[str, str], float]] = {}
    sources: dict[tuple[str, str], set[str]] = {}
    for name in QUERY_NAMES[1:]:
        if name in ("pressure", "low_available") and not any(
            ratio < domain.PRESSURE_HEADROOM_RATIO for ratio in values["headroom"].values()
        ):
            # KubeVirt's two alerts need the headroom ratio below 0.05 (0.03) at a step: none was
            values[name] = {}
            continue
        samples = server.query(queries.all()[name], at, QUERY_TIMEOUT)
        sent += 1
        if name == "sources":
            for sample in samples:
                key = (sample.labels.get("namespace", ""), sample.labels.get("name", ""))
                sources.setdefault(key, set()).add(sample.labels.get("source", ""))
            continue
        if name == "changed":
            names = frozenset(sample.labels.get("name", "") for sample in samples)
            if len(names) <= MAX_CHANGED_NAMES and all(_NAME.fullmatch(n) for n in names):
                queries = replace(queries, changed=names)
            continue
        values[name] = {(s.labels.get("namespace", ""), s.labels.get("name", "")): s.value for s in samples}
    return Measures(_measured(values, sources), frozenset(RULES[key] for key in rules), sent)


def _measured(
    values: dict[str, dict[tuple[str, str], float]], sources: dict[tuple[str, str], set[str]]
) -> dict[tuple[str, str], Measured]:
    from ..instancetype import rightsize as domain

    out = {}
    for key in set(values["history"]) | set(values["cpu"]) | set(values["memory"]):
        seen = sources.get(key, set())
        out[key] = domain.Measured(
            cpu=values["cpu"].get(key),
            cpu_peak=values["cpu_peak"].get(key),
            memory=values["memory"].get(key),
            memory_peak=values["memory_peak"].get(key),
            history_seconds=values["history"].get(key, 0.0),
            cpu_source=domain.CPU_FROM_VCPU if "vcpu" in seen else domain.CPU_FROM_TOTAL,
            memory_source=domain.MEMORY_FROM_BALLOON if "balloon" in seen else domain.MEMORY_FROM_RESIDENT,
            pressure_seconds=values["pressure"].get(key, 0.0),
            low_available_seconds=values["low_available"].get(key, 0.0),
            min_headroom_ratio=values["headroom"].get(key),
        )
    return out


def _measure_recorded(servers: list[Prometheus], request: RightsizeRequest, at: float, scope: str) -> Measures:
    """:func:`measure` over rightsize's own recording rules, the probe sent: which days the daily roll-ups are
    complete for (:meth:`RecordedQueries.daily_check`: one series, a point a day; read over those days, the hourly
    roll-ups elsewhere, the same answers), then the size check (``changed``) and the six
    measures of every VM read plainly, together (:data:`PARALLEL_QUERIES` connections; one after the other without
    ``more``), since the size check's answer is almost always that no VM changed size; the VMs it names (by name,
    as ``RecordedQueries``' selectors) are measured again with the size filter and those answers replace theirs:
    the same answers as the size check first and the measures built on it, without waiting for it. Then the two
    pressure queries, when a headroom went below 5%."""
    from dataclasses import replace

    from ..instancetype import rightsize as domain
    from ..instancetype import rightsize_rules as own

    queries = RecordedQueries(request.window, at, request.percentile, frozenset(), scope=scope)
    names = ("cpu", "memory", "cpu_peak", "memory_peak", "history", "headroom")
    server = servers[0]
    sent = 2
    used = own.NAMES
    check = queries.daily_check()
    if check is not None:
        queries = queries.with_days(server.query(check, at, QUERY_TIMEOUT))
        sent += 1

    def send(texts: Sequence[str], reads: Sequence[Callable[[list[Any]], Any]]) -> list[Any]:
        # each answer read (per VM) by the thread that got it, while the other connections wait for theirs
        calls = [_query(text, at, read) for text, read in zip(texts, reads, strict=True)]
        return in_threads(calls, servers) if len(servers) > 1 else [call(server) for call in calls]

    def with_sources(samples: list[Any]) -> tuple[dict[tuple[str, str], float], list[tuple[tuple[str, str], str]]]:
        # the CPU and memory answers: each VM's value, and the sources their series name
        found = [((s.labels.get("namespace", ""), s.labels.get("name", "")), s.labels.get("source")) for s in samples]
        return per_vm(samples), [(key, source) for key, source in found if source]

    def names_in(samples: list[Any]) -> frozenset[str]:
        return frozenset(sample.labels.get("name", "") for sample in samples)

    texts = queries.all()
    split = queries.split()
    folded = {name: Combined(parts.how, parts.factor) for name, parts in split.items()}
    # the percentiles first (the longest), then the other measures not split (where each one's answer is in the
    # batch), then the parts of the split ones, each folded into its measure by the thread that read it; each
    # connection taking the next query when it is done with one
    batch: list[str] = []
    reads: list[Callable[[list[Any]], Any]] = []
    where: dict[str, int] = {}
    for name in names:
        if name not in split:
            where[name] = len(batch)
            batch.append(texts[name])
            reads.append(with_sources if name in ("cpu", "memory") else per_vm)
    for part in ("days", "tail", "head"):
        for name, parts in split.items():
            for text in (text for of, text in parts.texts if of == part):
                batch.append(text)
                reads.append(folded[name].read)
    if queries.days is not None:
        # the daily series read: the daily roll-ups and their completeness, and the roll-ups over several days (and
        # theirs) where the days were read from them
        read_texts = (check or "", *batch)
        used += tuple(name for name in own.DAILY_NAMES if any(f"{name}{{" in t or f"{name}[" in t for t in read_texts))
    first = send([*batch, *queries.size_checks()], [*reads, names_in, names_in])
    sent += len(first)
    values: dict[str, dict[tuple[str, str], float]] = {}
    sources: dict[tuple[str, str], set[str]] = {}

    def read(name: str, answer: Any) -> dict[tuple[str, str], float]:
        if name in ("cpu", "memory"):
            answer, found = answer
            for key, source in found:
                sources.setdefault(key, set()).add(source)
        got: dict[tuple[str, str], float] = answer
        return got

    for name in names:
        values[name] = folded[name].result() if name in folded else read(name, first[where[name]])
    changed = first[-2] | first[-1]
    if changed:
        named = len(changed) <= MAX_CHANGED_NAMES and all(_NAME.fullmatch(n) for n in changed)
        # named: those VMs through the filter, the others as read; else every VM through it (the answers read
        # plainly are dropped, and so are the sources they carried)
        queries = replace(queries, changed=changed, only_changed=True) if named else replace(queries, changed=None)
        texts = queries.all()
        for key in [key for key in sources if not named or key[1] in changed]:
            del sources[key]
        again_reads = [with_sources if name in ("cpu", "memory") else per_vm for name in names]
        again = dict(zip(names, send([texts[name] for name in names], again_reads), strict=True))
        sent += len(names)
        for name in names:
            kept = {key: value for key, value in values[name].items() if key[1] not in changed} if named else {}
            values[name] = kept | read(name, again[name])
    low = any(ratio < domain.PRESSURE_HEADROOM_RATIO for ratio in values["headroom"].values())
    if changed:
        queries = replace(queries, only_changed=False)
        texts = queries.all()
    for name in ("pressure", "low_available"):
        values[name] = {}
        if low:
            samples = server.query(texts[name], at, QUERY_TIMEOUT)
            sent += 1
            values[name] = per_vm(samples)
    return Measures(_measured(values, sources), frozenset(used), sent, own=True)


def _query(text: str, at: float, read: Callable[[list[Any]], Any] | None = None) -> Callable[[Prometheus], Any]:
    """The instant query ``text`` at ``at``, to send on a connection :func:`in_threads` gives; its answer as
    ``read`` makes it (None: the samples)."""
    if read is None:
        return lambda server: server.query(text, at, QUERY_TIMEOUT)
    return lambda server: read(server.query(text, at, QUERY_TIMEOUT))


def in_threads(calls: Sequence[Callable[[Any], Any]], owners: Sequence[Any]) -> list[Any]:
    """Each call's result, in order: one daemon thread per owner in ``owners`` (a connection each), each taking the
    next call no thread has taken and making it with its owner, so that a long call holds up only its own thread;
    the first call's exception is raised after all ended. Daemon threads: a command that fails meanwhile exits
    without waiting for them."""
    import itertools
    import threading

    results: list[Any] = [None] * len(calls)
    errors: list[tuple[int, BaseException]] = []
    taken = itertools.count()  # next() is one C call: no two threads get the same index

    def work(owner: Any) -> None:
        while (index := next(taken)) < len(calls):
            try:
                results[index] = calls[index](owner)
            except BaseException as exc:  # noqa: BLE001 (raised in the caller's thread below)
                errors.append((index, exc))

    threads = [threading.Thread(target=work, args=(owner,), daemon=True) for owner in owners[: len(calls)]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise min(errors, key=lambda e: e[0])[1]
    return results


def _items(session: Session, resource: Any, namespace: str | None, *, whole: bool = False) -> list[dict[str, Any]]:
    """Every item of ``resource``'s list, in pages of kubectl's ``--chunk-size`` (500) or, ``whole``, in one answer."""
    client = session.client()
    pages = client.list_pages(resource, namespace, chunk_size=0) if whole else client.list_pages(resource, namespace)
    return [item for page in pages for item in page.get("items") or ()]


def _namespaced(
    session: Session, resource: Any, held: Sequence[str], every: bool, warnings: list[str], unread: str
) -> dict[str, dict[str, dict[str, Any]]]:
    """The objects of the namespaced ``resource`` in each namespace of ``held`` (those that hold the VMs), by name:
    with ``every`` (``-A``), one list across all namespaces, as ``kubectl get -A`` reads them (before, two lists per
    namespace: a thousand namespaces were two thousand requests one after the other); else, or where RBAC refuses
    that, one list per namespace. The namespaces RBAC refuses are one warning, which says what becomes of their VMs
    that use such an object (``unread``)."""
    from ..errors import ForbiddenError

    out: dict[str, dict[str, dict[str, Any]]] = {where: {} for where in held}
    if every and held:
        try:
            items = _items(session, resource, None)
        except ForbiddenError:
            pass  # perhaps allowed namespace by namespace
        else:
            for item in items:
                meta = item["metadata"]
                found = out.get(str(meta.get("namespace") or ""))
                if found is not None:
                    found[str(meta["name"])] = item
            return out
    refused = []
    for where in held:
        try:
            out[where] = {str(item["metadata"]["name"]): item for item in _items(session, resource, where)}
        except ForbiddenError:
            refused.append(where)
    if refused:
        warnings.append(
            f"cannot list {resource.plural} in namespace{'s' if len(refused) > 1 else ''} {', '.join(refused)} "
            f"(forbidden): the VMs there that use one {unread}"
        )
    return out


def rightsize(session: Session, request: RightsizeRequest) -> RightsizeReport:
    """``rightsize``: read the VMs and types, measure in Prometheus, size each VM."""
    import threading

    from ..instancetype import rightsize as domain
    from ..instancetype.kinds import matcher_kind
    from ..kube import resources

    client = session.client()
    namespace = None if request.all_namespaces else session.namespace
    warnings: list[str] = []
    # Prometheus measures while the cluster is read (they do not depend on each other): its answers are the
    # command's longest wait
    server = connect(session, request)
    at = request.now if request.now is not None else time.time()
    measuring: list[Any] = []
    # over rightsize's own rules, only the VMs asked for are read (-n: the namespace's; vm/NAME: those)
    scope = scope_of(namespace or session.namespace if request.names else namespace, request.names)

    def run_measure() -> None:
        try:
            measuring.append(measure(server, request, at, lambda: connect(session, request), scope))
        except BaseException as exc:  # noqa: BLE001 (raised in the command's thread once the cluster is read)
            measuring.append(exc)

    measurer = threading.Thread(target=run_measure, daemon=True)
    measurer.start()
    if request.names:
        vms = []
        for name in request.names:
            vms.append(client.get(resources.VIRTUAL_MACHINES, name, namespace or session.namespace))
    else:
        # in one answer, not kubectl's pages of 500: rightsize keeps every VM anyway, and kube-apiserver serves an
        # unpaged list from its watch cache (k8s.io/apiserver v0.36.3 storage/cacher/delegator ShouldDelegateList: a
        # consistent read without a continue token), while a page after the first is served from the cache only if
        # it holds a snapshot at or before the list's revision (Cacher.shouldDelegateExactRV), and etcd's compaction
        # (every 5 minutes) drops the older ones (watchCache.Compact): once the VMs have not changed for that long,
        # each page after the first is read from etcd (apiserver_storage_list_fetched_objects_total: +9,500 for
        # 10,000 VMs), 2.9-3.3 CPU seconds of kube-apiserver against 0.6-1.1 in one answer (bench/README.md)
        vms = _items(session, resources.VIRTUAL_MACHINES, namespace, whole=True)
    vms = [vm for vm in vms if ((vm.get("spec") or {}).get("instancetype") or {}).get("name")]
    cluster_types = {
        str(item["metadata"]["name"]): item for item in _items(session, resources.CLUSTER_INSTANCETYPES, None)
    }
    cluster_preferences = {
        str(item["metadata"]["name"]): item for item in _items(session, resources.CLUSTER_PREFERENCES, None)
    }
    held = sorted({str(vm["metadata"].get("namespace") or "") for vm in vms})
    every = namespace is None and not request.names
    namespaced_types = _namespaced(session, resources.INSTANCETYPES, held, every, warnings, "are not sized")
    namespaced_preferences = _namespaced(
        session, resources.PREFERENCES, held, every, warnings, "are sized without their preference's requirements"
    )
    fits, nodes_known, fit_warnings = _fit_check(session, vms)
    warnings += fit_warnings
    policy = domain.Policy(
        percentile=request.percentile,
        headroom=request.headroom if request.headroom is not None else domain.DEFAULT_HEADROOM,
        window_seconds=request.window,
    )
    # each VM's type, candidates, their order and its admission check, while Prometheus still measures (what
    # follows the answers runs on one core with Prometheus idle: only the sizing from the measures is left there)
    missing: list[tuple[str, str, str, str, Sizing]] = []  # the VMs whose type is not found
    planned: list[tuple[str, str, str, str, Candidate, list[Candidate], Any, Callable[[Candidate], str]]] = []
    cluster_pool = [
        domain.Candidate("VirtualMachineClusterInstancetype", n, obj.get("spec") or {})
        for n, obj in cluster_types.items()
    ]
    pools: dict[str, list[Candidate]] = {}
    admits: dict[tuple[str, str, Any], Callable[[Candidate], str]] = {}
    currents: dict[tuple[bool, str, str], Candidate] = {}
    orders: dict[tuple[str, tuple[bool, str, str]], tuple[list[Candidate], list[Candidate]]] = {}
    for vm in vms:
        meta = vm["metadata"]
        where, name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
        matcher = vm["spec"]["instancetype"]
        kind = str(matcher.get("kind") or "VirtualMachineClusterInstancetype")
        type_name = str(matcher["name"])
        read = matcher_kind(str(matcher.get("kind") or ""), "instancetype")
        cluster = read is not None and not read.namespaced
        current_obj = (cluster_types if cluster else namespaced_types.get(where, {})).get(type_name)
        pref_matcher = (vm.get("spec") or {}).get("preference") or {}
        pref_name = str(pref_matcher.get("name") or "")
        pref_read = matcher_kind(str(pref_matcher.get("kind") or ""), "preference")
        pref_cluster = pref_read is not None and not pref_read.namespaced
        pref_obj = (cluster_preferences if pref_cluster else namespaced_preferences.get(where, {})).get(pref_name)
        candidates = pools.get(where)
        if candidates is None:
            candidates = pools[where] = domain.ranked(
                cluster_pool
                + [
                    domain.Candidate("VirtualMachineInstancetype", n, obj.get("spec") or {}, where)
                    for n, obj in namespaced_types.get(where, {}).items()
                ]
            )
        if current_obj is None:
            sizing = domain.Sizing(
                domain.INSUFFICIENT, f"{kind.lower()}/{type_name} not found: nothing to compare with", None, None, 0, 0
            )
            missing.append((where, name, type_name, pref_name, sizing))
            continue
        # one Candidate, and one order of the candidates around it, per type (not per VM)
        type_key = (cluster, "" if cluster else where, type_name)
        current = currents.get(type_key)
        if current is None:
            current = currents[type_key] = domain.Candidate(
                "VirtualMachineClusterInstancetype" if cluster else "VirtualMachineInstancetype",
                type_name,
                current_obj.get("spec") or {},
                None if cluster else where,
            )
        order = orders.get((where, type_key))
        if order is None:
            order = orders[(where, type_key)] = domain.ordered(current, candidates)
        preference_spec = (pref_obj or {}).get("spec") if pref_obj else None
        architecture = ((vm.get("spec") or {}).get("template") or {}).get("spec", {}).get("architecture")
        admit = admits.get((where, pref_name, architecture)) or admits.setdefault(
            (where, pref_name, architecture), domain.default_admit(preference_spec, architecture)
        )
        planned.append((where, name, type_name, pref_name, current, candidates, order, admit))
    measurer.join()
    if isinstance(measuring[0], BaseException):
        raise measuring[0]
    measures: Measures = measuring[0]
    measured, rules = measures.vms, measures.rules
    out = [
        VMSizing(where, name, type_name, pref_name, measured.get((where, name)), sizing)
        for where, name, type_name, pref_name, sizing in missing
    ]
    for where, name, type_name, pref_name, current, candidates, order, admit in planned:
        vm_measured = measured.get((where, name))
        sizing = domain.size(
            current,
            vm_measured,
            candidates,
            policy,
            admit=admit,
            fits=_bind(fits, where, pref_name) if nodes_known else None,
            order=order,
        )
        out.append(VMSizing(where, name, type_name, pref_name, vm_measured, sizing))
    out.sort(key=lambda v: (v.namespace, v.name))
    applied = apply_recommendations(session, out, request.allow_restart) if request.apply else []
    return RightsizeReport(
        out,
        server.described,
        measures.queries,
        tuple(sorted(rules)),
        request.window,
        request.step,
        request.percentile,
        policy.headroom,
        nodes_known,
        warnings,
        applied,
        len(rules) if measures.own else len(RULES),
        measures.own,
    )


def _session_in(session: Session, namespace: str) -> Session:
    """A session like ``session`` whose namespace is ``namespace`` (``switch`` plans in the session's namespace)."""
    from dataclasses import replace

    from ..kube.session import Session

    if session.namespace == namespace:
        return session
    return Session(
        replace(session.options, namespace=namespace),
        session.environ,
        session.home,
        log=session.log,
        verbosity=session.verbosity,
        warn=session.warn,
    )


def apply_recommendations(session: Session, vms: list[VMSizing], allow_restart: bool) -> list[Applied]:
    """``--apply``: each recommendation as ``switch --plan`` plans it (:func:`.switching.plan_switch`: admission
    checked, the controller's answer predicted), every plan made before anything is written; then each plan is
    written (:func:`.switching.apply_switch`) unless it needs a restart and ``allow_restart`` is off."""
    from .switching import MatcherTarget, apply_switch, plan_switch

    planned = []
    for row in vms:
        choice = row.sizing.recommended
        if (
            choice is None
            or choice.name == row.instancetype
            or row.sizing.verdict not in ("Over-provisioned", "Under-provisioned")
        ):
            continue
        where = _session_in(session, row.namespace)
        target = MatcherTarget("instancetype", choice.name, choice.kind)
        planned.append((row, where, plan_switch(where, row.name, [target], check=True)))
    out = []
    for row, where, plan in planned:
        if plan.live.needs_restart and not allow_restart:
            why = f"needs a restart ({plan.live.restart_required}); --allow-restart applies it"
            out.append(Applied(row.namespace, row.name, plan, False, why))
            continue
        if plan.noop:
            out.append(Applied(row.namespace, row.name, plan, False, "nothing to change"))
            continue
        apply_switch(where, plan)
        out.append(Applied(row.namespace, row.name, plan, True))
    return out


def _bind(
    fits: Callable[[Candidate, str, str], bool | None], where: str, preference: str
) -> Callable[[Candidate], bool | None]:
    return lambda candidate: fits(candidate, where, preference)


def _fit_check(
    session: Session, vms: list[dict[str, Any]]
) -> tuple[Callable[[Candidate, str, str], bool | None], bool, list[str]]:
    """Whether a VM of a candidate type (with the VM's preference) fits some node now, cached per type, preference
    and namespace; whether there are nodes to judge by, and the warnings."""
    from ..errors import ForbiddenError, PluginError
    from ..instancetype import nodefit
    from .placement import UNKNOWN_NO_NODES, Renderer, read_nodes, type_vm

    if not vms:
        return (lambda c, w, p: None), False, []
    try:
        state = read_nodes(session.client())
    except ForbiddenError as exc:
        # the sizing does not need the nodes: as without nodes, with the reason
        return (
            (lambda c, w, p: None),
            False,
            [f"cannot list nodes ({exc.message}): recommendations are not checked against nodes"],
        )
    warnings = list(state.warnings)
    if not state.nodes:
        warnings.append(f"{UNKNOWN_NO_NODES}; recommendations are not checked against nodes")
        return (lambda c, w, p: None), False, warnings
    renderers: dict[str, Renderer] = {}
    cache: dict[tuple[str, str, str | None, str], bool | None] = {}

    def fits(candidate: Candidate, where: str, preference: str) -> bool | None:
        key = (where, candidate.name, candidate.namespace, preference)
        if key not in cache:
            renderer = renderers.get(where) or renderers.setdefault(where, Renderer(session, where))
            reference = (
                candidate.name if candidate.namespace is None else f"virtualmachineinstancetype/{candidate.name}"
            )
            try:
                pod = nodefit.pod_filter(renderer.pod(type_vm(reference, preference)))
            except PluginError:
                cache[key] = False
            else:
                cache[key] = any(not nodefit.filter_reasons(pod, node) for node in state.nodes)
        return cache[key]

    return fits, True, warnings
