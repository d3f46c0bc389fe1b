"""``rightsize``'s table and its ``-o json|yaml|jsonpath|custom-columns`` document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..usecases.rightsize import RightsizeReport, VMSizing

HEADERS = ("NAMESPACE", "NAME", "INSTANCETYPE", "FINDING", "CPU", "MEMORY", "RECOMMENDED", "CHANGE", "SOURCE")


def _cpu(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _change(row: VMSizing) -> str:
    from ..instancetype.rightsize import show_bytes

    sizing = row.sizing
    if sizing.recommended is None or (sizing.cpu_change, sizing.memory_change) == (0, 0):
        return "-"
    parts = [f"{sizing.cpu_change:+d} vCPU"] if sizing.cpu_change else []
    if sizing.memory_change:
        parts.append(f"{'-' if sizing.memory_change < 0 else '+'}{show_bytes(abs(sizing.memory_change))}")
    return ", ".join(parts)


def _source(row: VMSizing) -> str:
    if row.measured is None:
        return "-"
    return f"{row.measured.cpu_source}/{row.measured.memory_source}"


def _recommended(row: VMSizing) -> str:
    sizing = row.sizing
    if sizing.recommended is None:
        return "-"
    return sizing.recommended.name


def render(report: RightsizeReport) -> str:
    """The table: per VM the finding, CPU (vCPUs at the percentile / peak), memory (likewise), the type to move to,
    what that saves or adds, and the sources (CPU from vcpu or total time / memory from balloon or resident); a
    line per VM with the finding's reason follows."""
    from ..instancetype.rightsize import show_bytes
    from .table import render_table
    from .terminal import escape_lines

    rows = []
    reasons = []
    for row in report.vms:
        measured = row.measured
        cpu = "-" if measured is None else f"{_cpu(measured.cpu)}/{_cpu(measured.cpu_peak)}"
        memory = (
            "-"
            if measured is None
            else f"{show_bytes(measured.memory) or '-'}/{show_bytes(measured.memory_peak) or '-'}"
        )
        rows.append(
            (
                row.namespace,
                row.name,
                row.instancetype,
                row.sizing.verdict,
                cpu,
                memory,
                _recommended(row),
                _change(row),
                _source(row),
            )
        )
        reasons.append(f"vm/{row.name} ({row.namespace}): {row.sizing.reason}")
    head = (
        f"p{report.percentile:g} and peak over {_window(report.window)} (+{float(report.headroom) * 100:g}% headroom) "
        f"from {report.server}: {report.queries} queries, {_rules(report)}\n"
    )
    return escape_lines(head + render_table(HEADERS, rows) + "\n" + "\n".join(reasons) + "\n")


def _rules(report: RightsizeReport) -> str:
    """Where memory and pressure were read from: KubeVirt's recording rules (how many of those rightsize knows) or
    the raw series."""
    if report.rules_own:
        from ..instancetype.rightsize_rules import DAILY_NAMES

        # the daily roll-ups' names are there only when they covered the window's whole days
        daily = any(name in DAILY_NAMES for name in report.rules_used)
        levels = "5-minute, hourly and daily" if daily else "5-minute and hourly"
        return f"rightsize's recording rules ({len(report.rules_used)} series, {levels}; rightsize --print-rules)"
    if not report.rules_used:
        return "raw series (no KubeVirt recording rules over the window)"
    return f"KubeVirt's recording rules ({len(report.rules_used)} of {report.rules_known})"


def _window(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def document(report: RightsizeReport) -> dict[str, Any]:
    """``rightsize -o``: a List with one item per VM (its measures, sources, finding, reason and recommendation)
    and what was asked (``server``, ``queries``, ``window``, ``percentile``, ``headroom``, ``recordingRules``)."""
    items = []
    for row in report.vms:
        measured, sizing = row.measured, row.sizing
        recommended = sizing.recommended
        items.append(
            {
                "namespace": row.namespace,
                "name": row.name,
                "instancetype": row.instancetype,
                "preference": row.preference,
                "finding": sizing.verdict,
                "reason": sizing.reason,
                "cpu": None
                if measured is None
                else {
                    "percentile": measured.cpu,
                    "peak": measured.cpu_peak,
                    "source": measured.cpu_source,
                },
                "memory": None
                if measured is None
                else {
                    "percentile": measured.memory,
                    "peak": measured.memory_peak,
                    "source": measured.memory_source,
                    "minHeadroomRatio": measured.min_headroom_ratio,
                    "pressureSeconds": measured.pressure_seconds,
                    "lowAvailableSeconds": measured.low_available_seconds,
                },
                "historySeconds": None if measured is None else measured.history_seconds,
                "recommended": None if recommended is None else {"kind": recommended.kind, "name": recommended.name},
                "change": {"vcpus": sizing.cpu_change, "memoryBytes": sizing.memory_change},
                "rejected": [{"name": name, "reason": why} for name, why in sizing.rejected],
            }
        )
    return {
        "apiVersion": "kubectl-instancetype/v1",
        "kind": "List",
        "server": report.server,
        "queries": report.queries,
        "window": _window(report.window),
        "step": _window(report.step),
        "percentile": report.percentile,
        "headroom": f"{float(report.headroom) * 100:g}%",
        "recordingRules": list(report.rules_used),
        "rulesFrom": "kubectl-instancetype" if report.rules_own else ("kubevirt" if report.rules_used else ""),
        "nodesKnown": report.nodes_known,
        "items": items,
        **({"applied": applied_document(report)} if report.applied else {}),
    }


def render_applied(report: RightsizeReport) -> str:
    """``--apply``: each recommendation's ``switch --plan``, then whether it was written and why not."""
    from .switchplan import render_plan
    from .terminal import escape_lines

    if not report.applied:
        return "\nNo recommendation to apply.\n"
    parts = []
    for applied in report.applied:
        outcome = "switched" if applied.written else f"not switched: {applied.why_not}"
        parts.append(f"\n{render_plan(applied.plan)}=> virtualmachine.kubevirt.io/{applied.name} {outcome}\n")
    return escape_lines("".join(parts))


def applied_document(report: RightsizeReport) -> list[dict[str, Any]]:
    """``--apply -o``: each plan (as ``switch --plan -o`` gives it) with ``written`` and ``whyNot``."""
    from .switchplan import plan_document

    return [
        {"plan": plan_document(applied.plan), "written": applied.written, "whyNot": applied.why_not}
        for applied in report.applied
    ]
