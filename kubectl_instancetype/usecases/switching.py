"""``switch``: what KubeVirt will do with a changed instance type or preference (the plan), the write, what the
controller then did (``--wait``), and moving a VM to the current generation of its types (``--refresh``).

The plan reads the VM, its VMI, the ControllerRevision the VMI started from (``status.virtualMachineRevisionName``:
KubeVirt's ``revision-start-vm-<uid>-<generation>``) and the KubeVirt CR's rollout strategy, applies the old and
the new instance type and preference as KubeVirt's ``ApplyToVM`` does, and hands both templates to the pure
:func:`..instancetype.liveupdate.plan_live_update`. Nothing here prints; every function returns data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..golang.strconv import go_quote

if TYPE_CHECKING:
    from ..instancetype.liveupdate import FailureCondition, LivePlan
    from ..kube.client import Client
    from ..kube.session import Session

KEYS = ("instancetype", "preference")
KUBEVIRT_DEFAULT = "the default (LiveUpdate since KubeVirt v1.6)"


@dataclass(frozen=True)
class MatcherChange:
    """One matcher before and after (``kind/name`` as the VM names it)."""

    key: str
    before: str
    after: str
    cleared_revision: bool = False


@dataclass(frozen=True)
class MatcherTarget:
    """What one matcher is switched to: ``spec.<key>`` names ``kind``/``name`` ("" kind: KubeVirt's default)."""

    key: str
    name: str
    kind: str = ""


@dataclass(frozen=True)
class PlannedRevision:
    """A ControllerRevision ``--refresh`` creates for matcher ``spec.<key>`` (pinned by ``revisionName``)."""

    key: str
    revision: dict[str, Any]


@dataclass(frozen=True)
class Rollout:
    """The KubeVirt CR's ``spec.configuration.vmRolloutStrategy``, where it was read, and what could not be."""

    strategy: str
    source: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class StartTemplate:
    """The template a running VM started with, applied (None when it cannot be known), and why not."""

    template: dict[str, Any] | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refreshed:
    """``--refresh``'s VM (each matcher pinned to a new revision), the revisions to create, and notes."""

    vm: dict[str, Any]
    revisions: tuple[PlannedRevision, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class VMICondition:
    """A hotplug condition on the VMI: its type, status, and reason (else message)."""

    type: str
    status: str
    detail: str


@dataclass(frozen=True)
class VMIChange:
    """A live change the plan expected, with the value before and the value now on the VMI."""

    path: str
    before: Any
    after: Any


@dataclass(frozen=True)
class SwitchPlan:
    """Everything known before the write: the VM as stored and as it will be sent, the matchers that change,
    how the cluster records revisions, and the controller's expected answer."""

    name: str
    namespace: str
    vm: dict[str, Any]
    updated: dict[str, Any]
    changes: tuple[MatcherChange, ...]
    flavour: str
    live: LivePlan
    strategy_source: str
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # what could not be read (RBAC), for stderr
    refresh: tuple[PlannedRevision, ...] = ()  # the ControllerRevisions --refresh creates

    @property
    def noop(self) -> bool:
        """True when nothing would be written."""
        return self.updated == self.vm and not self.refresh


@dataclass
class SwitchOutcome:
    """What the controller did after the write, as ``--wait`` observed it."""

    revisions: dict[str, str] = field(default_factory=dict)  # key -> ControllerRevision now recorded
    restart_required: str | None = None
    failure: FailureCondition | None = None  # the VM's Failure condition
    vmi_conditions: list[VMICondition] = field(default_factory=list)
    vmi_changes: list[VMIChange] = field(default_factory=list)
    timed_out: bool = False
    agrees: bool = True
    disagreement: str = ""


@dataclass(frozen=True)
class SwitchRequest:
    """``switch``: the VM ``name``, the matchers to change (or ``refresh``: each to its object's current
    generation), whether the new combination is checked first, whether anything is written (``plan_only``), and
    how long the controller is watched afterwards (``wait``: ``wait_seconds``; a refresh waits up to ten seconds
    without it, so that its pins can come off), with the clock and sleep to do it."""

    name: str
    changes: tuple[MatcherTarget, ...] = ()
    check: bool = True
    refresh: bool = False
    plan_only: bool = False
    wait: bool = False
    wait_seconds: float = 0.0
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


@dataclass(frozen=True)
class SwitchResult:
    """What ``switch`` did: the plan; the VM as stored after the write (None: nothing was written); what the
    controller then did (None: not watched); and, after a refresh, whether the pins stay because the controller
    had not recorded the new revisions yet."""

    plan: SwitchPlan
    written: dict[str, Any] | None = None
    outcome: SwitchOutcome | None = None
    pins_kept: bool = False


REFRESH_WAIT = 10.0  # seconds a refresh watches the controller without --wait, before taking its pins off


def switch(
    session: Session,
    request: SwitchRequest,
    *,
    planned: Callable[[SwitchPlan], None] = lambda plan: None,
    written: Callable[[SwitchPlan], None] = lambda plan: None,
) -> SwitchResult:
    """``switch``: plan (:func:`plan_switch`); unless there is nothing to do or only the plan is asked for,
    write (:func:`apply_switch`) and watch the controller (:func:`observe`). ``planned`` receives the plan before
    anything is written (a no-op switch, which sends nothing, is not handed over), and again to ``written`` as
    soon as the write is done (before the wait)."""
    plan = plan_switch(session, request.name, list(request.changes), check=request.check, refresh=request.refresh)
    if plan.noop and not request.refresh:
        return SwitchResult(plan)
    if request.plan_only and plan.changes:
        from dataclasses import replace

        from .placement import fit_warning

        line = fit_warning(session, plan.updated, plan.namespace)
        if line:
            plan = replace(plan, warnings=(*plan.warnings, line))
    planned(plan)
    if request.plan_only or plan.noop:
        return SwitchResult(plan)
    stored = apply_switch(session, plan)
    written(plan)
    if not (request.wait or request.refresh):
        return SwitchResult(plan, stored)
    outcome = observe(
        session,
        plan,
        stored,
        timeout=request.wait_seconds if request.wait else min(request.wait_seconds, REFRESH_WAIT),
        clock=request.clock,
        sleep=request.sleep,
    )
    pins_kept = bool(request.refresh and plan.refresh and unpin_refreshed(session, plan) is None)
    return SwitchResult(plan, stored, outcome, pins_kept)


def describe_matcher(vm: dict[str, Any], key: str) -> str:
    """``kind/name`` (or ``name``; ``(none)``) of matcher ``spec.<key>``."""
    matcher = (vm.get("spec") or {}).get(key)
    if not matcher:
        return "(none)"
    kind = matcher.get("kind")
    name = matcher.get("name") or f"(inferFromVolume {matcher.get('inferFromVolume')})"
    return f"{kind}/{name}" if kind else str(name)


def rollout(client: Client) -> Rollout:
    """The KubeVirt CR's ``spec.configuration.vmRolloutStrategy``, where it was read, and warnings.

    Listing ``kubevirts`` in all namespaces needs a permission many users lack: then the default is assumed
    with one warning that says so."""
    from ..errors import APIError, NotFoundError
    from ..instancetype.liveupdate import rollout_strategy
    from ..kube.resources import KUBEVIRTS

    try:
        items = [item for page in client.list_pages(KUBEVIRTS, None) for item in page.get("items") or ()]
    except NotFoundError:  # no KubeVirt CRD served: nothing configures a strategy
        return Rollout(rollout_strategy(None), KUBEVIRT_DEFAULT)
    except APIError as exc:
        return Rollout(
            rollout_strategy(None),
            KUBEVIRT_DEFAULT,
            (f"cannot read the KubeVirt CR ({exc}); assuming the LiveUpdate rollout strategy",),
        )
    if not items:
        return Rollout(rollout_strategy(None), KUBEVIRT_DEFAULT)
    kubevirt = items[0]
    metadata = kubevirt.get("metadata") or {}
    source = f"KubeVirt CR {metadata.get('namespace')}/{metadata.get('name')}"
    return Rollout(rollout_strategy(kubevirt), source)


def applied_template(vm: dict[str, Any], fetch: Callable[[str, str, str], Any]) -> dict[str, Any]:
    """``spec.template.spec`` with the instance type and preference the VM's matchers resolve to applied, as
    KubeVirt's ``ApplyToVM`` does (no VMI defaults). Raises :class:`PreflightError` on conflicts or a matcher
    that cannot be followed."""
    from ..errors import PreflightError
    from ..instancetype.expand import apply_to_template
    from ..instancetype.expand._tree import clone
    from ..instancetype.expand.conflicts import conflicts_error
    from ..instancetype.expand.resolve import ResolveError, find_spec

    copy: dict[str, Any] = clone(vm)
    copy.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    try:
        specs = [find_spec(copy, key, fetch)[0] for key in KEYS]
    except ResolveError as exc:
        raise PreflightError(str(exc)) from exc
    conflicts = apply_to_template(copy, specs[0], specs[1])
    if conflicts:
        raise PreflightError(conflicts_error(conflicts))
    return dict(copy["spec"]["template"]["spec"])


def get_or_none(client: Client, resource: Any, name: str, namespace: str | None) -> Any:
    from ..errors import NotFoundError

    try:
        return client.get(resource, name, namespace)
    except NotFoundError:
        return None


def start_template(
    client: Client, vm: dict[str, Any], vmi: dict[str, Any], fetch: Callable[[str, str, str], Any]
) -> StartTemplate:
    """The template the running VM started with, applied, and notes: the VMI's
    ``status.virtualMachineRevisionName`` holds the VM spec at start with the revisions then in use pinned
    (``patchVMRevision`` in vm.go)."""
    from ..errors import APIError, PreflightError
    from ..kube.resources import CONTROLLER_REVISIONS

    revision_name = (vmi.get("status") or {}).get("virtualMachineRevisionName")
    namespace = str(vm["metadata"].get("namespace") or "")
    if not revision_name:
        return StartTemplate(
            None, ("the VMI names no start revision: KubeVirt compares nothing and sets no condition",)
        )
    try:
        revision = get_or_none(client, CONTROLLER_REVISIONS, str(revision_name), namespace)
    except APIError as exc:
        # the VM as stored stands in for what it started with: right unless a change is already pending
        return StartTemplate(
            applied_template(vm, fetch),
            (f"cannot read the VM's start revision {revision_name} ({exc}): the VM as stored stands in for it",),
        )
    if revision is None:
        return StartTemplate(None, (f"the VM's start revision {revision_name} is gone: KubeVirt compares nothing",))
    data = revision.get("data") or {}
    started = {"metadata": vm.get("metadata") or {}, "spec": data.get("spec") or {}}
    try:
        return StartTemplate(applied_template(started, fetch))
    except PreflightError as exc:
        return StartTemplate(None, (f"cannot apply the start revision's types ({exc})",))


def plan_switch(
    session: Session,
    name: str,
    changes: list[MatcherTarget],
    *,
    check: bool = True,
    refresh: bool = False,
) -> SwitchPlan:
    """GET the VM (and its VMI, start revision, the KubeVirt CR), change its matchers (one :class:`MatcherTarget`
    each) the way the server expects, check the new combination as admission would unless ``check`` is off,
    and plan what the controller will do. ``refresh`` moves each matcher to its object's current generation."""
    from ..errors import PreflightError
    from ..instancetype.expand import preflight
    from ..instancetype.expand.resolve import ResolveError, find_spec
    from ..instancetype.expand.revisions import OBJECT_GENERATION_LABEL, server_flavour, switched
    from ..instancetype.liveupdate import LivePlan, plan_live_update
    from ..kube.resources import VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES
    from .revisions import cluster_fetch

    client = session.client()
    vm: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, session.namespace)
    namespace = str(vm["metadata"].get("namespace") or session.namespace)
    vm["metadata"].setdefault("namespace", namespace)
    fetch = cluster_fetch(client)
    notes: list[str] = []
    vm = inferred_first(vm, fetch, notes)
    updated, matcher_changes = vm, []
    for target in changes:
        if names_already(vm, target.key, target.name, target.kind):
            continue  # a no-op keeps the matcher (and its pinned revision) as it is
        before = describe_matcher(updated, target.key)
        updated, was_cleared = switched(updated, target.key, target.name, target.kind)
        matcher_changes.append(MatcherChange(target.key, before, describe_matcher(updated, target.key), was_cleared))
    to_create: tuple[PlannedRevision, ...] = ()
    if refresh:
        refreshed = _refreshed(vm, fetch)
        updated, to_create = refreshed.vm, refreshed.revisions
        notes += refreshed.notes
        for planned in to_create:
            generation = planned.revision["metadata"]["labels"][OBJECT_GENERATION_LABEL]
            described = describe_matcher(vm, planned.key)
            matcher_changes.append(MatcherChange(planned.key, described, f"{described} (generation {generation})"))
    if not matcher_changes and not refresh:
        # nothing to send: no further reads, no plan (the command says "unchanged")
        return SwitchPlan(
            name=name,
            namespace=namespace,
            vm=vm,
            updated=vm,
            changes=(),
            flavour=server_flavour(vm),
            live=LivePlan(running=False, strategy=""),
            strategy_source="",
        )
    if check and not refresh:
        from ..instancetype.kinds import matcher_kind, unexpected_kind
        from .references import MATCHER_FLAGS, TypeReference, require_types

        wanted = []
        for t in changes:
            if not t.name:
                continue
            kind = matcher_kind(t.kind, t.key)
            if kind is None:
                raise PreflightError(unexpected_kind(t.key, t.kind))
            wanted.append(TypeReference(kind, t.name, MATCHER_FLAGS[t.key]))
        known = {
            (ref.resource.kind, ref.name): obj for ref, obj in zip(wanted, require_types(session, wanted, namespace))
        }

        def lookup(kind: str, object_name: str, object_namespace: str) -> Any:
            return known.get((kind, object_name)) or fetch(kind, object_name, object_namespace)

        try:
            specs = [find_spec(updated, key, lookup)[0] for key in KEYS]
        except ResolveError as exc:
            raise PreflightError(str(exc)) from exc
        problems = preflight(updated, specs[0], specs[1])
        if problems:
            from .fitting import matcher_preference, with_hints

            preference = matcher_preference(updated, specs[1])
            if preference is not None:
                problems = with_hints(session, problems, preference)
            raise PreflightError("\nerror: ".join(problems))
    strategy = rollout(client)
    new_template = applied_template(_with_pins(updated, to_create), _with_revisions(fetch, to_create))
    vmi = get_or_none(client, VIRTUAL_MACHINE_INSTANCES, name, namespace)
    architecture = str((((vm.get("spec") or {}).get("template") or {}).get("spec") or {}).get("architecture") or "")
    if vmi is not None and not (vmi.get("metadata") or {}).get("deletionTimestamp"):
        started = start_template(client, vm, vmi, fetch)
        start = started.template
        notes += started.notes
    else:
        start = applied_template(vm, fetch)
    live = plan_live_update(start, new_template, vmi, strategy=strategy.strategy, architecture=architecture)
    return SwitchPlan(
        name=name,
        namespace=namespace,
        vm=vm,
        updated=updated,
        changes=tuple(matcher_changes),
        flavour=server_flavour(vm),
        live=live,
        strategy_source=strategy.source,
        notes=tuple(notes),
        warnings=strategy.warnings,
        refresh=to_create,
    )


def inferred_first(vm: dict[str, Any], fetch: Callable[[str, str, str], Any], notes: list[str]) -> dict[str, Any]:
    """``vm`` with matchers that still hold ``inferFromVolume`` (a VM stored without KubeVirt's admission, which
    replaces them on create) resolved as that admission resolves them, so the switch, its checks and its plan
    see names; the write then carries the resolved matchers, as the webhook would have stored them."""
    from ..errors import PreflightError
    from ..instancetype.expand.resolve import ResolveError, infer

    spec = vm.get("spec") or {}
    pending = [key for key in KEYS if (spec.get(key) or {}).get("inferFromVolume") and not spec[key].get("name")]
    if not pending:
        return vm
    try:
        resolved: dict[str, Any] = infer(vm, fetch)
    except ResolveError as exc:
        raise PreflightError(
            f"spec.{pending[0]} still infers from volume {go_quote(str(spec[pending[0]]['inferFromVolume']))} and "
            "the inference "
            f"fails: {exc} (see kubectl instancetype infer vm/{vm['metadata'].get('name')})"
        ) from exc
    for key in pending:
        matcher = (resolved.get("spec") or {}).get(key)
        volume = spec[key]["inferFromVolume"]
        if matcher:
            notes.append(
                f"spec.{key} still held inferFromVolume {go_quote(str(volume))}: resolved to {matcher.get('name')} "
                "first, as "
                "KubeVirt's admission resolves it; the switch writes the resolved matcher"
            )
        else:
            notes.append(
                f"spec.{key} still held inferFromVolume {go_quote(str(volume))}, which KubeVirt's admission drops "
                "under policy "
                "Ignore (no default label): the switch writes the VM without it"
            )
    return resolved


def names_already(vm: dict[str, Any], key: str, name: str, kind: str) -> bool:
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


def _with_pins(vm: dict[str, Any], to_create: tuple[PlannedRevision, ...]) -> dict[str, Any]:
    from ..instancetype.expand._tree import clone

    pinned: dict[str, Any] = clone(vm)
    for planned in to_create:
        pinned["spec"][planned.key]["revisionName"] = planned.revision["metadata"]["name"]
    return pinned


def _with_revisions(
    fetch: Callable[[str, str, str], Any], to_create: tuple[PlannedRevision, ...]
) -> Callable[[str, str, str], Any]:
    """``fetch`` that also answers the ControllerRevisions about to be created."""
    planned = {entry.revision["metadata"]["name"]: entry.revision for entry in to_create}

    def lookup(kind: str, name: str, namespace: str) -> Any:
        if kind == "ControllerRevision" and name in planned:
            return planned[name]
        return fetch(kind, name, namespace)

    return lookup


# --- --refresh ------------------------------------------------------------------------------------------------


def _refreshed(vm: dict[str, Any], fetch: Callable[[str, str, str], Any]) -> Refreshed:
    """The VM with each matcher pinned (``revisionName``) to a new revision of its object's current generation,
    the revisions to create, and notes. A matcher whose revision already holds the current generation, or that
    infers from a volume, is left alone."""
    from ..instancetype.expand._tree import clone
    from ..instancetype.expand.resolve import matcher_kind
    from ..instancetype.expand.revisions import controller_revision, revision_generation, revision_in_use

    updated: dict[str, Any] = clone(vm)
    namespace = str(vm["metadata"].get("namespace") or "")
    to_create: list[PlannedRevision] = []
    notes: list[str] = []
    for key in KEYS:
        matcher = (vm.get("spec") or {}).get(key)
        if not matcher:
            continue
        if matcher.get("inferFromVolume") and not matcher.get("name"):
            notes.append(f"{key}: inferred from a volume; nothing to refresh")
            continue
        kind = matcher_kind(key, str(matcher.get("kind") or ""))
        live = fetch(
            kind, str(matcher.get("name") or ""), namespace if not kind.startswith("VirtualMachineCluster") else ""
        )
        if live is None:
            notes.append(f"{key}: {kind.lower()}/{matcher.get('name')} does not exist; nothing to refresh")
            continue
        revision_name, _ = revision_in_use(vm, key)
        stored = fetch("ControllerRevision", revision_name, namespace) if revision_name else None
        live_generation = int((live.get("metadata") or {}).get("generation") or 0)
        if stored is not None and revision_generation(stored) == live_generation:
            notes.append(f"{key}: {revision_name} already holds generation {live_generation}")
            continue
        revision = controller_revision(vm, live)
        to_create.append(PlannedRevision(key, revision))
        updated["spec"][key] = {**matcher, "revisionName": revision["metadata"]["name"]}
    return Refreshed(updated, tuple(to_create), tuple(notes))


# --- writing and waiting ----------------------------------------------------------------------------------------


def apply_switch(session: Session, plan: SwitchPlan) -> dict[str, Any]:
    """Create the revisions of a refresh (an existing one with the same data is reused, as KubeVirt does),
    then PUT the VM (refused by the server if it changed since it was read). Returns the stored VM."""
    from ..errors import APIError, PluginError
    from ..kube.resources import CONTROLLER_REVISIONS

    client = session.client()
    for planned in plan.refresh:
        revision = planned.revision
        try:
            client.create(CONTROLLER_REVISIONS, revision, plan.namespace)
        except APIError as exc:
            if exc.code != 409:
                raise
            existing = client.get(CONTROLLER_REVISIONS, revision["metadata"]["name"], plan.namespace)
            if existing.get("data") != revision["data"]:
                raise PluginError(
                    f"found existing ControllerRevision with unexpected data: {revision['metadata']['name']}"
                ) from None
    return replace_matchers(session, plan.name, plan.namespace, plan.vm, plan.updated)


CONFLICT_RETRIES = 5  # client-go's retry.DefaultRetry steps


def replace_matchers(
    session: Session, name: str, namespace: str, read: dict[str, Any], updated: dict[str, Any]
) -> dict[str, Any]:
    """PUT ``updated`` (the VM as ``read`` with new matchers). virt-controller and virt-api write the VM too
    (finalizers, annotations, the firmware UUID right after it is created), so a PUT that loses that race is sent
    again on the VM as it is now, with the planned matchers, as long as its matchers are still the ones the plan
    was made from (client-go's retry.RetryOnConflict); changed matchers need a new plan."""
    from ..errors import APIError, PluginError
    from ..kube.resources import VIRTUAL_MACHINES

    client = session.client()
    body = updated
    for _ in range(CONFLICT_RETRIES):
        try:
            stored: dict[str, Any] = client.replace(VIRTUAL_MACHINES, name, namespace, body)
            return stored
        except APIError as exc:
            if exc.code != 409:
                raise _explained(session, exc, body) from None
        fresh: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, namespace)
        spec, read_spec = fresh.get("spec") or {}, read.get("spec") or {}
        if any(spec.get(key) != read_spec.get(key) for key in KEYS):
            raise PluginError(
                f"virtualmachine.kubevirt.io/{name} changed since it was read (its instance type or preference): "
                "nothing was written; run the command again"
            )
        planned = updated.get("spec") or {}
        body = {**fresh, "spec": {key: value for key, value in spec.items() if key not in KEYS}}
        body["spec"].update({key: planned[key] for key in KEYS if planned.get(key) is not None})
    raise PluginError(
        f"virtualmachine.kubevirt.io/{name} kept changing while it was written ({CONFLICT_RETRIES} conflicts): "
        "nothing was written; run the command again"
    )


