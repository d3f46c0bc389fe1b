"""Names of objects in the cluster, fast: for shell completion (and did-you-mean hints).

One list request per scope and page asks the API server for metadata only
(``PartialObjectMetadataList``: about 10% less to transfer and decode than whole objects, most of the rest
being managedFields), under one overall deadline; the typed prefix is applied as each page arrives.
Credentials that would need a terminal (an exec plugin with ``interactiveMode: Always``) are never used here:
completion must not prompt.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..kube.session import Session

MAX_NAMES = 100_000  # a bound on memory and output; kubectl returns every name, and so do we below this
# Large pages: each continuation costs the API server a fresh read (70-180 ms here), and a name costs
# about 1.4 KB as metadata; 5000 names is one 7 MB page.
PAGE_SIZE = 5000

# source -> (resource constant in kube.resources, namespaced)
SOURCES: dict[str, tuple[str, bool]] = {
    "instancetypes:cluster": ("CLUSTER_INSTANCETYPES", False),
    "instancetypes:namespaced": ("INSTANCETYPES", True),
    "preferences:cluster": ("CLUSTER_PREFERENCES", False),
    "preferences:namespaced": ("PREFERENCES", True),
    "namespaces": ("NAMESPACES", False),
    "persistentvolumeclaims": ("PERSISTENT_VOLUME_CLAIMS", True),
    "datavolumes": ("DATA_VOLUMES", True),
    "datasources": ("DATA_SOURCES", True),
    "volumesnapshots": ("VOLUME_SNAPSHOTS", True),
    "virtualmachines": ("VIRTUAL_MACHINES", True),
}
_SIZE_LABELS = ("instancetype.kubevirt.io/cpu", "instancetype.kubevirt.io/memory")


@dataclass(frozen=True)
class LiveName:
    """An object's name, and what completion shows beside it (an instance type's size; else "")."""

    name: str
    description: str = ""


class CompletionUnavailable(Exception):
    """Live names cannot be had without risk (a prompt) or at all; completion offers none."""


def _description(metadata: Mapping[str, Any]) -> str:
    labels = metadata.get("labels") or {}
    cpu, memory = (labels.get(key) for key in _SIZE_LABELS)
    if cpu and memory:
        return f"{cpu} vCPU, {memory}"
    return ""


def list_names(session: Session, source: str, prefix: str, deadline: float) -> list[LiveName]:
    """The names (and descriptions) of the objects of ``source`` whose name starts with ``prefix``, sorted; metadata
    only, a few pages at most, until ``deadline`` (``time.monotonic()``).

    Raises nothing the caller must know about beyond :class:`Exception`: completion swallows every failure.
    """
    from ..kube import resources

    constant, namespaced = SOURCES[source]
    resource = getattr(resources, constant)
    if session.credentials_may_prompt():
        raise CompletionUnavailable("the credentials may prompt")
    found: list[LiveName] = []
    with session:
        client = session.client()
        token: str | None = None
        for _ in range(100):  # pages; bounded however the server answers
            page = client.metadata_page(
                resource,
                session.namespace if namespaced else None,
                limit=PAGE_SIZE,
                continue_token=token,
                deadline=deadline,
            )
            for item in (page or {}).get("items") or ():
                metadata = item.get("metadata") or {}
                name = str(metadata.get("name") or "")
                if name.startswith(prefix):
                    found.append(LiveName(name, _description(metadata)))
            token = ((page or {}).get("metadata") or {}).get("continue") or None
            if not token or len(found) >= MAX_NAMES or time.monotonic() >= deadline:
                break
    found.sort(key=lambda entry: (entry.name, entry.description))
    return found[:MAX_NAMES]
