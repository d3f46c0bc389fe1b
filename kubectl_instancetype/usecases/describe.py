"""``describe``: one instance type or preference with what it gives, what it goes with, and who uses it.

For an instance type: the preferences with requirements it meets; for a preference: the instance types that
meet its requirements, smallest first (as recommend ranks them). Both: the VirtualMachines whose matcher
names it (every namespace for a cluster-scoped object, its own namespace otherwise). A relation the user
may not read (RBAC) becomes a warning, never a failure of the whole page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ForbiddenError
from ..instancetype import kinds as type_kinds
from ..instancetype.listing import INSTANCETYPES, PREFERENCES
from ..records import dataclass, field, replace

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.session import Session
    from .listing import ClusterSource, Query


@dataclass(frozen=True)
class ObjectName:
    """An object's name and namespace (None: cluster-scoped)."""

    name: str
    namespace: str | None


@dataclass
class Described:
    """One object and its relations."""

    obj: dict[str, Any]
    what: str  # INSTANCETYPES or PREFERENCES
    namespace: str | None  # None: cluster-scoped
    related: list[ObjectName] = field(default_factory=list)  # the objects satisfying it, or that it satisfies
    related_total: int = 0
    without_requirements: int = 0  # preferences with no requirements (any instance type meets them)
    vms: list[ObjectName] | None = None  # by namespace, then name; None when they could not be read
    warnings: list[str] = field(default_factory=list)


@dataclass
class Descriptions:
    """What ``describe`` found, the names that matched nothing, and every name read (for close names)."""

    found: list[Described]
    missing: tuple[str, ...]
    seen: tuple[str, ...]
    namespace: str
    query: Any
    warnings: list[str] = field(default_factory=list)


RELATED_LIMIT = 12


def describe(session: Session, query: Query, *, fall_back_to_preferences: bool) -> Descriptions:
    """Find the objects ``query`` names (both scopes unless it says one) and describe each; with
    ``fall_back_to_preferences`` a NAME that is no instance type is looked up among the preferences."""
    from .listing import ClusterSource, list_rows

    source = ClusterSource(session)
    listing = list_rows(source, query, lambda obj, namespace: (obj, namespace, query.what))
    rows, missing, seen = list(listing.rows), listing.missing, listing.seen
    warnings = list(listing.warnings)
    if missing and fall_back_to_preferences and query.what == INSTANCETYPES:
        preferences = replace(query, what=PREFERENCES, names=missing, label_selector="")
        more = list_rows(source, preferences, lambda obj, namespace: (obj, namespace, PREFERENCES))
        rows += more.rows
        missing, seen = more.missing, seen + more.seen
        warnings += more.warnings
    found = [_relations(source, obj, what, namespace) for obj, namespace, what in rows]
    return Descriptions(found, missing, seen, listing.namespace, query, warnings)


def _relations(source: ClusterSource, obj: dict[str, Any], what: str, namespace: str | None) -> Described:
    from ..instancetype.recommend import Minimums, evaluate, rank_key
    from ..kube import resources
    from .listing import Query

    client = source.client
    described = Described(obj, what, namespace)
    other = PREFERENCES if what == INSTANCETYPES else INSTANCETYPES
    # the other kind, in the same scopes a VM in this object's namespace could use: cluster plus that namespace
    scopes = Query(what=other, label_selector="", ranges=_no_ranges(), namespaced_only=False)
    if namespace is None:
        scopes = replace(scopes, cluster_only=True)
    pairs: list[tuple[dict[str, Any], str | None]] = []

    def keep(other_obj: dict[str, Any], other_namespace: str | None) -> None:
        if other_namespace in (None, namespace):
            pairs.append((other_obj, other_namespace))

    try:
        if namespace is not None:
            source_namespace = _InNamespace(source, namespace)
            described.warnings += source_namespace.scan(scopes, keep)
        else:
            described.warnings += source.scan(scopes, keep)
    except ForbiddenError as exc:
        described.warnings.append(f"{exc.message}; relations not shown")
    except Exception as exc:  # noqa: BLE001 - NothingListable and the like: the page still prints
        from ..errors import sentence

        described.warnings.append(f"{sentence(exc)}; relations not shown")
    spec = obj.get("spec") or {}
    matches: list[tuple[Any, str, str | None]] = []
    for other_obj, other_namespace in pairs:
        other_spec = other_obj.get("spec") or {}
        name = str((other_obj.get("metadata") or {}).get("name", ""))
        if what == INSTANCETYPES:
            if not other_spec.get("requirements"):
                described.without_requirements += 1
                continue
            if evaluate(spec, other_spec, Minimums(), None).fits:
                matches.append(((name,), name, other_namespace))
        elif evaluate(other_spec, spec, Minimums(), None).fits:
            matches.append((rank_key(other_spec, name, other_namespace), name, other_namespace))
    matches.sort(key=lambda match: match[0])
    described.related_total = len(matches)
    described.related = [ObjectName(name, other_namespace) for _, name, other_namespace in matches[:RELATED_LIMIT]]
    described.vms = _users(client, obj, what, namespace, described.warnings, resources)
    return described


class _InNamespace:
    """The cluster source with its namespace replaced (the described object's)."""

    def __init__(self, source: Any, namespace: str) -> None:
        self.source, self._namespace = source, namespace

    @property
    def namespace(self) -> str:
        return self._namespace

    def scan(self, query: Any, consume: Any) -> list[str]:
        from ..kube import resources
        from ..kube.lister import Scope, list_scopes

        cluster, namespaced = (
            (resources.CLUSTER_INSTANCETYPES, resources.INSTANCETYPES)
            if query.what == INSTANCETYPES
            else (resources.CLUSTER_PREFERENCES, resources.PREFERENCES)
        )
        scopes = [Scope(cluster), Scope(namespaced, self._namespace)]

        def each(scope: Any, obj: dict[str, Any]) -> None:
            consume(obj, self._namespace if scope.resource.namespaced else None)

        forbidden = list_scopes(self.source.client, scopes, label_selector="", chunk_size=500, consume=each)
        return [f"{exc.message}; showing the other scope only" for _, exc in forbidden]


def _no_ranges() -> Any:
    from ..instancetype.listing import Filters, RangeFilter

    return RangeFilter.from_filters(Filters(), INSTANCETYPES)


def _users(
    client: Client, obj: dict[str, Any], what: str, namespace: str | None, warnings: list[str], resources: Any
) -> list[ObjectName] | None:
    """The VMs whose instancetype/preference matcher names ``obj``, by namespace, then name."""
    name = str((obj.get("metadata") or {}).get("name", ""))
    # a VM matcher's kind is read as KubeVirt reads it (type_kinds.matcher_kind)
    type_kind = type_kinds.of(what, namespace is not None)
    matcher_field = type_kind.matcher
    users: list[ObjectName] = []
    try:
        for page in client.list_pages(resources.VIRTUAL_MACHINES, namespace, label_selector="", chunk_size=500):
            for vm in page.get("items") or ():
                matcher = (vm.get("spec") or {}).get(matcher_field) or {}
                kind = type_kinds.matcher_kind(str(matcher.get("kind") or ""), matcher_field)
                if matcher.get("name") == name and kind is type_kind:
                    metadata = vm.get("metadata") or {}
                    users.append(ObjectName(str(metadata.get("name", "")), str(metadata.get("namespace", ""))))
    except ForbiddenError as exc:
        warnings.append(f"{exc.message}; the VMs that use it are not shown")
        return None
    return sorted(users, key=lambda user: (user.namespace or "", user.name))
