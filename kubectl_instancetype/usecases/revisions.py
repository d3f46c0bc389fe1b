"""The ControllerRevisions behind a VirtualMachine's matchers (``revisions``), with the pure rules of
:mod:`..instancetype.expand.revisions`; ``switch`` lives in :mod:`.switching`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..golang.strconv import go_quote

if TYPE_CHECKING:
    from ..instancetype.expand.revisions import OwnedRevision
    from ..kube.client import Client
    from ..kube.session import Session


def cluster_fetch(client: Client) -> Callable[[str, str, str], Any]:
    """A look-up for the resolvers: ``fetch(kind, name, namespace)`` -> the object, or None when NotFound."""
    from ..errors import NotFoundError
    from ..kube.resources import BY_KIND

    def fetch(kind: str, name: str, namespace: str) -> Any:
        resource = BY_KIND[kind]  # the resolvers name kinds as objects carry them
        try:
            return client.get(resource, name, namespace if resource.namespaced else None)
        except NotFoundError:
            return None

    return fetch


@dataclass
class MatcherRevision:
    """What ``revisions`` reports of one matcher (``spec.instancetype`` or ``spec.preference``): the kind and
    name it names, the ControllerRevision in use and where it is recorded, the generation of the object the
    revision holds and of the live object ("-" when unknown, "not found"), whether the live spec changed since,
    then the unified diff of the stored spec against the live one ("" when unchanged), and ``notes``: what a
    "-", "not found" or stale reference in the row means, in words (printed under the table)."""

    matcher: str
    kind: str
    name: str
    revision: str = "-"
    recorded_in: str = "-"
    stored_generation: str = "-"
    live_generation: str = "-"
    changed: str = "-"
    diff: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class Revisions:
    """The VM's name, how its cluster records revisions (``server_flavour``), and one entry per matcher it has."""

    name: str
    flavour: str
    matchers: list[MatcherRevision]
    owned: list[OwnedRevision] = field(default_factory=list)  # every ControllerRevision the VM owns
    warnings: list[str] = field(default_factory=list)  # what could not be read (RBAC), one line each


@dataclass
class AllRevisions:
    """``revisions`` without a VM: every revision every VM of the scope owns (``namespace`` None: all)."""

    namespace: str | None
    owned: list[OwnedRevision]
    warnings: list[str] = field(default_factory=list)  # what could not be read (RBAC), one line each


def revisions(session: Session, name: str, all_namespaces: bool = False) -> Revisions | AllRevisions:
    """``revisions``: VM ``name``'s matchers and revisions, or without a name every VM's revisions."""
    return vm_revisions(session, name) if name else all_revisions(session, all_namespaces)


def vm_revisions(session: Session, name: str) -> Revisions:
    """GET the VirtualMachine ``name`` and, for each of its matchers, the revision and the live object; then
    every ControllerRevision it owns (older copies and ``revision-start-vm-...`` included)."""
    from ..instancetype.expand.revisions import owned_revisions, server_flavour
    from ..kube.resources import CONTROLLER_REVISIONS, VIRTUAL_MACHINES

    client = session.client()
    vm: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, session.namespace)
    reports = [matcher_revision(client, vm, key) for key in ("instancetype", "preference")]
    revisions = [
        item for page in client.list_pages(CONTROLLER_REVISIONS, session.namespace) for item in page.get("items") or ()
    ]
    started, warnings = _vmi_revisions(client, session.namespace)
    owned = owned_revisions(vm, revisions, started.get(name, ""))
    return Revisions(name, server_flavour(vm), [report for report in reports if report is not None], owned, warnings)


def all_revisions(session: Session, all_namespaces: bool) -> AllRevisions:
    """Every ControllerRevision each VirtualMachine of the session's namespace (or of all) owns: three paged
    lists (VMs, their VMIs, ControllerRevisions), grouped by owner."""
    from ..instancetype.expand.revisions import owned_revisions
    from ..kube.resources import CONTROLLER_REVISIONS, VIRTUAL_MACHINES

    client = session.client()
    namespace = None if all_namespaces else session.namespace
    by_owner: dict[str, list[dict[str, Any]]] = {}
    for page in client.list_pages(CONTROLLER_REVISIONS, namespace):
        for revision in page.get("items") or ():
            for ref in (revision.get("metadata") or {}).get("ownerReferences") or ():
                if ref.get("kind") == "VirtualMachine" and ref.get("uid"):
                    by_owner.setdefault(str(ref["uid"]), []).append(revision)
    started, warnings = _vmi_revisions(client, namespace)
    owned: list[OwnedRevision] = []
    for page in client.list_pages(VIRTUAL_MACHINES, namespace):
        for vm in page.get("items") or ():
            metadata = vm.get("metadata") or {}
            key = (
                f"{metadata.get('namespace')}/{metadata.get('name')}"
                if namespace is None
                else str(metadata.get("name"))
            )
            owned += owned_revisions(vm, by_owner.get(str(metadata.get("uid")), []), started.get(key, ""))
    owned.sort(key=lambda row: (row.namespace, row.vm, row.created, row.name))
    return AllRevisions(namespace, owned, warnings)


