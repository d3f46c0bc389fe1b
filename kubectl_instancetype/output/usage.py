"""How ``usage`` prints: the summary table, one object's users, the delete check, and the data document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .table import render_table

if TYPE_CHECKING:
    from ..env import Environment
    from ..instancetype.usage import Target, Totals, Use
    from ..usecases.usage import UsageReport


def _printable(text: str) -> str:
    """Cluster data never reaches a terminal as control characters."""
    from .terminal import escape

    return escape(text)


def _count(value: int) -> str:
    return str(value)


def render_summary(report: UsageReport, all_namespaces: bool) -> str:
    """One row per object: counts, and vCPUs/memory of the VMs using each instance type."""
    from ..instancetype.usage import Totals

    headers = (("NAMESPACE",) if all_namespaces else ()) + (
        "NAME",
        "VMS",
        "RUNNING",
        "OLDER",
        "POOLS",
        "TEMPLATES",
        "REVISIONS",
        "VCPUS",
        "MEMORY",
    )
    rows = []
    for target in report.targets:
        total = report.totals.get(target) or Totals()
        sized = target.key == "instancetype"
        row = ((target.namespace,) if all_namespaces else ()) + (
            _printable(str(target)),
            _count(total.vms),
            _count(total.running),
            _count(total.older),
            _count(total.pools) + (f" ({total.replicas})" if total.pools else ""),
            _count(total.templates),
            _count(total.revisions),
            str(total.vcpus) if sized and total.vcpus else "-",
            total.memory_text if sized else "-",
        )
        rows.append(row)
    return render_table(headers, rows)


def _size(use: Use) -> tuple[str, str]:
    from ..instancetype.listing import format_bytes

    if use.target.key != "instancetype" or use.user_kind == "VirtualMachineTemplate":
        return "-", "-"
    count = use.replicas if use.user_kind == "VirtualMachinePool" else 1
    return str(use.vcpus * count) if use.vcpus else "-", format_bytes(use.memory * count) if use.memory else "-"


def render_details(report: UsageReport, target: Target) -> str:
    """The users of one object and a total line."""
    from ..instancetype.usage import Totals

    uses = report.uses_of(target)
    text = ""
    if uses:
        rows = []
        for use in uses:
            vcpus, memory = _size(use)
            via = use.via + (f" ({use.replicas} replicas)" if use.user_kind == "VirtualMachinePool" else "")
            rows.append(
                (
                    _printable(use.user),
                    _printable(use.namespace),
                    _printable(via),
                    _printable(use.revision or "-"),
                    use.generation,
                    vcpus,
                    memory,
                )
            )
        text = render_table(("USER", "NAMESPACE", "VIA", "REVISION", "GENERATION", "VCPUS", "MEMORY"), rows) + "\n"
    total = report.totals.get(target) or Totals()
    text += f"{_printable(str(target))}: {_summary(total, target)}\n"
    if target.key == "instancetype" and any(use.user_kind == "VirtualMachine" for use in uses):
        # measured use: docs/rightsize.md
        text += "Measured use of these VMs: kubectl instancetype rightsize vm/NAME ... --prometheus-url URL\n"
    return text


def _summary(total: Totals, target: Target) -> str:
    parts = [
        f"{total.vms} VM(s) ({total.running} running, {total.older} on an older generation)",
        f"{total.pools} pool(s) ({total.replicas} replicas)",
        f"{total.templates} template(s)",
        f"{total.revisions} ControllerRevision(s)",
    ]
    if target.key == "instancetype":
        parts.append(f"{total.vcpus} vCPU and {total.memory_text} memory in use")
    return ", ".join(parts)


def render_delete_check(report: UsageReport, target: Target, complete: bool = True) -> str:
    """What deleting ``target`` would do to each user found; "can be deleted" only when everything was read
    (``complete``)."""
    uses = report.uses_of(target)
    blocking = [use for use in uses if use.breaks]
    copies = [use for use in uses if use.user_kind == "ControllerRevision"]
    if not blocking and not complete:
        return ""
    if not blocking:
        text = f"{_printable(str(target))} can be deleted: nothing uses it"
        if copies:
            text += f" ({len(copies)} ControllerRevision(s) hold copies; they belong to their VMs and stay)"
        return text + "\n"
    lines = [f"deleting {_printable(str(target))} would affect:"]
    for use in blocking:
        lines.append(f"  {_printable(use.user)} ({_printable(use.namespace)}): {_printable(use.breaks)}")
    return "\n".join(lines) + "\n"


def render_revision_check(name: str, users: list[str]) -> str:
    """Which VMs resolve through a ControllerRevision."""
    if not users:
        return f"controllerrevision/{_printable(name)} can be deleted: no VM in the namespace records it\n"
    lines = [f"controllerrevision/{_printable(name)} is recorded by:"]
    lines += [f"  virtualmachine/{_printable(user)}" for user in users]
    return "\n".join(lines) + "\n"


def document(report: UsageReport) -> dict[str, Any]:
    """The report as data."""
    from ..instancetype.usage import Totals

    items = []
    for target in report.targets:
        total = report.totals.get(target) or Totals()
        items.append(
            {
                "kind": target.kind,
                "name": target.name,
                "namespace": target.namespace or None,
                "totals": {
                    "virtualMachines": total.vms,
                    "running": total.running,
                    "olderGeneration": total.older,
                    "pools": total.pools,
                    "poolReplicas": total.replicas,
                    "templates": total.templates,
                    "controllerRevisions": total.revisions,
                    "vcpus": total.vcpus,
                    "memory": total.memory_text if total.memory else None,
                },
                "users": [
                    {
                        "kind": use.user_kind,
                        "name": use.user_name,
                        "namespace": use.namespace,
                        "via": use.via,
                        "revision": use.revision or None,
                        "generation": use.generation,
                        "running": use.running if use.user_kind == "VirtualMachine" else None,
                        "replicas": use.replicas if use.user_kind == "VirtualMachinePool" else None,
                        "onDelete": use.breaks or None,
                    }
                    for use in report.uses_of(target)
                ],
            }
        )
    return {"apiVersion": "kubectl-instancetype/v1", "kind": "Usage", "items": items, "notServed": report.skipped}


def print_document(env: Environment, output: str, data: dict[str, Any]) -> None:
    """``-o json|yaml`` or a template (:func:`.printers.print_document`)."""
    from .printers import print_document as print_data

    print_data(env, output, data)
