"""How ``adopt`` prints: per VM the choice, the fields removed and the proof; or the adopted VMs as data."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .terminal import escape

if TYPE_CHECKING:
    from ..env import Environment
    from ..usecases.adopting import AdoptReport


def _name(obj: Any) -> str:
    if not obj:
        return "(none)"
    return escape(str((obj.get("metadata") or {}).get("name")))


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict | list):
        return escape(json.dumps(value, sort_keys=True))
    return escape(str(value).lower() if isinstance(value, bool) else str(value))


def render(report: AdoptReport) -> str:
    """The text report."""
    from .switchplan import _WHEN, PLAN_HEADERS
    from .table import render_table

    out: list[str] = []
    for adoption in report.adoptions:
        head = f"virtualmachine/{escape(adoption.name)}"
        if adoption.vm is None:
            out.append(f"{head}: not adopted: {escape('; '.join(adoption.problems))}")
            continue
        out.append(f"{head}: instancetype {_name(adoption.instancetype)}, preference {_name(adoption.preference)}")
        if adoption.removed:
            out.append("  removed (the instance type provides them): " + ", ".join(adoption.removed))
        for note in adoption.notes:
            out.append(f"  note: {escape(note)}")
        if adoption.identical:
            out.append(
                f"  proof: the adopted VM expands to exactly the original's spec ({adoption.compared} fields compared)"
            )
        else:
            out.append(f"  proof: {len(adoption.changes)} field(s) of the expanded spec change:")
            rows = [(change.path, _cell(change.before), _cell(change.after)) for change in adoption.changes]
            table = render_table(("FIELD", "ORIGINAL", "ADOPTED"), rows)
            out += ["    " + line for line in table.splitlines()]
    out.append(f"(candidates: {report.candidates_from})")
    if report.live is not None:
        live = report.live
        if live.running:
            live_rows = [
                (
                    c.path,
                    _cell(c.old),
                    _cell(c.new),
                    _WHEN.get(c.outcome, c.outcome) + (f": {c.message}" if c.outcome == "restart" else ""),
                )
                for c in live.changes
            ]
            if live_rows:
                out += ["", render_table(PLAN_HEADERS, live_rows).rstrip("\n")]
            if live.restart_required:
                out.append(f'The VM will carry RestartRequired: "{live.restart_required}".')
    if report.written is not None:
        out.append(f"virtualmachine.kubevirt.io/{_name(report.written)} adopted")
    return "\n".join(out) + "\n"


def print_vms(env: Environment, output: str, vms: list[dict[str, Any]]) -> None:
    """The adopted VMs (one object, or a List)."""
    from .printers import is_template_format

    if is_template_format(output) or output == "name":
        from .printers import print_objects

        names = [f"virtualmachine.kubevirt.io/{(vm.get('metadata') or {}).get('name', '')}" for vm in vms]
        print_objects(env, output, vms, names, single=len(vms) == 1)
        return
    document: Any = vms[0] if len(vms) == 1 else {"apiVersion": "v1", "kind": "List", "items": vms}
    if output == "json":
        env.stdout.write(json.dumps(document, indent=4) + "\n")
    else:
        from ..golang.goyaml import dump

        env.stdout.write(dump(document))
