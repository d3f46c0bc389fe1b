"""``revisions -o``: the rows of ``revisions`` as data (yaml, json or a kubectl template)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    }
