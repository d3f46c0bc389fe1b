"""``revisions -o``: the rows of ``revisions`` as data (yaml, json or a kubectl template)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..instancetype.expand.revisions import OwnedRevision
    from ..usecases.revisions import Revisions


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