def _vmi_revisions(client: Client, namespace: str | None) -> tuple[dict[str, str], list[str]]:
    """``status.virtualMachineRevisionName`` of each VMI of the scope, by name (``namespace/name`` across all),
    and the warning to print when RBAC forbids listing VMIs (the table is still right, but CURRENT cannot name
    the revision a running VMI started from)."""
    from ..errors import ForbiddenError, NotFoundError
    from ..kube.resources import VIRTUAL_MACHINE_INSTANCES

    found: dict[str, str] = {}
    try:
        for page in client.list_pages(VIRTUAL_MACHINE_INSTANCES, namespace):
            for vmi in page.get("items") or ():
                metadata = vmi.get("metadata") or {}
                name = str(metadata.get("name"))
                key = f"{metadata.get('namespace')}/{name}" if namespace is None else name
                found[key] = str((vmi.get("status") or {}).get("virtualMachineRevisionName") or "")
    except ForbiddenError:
        where = "at the cluster scope" if namespace is None else f"in the namespace {go_quote(namespace)}"
        return found, [
            f"cannot list {VIRTUAL_MACHINE_INSTANCES.qualified} {where}: forbidden; CURRENT does not mark the "
            "start revisions that running VMIs use (ask for list on virtualmachineinstances to see them)"
        ]
    except NotFoundError:
        pass  # VMIs not served: nothing runs, so no start revision is in use
    return found, []


def matcher_revision(client: Client, vm: dict[str, Any], key: str) -> MatcherRevision | None:
    """The report of matcher ``spec.<key>`` (None when the VM has no such matcher)."""
    from ..errors import NotFoundError
    from ..instancetype.expand.resolve import ResolveError, matcher_kind, revision_spec
    from ..instancetype.expand.revisions import (
        FROM_SPEC,
        FROM_STATUS,
        OBJECT_KIND_LABEL,
        OBJECT_NAME_LABEL,
        revision_generation,
        revision_in_use,
        revision_matches,
    )
    from ..kube.resources import BY_KIND, CONTROLLER_REVISIONS

    matcher = (vm.get("spec") or {}).get(key)
    if matcher is None:
        return None
    namespace = vm["metadata"].get("namespace")
    name = str(matcher.get("name") or "")
    try:
        kind = matcher_kind(key, str(matcher.get("kind") or ""))
    except ResolveError:
        kind = str(matcher.get("kind"))
    revision_name, recorded_in = revision_in_use(vm, key)
    report = MatcherRevision(key, kind.lower(), name or f"(inferFromVolume {matcher.get('inferFromVolume')})")
    if not name:
        report.notes.append(
            f"spec.{key} names no {kind.lower()} yet: it is inferred from volume "
            f"{go_quote(str(matcher.get('inferFromVolume')))} when the VM is created (see `kubectl instancetype "
            f"infer vm/"
            f"{vm['metadata'].get('name')}`), so no revision is stored for it"
        )
    live = None
    if name and kind in BY_KIND:
        resource = BY_KIND[kind]
        try:
            live = client.get(resource, name, namespace if resource.namespaced else None)
            report.live_generation = str((live.get("metadata") or {}).get("generation", "-"))
        except NotFoundError:
            report.live_generation = "not found"
            report.notes.append(
                f"{kind.lower()} {go_quote(str(name))} no longer exists: only the stored revision (if any) still "
                "describes it"
            )
    if not revision_name:
        if name:
            report.notes.append(
                f"no revision stored yet for {kind.lower()} {go_quote(str(name))}: KubeVirt's controller stores one "
                "the first "
                f"time it syncs the VM (and records it in status.{key}Ref); until then the VM follows the live "
                "object, so STORED GEN and CHANGED are unknown (-)"
            )
        return report
    report.revision, report.recorded_in = revision_name, recorded_in
    try:
        revision = client.get(CONTROLLER_REVISIONS, revision_name, namespace)
    except NotFoundError:
        report.stored_generation = "not found"
        where = f"spec.{key}.revisionName" if recorded_in == FROM_SPEC else f"status.{key}Ref"
        report.notes.append(
            f"ControllerRevision {go_quote(str(revision_name))} named by {where} does not exist (deleted, or not "
            "yet written)"
        )
        return report
    if recorded_in == FROM_STATUS and not revision_matches(vm, key, revision):
        # KubeVirt ignores it: the matcher was switched since it was stored
        labels = (revision.get("metadata") or {}).get("labels") or {}
        stored_for = labels.get(OBJECT_NAME_LABEL, "?")
        report.recorded_in = f"status (stale: for {stored_for})"
        report.notes.append(
            f"revision {go_quote(str(revision_name))} in status.{key}Ref was stored for {kind.lower()} "
            f"{go_quote(str(stored_for))}, not for {go_quote(str(name))} that spec.{key} names now (the matcher was "
            "switched): KubeVirt ignores it and stores a "
            f"revision for {go_quote(str(name))} at its next sync of the VM"
        )
        return report
    generation = revision_generation(revision)
    report.stored_generation = "-" if generation is None else str(generation)
    stored = revision_spec(revision)
    kind_label = ((revision.get("metadata") or {}).get("labels") or {}).get(OBJECT_KIND_LABEL)
    if kind_label and report.kind == "-":
        report.kind = kind_label.lower()
    if live is None:
        return report
    changed = (live.get("spec") or {}) != stored
    report.changed = "yes" if changed else "no"
    if changed:
        report.diff = _spec_diff(stored, live.get("spec") or {}, revision_name, f"{kind.lower()}/{name}")
    return report


def _spec_diff(stored: Any, live: Any, revision_name: str, live_name: str) -> str:
    import difflib

    from ..golang.goyaml import dump

    return "".join(
        difflib.unified_diff(
            dump(stored).splitlines(keepends=True),
            dump(live).splitlines(keepends=True),
            f"controllerrevision/{revision_name} spec",
            f"{live_name} spec (live)",
        )
    )
