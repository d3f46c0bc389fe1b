"""``rightsize``'s own recording rules, pure: what ``rightsize --print-rules`` prints and what rightsize reads when a
server evaluates them.

Reading 14 days of 1-minute raw samples for 10,000 VMs is two billion samples and hours of Prometheus time
(bench/README.md, "Right-sizing"). These rules reduce the data as it arrives, as Red Hat ACM's right-sizing ships its
own rules: the admin applies them, and once they cover the window rightsize reads the recorded series with plain
range functions (``quantile_over_time``, ``max_over_time``, ``sum_over_time``; no subquery) instead of the raw ones.

Three groups, named by Prometheus's ``level:metric:operations`` convention (https://prometheus.io/docs/practices/rules/:
the level is the labels kept, ``namespace_name``; operations newest first), over KubeVirt v1.9.0's exact metric
names (pkg/monitoring/metrics/virt-handler/domainstats):

- :data:`GROUP` every 5 minutes (:data:`INTERVAL`; AWS Compute Optimizer's default granularity for EC2 metrics is
  5 minutes too): per VM, what rightsize measures at each step: CPU in use (``rate`` over 5 minutes of vCPU time,
  else of total CPU time; the ``source`` label says which), memory in use (the balloon figures, available - usable,
  else resident capped at domain; ``source``), the size (domain memory, vCPU count), the headroom ratio, and the
  steps at which KubeVirt's two memory alerts' conditions hold (``KubeVirtVMGuestMemoryPressure``,
  ``KubeVirtVMGuestMemoryAvailableLow``, pkg/monitoring/rules/alerts/vms.go: recorded only while they hold).
- :data:`HOURLY_GROUP` every hour (:data:`HOURLY_INTERVAL`): hourly roll-ups of those 5-minute series, exact for the
  measures that compose (the maximum, the minimum, the number of samples, the number of size changes, recorded only
  when there was one): the peaks, the history and the lowest headroom read 12 times fewer samples, the size check
  only the VMs that changed size. A percentile does not compose: it is read from the
  5-minute series.
- :data:`DAILY_GROUP` every day (:data:`DAILY_INTERVAL`): daily roll-ups of the hourly ones (the maximum, the
  minimum, the sum of the counts), so that a window's whole days cost one point per VM instead of 24: rightsize reads
  the days a daily evaluation covered from these and the rest of the window (its first and last partial day) from
  the hourly roll-ups, which composes exactly for a maximum, a minimum and a sum over disjoint parts. Only where the
  daily group is complete over the window (:data:`COMPLETE`: recorded by each daily evaluation that saw all 24
  hourly evaluations of its day, :data:`EVALUATED`; consecutive days): a daily evaluation missed while the server was
  down, or one made before the hourly history was backfilled, and rightsize reads the hourly roll-ups, the same
  answers. The same group also records each daily roll-up over the last 2, 4, 8 and 16 days (:data:`LEVELS`, a
  sparse table) and when those were complete (:data:`LEVEL_COMPLETE`): a range over days reads each VM's index entry
  and chunk in every block the days span, whatever its few samples, while a point of these is one block
  (:func:`day_reads`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

GROUP = "kubectl-instancetype-rightsize"
HOURLY_GROUP = "kubectl-instancetype-rightsize-1h"
INTERVAL = 300  # seconds
HOURLY_INTERVAL = 3600
DAILY_GROUP = "kubectl-instancetype-rightsize-1d"
DAILY_INTERVAL = 86400
RULE_NAME = "kubectl-instancetype-rightsize"  # the PrometheusRule's metadata.name
BY = "by (namespace, name)"

# The 5-minute series
CPU = "namespace_name:kubevirt_vmi_cpu_usage_seconds:rate5m"
MEMORY = "namespace_name:kubevirt_vmi_memory_used_bytes:sum"
DOMAIN = "namespace_name:kubevirt_vmi_memory_domain_bytes:max"
VCPUS = "namespace_name:kubevirt_vmi_vcpu_seconds:count"
HEADROOM = "namespace_name:kubevirt_vmi_memory_headroom_ratio:sum"
PRESSURE = "namespace_name:kubevirt_vmi_memory_headroom_ratio:guest_memory_pressure"
LOW_AVAILABLE = "namespace_name:kubevirt_vmi_memory_headroom_ratio:guest_memory_available_low"
# The hourly roll-ups
CPU_MAX = "namespace_name:kubevirt_vmi_cpu_usage_seconds:max1h_rate5m"
CPU_COUNT = "namespace_name:kubevirt_vmi_cpu_usage_seconds:count1h_rate5m"
MEMORY_MAX = "namespace_name:kubevirt_vmi_memory_used_bytes:max1h_sum"
HEADROOM_MIN = "namespace_name:kubevirt_vmi_memory_headroom_ratio:min1h_sum"
DOMAIN_CHANGES = "namespace_name:kubevirt_vmi_memory_domain_bytes:changes65m_max"
VCPUS_CHANGES = "namespace_name:kubevirt_vmi_vcpu_seconds:changes65m_count"
# each hourly evaluation (1, no labels: recorded whatever the VMs)
EVALUATED = "cluster:kubectl_instancetype_rightsize_1h:evaluated"
# The daily roll-ups of the hourly ones
CPU_MAX_DAILY = "namespace_name:kubevirt_vmi_cpu_usage_seconds:max1d_rate5m"
CPU_COUNT_DAILY = "namespace_name:kubevirt_vmi_cpu_usage_seconds:count1d_rate5m"
MEMORY_MAX_DAILY = "namespace_name:kubevirt_vmi_memory_used_bytes:max1d_sum"
HEADROOM_MIN_DAILY = "namespace_name:kubevirt_vmi_memory_headroom_ratio:min1d_sum"
# each daily evaluation that saw the 24 hourly evaluations of its day: its time (Unix seconds), no labels
COMPLETE = "cluster:kubectl_instancetype_rightsize_1d:complete_time"
# the hourly roll-up each daily one is read in place of, and how the parts of a window combine
DAILY_OF = {
    CPU_MAX: (CPU_MAX_DAILY, "max"),
    CPU_COUNT: (CPU_COUNT_DAILY, "sum"),
    MEMORY_MAX: (MEMORY_MAX_DAILY, "max"),
    HEADROOM_MIN: (HEADROOM_MIN_DAILY, "min"),
}
# The daily roll-ups over the last 2, 4, 8 and 16 days, recorded by each daily evaluation (a sparse table: any run of
# whole days is a few of them, disjoint for a sum, two overlapping ones for a maximum or a minimum), so that a window's
# days are read as a few points per VM, each from one block, instead of a point a day from every block the days span
LEVELS = (2, 4, 8, 16)
# each daily roll-up's: {days: series}, named as it is with the days in place of its ``1d``
LEVELS_OF = {daily: {days: daily.replace("1d_", f"{days}d_") for days in LEVELS} for daily, _how in DAILY_OF.values()}
# each daily evaluation that saw the last ``days`` daily evaluations complete (:data:`COMPLETE`), so that its
# ``days`` roll-ups stand for them: its time, no labels
LEVEL_COMPLETE = {days: f"cluster:kubectl_instancetype_rightsize_{days}d:complete_time" for days in LEVELS}

_HEADROOM_EXPR = f"sum {BY} (kubevirt_vmi_memory_usable_bytes) / sum {BY} (kubevirt_vmi_memory_available_bytes)"


def _rate_sum(metric: str, window: str) -> str:
    return f"sum {BY} (rate({metric}[{window}]))"


def _swap(window: str) -> str:
    return (
        f"{_rate_sum('kubevirt_vmi_memory_swap_in_traffic_bytes', window)} + "
        f"{_rate_sum('kubevirt_vmi_memory_swap_out_traffic_bytes', window)}"
    )


# (record, expression): KubeVirt's own expressions where it has them (pkg/monitoring/rules/recordingrules/vmi.go,
# alerts/vms.go), rightsize's raw queries (usecases/rightsize.py) for the rest
RULES: tuple[tuple[str, str], ...] = (
    (
        CPU,
        f'label_replace({_rate_sum("kubevirt_vmi_vcpu_seconds_total", "5m")}, "source", "vcpu", "", "") '
        "or on (namespace, name) "
        f'label_replace({_rate_sum("kubevirt_vmi_cpu_usage_seconds_total", "5m")}, "source", "cpu", "", "")',
    ),
    (
        MEMORY,
        f"label_replace(sum {BY} (kubevirt_vmi_memory_available_bytes - kubevirt_vmi_memory_usable_bytes), "
        '"source", "balloon", "", "") or on (namespace, name) '
        f"label_replace(sum {BY} (kubevirt_vmi_memory_resident_bytes) < sum {BY} (kubevirt_vmi_memory_domain_bytes) "
        f'or sum {BY} (kubevirt_vmi_memory_domain_bytes), "source", "resident", "", "")',
    ),
    (DOMAIN, f"max {BY} (kubevirt_vmi_memory_domain_bytes)"),
    (VCPUS, f"count {BY} (kubevirt_vmi_vcpu_seconds_total)"),
    (HEADROOM, _HEADROOM_EXPR),
    (
        PRESSURE,
        f"({_HEADROOM_EXPR}) < 0.05 and (({_rate_sum('kubevirt_vmi_memory_pgmajfault_total', '5m')}) > 5 or "
        f"({_swap('5m')}) > 1048576)",
    ),
    (
        LOW_AVAILABLE,
        f"({_HEADROOM_EXPR}) < 0.03 and ({_swap('30m')}) < 2048 and "
        f"({_rate_sum('kubevirt_vmi_memory_pgmajfault_total', '30m')}) < 1",
    ),
)
HOURLY_RULES: tuple[tuple[str, str], ...] = (
    (CPU_MAX, f"max_over_time({CPU}[1h])"),
    (CPU_COUNT, f"count_over_time({CPU}[1h])"),
    (MEMORY_MAX, f"max_over_time({MEMORY}[1h])"),
    (HEADROOM_MIN, f"min_over_time({HEADROOM}[1h])"),
    # the size changes: over 65 minutes, so that every two consecutive 5-minute points fall within one roll-up;
    # recorded only when there was one (as the alert conditions above), so that the size check reads only the series
    # of the VMs that changed size: over the whole fleet's dense series it was a sixth of a pass's Prometheus time
    # (bench/README.md, "Right-sizing"). Rules applied before this recorded every count, zeros too: the size check
    # (``max_over_time(...) > 0``) reads both alike
    (DOMAIN_CHANGES, f"changes({DOMAIN}[65m]) > 0"),
    (VCPUS_CHANGES, f"changes({VCPUS}[65m]) > 0"),
    (EVALUATED, "vector(1)"),
)
# A daily group's evaluation reads the hourly points of (its time - 1d, its time]: the parts of a window compose
# exactly (bench/README.md, "Right-sizing": an hourly series costs Prometheus 3 times more per sample than a
# 5-minute one, one sample per 2-hour chunk's index entry in every block)
DAILY_RULES: tuple[tuple[str, str], ...] = (
    (CPU_MAX_DAILY, f"max_over_time({CPU_MAX}[1d])"),
    (CPU_COUNT_DAILY, f"sum_over_time({CPU_COUNT}[1d])"),
    (MEMORY_MAX_DAILY, f"max_over_time({MEMORY_MAX}[1d])"),
    (HEADROOM_MIN_DAILY, f"min_over_time({HEADROOM_MIN}[1d])"),
    # recorded only when the day's 24 hourly evaluations are there: a daily evaluation made before the hourly history
    # was backfilled, or over a day the hourly group missed an hour of, is not complete
    (COMPLETE, f"vector(time()) and on () count_over_time({EVALUATED}[1d]) == 24"),
    # rules of a group are evaluated in order, each seeing the samples the ones before it stored at the same time
    # (rules/group.go Group.Eval): the roll-ups over several days read this evaluation's daily ones
    *(
        (LEVELS_OF[daily][days], f"{how}_over_time({daily}[{days}d])")
        for daily, how in DAILY_OF.values()
        for days in LEVELS
    ),
    # recorded only when the days' daily evaluations were all complete when it ran: a daily evaluation made before
    # the daily history was backfilled read less than its days (a live server's always reads them all)
    *(
        (LEVEL_COMPLETE[days], f"vector(time()) and on () count_over_time({COMPLETE}[{days}d]) == {days}")
        for days in LEVELS
    ),
)
# a series of each group always recorded for a running VM: the probe asks for these over the window (every series
# it reads costs the probe; a group's rules are applied together)
PROBED = (CPU, CPU_MAX)
NAMES = tuple(record for record, _ in RULES + HOURLY_RULES)
DAILY_NAMES = tuple(record for record, _ in DAILY_RULES)

MAX_DAY_READS = 4  # the most points a window's days are read as (more: one range over the daily roll-ups)
DAY_MS = DAILY_INTERVAL * 1000


def day_reads(first: int, last: int, levels: Sequence[tuple[int, int, int]], how: str) -> list[tuple[int, int]] | None:
    """The daily evaluations ``first`` to ``last`` (Unix milliseconds, a day apart) as a few roll-ups over several
    days (:data:`LEVELS`), each (days, time): the roll-up over ``days`` recorded at that time spans the daily points
    of (time - days, time]. Disjoint for a sum; for a maximum or a minimum, two overlapping ones where they cover the
    days. A roll-up is read only at a time ``levels`` (days, first, last) says it was complete; days 1 is the daily
    roll-up itself. None: more than :data:`MAX_DAY_READS` reads (or no roll-up over several days is complete), and
    the days are one range over the daily roll-ups."""
    usable = {days: (lo, hi) for days, lo, hi in levels}
    usable[1] = (first, last)

    def sizes(at: int, most: int) -> list[int]:
        return sorted((days for days, (lo, hi) in usable.items() if days <= most and lo <= at <= hi), reverse=True)

    reads: list[tuple[int, int]] = []
    at, left = last, (last - first) // DAY_MS + 1
    while left > 0:
        if how != "sum":
            # two overlapping roll-ups, one ending at ``at`` and one starting at the first day, cover ``left`` days
            # when each spans at least half of them
            pair = next(
                (
                    days
                    for days in sizes(at, left)
                    if 2 * days >= left and days in sizes(at - (left - days) * DAY_MS, left)
                ),
                None,
            )
            if pair is not None:
                reads.append((pair, at))
                if pair < left:
                    reads.append((pair, at - (left - pair) * DAY_MS))
                break
        days = sizes(at, left)[0]
        reads.append((days, at))
        at, left = at - days * DAY_MS, left - days
    if len(reads) > MAX_DAY_READS or (all(days == 1 for days, _ in reads) and len(reads) > 1):
        return None
    return reads


FORMATS = ("prometheusrule", "rulefile")


@dataclass(frozen=True)
class RuleFormat:
    """How to print the rules: a ``monitoring.coreos.com/v1`` PrometheusRule in ``namespace``, or a plain rule file."""

    form: str
    namespace: str


def _duration(seconds: int) -> str:
    if seconds % 86400 == 0:
        return f"{seconds // 86400}d"
    return f"{seconds // 3600}h" if seconds % 3600 == 0 else f"{seconds // 60}m"


def groups() -> list[dict[str, Any]]:
    """The three rule groups as a Prometheus rule file has them (``groups:``)."""
    return [
        {"name": name, "interval": _duration(interval), "rules": [{"record": r, "expr": e} for r, e in rules]}
        for name, interval, rules in (
            (GROUP, INTERVAL, RULES),
            (HOURLY_GROUP, HOURLY_INTERVAL, HOURLY_RULES),
            (DAILY_GROUP, DAILY_INTERVAL, DAILY_RULES),
        )
    ]


def document(how: RuleFormat) -> dict[str, Any]:
    """The rules as ``how`` asks: a rule file (``groups:``) or a PrometheusRule object (prometheus-operator's CRD,
    which OpenShift's user-workload monitoring takes too) whose ``spec`` is that rule file."""
    if how.form == "rulefile":
        return {"groups": groups()}
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": RULE_NAME,
            "namespace": how.namespace,
            "labels": {"app.kubernetes.io/name": "kubectl-instancetype", "app.kubernetes.io/component": "rightsize"},
        },
        "spec": {"groups": groups()},
    }
