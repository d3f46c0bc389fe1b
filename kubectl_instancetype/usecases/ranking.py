"""``recommend``'s entry point: the ranking of :mod:`.recommend` over the cluster's or the catalog's instance types,
or with ``fits`` over the cluster's that fit some node now (:mod:`.placement`; kept apart so that
:mod:`.recommend`, which the requirements hint of every expansion uses, does not import the launcher renderer)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..kube.session import Session
    from .recommend import Recommendation


def recommend_types(
    session: Session | None, reference: str | None, query: Any, *, fits: bool = False, **options: Any
) -> Recommendation:
    """:func:`.recommend.recommend_from`, or with ``fits`` :func:`.placement.recommend_fitting` (a cluster only)."""
    if fits and session is not None:
        from .placement import recommend_fitting

        keep = {k: v for k, v in options.items() if k in ("minimums", "architecture", "limit")}
        fitting: Recommendation = recommend_fitting(session, reference, query, **keep)
        return fitting
    from .recommend import recommend_from

    return recommend_from(session, reference, query, **options)
