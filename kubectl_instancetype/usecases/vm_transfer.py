"""``fleet diff vm/NAME --to CONTEXT``: could this VM be recreated (or migrated) in another cluster?

Read in the VM's own cluster: the VM and the instance type and preference it uses as KubeVirt stored them (the
ControllerRevisions its matchers or status name, as ``revisions`` reads them; the live objects when none is stored
yet). Read in the target cluster: the objects of the same kind and name (namespaced ones in the VM's namespace).
Then, per matcher, whether the target's object exists with the same spec as the stored one; whether the
preference's requirements hold there (KubeVirt's admission check, :func:`..instancetype.requirements.unmet_requirement`,
with the target's objects); and whether a node there could take the VM now (``fits``'s check,
:func:`.placement.check_vm`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..instancetype.fleetdiff import FieldDifference

if TYPE_CHECKING:
    from ..kube.session import Session

OK, MISSING, DIFFERENT, UNMET, NO, UNKNOWN = "ok", "missing", "different", "unmet", "no", "unknown"


@dataclass(frozen=True)
class MatcherCheck:
    """One matcher (``instancetype`` or ``preference``): the kind and name it names, where its stored spec comes
    from (a ControllerRevision's name, or ``live``), and its state in the target: ``ok``, ``missing`` or
    ``different`` (``fields``: stored -> target)."""

    matcher: str
    kind: str
    name: str
    stored_in: str
    state: str
    fields: tuple[FieldDifference, ...] = ()


@dataclass(frozen=True)
class VMTransfer:
    """The answer for one VM: the source and target contexts (the source's name as the kubeconfig names it, or
    "" for the current one), the matchers' checks, the preference's requirements in the target (``ok``,
    ``unmet`` with KubeVirt's message, ``unknown`` when a type is missing there) and the fit (``yes``/``no`` with the
    scheduler's or quota's line, ``unknown`` with why)."""

    name: str
    namespace: str
    source: str
    target: str
    matchers: tuple[MatcherCheck, ...]
    requirements: str
    requirements_detail: str
    fits: str
    fits_detail: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ready(self) -> bool:
        """Whether every check passed (the fit may be unknown only for want of nodes)."""
        return (
            all(m.state == OK for m in self.matchers)
            and self.requirements in (OK, "none")
            and self.fits in ("yes", UNKNOWN)
        )


def _stored(client: Any, vm: dict[str, Any], key: str) -> tuple[str, str, dict[str, Any] | None, str]:
    """(kind, name, the stored spec or None, where it came from) of matcher ``spec.<key>``."""
    from ..errors import NotFoundError
    from ..instancetype.expand.resolve import matcher_kind, revision_spec
    from ..instancetype.expand.revisions import revision_in_use
    from ..kube.resources import BY_KIND, CONTROLLER_REVISIONS

    matcher = (vm.get("spec") or {}).get(key) or {}
    kind = matcher_kind(key, str(matcher.get("kind") or ""))
    name = str(matcher.get("name") or "")
    namespace = vm["metadata"].get("namespace")
    revision_name, _ = revision_in_use(vm, key)
    if revision_name:
        try:
            revision = client.get(CONTROLLER_REVISIONS, revision_name, namespace)
            return kind, name, revision_spec(revision), f"controllerrevision/{revision_name}"
        except NotFoundError:
            pass  # deleted (doctor's finding): compare with the live object instead
    resource = BY_KIND[kind]
    try:
        live = client.get(resource, name, namespace if resource.namespaced else None)
    except NotFoundError:
        return kind, name, None, "live (not found)"
    return kind, name, live.get("spec") or {}, "live"


def vm_transfer(source: Session, target: Session, name: str, target_name: str) -> VMTransfer:
    """Compare what ``source``'s VM ``name`` uses with what ``target`` holds, and judge its fit there."""
    from ..errors import NotFoundError, PluginError
    from ..instancetype.fleetdiff import field_differences
    from ..instancetype.requirements import unmet_requirement
    from ..kube.resources import BY_KIND, VIRTUAL_MACHINES
    from .placement import check_vm

    client = source.client()
    vm = client.get(VIRTUAL_MACHINES, name, source.namespace)
    namespace = str(vm["metadata"].get("namespace") or source.namespace)
    there = target.client()
    checks: list[MatcherCheck] = []
    specs: dict[str, dict[str, Any] | None] = {}
    known: list[dict[str, Any]] = []
    notes: list[str] = []
    for key in ("instancetype", "preference"):
        if not (vm.get("spec") or {}).get(key):
            continue
        kind, type_name, stored, stored_in = _stored(client, vm, key)
        resource = BY_KIND[kind]
        try:
            obj = there.get(resource, type_name, namespace if resource.namespaced else None)
        except NotFoundError:
            checks.append(MatcherCheck(key, kind, type_name, stored_in, MISSING))
            specs[key] = None
            continue
        known.append(obj)
        spec = obj.get("spec") or {}
        specs[key] = spec
        differences = field_differences(stored or {}, spec, "spec") if stored is not None else ()
        state = DIFFERENT if differences else OK
        checks.append(MatcherCheck(key, kind, type_name, stored_in, state, tuple(differences)))
    template = ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}
    if "preference" not in specs:
        requirements, requirements_detail = "none", "the VM has no preference"
    elif any(check.state == MISSING for check in checks):
        requirements, requirements_detail = UNKNOWN, "a referenced type is missing in the target"
    else:
        problem = unmet_requirement(specs.get("instancetype"), specs.get("preference"), template)
        requirements, requirements_detail = (UNMET, problem) if problem else (OK, "")
    if any(check.state == MISSING for check in checks):
        fits, fits_detail = UNKNOWN, "a referenced type is missing in the target"
    else:
        candidate = _recreated(vm, namespace)
        try:
            verdict = check_vm(target, candidate, namespace, known)
        except PluginError as exc:
            from ..errors import sentence

            fits, fits_detail = UNKNOWN, sentence(exc)
        else:
            if verdict.runs is None:
                fits, fits_detail = UNKNOWN, "the target has no nodes to judge by"
            else:
                fits, fits_detail = ("yes", "") if verdict.runs else (NO, verdict.line)
    source_name = source.options.context or ""
    return VMTransfer(
        name,
        namespace,
        source_name,
        target_name,
        tuple(checks),
        requirements,
        requirements_detail,
        fits,
        fits_detail,
        tuple(notes),
    )


def _recreated(vm: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The VM as it would be created in the target: its spec without the revisions of the source."""
    import copy

    spec = copy.deepcopy(vm.get("spec") or {})
    for key in ("instancetype", "preference"):
        if isinstance(spec.get(key), dict):
            spec[key].pop("revisionName", None)
    metadata = {"name": vm["metadata"]["name"], "namespace": namespace}
    return {
        "apiVersion": vm.get("apiVersion", "kubevirt.io/v1"),
        "kind": "VirtualMachine",
        "metadata": metadata,
        "spec": spec,
    }
