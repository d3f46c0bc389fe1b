"""Listing instance types and preferences: source -> select -> rows.

A *source* yields objects of one kind with the scope they were found in: the cluster (through
:mod:`..kube`, one request per scope per page, the label selector evaluated by the API server) or the
embedded common-instancetypes catalog (no cluster; the selector evaluated here). *Select* applies the range
filters the server cannot evaluate. *Rows* are built by a function the caller passes in (the CLI builds
table cells from :mod:`..output.columns`), so large lists keep only what will be printed.
"""

from __future__ import annotations

from ..instancetype.listing import INSTANCETYPES, RangeFilter, SortBy, SortKey, sort_order
from ..records import dataclass, replace

# typing only to type checkers: the list path imports no typing (Source is a Protocol, Listing generic there)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Generic, Protocol, TypeVar

    from ..catalog import Catalog
    from ..kube.session import Session

    RowT = TypeVar("RowT")
    Consume = Callable[[dict[str, Any], "str | None"], None]

    class Source(Protocol):
        """Where objects come from. ``scan`` hands each object and its namespace (None: cluster-scoped) to
        ``consume`` and returns the warnings to show (a scope RBAC forbids)."""

        @property
        def namespace(self) -> str:
            """The namespace namespaced objects are listed from unless all namespaces are asked for."""
            ...

        def scan(self, query: Query, consume: Consume) -> list[str]:
            """Feed every object of the query's scopes to ``consume``."""
            ...

else:
    from ..records import Generic

    RowT = None


@dataclass(frozen=True)
class Query:
    """What to list: the kind, the scopes, the server-side selector and the client-side ranges (a record, not a
    NamedTuple: see :class:`..instancetype.listing.Filters`; :func:`..records.replace` makes a changed copy)."""

    what: str  # listing.INSTANCETYPES or listing.PREFERENCES
    label_selector: str
    ranges: RangeFilter
    all_namespaces: bool = False
    cluster_only: bool = False
    namespaced_only: bool = False
    chunk_size: int = 500
    sort_by: SortBy | None = None  # --sort-by, parsed once: name, cpu, memory, or kubectl's JSONPath
    names: tuple[str, ...] = ()  # only these objects (kubectl get TYPE NAME...)
    table: bool = True  # printed as a table (kubectl then sorts table rows: its messages differ)
    # the filters whose values are label values (--class, --size, --os-type, ...): (flag, label key, value)
    enumerated: tuple[tuple[str, str, str], ...] = ()
    # nothing reads the objects' metadata.managedFields (a table's cells): the list may leave them out undecoded
    without_managed_fields: bool = False


class ClusterSource:
    """The live cluster: both scopes, paged, the label selector evaluated by the API server."""

    def __init__(self, session: Session):
        self.session = session
        self.client = session.client()

    @property
    def namespace(self) -> str:
        """The Session's namespace (``-n``, else the context's, else ``default``)."""
        return self.session.namespace

    def scan(self, query: Query, consume: Consume) -> list[str]:
        """List every scope page by page; a scope RBAC forbids becomes a warning (all forbidden: an error)."""
        from ..kube import resources
        from ..kube.lister import Scope, list_scopes

        cluster_resource, namespaced_resource = (
            (resources.CLUSTER_INSTANCETYPES, resources.INSTANCETYPES)
            if query.what == INSTANCETYPES
            else (resources.CLUSTER_PREFERENCES, resources.PREFERENCES)
        )
        scopes = []
        if not query.namespaced_only:
            scopes.append(Scope(cluster_resource))
        if not query.cluster_only:
            scopes.append(Scope(namespaced_resource, None if query.all_namespaces else self.namespace))

        def each(scope: Scope, obj: dict[str, Any]) -> None:
            namespace = (obj.get("metadata") or {}).get("namespace") if scope.resource.namespaced else None
            consume(obj, namespace or None)

        forbidden = list_scopes(
            self.client,
            scopes,
            label_selector=query.label_selector,
            chunk_size=query.chunk_size,
            consume=each,
            managed_fields=not query.without_managed_fields,
        )
        return [f"{exc.message}; listing the other scopes only" for _, exc in forbidden]


