"""``adopt``: the VMs (a stored one or ``-f`` manifests), the candidate instance types and preferences (the
cluster's, or the embedded catalog's), the adoption of each (:mod:`..instancetype.adopt`), and writing a stored
VM with the live-update plan when it runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..instancetype.adopt import Adoption
    from ..instancetype.liveupdate import LivePlan
    from ..kube.session import Session


@dataclass
class AdoptReport:
    """The adoptions, where the candidates came from, and (``--apply``) the live plan and the stored VM."""

    adoptions: list[Adoption]
    candidates_from: str
    live: LivePlan | None = None
    written: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Candidates:
    """The instance types and preferences a VM may be adopted onto, and where they were read."""

    instancetypes: list[Any]
    preferences: list[Any]
    source: str


@dataclass(frozen=True)
class AdoptRequest:
    """``adopt``'s inputs: the stored VM ``name``, or the VMs of ``filename`` (``-`` reads ``stdin``); the
    candidates' source; the types given by name; and whether (and how) the stored VM is written."""

    name: str = ""
    filename: str | None = None
    stdin: IO[str] | None = None
    catalog: bool = False
    instancetype: str | None = None
    preference: str | None = None
    apply: bool = False
    allow_changes: bool = False
    validation: str = "strict"
    offline: bool = False
    warn: Callable[[str], None] | None = None


def adopt(session: Session, request: AdoptRequest) -> AdoptReport:
    """``adopt``: the VMs of ``request.filename`` (none written), else the stored VM ``request.name``. A
    requirements failure names the smallest instance types that satisfy the preference. Unless ``--apply`` writes
    it (the write is KubeVirt's verdict), each adopted VM is judged by KubeVirt with a server-side dry run when
    the cluster answers (:mod:`.admission`): a VM it denies is not adopted, its problem is KubeVirt's words."""
    report = _adopt(session, request)
    if not request.apply and not request.catalog:
        _judge(session, report, request)
    from .fitting import PreferenceInUse, with_hints

    for adoption in report.adoptions:
        if adoption.problems and adoption.preference is not None:
            preference = adoption.preference
            used = PreferenceInUse(
                str(preference.get("kind") or ""),
                str((preference.get("metadata") or {}).get("name") or ""),
                dict(preference.get("spec") or {}),
            )
            adoption.problems = with_hints(
                None if request.catalog else session, adoption.problems, used, catalog=request.catalog
            )
    return report


def _judge(session: Session, report: AdoptReport, request: AdoptRequest) -> None:
    """KubeVirt's verdict on each adopted VM (a dry-run create, or replace over the stored one)."""
    from .admission import DryRun, Verdicts, offline_note

    with DryRun(session, validation=request.validation, offline=request.offline) as judge:
        for adoption in report.adoptions:
            if adoption.vm is None:
                continue
            verdict = judge.ask(adoption.vm)
            if verdict is not None and verdict.error is not None:
                adoption.problems.append(verdict.line())
                adoption.vm = None
        if judge.offline:
            report.warnings.append(offline_note(Verdicts(offline=judge.offline)))


def _adopt(session: Session, request: AdoptRequest) -> AdoptReport:
    if request.filename:
        return adopt_files(session, request)
    return adopt_stored(
        session,
        request.name,
        catalog=request.catalog,
        instancetype=request.instancetype,
        preference=request.preference,
        apply=request.apply,
        allow_changes=request.allow_changes,
    )


def adopt_files(session: Session, request: AdoptRequest) -> AdoptReport:
    """Adopt the VirtualMachines of ``request.filename`` onto the candidates of their namespace (the first VM's,
    else the session's; ``default`` with the catalog, which needs no cluster)."""
    from ..errors import PluginError
    from .manifests import read_manifests

    filename = str(request.filename)
    objects = read_manifests(filename, request.stdin, validation=request.validation, warn=request.warn)
    vms = [obj for obj in objects if obj.get("kind") == "VirtualMachine"]
    if not vms:
        raise PluginError(f"{filename} holds no VirtualMachine")
    namespace = str((vms[0].get("metadata") or {}).get("namespace") or "") or (
        "default" if request.catalog else session.namespace
    )
    found = candidates(session, namespace, catalog=request.catalog)
    return adopt_vms(vms, found, instancetype=request.instancetype, preference=request.preference)


def _find(objects: list[dict[str, Any]], wanted: str, what: str) -> dict[str, Any]:
    from ..errors import UsageError
    from ..instancetype import kinds

    word, _, name = wanted.rpartition("/")
    # any spelling create vm takes (vmf/, vmcf/, vmp/, vmcp/, the long names; instancetype.kinds)
    kind = kinds.spelled(word) if word else None
    allowed = kinds.INSTANCETYPE_KINDS if what == "instancetype" else kinds.PREFERENCE_KINDS
    if word and (kind is None or kind.kind not in allowed):
        supported = ", ".join(kind.lower() for kind in allowed)
        raise UsageError(f'invalid --{what} kind "{word.lower()}", supported values are: {supported}')
    for obj in objects:
        if obj["metadata"]["name"] == name and (kind is None or obj.get("kind") == kind.kind):
            return obj
    raise UsageError(f'--{what} "{wanted}": no such {what} among the candidates')


