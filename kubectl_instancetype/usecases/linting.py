"""``lint``: the objects to check (``-f`` manifests, one cluster object, or every one in scope), the instance
types a preference is checked against, and the findings and fixes of :mod:`..instancetype.lint`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..instancetype.lint import Finding
    from ..kube.session import Session

# server-populated metadata left out of --fix output, so that it applies cleanly (kubectl apply -f -)
SERVER_FIELDS = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields")


@dataclass
class LintReport:
    """The objects checked, their findings, the corrected objects (``--fix``) and where candidates came from."""

    objects: list[dict[str, Any]]
    findings: list[Finding]
    fixed: list[dict[str, Any]] = field(default_factory=list)
    candidates_from: str = ""

    @property
    def unfixed(self) -> list[Finding]:
        """Findings ``--fix`` leaves to the user."""
        return [finding for finding in self.findings if not finding.fixable]


@dataclass(frozen=True)
class LintRequest:
    """What ``lint`` checks: the objects of ``filename`` (``-`` reads ``stdin``), else the cluster object
    ``kind``/``name`` of the session's namespace, else every instance type and preference in the session's
    namespace (``all_namespaces``: in every namespace) and cluster-wide; ``fix`` makes the corrected objects."""

    filename: str | None = None
    stdin: Any = None
    kind: str | None = None
    name: str | None = None
    all_namespaces: bool = False
    fix: bool = False


def lint(session: Session, request: LintRequest) -> LintReport:
    """``lint``: the findings (and with ``fix`` the corrections) for the objects ``request`` names."""
    if request.filename:
        return from_files(request.filename, request.stdin, fix=request.fix)
    if request.kind is not None:
        return from_cluster(session, session.namespace, request.kind, request.name, fix=request.fix)
    return from_cluster(session, None if request.all_namespaces else session.namespace, fix=request.fix)


def _clean(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = {key: value for key, value in (obj.get("metadata") or {}).items() if key not in SERVER_FIELDS}
    return {**{key: value for key, value in obj.items() if key != "status"}, "metadata": metadata}


def lint_objects(
    objects: list[dict[str, Any]], candidates: list[dict[str, Any]], candidates_from: str, *, fix: bool
) -> LintReport:
    """Lint ``objects`` (instance types and preferences; other kinds are skipped) against ``candidates``."""
    from ..instancetype import lint
    from ..instancetype.kinds import INSTANCETYPE_KINDS, PREFERENCE_KINDS

    chosen = [obj for obj in objects if obj.get("kind") in INSTANCETYPE_KINDS + PREFERENCE_KINDS]
    findings = lint.lint_all(chosen, candidates)
    fixed = [_clean(lint.fix(obj)[0]) for obj in chosen] if fix else []
    return LintReport(chosen, findings, fixed, candidates_from)


def from_files(path: str, stdin: Any, *, fix: bool) -> LintReport:
    """Lint the objects of ``-f``: preferences are checked against the file's instance types and the embedded
    common-instancetypes catalog."""
    from ..catalog.loader import load_catalog
    from ..instancetype.kinds import INSTANCETYPE_KINDS
    from .manifests import read_manifests

    objects = read_manifests(path, stdin)
    catalog = load_catalog()
    own = [obj for obj in objects if obj.get("kind") in INSTANCETYPE_KINDS]
    candidates = own + list(catalog.instancetypes)
    return lint_objects(
        objects, candidates, f"the file's instance types and common-instancetypes {catalog.version}", fix=fix
    )


def from_cluster(
    session: Session, namespace: str | None, kind: str | None = None, name: str | None = None, *, fix: bool
) -> LintReport:
    """Lint one cluster object (``kind``/``name``) or every instance type and preference in scope (``namespace``
    None: all namespaces); preferences are checked against the cluster's instance types."""
    from ..kube import resources

    client = session.client()
    kinds = (
        resources.CLUSTER_INSTANCETYPES,
        resources.INSTANCETYPES,
        resources.CLUSTER_PREFERENCES,
        resources.PREFERENCES,
    )
    listed: dict[str, list[dict[str, Any]]] = {}
    for resource in kinds:
        scope = namespace if resource.namespaced else None
        listed[resource.kind] = [
            {"apiVersion": resource.api_version, "kind": resource.kind, **item}
            for page in client.list_pages(resource, scope)
            for item in page.get("items") or ()
        ]
    candidates = listed["VirtualMachineClusterInstancetype"] + listed["VirtualMachineInstancetype"]
    if kind is not None:
        resource = resources.BY_KIND[kind]
        obj = client.get(resource, str(name), session.namespace if resource.namespaced else None)
        objects = [{"apiVersion": resource.api_version, "kind": resource.kind, **obj}]
    else:
        objects = [obj for resource in kinds for obj in listed[resource.kind]]
    return lint_objects(objects, candidates, "the cluster's instance types", fix=fix)
