"""``derive``: an instance type copied from an existing one (the cluster's or the embedded catalog's) with new
vCPUs and/or memory (:mod:`..instancetype.derive`), then created like any object (:mod:`.creating`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PreflightError, UsageError
from .creating import Created, check_object_names, create_object

if TYPE_CHECKING:
    from ..kube.session import Session


@dataclass
class DeriveRequest:
    """The source (namespaced or cluster-scoped, or from the catalog release ``catalog_version``), the new
    name, the overrides, and where the copy goes (``namespaced``, or ``-n`` given: the session's namespace)."""

    source_name: str
    name: str
    source_namespaced: bool = False
    memory: str | None = None
    cpu: int | None = None
    namespaced: bool = False
    catalog: bool = False
    catalog_version: str | None = None


def derive_instancetype(session: Session, request: DeriveRequest, *, dry_run: str) -> Created:
    """Build the derived instance type and create it (``dry_run`` as kubectl's). ``--catalog`` with
    ``--dry-run=client`` needs no cluster: the namespace is ``-n``'s, else ``default``."""
    from ..kube import resources

    if session.namespace_flag and not request.namespaced:
        from dataclasses import replace

        request = replace(request, namespaced=True)  # -n (the Session's) names a namespace: the namespaced kind
    target = resources.INSTANCETYPES if request.namespaced else resources.CLUSTER_INSTANCETYPES
    if request.catalog:
        source = _catalog_source(request)
        if dry_run == "client":
            namespace = (session.namespace_flag or "default") if request.namespaced else None
            manifest = _build(source, request, namespace)
            check_object_names(manifest, target)
            return Created(manifest, target, dry_run)
    else:
        source = _cluster_source(session, request)
    namespace = session.namespace if request.namespaced else None
    manifest = _build(source, request, namespace)
    if dry_run == "client":
        check_object_names(manifest, target)
    return create_object(session, target, manifest, namespace, dry_run=dry_run)


def _build(source: dict[str, Any], request: DeriveRequest, namespace: str | None) -> dict[str, Any]:
    from ..instancetype.derive import DeriveError, derive

    try:
        return derive(source, name=request.name, memory=request.memory, cpu=request.cpu, namespace=namespace)
    except DeriveError as exc:
        raise UsageError(str(exc)) from None


def _catalog_source(request: DeriveRequest) -> dict[str, Any]:
    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..golang.cobra import did_you_mean

    embedded = load_catalog(request.catalog_version or DEFAULT_VERSION)
    found = embedded.instancetype(request.source_name)
    if found is None:
        names = [o["metadata"]["name"] for o in embedded.instancetypes]
        close = did_you_mean(request.source_name, names)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise PreflightError(
            f'instance type "{request.source_name}" not found in the common-instancetypes {embedded.version} '
            f"catalog{hint}"
        )
    return found


def _cluster_source(session: Session, request: DeriveRequest) -> dict[str, Any]:
    from ..instancetype import kinds
    from .references import TypeReference, require_types

    kind = kinds.INSTANCETYPE if request.source_namespaced else kinds.CLUSTER_INSTANCETYPE
    return require_types(session, [TypeReference(kind, request.source_name)], session.namespace)[0]