def candidates(session: Session, namespace: str, *, catalog: bool) -> Candidates:
    """The instance types and preferences of the embedded catalog, or the cluster's cluster-wide objects and
    those of ``namespace``."""
    if catalog:
        from ..catalog.loader import load_catalog

        embedded = load_catalog()
        return Candidates(
            list(embedded.instancetypes),
            list(embedded.preferences),
            f"the embedded common-instancetypes {embedded.version}",
        )
    from ..kube import resources

    client = session.client()
    found: dict[str, list[Any]] = {}
    for resource in (
        resources.CLUSTER_INSTANCETYPES,
        resources.INSTANCETYPES,
        resources.CLUSTER_PREFERENCES,
        resources.PREFERENCES,
    ):
        found[resource.kind] = [
            {"apiVersion": resource.api_version, "kind": resource.kind, **item}
            for page in client.list_pages(resource, namespace if resource.namespaced else None)
            for item in page.get("items") or ()
        ]
    return Candidates(
        found["VirtualMachineClusterInstancetype"] + found["VirtualMachineInstancetype"],
        found["VirtualMachineClusterPreference"] + found["VirtualMachinePreference"],
        "the cluster's instance types and preferences",
    )


def adopt_vms(
    vms: list[dict[str, Any]],
    found: Candidates,
    *,
    instancetype: str | None = None,
    preference: str | None = None,
) -> AdoptReport:
    """Adopt each VM onto the chosen (or given) types."""
    from ..instancetype.adopt import adopt as adopt_vm

    forced_type = _find(found.instancetypes, instancetype, "instancetype") if instancetype else None
    forced_preference = _find(found.preferences, preference, "preference") if preference else None
    adoptions = [
        adopt_vm(vm, found.instancetypes, found.preferences, instancetype=forced_type, preference=forced_preference)
        for vm in vms
    ]
    return AdoptReport(adoptions, found.source)


def adopt_stored(
    session: Session,
    name: str,
    *,
    catalog: bool,
    instancetype: str | None,
    preference: str | None,
    apply: bool,
    allow_changes: bool,
) -> AdoptReport:
    """Adopt the stored VM ``name``; with ``apply`` write it (refused while the proof lists changes, unless
    ``allow_changes``), after planning what the controller does with a running VM."""
    from ..errors import APIError, PluginError
    from ..instancetype.expand import apply_to_template
    from ..instancetype.expand._tree import clone
    from ..instancetype.liveupdate import plan_live_update
    from ..kube.resources import VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES
    from .switching import get_or_none, rollout

    client = session.client()
    vm: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, session.namespace)
    namespace = str(vm["metadata"].get("namespace") or session.namespace)
    found = candidates(session, namespace, catalog=catalog)
    report = adopt_vms([vm], found, instancetype=instancetype, preference=preference)
    adoption = report.adoptions[0]
    if not apply or adoption.vm is None:
        return report
    if adoption.changes and not allow_changes:
        raise PluginError(
            f"virtualmachine/{name}: the adopted VM would change {len(adoption.changes)} field(s) (listed above); "
            "nothing was written (--allow-changes writes it anyway)"
        )
    if catalog:
        raise PluginError("--apply needs the cluster's own instance types: drop --catalog")
    strategy = rollout(client)
    report.warnings += strategy.warnings
    vmi = get_or_none(client, VIRTUAL_MACHINE_INSTANCES, name, namespace)
    start = dict(((vm.get("spec") or {}).get("template") or {}).get("spec") or {})
    applied: dict[str, Any] = clone(adoption.vm)
    apply_to_template(
        applied,
        clone(dict((adoption.instancetype or {}).get("spec") or {})),
        clone(dict((adoption.preference or {}).get("spec") or {})) if adoption.preference else None,
    )
    architecture = str(start.get("architecture") or "")
    report.live = plan_live_update(
        start, applied["spec"]["template"]["spec"], vmi, strategy=strategy.strategy, architecture=architecture
    )
    # KubeVirt writes the VM too (a Conflict): adopt again from a fresh copy, as long as it proves the same
    for attempt in range(5):
        try:
            report.written = client.replace(VIRTUAL_MACHINES, name, namespace, adoption.vm)
            break
        except APIError as exc:
            if exc.code != 409 or attempt == 4:
                raise
            fresh = client.get(VIRTUAL_MACHINES, name, namespace)
            again = adopt_vms([fresh], found, instancetype=instancetype, preference=preference).adoptions[0]
            if again.vm is None or again.changes != adoption.changes:
                raise
            adoption.vm = again.vm
    return report
