"""``list`` and ``catalog list``: the source for the flags (the cluster through the Session, or the embedded
catalog), narrowed to what fits a preference with ``--compatible-with``, listed into rows (:mod:`.listing`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .listing import ClusterSource, Listing, Query, Source, list_rows

if TYPE_CHECKING:
    from ..kube.session import Session

RowT = TypeVar("RowT")


def list_cluster(
    session: Session,
    query: Query,
    row_of: Callable[[dict[str, Any], str | None], RowT],
    *,
    compatible_with: str | None = None,
) -> Listing[RowT]:
    """List ``query`` from the cluster (both scopes, paged); with ``compatible_with`` (a preference reference)
    only the instance types that fit it."""
    client = session.client()
    source: Source = ClusterSource(client)
    if compatible_with:
        from .recommend import CompatibleSource, cluster_preference

        source = CompatibleSource(source, cluster_preference(client, compatible_with))
    return list_rows(source, query, row_of)


def list_catalog(
    version: str | None,
    namespace: str,
    query: Query,
    row_of: Callable[[dict[str, Any], str | None], RowT],
    *,
    compatible_with: str | None = None,
) -> Listing[RowT]:
    """List ``query`` from the embedded catalog release ``version`` (the newest when None), namespaced copies in
    ``namespace``; with ``compatible_with`` only the instance types that fit that catalog preference."""
    from ..catalog import DEFAULT_VERSION, load_catalog
    from .listing import CatalogSource

    catalog = load_catalog(version or DEFAULT_VERSION)
    source: Source = CatalogSource(catalog, namespace)
    if compatible_with:
        from .recommend import CompatibleSource, catalog_preference

        source = CompatibleSource(source, catalog_preference(catalog, compatible_with))
    return list_rows(source, query, row_of)


@dataclass
class CatalogObjects:
    """Catalog objects by name, each with its list kind (``instancetypes``/``preferences``), and the namespace of
    the namespaced copies (None for the cluster-scoped objects)."""

    objects: list[tuple[dict[str, Any], str]]
    namespace: str | None


def catalog_objects_named(version: str | None, names: list[str], namespace: str | None) -> CatalogObjects:
    """The instance types or preferences ``names`` of the embedded release ``version`` (namespaced copies in
    ``namespace`` unless it is None); a name the catalog lacks fails with the closest one as a hint."""
    import difflib

    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..errors import PluginError

    catalog = load_catalog(version or DEFAULT_VERSION)
    if namespace is not None:
        catalog = catalog.namespaced(namespace)
    found: list[tuple[dict[str, Any], str]] = []
    for name in names:
        obj, what = catalog.instancetype(name), "instancetypes"
        if obj is None:
            obj, what = catalog.preference(name), "preferences"
        if obj is None:
            known = [o["metadata"]["name"] for o in catalog.instancetypes + catalog.preferences]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise PluginError(f'"{name}" is not in the common-instancetypes {catalog.version} catalog{hint}')
        found.append((obj, what))
    return CatalogObjects(found, catalog.namespace)
