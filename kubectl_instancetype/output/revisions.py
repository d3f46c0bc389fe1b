"""``revisions``' printers: the matchers' table, its notes and diffs, the owned revisions; ``-o``: the rows as
data (yaml, json or a kubectl template)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..env import Environment

if TYPE_CHECKING:
    from ..instancetype.expand.revisions import OwnedRevision
    from ..usecases.revisions import AllRevisions, Revisions

OWNED_HEADERS = ("REVISION", "HOLDS", "GENERATION", "CURRENT", "CREATED")
ALL_HEADERS = ("VM", *OWNED_HEADERS)
HEADERS = ("MATCHER", "KIND", "NAME", "REVISION", "RECORDED IN", "STORED GEN", "LIVE GEN", "CHANGED")
FLAVOURS = {"status-refs": "status references (KubeVirt v1.5+)", "spec-revision-name": "spec revisionName"}


def print_all_revisions(env: Environment, output: str, every: AllRevisions) -> None:
    """The revisions every VM of a namespace (or of all, with a NAMESPACE column first) owns."""
    from . import messages

    if output:
        from .printers import print_document

        print_document(env, output, owned_document(every.owned))
        return
    if not every.owned:
        where = "" if every.namespace is None else f" in {every.namespace} namespace."
        messages.info(env, f"No resources found{where}")
        return
    from .table import render_table

    namespaced = every.namespace is None
    headers = ("NAMESPACE", *ALL_HEADERS) if namespaced else ALL_HEADERS
    rows = [((row.namespace,) if namespaced else ()) + (row.vm, *_owned_cells(row)) for row in every.owned]
    env.stdout.write(render_table(headers, rows))


def print_revisions(env: Environment, output: str, result: Revisions, namespace: str) -> None:
    """One VM's matchers and their revisions, the notes, the spec diffs of changed objects, the revisions it
    owns."""
    from . import messages

    if output:
        from .printers import print_document

        print_document(env, output, revisions_document(result, namespace, FLAVOURS))
        return
    if not result.matchers:
        messages.info(env, f"virtualmachine/{result.name} has no instance type and no preference")
        return
    from .table import render_table
    from .terminal import escape_lines

    rows = [
        (m.matcher, m.kind, m.name, m.revision, m.recorded_in, m.stored_generation, m.live_generation, m.changed)
        for m in result.matchers
    ]
    env.stdout.write(render_table(HEADERS, rows))
    if result.flavour in FLAVOURS:
        env.stdout.write(f"\nRevisions recorded in: {FLAVOURS[result.flavour]}\n")
    notes = [f"  {m.matcher}: {note}" for m in result.matchers for note in m.notes]
    if notes:
        env.stdout.write("\nNotes:\n" + escape_lines("\n".join(notes) + "\n"))
    for matcher in result.matchers:
        if matcher.diff:
            env.stdout.write("\n" + escape_lines(matcher.diff))
    if result.owned:
        env.stdout.write(f"\nControllerRevisions owned by virtualmachine/{escape_lines(result.name)}:\n")
        env.stdout.write(render_table(OWNED_HEADERS, [_owned_cells(row) for row in result.owned]))


def _owned_cells(row: OwnedRevision) -> tuple[Any, ...]:
    return (row.name, row.holds, row.generation, row.current or "-", row.created or "-")


def revisions_document(result: Revisions, namespace: str, flavours: dict[str, str]) -> dict[str, Any]:
    """The rows as data: one item per matcher, the notes and the diff included."""
    return {
        "apiVersion": "kubectl-instancetype/v1",
        "kind": "Revisions",
        "virtualMachine": {"name": result.name, "namespace": namespace},
        "recordedIn": flavours.get(result.flavour, result.flavour),
        "items": [
            {
                "matcher": m.matcher,
                "kind": m.kind,
                "name": m.name,
                "revision": m.revision,
                "recordedIn": m.recorded_in,
                "storedGeneration": m.stored_generation,
                "liveGeneration": m.live_generation,
                "changed": m.changed,
                "notes": list(m.notes),
                "diff": m.diff,
            }
            for m in result.matchers
        ],
        "owned": owned_items(result.owned),
    }


def owned_items(owned: list[OwnedRevision]) -> list[dict[str, Any]]:
    """The ControllerRevisions VMs own, as data."""
    return [
        {
            "namespace": row.namespace,
            "virtualMachine": row.vm,
            "revision": row.name,
            "holds": row.holds,
            "generation": row.generation,
            "current": row.current or None,
            "created": row.created or None,
        }
        for row in owned
    ]


def owned_document(owned: list[OwnedRevision]) -> dict[str, Any]:
    """``revisions [-A] -o``: every revision of every VM in scope."""
    return {"apiVersion": "kubectl-instancetype/v1", "kind": "OwnedRevisions", "items": owned_items(owned)}
