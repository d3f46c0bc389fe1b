"""``list`` and ``catalog list``: the source for the flags (the cluster through the Session, or the embedded
catalog), narrowed to what fits a preference with ``--compatible-with``, listed into rows (:mod:`.listing`, the source -> select -> rows engine that describe, recommend, fits and
watching share; this module is apart from it because recommend's and placement's sources import that engine)."""

from __future__ import annotations

from .listing import ClusterSource, Listing, Query, check_enumerated, list_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from ..kube.session import Session
    from .listing import Source

    RowT = TypeVar("RowT")


def list_cluster(
    session: Session,
    query: Query,
    row_of: Callable[[dict[str, Any], str | None], RowT],
    *,
    compatible_with: str | None = None,
    fits: bool = False,
) -> Listing[RowT]:
    """List ``query`` from the cluster (both scopes, paged); with ``compatible_with`` (a preference reference)
    only the instance types that fit it; with ``fits`` only those whose VM fits some node now."""
    source: Source = ClusterSource(session)
    if compatible_with:
        from .recommend import CompatibleSource, cluster_preference

        source = CompatibleSource(source, cluster_preference(session, compatible_with))
    if fits:
        from .placement import FitsSource

        source = FitsSource(source, session, compatible_with or "")
    listing = list_rows(source, query, row_of)
    if not listing.rows:
        check_enumerated(ClusterSource(session), query)
    return listing


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
    listing = list_rows(source, query, row_of)
    if not listing.rows:
        check_enumerated(CatalogSource(catalog, namespace), query)
    return listing
