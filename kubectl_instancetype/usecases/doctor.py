"""``doctor``: list what the rules of :mod:`..instancetype.doctor` need (VMs, ControllerRevisions, VMIs and VM
snapshot contents that name revisions, the four kinds, their CRDs) with paged lists, and run them. What RBAC
forbids is noted, and the checks that needed it are not run (never "no problems" after not looking).

``--fix`` (:class:`DoctorRequest` ``fix``) then makes the changes of :func:`..instancetype.doctor.fix_plan`, each
re-checked on a fresh read right before it is written, and reports each as it is made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..golang.strconv import go_quote

if TYPE_CHECKING:
    from ..instancetype.doctor import CRDVersions, Finding, Fix, NotFixed
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session


@dataclass(frozen=True)
class Change:
    """One change ``--fix`` made (or, with a dry run, would make): kubectl's ``resource/name`` and verb, and
    what it changed."""

    namespace: str
    object: str
    verb: str
    detail: str


@dataclass(frozen=True)
class DoctorRequest:
    """The scope (``all_namespaces``, else the session's namespace), ``fix`` (make the safe changes) and its
    ``dry_run`` (kubectl's none, client: re-check and write nothing, server: send with dryRun=All); ``changed``
    is called with each :class:`Change` as it is made."""

    all_namespaces: bool = False
    fix: bool = False
    dry_run: str = "none"
    changed: Callable[[Change], None] | None = None


@dataclass(frozen=True)
class DoctorReport:
    """The findings (errors first), the scope (``namespace`` None: every namespace), what could not be read
    (``warnings``) and the checks that were skipped for it; with ``--fix``, the changes made and the fixable
    findings left as they were (``not_fixed``)."""

    namespace: str | None
    findings: list[Finding]
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    checked_vms: int = 0
    checked_revisions: int = 0
    changes: list[Change] = field(default_factory=list)
    not_fixed: list[NotFixed] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)  # the findings whose every change was made
    others: list[Finding] = field(default_factory=list)  # --fix: the findings it never changes, after its changes

    @property
    def unfixed_errors(self) -> list[Finding]:
        """The error-severity findings that remain (all of them without --fix)."""
        from ..instancetype.doctor import ERROR

        return [f for f in self.findings if f.severity == ERROR and f not in self.fixed]


@dataclass
class _Read:
    """What one read of the scope found (None: forbidden)."""

    vms: list[dict[str, Any]] | None
    revisions: list[dict[str, Any]] | None
    named: set[tuple[str, str]] | None  # revisions VMIs and VM snapshot contents name


def doctor(session: Session, request: DoctorRequest) -> DoctorReport:
    """Read the scope, run every rule whose inputs could be read, and with ``request.fix`` make the fixes."""
    from ..instancetype import doctor as rules
    from ..instancetype.kinds import ALL
    from ..kube.resources import CUSTOM_RESOURCE_DEFINITIONS, type_resource

    client = session.client()
    namespace = None if request.all_namespaces else session.namespace
    unread = _Unread()
    skipped: list[str] = []

    read = _read(client, namespace, unread)
    live: dict[tuple[str, str, str], dict[str, Any]] = {}
    listed_kinds: list[str] = []
    for kind in ALL:
        objects = _listed(client, type_resource(kind), namespace if kind.namespaced else None, unread)
        if objects is None:
            skipped.append(f"drift and deprecated labels of {kind.plural}")
            continue
        listed_kinds.append(kind.kind)
        for obj in objects:
            metadata = obj.get("metadata") or {}
            live[(kind.kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))] = obj
    versions: dict[str, CRDVersions] = {}
    for kind in ALL:
        crd = _crd(client, CUSTOM_RESOURCE_DEFINITIONS, kind.qualified_plural, unread)
        if crd is not None:
            versions[kind.kind] = rules.crd_versions(crd)
    findings: list[Finding] = []
    if read.vms is None or read.revisions is None:
        skipped.append("every check on VMs and ControllerRevisions")
    else:
        by_key = {_key(r): r for r in read.revisions}
        findings += rules.missing_revisions(read.vms, by_key)
        if read.named is None:
            skipped.append("orphaned revisions (VMIs or VM snapshot contents not read)")
        else:
            findings += rules.orphan_revisions(read.vms, read.revisions, read.named)
        findings += rules.duplicate_revisions(read.revisions)
        findings += rules.drift(read.vms, by_key, live)
        if len(versions) < len(ALL):
            skipped.append("API versions of stored revisions (CustomResourceDefinitions not read)")
        findings += rules.unserved_revisions(
            read.vms, read.revisions, {kind: facts.served for kind, facts in versions.items()}
        )
    findings += rules.deprecated_versions(read.vms or (), read.revisions or (), versions)
    findings = rules.ordered(findings)
    warnings = unread.lines()
    report = DoctorReport(namespace, findings, warnings, skipped, len(read.vms or ()), len(read.revisions or ()))
    if not request.fix:
        return report
    plan, left = rules.fix_plan(findings, read.vms or (), live, listed_kinds)
    changes: list[Change] = []
    fixed: list[Finding] = []
    orphans: dict[str, _Orphans] = {}  # namespace -> its re-read, once, just before its first deletion
    for fix in plan:
        try:
            made, reason = _apply(client, fix, request.dry_run, orphans)
        except _NotFixed as exc:
            made, reason = [], str(exc)
        for change in made:
            changes.append(change)
            if request.changed is not None:
                request.changed(change)
        if reason:
            left.append(rules.NotFixed(fix.finding, reason))
        else:
            fixed.append(fix.finding)
    # identical copies are counted again without the orphans deleted (one of them may have been in a group)
    deleted = {(f.namespace, f.revision) for f in fixed if f.check == "orphan-revision"}
    others = [f for f in findings if f.check not in rules.FIXABLE and f.check != "identical-revisions"]
    others += rules.duplicate_revisions(r for r in read.revisions or () if _key(r) not in deleted)
    return DoctorReport(
        namespace,
        findings,
        warnings,
        skipped,
        report.checked_vms,
        report.checked_revisions,
        changes,
        left,
        fixed,
        rules.ordered(others),
    )


class _Unread:
    """What could not be read, as few lines as possible: the lists RBAC forbade grouped by scope, the CRDs it
    forbade in one line, and anything else as it came."""

    def __init__(self) -> None:
        self.lists: dict[str, list[str]] = {}  # where -> resources
        self.crds: list[str] = []
        self.other: list[str] = []

    def lines(self) -> list[str]:
        lines = [f"forbidden to list {', '.join(what)} {where}" for where, what in self.lists.items()]
        if self.crds:
            from ..kube.resources import CUSTOM_RESOURCE_DEFINITIONS

            lines.append(f"forbidden to get {CUSTOM_RESOURCE_DEFINITIONS.qualified} {', '.join(self.crds)}")
        return lines + self.other


class _NotFixed(Exception):
    """A fix found, on its re-check or its write, that it must not (or could not) be made."""


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    metadata = obj.get("metadata") or {}
    return str(metadata.get("namespace") or ""), str(metadata.get("name") or "")


def _read(client: Client, namespace: str | None, unread: _Unread) -> _Read:
    """VMs, ControllerRevisions, and the revisions VMIs and VM snapshot contents name, in ``namespace``."""
    from ..instancetype.doctor import named_elsewhere
    from ..kube.resources import (
        CONTROLLER_REVISIONS,
        VIRTUAL_MACHINE_INSTANCES,
        VIRTUAL_MACHINE_SNAPSHOT_CONTENTS,
        VIRTUAL_MACHINES,
    )

    vms = _listed(client, VIRTUAL_MACHINES, namespace, unread)
    revisions = _listed(client, CONTROLLER_REVISIONS, namespace, unread)
    vmis = _listed(client, VIRTUAL_MACHINE_INSTANCES, namespace, unread, absent_is_empty=True)
    contents = _listed(client, VIRTUAL_MACHINE_SNAPSHOT_CONTENTS, namespace, unread, absent_is_empty=True)
    named = None if vmis is None or contents is None else named_elsewhere(vmis, contents)
    return _Read(vms, revisions, named)


def _listed(
    client: Client,
    resource: Resource,
    scope: str | None,
    unread: _Unread,
    *,
    absent_is_empty: bool = False,
) -> list[dict[str, Any]] | None:
    """Every object of ``resource`` in ``scope``, or None (a warning) when RBAC forbids the list.
    ``absent_is_empty``: a resource the server does not serve (404: its CRD is not installed) has no objects."""
    from ..errors import ForbiddenError, NotFoundError

    try:
        return [item for page in client.list_pages(resource, scope) for item in page.get("items") or ()]
    except ForbiddenError:
        where = "at the cluster scope" if scope is None else f"in the namespace {go_quote(scope)}"
        unread.lists.setdefault(where, []).append(resource.qualified)
        return None
    except NotFoundError:
        if absent_is_empty:
            return []
        raise


def _crd(client: Client, resource: Resource, name: str, unread: _Unread) -> dict[str, Any] | None:
    """The CRD ``name``, or None (a warning) when it cannot be read."""
    from ..errors import ForbiddenError, NotFoundError

    try:
        return client.get(resource, name)
    except ForbiddenError:
        unread.crds.append(name)
    except NotFoundError:
        unread.other.append(f"{resource.qualified} {go_quote(name)} not found: is KubeVirt installed?")
    return None


def _apply(client: Client, fix: Fix, dry_run: str, orphans: dict[str, _Orphans]) -> tuple[list[Change], str]:
    """Re-check ``fix`` on a fresh read, then make it (``dry_run`` client: make nothing). Returns the changes
    made, and why the rest was not ("" when all was)."""
    from ..instancetype.doctor import CLEAR_REFERENCE

    if fix.action == CLEAR_REFERENCE:
        return _clear_reference(client, fix, dry_run)
    return _delete_orphan(client, fix, dry_run, orphans)


def _clear_reference(client: Client, fix: Fix, dry_run: str) -> tuple[list[Change], str]:
    """Remove ``spec.<key>.revisionName`` (when set) and then ``status.<key>Ref.controllerRevisionRef`` (when
    set) of the VM, each by a JSON patch whose ``test`` operation makes the server refuse it when the reference
    no longer names the missing revision. Re-checked first: the VM still names it and it still does not exist."""
    from ..errors import NotFoundError, PluginError, sentence
    from ..instancetype.expand.revisions import revision_in_use
    from ..kube.client import JSON_PATCH
    from ..kube.resources import CONTROLLER_REVISIONS, VIRTUAL_MACHINES

    try:
        vm = client.get(VIRTUAL_MACHINES, fix.name, fix.namespace)
    except NotFoundError:
        raise _NotFixed("the VM no longer exists") from None
    if revision_in_use(vm, fix.key)[0] != fix.revision:
        raise _NotFixed(f"the VM no longer names {fix.revision} (changed since it was checked)")
    try:
        client.get(CONTROLLER_REVISIONS, fix.revision, fix.namespace)
    except NotFoundError:
        pass
    else:
        raise _NotFixed(f"ControllerRevision {fix.revision} exists again (created since it was checked)")
    spec_name = ((vm.get("spec") or {}).get(fix.key) or {}).get("revisionName")
    status_name = (((vm.get("status") or {}).get(f"{fix.key}Ref") or {}).get("controllerRevisionRef") or {}).get("name")
    steps: list[tuple[str, str, str]] = []  # (subresource, test path, remove path)
    if spec_name:
        path = f"/spec/{fix.key}/revisionName"
        steps.append(("", path, path))
    if status_name:
        path = f"/status/{fix.key}Ref/controllerRevisionRef"
        steps.append(("status", path + "/name", path))
    made: list[Change] = []
    for subresource, test, remove in steps:
        value = spec_name if not subresource else status_name
        body = [{"op": "test", "path": test, "value": value}, {"op": "remove", "path": remove}]
        if dry_run != "client":
            try:
                client.patch(
                    VIRTUAL_MACHINES,
                    fix.name,
                    fix.namespace,
                    body,
                    JSON_PATCH,
                    dry_run=dry_run == "server",
                    subresource=subresource,
                )
            except PluginError as exc:
                return made, f"patching {remove.lstrip('/').replace('/', '.')} failed: {sentence(exc)}"
        made.append(
            Change(
                fix.namespace,
                f"virtualmachine.kubevirt.io/{fix.name}",
                "patched",
                f"removed {remove.lstrip('/').replace('/', '.')} (ControllerRevision {fix.revision} does not exist)",
            )
        )
    return made, ""


@dataclass(frozen=True)
class _Orphans:
    """A namespace re-read before its orphans are deleted: the orphans' names and the revisions as read now."""

    names: frozenset[str]
    revisions: dict[str, dict[str, Any]]


def _orphans_now(client: Client, namespace: str) -> _Orphans:
    """Read ``namespace`` again (its VMs, revisions, VMIs and VM snapshot contents) and judge its orphans."""
    from ..instancetype.doctor import orphan_revisions

    unread = _Unread()
    fresh = _read(client, namespace, unread)
    if fresh.vms is None or fresh.revisions is None or fresh.named is None:
        raise _NotFixed(f"could not re-read the namespace before deleting ({'; '.join(unread.lines())})")
    names = frozenset(f.revision for f in orphan_revisions(fresh.vms, fresh.revisions, fresh.named))
    return _Orphans(names, {_key(r)[1]: r for r in fresh.revisions})


def _delete_orphan(client: Client, fix: Fix, dry_run: str, orphans: dict[str, _Orphans]) -> tuple[list[Change], str]:
    """Delete an orphaned revision after re-reading its namespace (once for all its orphans, just before the
    first: still an orphan; deleting an orphan makes no other revision used), with preconditions on the uid and
    resourceVersion of what was re-read (the server refuses with 409 Conflict when the revision changed since)."""
    from ..errors import APIError, NotFoundError, PluginError, sentence
    from ..kube.resources import CONTROLLER_REVISIONS

    if fix.namespace not in orphans:
        orphans[fix.namespace] = _orphans_now(client, fix.namespace)
    now = orphans[fix.namespace]
    revision = now.revisions.get(fix.revision)
    if revision is None:
        raise _NotFixed("it no longer exists")
    if fix.revision not in now.names:
        raise _NotFixed("it is no longer an orphan (a VM or another object owns or names it now)")
    metadata = revision.get("metadata") or {}
    preconditions = {"uid": str(metadata.get("uid")), "resourceVersion": str(metadata.get("resourceVersion"))}
    if dry_run != "client":
        try:
            client.delete(
                CONTROLLER_REVISIONS,
                fix.revision,
                fix.namespace,
                dry_run=dry_run == "server",
                preconditions=preconditions,
            )
        except NotFoundError:
            raise _NotFixed("it was deleted meanwhile") from None
        except APIError as exc:
            if exc.code == 409:  # the precondition: another uid or resourceVersion now
                raise _NotFixed("it changed after it was re-checked (the delete's precondition failed)") from None
            return [], f"deleting failed: {sentence(exc)}"
        except PluginError as exc:
            return [], f"deleting failed: {sentence(exc)}"
    return [Change(fix.namespace, f"controllerrevision.apps/{fix.revision}", "deleted", fix.finding.finding)], ""