def _explained(session: Session, error: Any, vm: dict[str, Any]) -> Any:
    """The server's answer to the PUT; KubeVirt's requirements denial (``--skip-checks`` sends without the
    pre-flight) with the smallest instance types that satisfy the preference."""
    from .fitting import is_requirements_failure, matcher_preference, requirements_hint
    from .preflight import AdmissionDenied, is_admission_denial

    preference = matcher_preference(vm, None)
    if preference is None or not is_admission_denial(error) or not is_requirements_failure(error.message):
        return error
    from ..errors import PluginError
    from ..instancetype.expand.resolve import ResolveError, find_spec
    from .revisions import cluster_fetch

    try:
        spec = find_spec(vm, "preference", cluster_fetch(session.client()))[0]
    except (ResolveError, PluginError):
        spec = None
    return AdmissionDenied(error, requirements_hint(session, matcher_preference(vm, spec) or preference))


def unpin_refreshed(session: Session, plan: SwitchPlan) -> dict[str, Any] | None:
    """After a refresh the controller records the pinned revisions in status (KubeVirt v1.5+); the pins are then
    removed so that a later change of the matcher's name needs no revisionName edit. None when the status
    does not record them yet (the pins stay: KubeVirt honours them)."""
    from ..kube.resources import VIRTUAL_MACHINES

    client = session.client()
    vm: dict[str, Any] = client.get(VIRTUAL_MACHINES, plan.name, plan.namespace)
    status = vm.get("status") or {}
    unpinned = {**vm, "spec": dict(vm.get("spec") or {})}
    for planned in plan.refresh:
        key, name = planned.key, planned.revision["metadata"]["name"]
        if ((status.get(f"{key}Ref") or {}).get("controllerRevisionRef") or {}).get("name") != name:
            return None
        matcher = dict(unpinned["spec"].get(key) or {})
        matcher.pop("revisionName", None)
        unpinned["spec"][key] = matcher
    return replace_matchers(session, plan.name, plan.namespace, vm, unpinned)


