"""``doctor``: list what the rules of :mod:`..instancetype.doctor` need (VMs, ControllerRevisions, the four kinds,
their CRDs) with paged lists, and run them. What RBAC forbids is a warning, and the checks that needed it are
not run (never "no problems" after not looking)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..golang.strconv import go_quote

if TYPE_CHECKING:
    from ..instancetype.doctor import Finding
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session


@dataclass(frozen=True)
class DoctorReport:
    """The findings (errors first), the scope (``namespace`` None: every namespace), what could not be read
    (one warning line each) and the checks that were skipped for it."""

    namespace: str | None
    findings: list[Finding]
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    checked_vms: int = 0
    checked_revisions: int = 0


class _Forbidden(Exception):
    pass


def doctor(session: Session, all_namespaces: bool) -> DoctorReport:
    """Read the scope and run every rule whose inputs could be read."""
    from ..instancetype import doctor as rules
    from ..instancetype.kinds import ALL
    from ..kube.resources import CONTROLLER_REVISIONS, CUSTOM_RESOURCE_DEFINITIONS, VIRTUAL_MACHINES, type_resource

    client = session.client()
    namespace = None if all_namespaces else session.namespace
    warnings: list[str] = []
    skipped: list[str] = []

    def listed(resource: Resource, scope: str | None) -> list[dict[str, Any]] | None:
        from ..errors import ForbiddenError

        try:
            return _items(client, resource, scope)
        except ForbiddenError:
            where = "at the cluster scope" if scope is None else f"in the namespace {go_quote(scope)}"
            warnings.append(f"cannot list {resource.qualified} {where}: forbidden")
            return None

    vms = listed(VIRTUAL_MACHINES, namespace)
    revisions = listed(CONTROLLER_REVISIONS, namespace)
    live: dict[tuple[str, str, str], dict[str, Any]] = {}
    for kind in ALL:
        objects = listed(type_resource(kind), namespace if kind.namespaced else None)
        if objects is None:
            skipped.append(f"drift and deprecated labels of {kind.plural}")
            continue
        for obj in objects:
            metadata = obj.get("metadata") or {}
            live[(kind.kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))] = obj
    served: dict[str, frozenset[str]] = {}
    for kind in ALL:
        crd = _crd(client, CUSTOM_RESOURCE_DEFINITIONS, kind.qualified_plural, warnings)
        if crd is not None:
            versions = (crd.get("spec") or {}).get("versions") or ()
            served[kind.kind] = frozenset(str(v.get("name")) for v in versions if v.get("served"))
    findings: list[Finding] = []
    if vms is None or revisions is None:
        skipped.append("every check on VMs and ControllerRevisions")
    else:
        by_key = {
            (str((r.get("metadata") or {}).get("namespace") or ""), str((r.get("metadata") or {}).get("name") or "")): r
            for r in revisions
        }
        findings += rules.missing_revisions(vms, by_key)
        findings += rules.orphan_revisions(vms, revisions)
        findings += rules.duplicate_revisions(revisions)
        findings += rules.drift(vms, by_key, live)
        if len(served) < len(ALL):
            skipped.append("API versions of stored revisions (CustomResourceDefinitions not read)")
        findings += rules.unserved_revisions(vms, revisions, served)
    return DoctorReport(
        namespace,
        rules.ordered(findings),
        warnings,
        skipped,
        len(vms or ()),
        len(revisions or ()),
    )


def _items(client: Client, resource: Resource, namespace: str | None) -> list[dict[str, Any]]:
    return [item for page in client.list_pages(resource, namespace) for item in page.get("items") or ()]


def _crd(client: Client, resource: Resource, name: str, warnings: list[str]) -> dict[str, Any] | None:
    """The CRD ``name``, or None (a warning) when it cannot be read."""
    from ..errors import ForbiddenError, NotFoundError

    try:
        return client.get(resource, name)
    except ForbiddenError:
        warnings.append(f"cannot get {resource.qualified} {go_quote(name)}: forbidden")
    except NotFoundError:
        warnings.append(f"{resource.qualified} {go_quote(name)} not found: is KubeVirt installed?")
    return None
