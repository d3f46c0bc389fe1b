"""``matrix``: the instance types of the cluster (through the Session) or of the embedded catalog, as series by
size (:mod:`..instancetype.matrix`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .listing import CatalogSource, ClusterSource, Query, check_enumerated

if TYPE_CHECKING:
    from ..kube.session import Session
    from .listing import Source


@dataclass(frozen=True)
class ScopedObject:
    """An instance type as the source found it, and its namespace (None: cluster-scoped)."""

    obj: dict[str, Any]
    namespace: str | None


@dataclass
class SizeMatrix:
    """The matrix's header and rows (cells ``vCPU/memory``; empty when nothing was found), the warnings, and the
    instance types it was built from with their namespaces (None: cluster-scoped), for ``-o``."""

    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    objects: list[ScopedObject] = field(default_factory=list)


def size_matrix(
    session: Session | None, query: Query, *, catalog_version: str | None = None, namespace: str = "default"
) -> SizeMatrix:
    """The matrix of ``query``'s instance types from the cluster, or from the embedded catalog release
    ``catalog_version`` when ``session`` is None (namespaced copies in ``namespace``)."""
    from ..instancetype.matrix import build_matrix

    source: Source
    if session is None:
        from ..catalog import DEFAULT_VERSION, load_catalog

        source = CatalogSource(load_catalog(catalog_version or DEFAULT_VERSION), namespace)
    else:
        source = ClusterSource(session)
    objects: list[ScopedObject] = []
    warnings = source.scan(query, lambda obj, namespace: objects.append(ScopedObject(obj, namespace)))
    if not objects:
        check_enumerated(source, query)
        return SizeMatrix(warnings=warnings)
    matrix = build_matrix((found.obj["metadata"]["name"], found.obj.get("spec") or {}) for found in objects)
    return SizeMatrix(matrix.headers, matrix.rows, warnings, objects)