class CatalogSource:
    """The embedded common-instancetypes catalog: cluster-scoped objects, or namespaced copies in
    ``namespace``; the label selector is evaluated here, as the API server would."""

    def __init__(self, catalog: Catalog, namespace: str = "default"):
        self.catalog = catalog
        self._namespace = namespace

    @property
    def namespace(self) -> str:
        """The namespace the namespaced copies are placed in."""
        return self._namespace

    def scan(self, query: Query, consume: Consume) -> list[str]:
        """Feed the catalog's objects of the query's kind and scopes that match the selector."""
        from ..instancetype.selectors import parse_selector

        selector = parse_selector(query.label_selector)
        catalogs: list[tuple[Catalog, str | None]] = []
        if not query.namespaced_only:
            catalogs.append((self.catalog, None))
        if not query.cluster_only:
            catalogs.append((self.catalog.namespaced(self._namespace), self._namespace))
        for catalog, namespace in catalogs:
            objects = catalog.instancetypes if query.what == INSTANCETYPES else catalog.preferences
            for obj in objects:
                if selector.matches((obj.get("metadata") or {}).get("labels")):
                    consume(obj, namespace)
        return []


@dataclass
class Listing(Generic[RowT]):
    """The rows in the order asked for, the warnings to print before them, and the namespace namespaced
    objects were listed from (for "No resources found in NAMESPACE namespace.")."""

    rows: list[RowT]
    warnings: list[str]
    namespace: str = ""
    missing: tuple[str, ...] = ()  # names asked for that matched no object
    seen: tuple[str, ...] = ()  # with names asked for: every name read (for "did you mean")


def list_rows(source: Source, query: Query, row_of: Callable[[dict[str, Any], str | None], RowT]) -> Listing[RowT]:
    """List ``query`` from ``source``: keep the objects within the ranges, make a row of each, and sort."""
    rows: list[RowT] = []
    keys: list[SortKey] = []
    ranges, what, sort_by = query.ranges, query.what, query.sort_by
    filtered = ranges.active  # once, not for each of tens of thousands of objects
    names = set(query.names)
    seen: list[str] = []

    def consume(obj: dict[str, Any], namespace: str | None) -> None:
        if names:
            name = str((obj.get("metadata") or {}).get("name", ""))
            seen.append(name)
            if name not in names:
                return
        if filtered and not ranges.matches(obj):
            return
        rows.append(row_of(obj, namespace))
        if sort_by is not None:
            keys.append(sort_by.key(obj, namespace, what))

    each: Consume = consume
    if not names and not filtered and sort_by is None:
        append = rows.append  # every object a row (a fleet list's 20,000): no test per object

        def every(obj: dict[str, Any], namespace: str | None) -> None:
            append(row_of(obj, namespace))

        each = every
    warnings = source.scan(query, each)
    if sort_by is not None:
        rows = [rows[index] for index in sort_order(keys, sort_by, table=query.table)]
    found = set(seen)
    missing = tuple(dict.fromkeys(name for name in query.names if name not in found))
    return Listing(rows, warnings, source.namespace, missing, tuple(seen))


def check_enumerated(source: Source, query: Query) -> None:
    """No silent empty answer to a value nothing carries: when ``query`` found nothing, each enumerated filter's
    value must be one the objects of the scope (the cluster's, or the catalog's) carry, else a
    :class:`UsageError` in pflag's words for a bad value, with the project's one did-you-mean
    (:func:`..golang.cobra.did_you_mean`) or the values there are. Read only after an empty answer (one more list)."""
    if not query.enumerated:
        return
    from ..errors import UsageError
    from ..golang.cobra import did_you_mean

    keys = {key for _, key, _ in query.enumerated}
    present: dict[str, set[str]] = {key: set() for key in keys}

    def consume(obj: dict[str, Any], namespace: str | None) -> None:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        for key in keys:
            if key in labels:
                present[key].add(str(labels[key]))

    source.scan(replace(query, label_selector="", names=(), chunk_size=500), consume)
    noun = "instance type" if query.what == INSTANCETYPES else "preference"
    for flag, key, value in query.enumerated:
        values = present[key]
        if value in values:
            continue
        what = key.rsplit("/", 1)[-1]
        close = did_you_mean(value, sorted(values))
        if close:
            hint = f" (did you mean {' or '.join(close)}?)"
        elif values:
            hint = f"; the values in scope are {', '.join(sorted(values))}"
        else:
            hint = f"; no {noun} in scope has the label {key}"
        raise UsageError(f'invalid argument "{value}" for "{flag}" flag: no {noun} in scope has {what} {value}{hint}')
