"""The ControllerRevisions behind a VirtualMachine's matchers (``revisions``) and switching its types
(``switch``): GETs and the one PUT, with the pure rules of :mod:`..instancetype.expand.revisions`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.session import Session


def cluster_fetch(client: Client) -> Callable[[str, str, str], Any]:
    """A look-up for the resolvers: ``fetch(kind, name, namespace)`` -> the object, or None when NotFound."""
    from ..errors import NotFoundError
    from ..kube.resources import BY_KIND, BY_LOWERCASE_KIND

    def fetch(kind: str, name: str, namespace: str) -> Any:
        resource = BY_KIND.get(kind) or BY_LOWERCASE_KIND[kind.lower()]
        try:
            return client.get(resource, name, namespace if resource.namespaced else None)
        except NotFoundError:
            return None

    return fetch


class SwitchPlan(NamedTuple):
    """The VM as stored, as it will be sent, the matchers whose revisionName is cleared, and the server's way
    of recording revisions."""

    vm: dict[str, Any]
    updated: dict[str, Any]
    cleared: list[str]
    flavour: str

    @property
    def unchanged(self) -> bool:
        """Every matcher already names what was asked for: nothing is to be sent."""
        return self.updated is self.vm


def plan_switch(client: Client, name: str, changes: list[tuple[str, str, str]], *, check: bool) -> SwitchPlan:
    """GET the VM, change its matchers (``(key, name, kind)`` each) the way the server expects, and run the
    pre-flight of the new combination unless ``check`` is off. Raises :class:`PreflightError` with every
    problem KubeVirt's admission would report (one per line)."""
    from ..errors import PreflightError
    from ..instancetype.expand import preflight
    from ..instancetype.expand.resolve import ResolveError, find_spec
    from ..instancetype.expand.revisions import server_flavour, switched
    from ..kube.resources import VIRTUAL_MACHINES

    vm: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, client.namespace)
    updated, cleared = vm, []
    for key, object_name, kind in changes:
        if _names_already(vm, key, object_name, kind):
            continue  # a no-op keeps the matcher (and its pinned revision) as it is
        updated, was_cleared = switched(updated, key, object_name, kind)
        if was_cleared:
            cleared.append(key)
    if check:
        fetch = cluster_fetch(client)
        try:
            # the unchanged matcher keeps its revision; the new one resolves to the live object
            specs = [find_spec(updated, key, fetch)[0] for key in ("instancetype", "preference")]
        except ResolveError as exc:
            raise PreflightError(str(exc)) from exc
        problems = preflight(updated, specs[0], specs[1])
        if problems:
            raise PreflightError("\nerror: ".join(problems))
    return SwitchPlan(vm, updated, cleared, server_flavour(vm))


def _names_already(vm: dict[str, Any], key: str, name: str, kind: str) -> bool:
    """True when the VM's matcher ``spec.<key>`` names ``kind``/``name`` already (kind spellings compared as
    KubeVirt reads them: empty is the cluster kind)."""
    from ..instancetype.expand.resolve import ResolveError, matcher_kind

    matcher = (vm.get("spec") or {}).get(key)
    if not isinstance(matcher, dict) or matcher.get("name") != name or matcher.get("inferFromVolume"):
        return False
    try:
        return matcher_kind(key, str(matcher.get("kind") or "")) == matcher_kind(key, kind)
    except ResolveError:
        return False


def apply_switch(client: Client, plan: SwitchPlan) -> None:
    """PUT the switched VM (the server refuses it if the VM changed since it was read)."""
    from ..kube.resources import VIRTUAL_MACHINES

    client.replace(VIRTUAL_MACHINES, plan.vm["metadata"]["name"], plan.vm["metadata"].get("namespace"), plan.updated)


@dataclass
class MatcherRevision:
    """What ``revisions`` reports of one matcher (``spec.instancetype`` or ``spec.preference``): the kind and
    name it names, the ControllerRevision in use and where it is recorded, the generation of the object the
    revision holds and of the live object ("-" when unknown, "not found"), whether the live spec changed since,
    and then the unified diff of the stored spec against the live one ("" when unchanged)."""

    matcher: str
    kind: str
    name: str
    revision: str = "-"
    recorded_in: str = "-"
    stored_generation: str = "-"
    live_generation: str = "-"
    changed: str = "-"
    diff: str = ""


@dataclass
class Revisions:
    """The VM's name, how its cluster records revisions (``server_flavour``), and one entry per matcher it has."""

    name: str
    flavour: str
    matchers: list[MatcherRevision]


def vm_revisions(session: Session, name: str) -> Revisions:
    """GET the VirtualMachine ``name`` and, for each of its matchers, the revision and the live object."""
    from ..instancetype.expand.revisions import server_flavour
    from ..kube.resources import VIRTUAL_MACHINES

    client = session.client()
    vm: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, session.namespace)
    reports = [matcher_revision(client, vm, key) for key in ("instancetype", "preference")]
    return Revisions(name, server_flavour(vm), [report for report in reports if report is not None])


def matcher_revision(client: Client, vm: dict[str, Any], key: str) -> MatcherRevision | None:
    """The report of matcher ``spec.<key>`` (None when the VM has no such matcher)."""
    from ..errors import NotFoundError
    from ..instancetype.expand.resolve import ResolveError, matcher_kind, revision_spec
    from ..instancetype.expand.revisions import (
        FROM_STATUS,
        KIND_LABEL,
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
    live = None
    if name and kind in BY_KIND:
        resource = BY_KIND[kind]
        try:
            live = client.get(resource, name, namespace if resource.namespaced else None)
            report.live_generation = str((live.get("metadata") or {}).get("generation", "-"))
        except NotFoundError:
            report.live_generation = "not found"
    if not revision_name:
        return report
    report.revision, report.recorded_in = revision_name, recorded_in
    try:
        revision = client.get(CONTROLLER_REVISIONS, revision_name, namespace)
    except NotFoundError:
        report.stored_generation = "not found"
        return report
    if recorded_in == FROM_STATUS and not revision_matches(vm, key, revision):
        # KubeVirt ignores it: the matcher was switched since it was stored
        labels = (revision.get("metadata") or {}).get("labels") or {}
        report.recorded_in = f"status (stale: for {labels.get('instancetype.kubevirt.io/object-name', '?')})"
        return report
    generation = revision_generation(revision)
    report.stored_generation = "-" if generation is None else str(generation)
    stored = revision_spec(revision)
    kind_label = ((revision.get("metadata") or {}).get("labels") or {}).get(KIND_LABEL)
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

    from ..output.goyaml import dump

    return "".join(
        difflib.unified_diff(
            dump(stored).splitlines(keepends=True),
            dump(live).splitlines(keepends=True),
            f"controllerrevision/{revision_name} spec",
            f"{live_name} spec (live)",
        )
    )