def _conditions(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(c.get("type")): c for c in (obj.get("status") or {}).get("conditions") or [] if isinstance(c, dict)}


HOTPLUG_CONDITIONS = ("HotVCPUChange", "HotMemoryChange", "HotPlugCPUError", "HotPlugMemoryError")


def observe(
    session: Session,
    plan: SwitchPlan,
    written: dict[str, Any],
    *,
    timeout: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    interval: float = 0.5,
) -> SwitchOutcome:
    """Poll the VM (and VMI) until the controller has handled the written generation, at most ``timeout``
    seconds: each changed matcher's revision recorded in status, and for a running VM the generation synced
    (``status.desiredGeneration``) and the planned live changes visible on the VMI. Then report what it did."""
    from ..kube.resources import VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES

    client = session.client()
    generation = int((written.get("metadata") or {}).get("generation") or 0)
    keys = [change.key for change in plan.changes]
    deadline = clock() + timeout
    outcome = SwitchOutcome()
    while True:
        vm = client.get(VIRTUAL_MACHINES, plan.name, plan.namespace)
        _still_written(plan.name, vm, written, keys)
        vmi = get_or_none(client, VIRTUAL_MACHINE_INSTANCES, plan.name, plan.namespace) if plan.live.running else None
        status = vm.get("status") or {}
        recorded = {
            key: str(((status.get(f"{key}Ref") or {}).get("controllerRevisionRef") or {}).get("name") or "")
            for key in keys
            if (vm.get("spec") or {}).get(key)
        }
        names_match = all(
            (status.get(f"{key}Ref") or {}).get("name") == ((vm.get("spec") or {}).get(key) or {}).get("name")
            for key in recorded
        )
        done = names_match and all(recorded.values())
        if plan.live.running and vmi is not None:
            done = done and int(status.get("desiredGeneration") or 0) >= generation
            done = done and _live_changes_visible(plan, vmi)
        if done or clock() >= deadline:
            outcome.timed_out = not done
            break
        sleep(interval)
    outcome.revisions = {key: name for key, name in recorded.items() if name}
    conditions = _conditions(vm)
    restart = conditions.get("RestartRequired")
    if restart and restart.get("status") == "True":
        outcome.restart_required = str(restart.get("message") or "")
    failure = conditions.get("Failure")
    if failure and failure.get("status") == "True":
        from ..instancetype.liveupdate import FailureCondition

        outcome.failure = FailureCondition(str(failure.get("reason") or ""), str(failure.get("message") or ""))
    if vmi is not None:
        for kind, condition in _conditions(vmi).items():
            if kind in HOTPLUG_CONDITIONS:
                detail = str(condition.get("reason") or condition.get("message") or "")
                outcome.vmi_conditions.append(VMICondition(kind, str(condition.get("status")), detail))
        outcome.vmi_changes = _vmi_changes(plan, vmi)
    _compare(plan, outcome)
    return outcome


