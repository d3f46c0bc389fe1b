"""``fits`` and ``capacity``: the tables, the scheduler's line and hints, and the reports as data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..env import Environment

if TYPE_CHECKING:
    from ..usecases.placement import CapacityReport, FitsReport, Placement


def _amount(name: str, value: int, *, up: bool = False) -> str:
    from ..instancetype.fithints import human_bytes
    from ..instancetype.nodefit import CPU, EPHEMERAL, HUGEPAGES_PREFIX, MEMORY

    if name == CPU:
        return f"{value}m" if value % 1000 else str(value // 1000)
    if name in (MEMORY, EPHEMERAL) or name.startswith(HUGEPAGES_PREFIX):
        return human_bytes(value, up=up)
    return str(value)


def _shown(request: dict[str, int]) -> list[str]:
    """The resources a table shows: cpu, memory, hugepages the pod asks for, then the pod count."""
    from ..instancetype.nodefit import CPU, HUGEPAGES_PREFIX, MEMORY, PODS, ordered

    return [name for name in ordered(request) if name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)] + [PODS]


def requests_line(request: dict[str, int]) -> str:
    """``cpu 1005m, memory 2.3Gi, ...``: what the scheduler counts of the pod."""
    from ..instancetype.nodefit import ordered

    return ", ".join(f"{name} {_amount(name, request[name], up=True)}" for name in ordered(request))


def _placement(placement: Placement, smaller: str) -> str:
    from ..golang.kubescheduler import fit_error
    from ..output.table import render_table
    from .terminal import escape_lines

    lines = [f"{placement.subject}: the virt-launcher pod requests {requests_line(placement.request)}"]
    fitting = placement.fitting
    if placement.unknown:
        lines.append("No nodes: whether it fits is unknown.")
    elif fitting:
        lines.append(f"It fits {len(fitting)} of {len(placement.nodes)} node(s); left on each after it:")
        shown = _shown(placement.request)
        rows = [(fit.node, *(_amount(name, fit.left.get(name, 0)) for name in shown)) for fit in fitting]
        table = render_table(("NODE", *(name.upper() for name in shown)), rows)
        lines.append(table.rstrip("\n"))
        others = [fit for fit in placement.nodes if fit.reasons]
        if others:
            rest = fit_error(len(others), (fit.reasons for fit in others)).split(": ", 1)[1]
            lines.append(f"Not on the other {len(others)}: {rest}")
    else:
        lines.append(placement.message)
        lines += [f"Hint: {hint}" for hint in placement.hints]
        if smaller:
            lines.append(f"Hint: {smaller} would fit (kubectl instancetype fits --instancetype {smaller})")
    if placement.quota is not None:
        lines.append(f"Quota: {placement.quota.forbidden}")
    return escape_lines("\n".join(lines) + "\n")


def render_fits(report: FitsReport) -> str:
    """Each VM's answer, separated by a blank line."""
    return "\n".join(_placement(p, report.smaller.get(p.subject, "")) for p in report.placements)


def fits_document(report: FitsReport) -> dict[str, Any]:
    """``fits -o``: one item per VM; quantities in the scheduler's units (cpu in millicores, the rest whole)."""
    items = []
    for p in report.placements:
        items.append(
            {
                "subject": p.subject,
                "namespace": p.namespace,
                "fits": p.runs,
                "requests": dict(p.request),
                "nodes": [
                    {"name": fit.node, "fits": not fit.reasons, "reasons": list(fit.reasons), "left": dict(fit.left)}
                    for fit in p.nodes
                ],
                "message": p.message,
                "hints": list(p.hints)
                + ([f"{report.smaller[p.subject]} would fit"] if p.subject in report.smaller else []),
                "quota": None if p.quota is None else {"name": p.quota.quota, "message": p.quota.forbidden},
                "launcherPod": p.pod,
            }
        )
    return {"apiVersion": "kubectl-instancetype/v1", "kind": "List", "items": items}


CAPACITY_HEADERS = ("INSTANCETYPE", "PREFERENCE", "COUNT", "LIMITED BY", "NODES")


def render_capacity(report: CapacityReport) -> str:
    """One row per type: how many more, what runs out first, how many nodes could take one."""
    from ..output.table import render_table
    from .terminal import escape_lines

    rows = []
    for item in report.items:
        found = item.capacity
        if found is None:
            rows.append((item.instancetype, item.preference or "-", "-", f"cannot predict: {item.problem}", "-"))
            continue
        count = "unknown" if report.unknown else str(found.count)
        rows.append((item.instancetype, item.preference or "-", count, found.limited_by or "-", str(found.nodes)))
    head = f"{report.nodes} node(s), {report.schedulable} schedulable\n"
    return escape_lines(head + render_table(CAPACITY_HEADERS, rows))


def capacity_document(report: CapacityReport) -> dict[str, Any]:
    """``capacity -o``: a List of ``instancetype``, ``preference``, ``count``, ``limitedBy``, ``nodes``, the
    launcher pod's ``requests`` and the scheduler's ``next`` line for one more."""
    return {
        "apiVersion": "kubectl-instancetype/v1",
        "kind": "List",
        "items": [
            {
                "instancetype": item.instancetype,
                "preference": item.preference,
                "count": None if report.unknown or item.capacity is None else item.capacity.count,
                "limitedBy": item.capacity.limited_by if item.capacity else "",
                "nodes": item.capacity.nodes if item.capacity else 0,
                "requests": dict(item.request),
                "next": item.capacity.next_message if item.capacity else "",
                "problem": item.problem,
            }
            for item in report.items
        ],
    }


def print_document(env: Environment, output: str, data: dict[str, Any]) -> None:
    """``-o json|yaml`` or a template (:func:`.printers.print_document`)."""
    from .printers import print_document as print_data

    print_data(env, output, data)
