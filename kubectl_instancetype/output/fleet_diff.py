"""How ``fleet diff`` prints: a table of findings (default), a data document (``-o json|yaml``), or unified diffs
per object and context as ``catalog diff`` prints them (``-o diff``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..env import Environment
    from ..instancetype.fleetdiff import Finding, Key
    from ..usecases.fleet_diff import FleetDiff


def _value(value: Any) -> str:
    if value is None:
        return "<none>"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _name(key: Key) -> str:
    from ..instancetype.kinds import BY_KIND

    kind = BY_KIND.get(key.kind)
    return f"{kind.short if kind else key.kind}/{key.name}"


def difference(finding: Finding) -> list[str]:
    """The DIFFERENCE cells of one finding (one per field that differs)."""
    base = finding.base_context
    if finding.state == "missing":
        return [f"missing (present in {base})"]
    if finding.state == "version":
        return [f"common-instancetypes {finding.version or '<none>'} ({base}: {finding.base_version or '<none>'})"]
    return [f"{field.path}: {_value(field.value)} ({base}: {_value(field.base)})" for field in finding.fields]


def render_table(diff: FleetDiff) -> str:
    """One row per missing object, other release, or differing field."""
    from .table import render_table as table

    namespaced = any(finding.key.namespace for finding in diff.findings)
    headers = ["NAME", *(["NAMESPACE"] if namespaced else []), "CONTEXT", "DIFFERENCE"]
    rows = []
    for finding in diff.findings:
        for cell in difference(finding):
            namespace = [finding.key.namespace] if namespaced else []
            rows.append([_name(finding.key), *namespace, finding.context, cell])
    return table(headers, rows)


def document(diff: FleetDiff) -> dict[str, Any]:
    """``-o json|yaml``: the contexts compared and failed, and one item per finding."""
    from ..errors import sentence

    items = []
    for finding in diff.findings:
        item: dict[str, Any] = {
            "kind": finding.key.kind,
            "name": finding.key.name,
            "context": finding.context,
            "state": finding.state,
            "baseContext": finding.base_context,
        }
        if finding.key.namespace:
            item["namespace"] = finding.key.namespace
        if finding.state == "version":
            item["baseVersion"], item["version"] = finding.base_version, finding.version
        if finding.fields:
            item["fields"] = [{"path": f.path, "base": f.base, "value": f.value} for f in finding.fields]
        items.append(item)
    return {
        "kind": "FleetDiff",
        "contexts": list(diff.compared),
        "failed": [{"context": context, "error": sentence(error)} for context, error in diff.failed],
        "items": items,
    }


def render_diffs(diff: FleetDiff) -> str:
    """Unified diffs, base context -> each context that differs, as ``catalog diff`` prints one."""
    import difflib

    from ..golang.goyaml import dump

    def lines(obj: Any) -> list[str]:
        return dump(obj).splitlines(keepends=True) if obj is not None else []

    out: list[str] = []
    done: set[tuple[Key, str]] = set()
    for finding in diff.findings:
        if (finding.key, finding.context) in done:
            continue
        done.add((finding.key, finding.context))
        where = f"{finding.key.namespace}/" if finding.key.namespace else ""
        shown = f"{where}{_name(finding.key)}"
        base = diff.objects[finding.base_context][finding.key]
        other = diff.objects[finding.context].get(finding.key)
        out.append(
            "".join(
                difflib.unified_diff(
                    lines(base),
                    lines(other),
                    f"{finding.base_context}/{shown}",
                    f"{finding.context}/{shown}" if other is not None else "/dev/null",
                )
            )
        )
    return "".join(out)


def print_fleet_diff(env: Environment, diff: FleetDiff, output: str) -> None:
    """Warnings for the contexts that failed, then the findings in ``output`` (table, json, yaml, diff)."""
    from ..errors import sentence
    from . import messages
    from .terminal import escape_lines

    for context, error in diff.failed:
        messages.warn(env, f'context "{context}": {sentence(error)}')
    if output in ("json", "yaml"):
        from .printers import print_document

        print_document(env, output, document(diff))
        return
    if len(diff.compared) < 2:
        messages.warn(env, f"only {len(diff.compared)} context(s) answered: nothing to compare")
    if not diff.findings:
        messages.info(env, f"No differences between {len(diff.compared)} context(s): {', '.join(diff.compared)}")
        return
    env.stdout.write(escape_lines(render_diffs(diff)) if output == "diff" else render_table(diff))


def transfer_document(transfer: Any) -> dict[str, Any]:
    """``fleet diff vm/NAME --to CONTEXT -o json|yaml``."""
    return {
        "kind": "FleetVMDiff",
        "name": transfer.name,
        "namespace": transfer.namespace,
        "source": transfer.source,
        "target": transfer.target,
        "ready": transfer.ready,
        "matchers": [
            {
                "matcher": check.matcher,
                "kind": check.kind,
                "name": check.name,
                "storedIn": check.stored_in,
                "state": check.state,
                **(
                    {"fields": [{"path": f.path, "stored": f.base, "target": f.value} for f in check.fields]}
                    if check.fields
                    else {}
                ),
            }
            for check in transfer.matchers
        ],
        "requirements": {"state": transfer.requirements, "detail": transfer.requirements_detail},
        "fits": {"state": transfer.fits, "detail": transfer.fits_detail},
    }


def render_transfer(transfer: Any) -> str:
    """One row per check (CHECK, RESULT, DETAIL), then the verdict."""
    from .table import render_table as table

    rows = []
    for check in transfer.matchers:
        what = f"{check.kind.lower()}/{check.name}"
        if check.state == "ok":
            rows.append([check.matcher, "ok", f"{what}: the same spec as {check.stored_in}"])
        elif check.state == "missing":
            rows.append([check.matcher, "missing", f"{what} does not exist in {transfer.target}"])
        else:
            for field in check.fields:
                rows.append(
                    [
                        check.matcher,
                        "different",
                        f"{what} {field.path}: {_value(field.value)} ({check.stored_in}: {_value(field.base)})",
                    ]
                )
    rows.append(["requirements", transfer.requirements, transfer.requirements_detail])
    rows.append(["fits", transfer.fits, transfer.fits_detail])
    verdict = "can" if transfer.ready else "cannot"
    where = f'context "{transfer.target}"'
    text = table(["CHECK", "RESULT", "DETAIL"], rows)
    return text + f"\nvirtualmachine/{transfer.name} {verdict} be recreated in {where} as it is.\n"


def print_transfer(env: Environment, transfer: Any, output: str) -> None:
    """``fleet diff vm/NAME --to CONTEXT``: the table and verdict, or ``-o json|yaml``."""
    if output in ("json", "yaml"):
        from .printers import print_document

        print_document(env, output, transfer_document(transfer))
        return
    env.stdout.write(render_transfer(transfer))