def _matcher_identity(vm: dict[str, Any], key: str) -> tuple[str, str, str]:
    from ..instancetype.kinds import matcher_kind

    matcher = (vm.get("spec") or {}).get(key) or {}
    # KubeVirt reads a matcher's kind case-insensitively (virtualmachineinstancetype is VirtualMachineInstancetype)
    word = str(matcher.get("kind") or "")
    kind = matcher_kind(word, key)
    return (
        kind.kind if kind is not None else word,
        str(matcher.get("name") or ""),
        str(matcher.get("inferFromVolume") or ""),
    )


def _still_written(name: str, vm: dict[str, Any], written: dict[str, Any], keys: list[str]) -> None:
    """Refuse to report the controller's answer for a VM whose matchers are no longer the ones written: another
    writer (a GitOps controller, a second switch) changed them after the PUT, and what the controller records
    then is about their type, not ours."""
    from ..errors import PluginError

    for key in keys:
        if _matcher_identity(vm, key) != _matcher_identity(written, key):
            resource_version = (vm.get("metadata") or {}).get("resourceVersion")
            raise PluginError(
                f"virtualmachine.kubevirt.io/{name} was changed by another writer after the switch: spec.{key} "
                f"names {describe_matcher(vm, key)}, not {describe_matcher(written, key)} "
                f"(resourceVersion {resource_version}); the controller's answer is not reported, as it is not about "
                "the switch; see kubectl get vm " + name + " -o yaml, and run the switch again if it still applies"
            )


def _vmi_value(vmi: dict[str, Any], path: str) -> Any:
    from ..instancetype.expand import lookup

    return lookup(vmi.get("spec") or {}, path)


def _live_changes_visible(plan: SwitchPlan, vmi: dict[str, Any]) -> bool:
    from ..instancetype.liveupdate import LIVE, same

    return all(same(c.path, _vmi_value(vmi, c.path), c.new) for c in plan.live.changes if c.outcome == LIVE)


def _vmi_changes(plan: SwitchPlan, vmi: dict[str, Any]) -> list[VMIChange]:
    from ..instancetype.liveupdate import LIVE

    return [VMIChange(c.path, c.old, _vmi_value(vmi, c.path)) for c in plan.live.changes if c.outcome == LIVE]


def _compare(plan: SwitchPlan, outcome: SwitchOutcome) -> None:
    """Whether the controller did what the plan said (only for a running VM: a stopped one has no verdict)."""
    if not plan.live.running or outcome.timed_out:
        return
    if outcome.restart_required != plan.live.restart_required:
        outcome.agrees = False
        outcome.disagreement = (
            f"the plan expected RestartRequired {plan.live.restart_required!r}, "
            f"the controller set {outcome.restart_required!r}"
        )
