"""KubeVirt's instance type and preference expansion, as a pure function over decoded objects.

``expand_vm`` reproduces ``pkg/instancetype/expand`` of KubeVirt v1.9.0 (what ``virtctl expand`` and the
``expand-vm-spec`` subresource return): default disks and the default pod network, the instance type in
KubeVirt's order with its conflicts, the preference filling unset fields, VMI-spec defaults, and the matchers
removed. With ``check=True`` it also reports what VM admission would deny (spread divisibility, preference
requirements), which KubeVirt's expand does not check. ``preflight`` runs VM admission's checks alone, for
``create vm``. Nothing here does I/O: the caller resolves the instance type and preference specs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...records import dataclass, field
from ..requirements import DENIAL_PREFIX, unmet_requirement_of
from ._tree import DEFAULT, INSTANCETYPE, PREFERENCE, Json, Provenance, clone
from .conflicts import CONFLICTS_FORMAT, Conflict, conflicts_error
from .defaults import ClusterDefaults, DefaultsError, default_network_interface, default_volume_disks, vmi_spec_defaults
from .instancetype import apply_instancetype
from .preference import apply_preference
from .topology import check_spread

__all__ = [
    "CONFLICTS_FORMAT",
    "DEFAULT",
    "INSTANCETYPE",
    "PREFERENCE",
    "ClusterDefaults",
    "Conflict",
    "ExpandResult",
    "admission_problems",
    "apply_to_template",
    "expand_vm",
    "lookup",
    "preflight",
]

TEMPLATE_SPEC = "spec.template.spec"


@dataclass(frozen=True)
class ExpandResult:
    """The expanded VM and where each field it set came from, or the problems that stopped the expansion.

    ``error`` is KubeVirt's error text for the whole expansion (what ``expand-vm-spec`` answers);
    ``problems`` holds one entry per field (KubeVirt's per-field message and path).
    """

    vm: Json | None
    provenance: dict[str, str] = field(default_factory=dict)
    problems: tuple[Conflict, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the VM expanded without conflicts or denials."""
        return self.vm is not None


def _template(vm: Json) -> tuple[Json, Json]:
    template = (vm.get("spec") or {}).get("template")
    if not isinstance(template, dict):
        raise DefaultsError("the VirtualMachine has no spec.template")
    spec = template.get("spec")
    if not isinstance(spec, dict):
        spec = template["spec"] = {}
    metadata = template.get("metadata")
    if not isinstance(metadata, dict):
        metadata = template["metadata"] = {}
    return spec, metadata


def apply_to_template(
    vm: Json, instancetype: Json | None, preference: Json | None, provenance: Provenance | None = None
) -> list[Conflict]:
    """KubeVirt's ``ApplyToVMI`` at ``spec.template.spec`` of ``vm`` (changed in place); the conflicts.

    With conflicts the preference is not applied, as in KubeVirt.
    """
    provenance = provenance if provenance is not None else Provenance()
    spec, metadata = _template(vm)
    if instancetype is None and preference is None:
        return []
    if instancetype is not None:
        conflicts = apply_instancetype(TEMPLATE_SPEC, instancetype, preference, spec, metadata, provenance)
        if conflicts:
            return conflicts
    apply_preference(TEMPLATE_SPEC, preference, spec, metadata, provenance)
    return []


_REQUIREMENT_FIELDS = (
    ("provided by instance type", ("spec.instancetype",)),
    ("no CPU resources", ("spec.template.spec.domain.cpu",)),
    ("vCPU provided as threads", ("spec.template.spec.domain.cpu.threads",)),
    (
        "vCPU provided as cores, sockets and threads",
        tuple(f"{TEMPLATE_SPEC}.domain.cpu.{n}" for n in ("cores", "sockets", "threads")),
    ),
    ("vCPU provided as cores", ("spec.template.spec.domain.cpu.cores",)),
    ("vCPU provided as sockets", ("spec.template.spec.domain.cpu.sockets",)),
    (
        "vCPU provided as SocketsCoresThreads",
        tuple(f"{TEMPLATE_SPEC}.domain.cpu.{n}" for n in ("sockets", "cores", "threads")),
    ),
    ("vCPU provided as SocketsCores", tuple(f"{TEMPLATE_SPEC}.domain.cpu.{n}" for n in ("sockets", "cores"))),
    ("vCPU provided as CoresThreads", tuple(f"{TEMPLATE_SPEC}.domain.cpu.{n}" for n in ("cores", "threads"))),
    ("Memory resources", ("spec.template.spec.domain.memory",)),
    ("architecture", ("spec.template.spec.architecture",)),
)


def _requirement_field(message: str) -> str:
    """The StatusCause field KubeVirt gives a requirement failure (its conflict paths joined with ``, ``)."""
    for marker, paths in _REQUIREMENT_FIELDS:
        if marker in message and not (marker == "Memory resources" and "instance type" in message):
            return ", ".join(paths)
    return "spec.preference"


@dataclass(frozen=True)
class AdmissionCheck:
    """What VM admission would deny a VM with: the StatusCauses (``problems``, one :class:`Conflict` each) and
    which of its checks found them (``check``): ``spread``, ``conflicts``, ``cpu``, ``memory`` or
    ``architecture`` (the preference's requirements), ``vm`` (the whole-VM rules), ``defaults``; "" for none."""

    check: str = ""
    problems: tuple[Conflict, ...] = ()


def _admission_checks(
    vm: Json, instancetype: Json | None, preference: Json | None, defaults: ClusterDefaults, *, whole_vm: bool = False
) -> AdmissionCheck:
    """VM admission's instance type checks on a copy of ``vm``: spread, conflicts, then requirements; with
    ``whole_vm`` then the whole-VM rules of :mod:`..vmrules` on the applied, defaulted copy (KubeVirt's order,
    vms-admitter.go ``Admit``)."""
    if instancetype is None and preference is None and not whole_vm:
        return AdmissionCheck()
    spread = check_spread(instancetype, preference) if instancetype is not None or preference is not None else None
    if spread is not None:
        return AdmissionCheck("spread", (spread,))
    copy = clone(vm)
    conflicts = apply_to_template(copy, instancetype, preference)
    if conflicts:
        return AdmissionCheck("conflicts", tuple(conflicts))
    spec, _ = _template(copy)
    vmi_spec_defaults(TEMPLATE_SPEC, spec, defaults, Provenance())
    unmet = unmet_requirement_of(instancetype, preference, spec) if instancetype or preference else None
    if unmet is not None:
        requirement, problem = unmet
        return AdmissionCheck(requirement, (Conflict(_requirement_field(problem), DENIAL_PREFIX + problem),))
    if whole_vm:
        from ..vmrules import whole_vm_problems

        problems = whole_vm_problems(spec, TEMPLATE_SPEC, architecture=defaults.architecture or "amd64")
        return AdmissionCheck("vm" if problems else "", tuple(problems))
    return AdmissionCheck()


def admission_problems(
    vm: Mapping[str, Any],
    instancetype: Mapping[str, Any] | None,
    preference: Mapping[str, Any] | None,
    *,
    defaults: ClusterDefaults | None = None,
    whole_vm: bool = False,
) -> list[Conflict]:
    """What KubeVirt's VM admission would deny ``vm`` with, one :class:`Conflict` per StatusCause (field, message).

    In KubeVirt's order: the spread divisibility check, else one per conflict, else the first unmet preference
    requirement, else (``whole_vm``) the whole-VM rules of :mod:`..vmrules`. ``defaults`` with
    ``architecture=None`` (the default here) leaves an unset architecture unset.
    """
    return list(admission_check(vm, instancetype, preference, defaults=defaults, whole_vm=whole_vm).problems)


def admission_check(
    vm: Mapping[str, Any],
    instancetype: Mapping[str, Any] | None,
    preference: Mapping[str, Any] | None,
    *,
    defaults: ClusterDefaults | None = None,
    whole_vm: bool = False,
) -> AdmissionCheck:
    """:func:`admission_problems` with the check that found them (what a hint about the denial is chosen by)."""
    defaults = defaults if defaults is not None else ClusterDefaults(architecture=None)
    try:
        return _admission_checks(
            clone(dict(vm)),
            clone(dict(instancetype)) if instancetype is not None else None,
            clone(dict(preference)) if preference is not None else None,
            defaults,
            whole_vm=whole_vm,
        )
    except DefaultsError as exc:
        return AdmissionCheck("defaults", (Conflict("", str(exc)),))


def preflight(
    vm: Mapping[str, Any],
    instancetype: Mapping[str, Any] | None,
    preference: Mapping[str, Any] | None,
    *,
    defaults: ClusterDefaults | None = None,
) -> list[str]:
    """The messages KubeVirt's VM admission would deny ``vm`` with (empty when it would admit it).

    ``instancetype`` and ``preference`` are the specs the VM's matchers resolve to (None when absent). The
    messages are the StatusCause messages, in KubeVirt's order: the spread divisibility check, else one per
    conflict, else the first unmet preference requirement (``failure checking preference requirements: ...``).
    """
    problems = admission_problems(vm, instancetype, preference, defaults=defaults)
    return [problem.error() for problem in problems]


def expand_vm(
    vm: Mapping[str, Any],
    instancetype: Mapping[str, Any] | None,
    preference: Mapping[str, Any] | None,
    *,
    defaults: ClusterDefaults | None = None,
    check: bool = False,
) -> ExpandResult:
    """Expand ``vm`` as KubeVirt's ``expand`` does, given the specs its matchers resolve to.

    Returns the expanded VM (a new object; the inputs are not changed) with ``spec.instancetype``,
    ``spec.preference`` and the status references removed, and the provenance of every field the
    expansion set. A VM without matchers comes back unchanged. On conflicts the result has no VM, one
    problem per conflicting field and KubeVirt's error text. ``check`` adds VM admission's spread and
    requirement checks, which KubeVirt's expand leaves out.
    """
    defaults = defaults if defaults is not None else ClusterDefaults()
    spec_of_vm = vm.get("spec") or {}
    instancetype_spec = clone(dict(instancetype)) if instancetype is not None else None
    preference_spec = clone(dict(preference)) if preference is not None else None
    expanded: Json = clone(dict(vm))
    provenance = Provenance()
    try:
        if check:
            problems = _admission_checks(expanded, instancetype_spec, preference_spec, defaults, whole_vm=True).problems
            if problems:
                return ExpandResult(vm=None, problems=tuple(problems), error=", ".join(p.error() for p in problems))
        if spec_of_vm.get("instancetype") is None and spec_of_vm.get("preference") is None:
            return ExpandResult(vm=go_roundtrip(vm))
        spec, _ = _template(expanded)
        default_volume_disks(TEMPLATE_SPEC, spec, provenance)
        default_network_interface(TEMPLATE_SPEC, spec, defaults, provenance)
        conflicts = apply_to_template(expanded, instancetype_spec, preference_spec, provenance)
        if conflicts:
            return ExpandResult(vm=None, problems=tuple(conflicts), error=conflicts_error(conflicts))
        vmi_spec_defaults(TEMPLATE_SPEC, spec, defaults, provenance)
    except DefaultsError as exc:
        return ExpandResult(vm=None, problems=(Conflict(TEMPLATE_SPEC, str(exc)),), error=str(exc))
    expanded["spec"].pop("instancetype", None)
    expanded["spec"].pop("preference", None)
    status = expanded.get("status")
    if isinstance(status, dict):
        status.pop("instancetypeRef", None)
        status.pop("preferenceRef", None)
    return ExpandResult(vm=go_roundtrip(expanded), provenance=dict(provenance.sources))


def go_roundtrip(vm: Mapping[str, Any]) -> Json:
    """What KubeVirt answers for ``vm``: the typed ``v1.VirtualMachine`` it decoded and encodes again (Go's JSON
    tags: fields without omitempty always written, omitempty zero values dropped, structs written even when
    empty, canonical quantities; :mod:`...golang.gojson`)."""
    from ...golang.gojson import roundtrip

    result: Json = roundtrip(vm)
    return result


def lookup(obj: Any, path: str) -> Any:
    """The value at a provenance ``path`` (``spec.template.spec.domain.devices.disks[0].disk.bus``) or None.

    Annotation keys may contain dots, so everything after ``metadata.annotations.`` is one key.
    """
    head, marker, key = path.partition("metadata.annotations.")
    parts = [part for part in head.split(".") if part]
    if marker:
        parts += ["metadata", "annotations"]
    current = obj
    for part in parts:
        name, _, index = part.partition("[")
        if not isinstance(current, dict):
            return None
        current = current.get(name)
        if index:
            position = int(index.rstrip("]"))
            if not isinstance(current, list) or position >= len(current):
                return None
            current = current[position]
    if marker:
        return current.get(key) if isinstance(current, dict) else None
    return current
