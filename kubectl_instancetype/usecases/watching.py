"""``list -w``: list one scope, then watch it from the list's resourceVersion, as kubectl get --watch does
(k8s.io/kubectl/pkg/cmd/get/get.go, watch()): the listed rows first (none with ``--watch-only``), then one row per
event as it arrives, until ``--request-timeout`` passes or the server ends the watch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..instancetype.listing import INSTANCETYPES
from .listing import Listing, Query, list_rows

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session
    from .listing import Consume

RowT = TypeVar("RowT")


@dataclass(frozen=True)
class WatchEvent(Generic[RowT]):
    """One change: ADDED, MODIFIED or DELETED, the row made of the object, and the object."""

    type: str
    row: RowT
    object: dict[str, Any]


@dataclass
class Watching(Generic[RowT]):
    """The initial listing (None with ``--watch-only``) and the events that follow it, read lazily."""

    listing: Listing[RowT] | None
    events: Iterator[WatchEvent[RowT]]


def watched_resource(query: Query) -> Resource:
    """The one resource ``query`` names (the caller made sure it names one scope)."""
    from ..kube import resources

    if query.what == INSTANCETYPES:
        return resources.CLUSTER_INSTANCETYPES if query.cluster_only else resources.INSTANCETYPES
    return resources.CLUSTER_PREFERENCES if query.cluster_only else resources.PREFERENCES


class _OneScopeSource:
    """The cluster, one scope, remembering the list's resourceVersion (the watch starts from it)."""

    def __init__(self, session: Session, resource: Resource, namespace: str | None):
        self.session, self.resource, self.watch_namespace = session, resource, namespace
        self.client = session.client()
        self.resource_version: str | None = None

    @property
    def namespace(self) -> str:
        return self.session.namespace

    def scan(self, query: Query, consume: Consume) -> list[str]:
        for page in self.client.list_pages(
            self.resource, self.watch_namespace, label_selector=query.label_selector, chunk_size=query.chunk_size
        ):
            if self.resource_version is None:
                self.resource_version = str((page.get("metadata") or {}).get("resourceVersion") or "") or None
            for obj in page.get("items") or ():
                consume(obj, _namespace_of(self.resource, obj))
        return []


def _namespace_of(resource: Resource, obj: dict[str, Any]) -> str | None:
    return ((obj.get("metadata") or {}).get("namespace") or None) if resource.namespaced else None


def watch_cluster(
    session: Session,
    query: Query,
    row_of: Callable[[dict[str, Any], str | None], RowT],
    *,
    watch_only: bool = False,
) -> Watching[RowT]:
    """List the query's one scope, then watch it from that list's resourceVersion; ``watch_only`` leaves the
    listing out, as kubectl --watch-only does (it still lists: a watch without a resourceVersion would begin with
    a synthetic ADDED event for every existing object). The range filters and NAMEs apply to every event's
    object; the label selector is the server's."""
    client = session.client()
    resource = watched_resource(query)
    namespace = None if (not resource.namespaced or query.all_namespaces) else session.namespace
    source = _OneScopeSource(session, resource, namespace)
    listing = list_rows(source, query, row_of)
    events = _events(client, resource, namespace, query, row_of, source.resource_version)
    return Watching(None if watch_only else listing, events)


def _events(
    client: Client,
    resource: Resource,
    namespace: str | None,
    query: Query,
    row_of: Callable[[dict[str, Any], str | None], RowT],
    resource_version: str | None,
) -> Iterator[WatchEvent[RowT]]:
    names = set(query.names)
    for kind, obj in client.watch(
        resource, namespace, label_selector=query.label_selector, resource_version=resource_version
    ):
        if names and str((obj.get("metadata") or {}).get("name", "")) not in names:
            continue
        if query.ranges.active and not query.ranges.matches(obj):
            continue
        yield WatchEvent(kind, row_of(obj, _namespace_of(resource, obj)), obj)
