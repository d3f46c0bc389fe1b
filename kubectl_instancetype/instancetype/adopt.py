"""``adopt``: move a VirtualMachine that sets its own CPU, memory and device tuning onto an instance type and a
preference, with the proof that nothing changes (or the list of what does). Pure: the caller hands in the VM
and the candidate instance types and preferences (objects).

1. What the VM asks for: vCPUs (sockets x cores x threads; else the CPU limit or request, rounded up; else 1),
   guest memory (``memory.guest``, else the memory request, else the limit), dedicated CPUs, hugepages.
2. The instance type: the smallest that fits, as ``recommend`` ranks them (vCPUs, memory, overcommit, fewest
   special features, name), among those with at least the VM's vCPUs and memory and the same dedicated-CPU and
   hugepages settings; an exact fit wins over a larger one.
3. The preference: candidates named after the guest OS the VM names (annotation ``vm.kubevirt.io/os``, labels
   ``os.template.kubevirt.io/<os>``, a containerdisk image name), whose requirements the instance type meets and
   whose ``preferredArchitecture`` matches the VM's; of those, the one whose expansion changes the fewest fields.
4. The fields the instance type would conflict with are removed (KubeVirt's conflict list, applied until none is
   left); the preference only fills fields the VM leaves unset, so the VM's own values stay.
5. The proof: the original VM and the adopted one, each expanded as KubeVirt expands them (default disks and
   interface, instance type, preference, VMI defaults), compared field by field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..golang.quantity import quantity_value
from .expand import TEMPLATE_SPEC, ClusterDefaults, apply_to_template, expand_vm
from .expand._tree import Json, Provenance, clone
from .expand.defaults import default_network_interface, default_volume_disks, vmi_spec_defaults
from .listing import format_bytes
from .liveupdate import differences
from .recommend import evaluate, rank_key

OS_ANNOTATION = "vm.kubevirt.io/os"
OS_LABEL_PREFIX = "os.template.kubevirt.io/"
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


@dataclass(frozen=True)
class Need:
    """What the VM asks for."""

    vcpus: int
    memory: Fraction
    dedicated: bool = False
    hugepages: str = ""


@dataclass(frozen=True)
class Difference:
    """One field of the expanded spec: its path, the original VM's value and the adopted VM's."""

    path: str
    before: Any
    after: Any


@dataclass
class Adoption:
    """The outcome for one VM: the chosen objects (None: none fits), why, the adopted VM, the fields removed, and
    the proof (``changes`` empty: the expansion equals the original's)."""

    name: str
    need: Need
    instancetype: Mapping[str, Any] | None = None
    preference: Mapping[str, Any] | None = None
    vm: Json | None = None
    removed: list[str] = field(default_factory=list)
    changes: list[Difference] = field(default_factory=list)  # the expanded spec's fields the adoption changes
    compared: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """True when the adopted VM expands to exactly what the original VM is."""
        return self.vm is not None and not self.changes


def _template(vm: Mapping[str, Any]) -> Json:
    spec: Json = ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}
    return spec


def need_of(vm: Mapping[str, Any]) -> Need:
    """What ``vm`` asks for (see the module docstring)."""
    domain = _template(vm).get("domain") or {}
    cpu = domain.get("cpu") or {}
    resources = domain.get("resources") or {}
    topology = [int(cpu.get(key) or 0) for key in ("sockets", "cores", "threads")]
    if any(topology):
        vcpus = math.prod(value or 1 for value in topology)
    else:
        cpu_quantity = quantity_value((resources.get("limits") or {}).get("cpu")) or quantity_value(
            (resources.get("requests") or {}).get("cpu")
        )
        vcpus = max(1, math.ceil(cpu_quantity)) if cpu_quantity else 1
    memory = (
        quantity_value((domain.get("memory") or {}).get("guest"))
        or quantity_value((resources.get("requests") or {}).get("memory"))
        or quantity_value((resources.get("limits") or {}).get("memory"))
        or Fraction(0)
    )
    hugepages = str(((domain.get("memory") or {}).get("hugepages") or {}).get("pageSize") or "")
    return Need(vcpus, memory, bool(cpu.get("dedicatedCpuPlacement")), hugepages)


def _spec(obj: Mapping[str, Any]) -> Json:
    spec: Json = obj.get("spec") or {}
    return spec


def _fits(instancetype: Mapping[str, Any], need: Need) -> bool:
    spec = _spec(instancetype)
    cpu, memory = spec.get("cpu") or {}, spec.get("memory") or {}
    guest = quantity_value(memory.get("guest")) or Fraction(0)
    return (
        int(cpu.get("guest") or 0) >= need.vcpus
        and guest >= need.memory
        and bool(cpu.get("dedicatedCPUPlacement")) == need.dedicated
        and str((memory.get("hugepages") or {}).get("pageSize") or "") == need.hugepages
    )


def choose_instancetype(need: Need, candidates: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The smallest candidate that fits ``need`` (recommend's order); None when none does."""
    fitting = [obj for obj in candidates if _fits(obj, need)]
    if not fitting:
        return None
    return min(
        fitting,
        key=lambda obj: rank_key(
            _spec(obj), str((obj.get("metadata") or {}).get("name")), (obj.get("metadata") or {}).get("namespace")
        ),
    )


def _compact(text: str) -> str:
    lowered = text.lower().replace("windows", "win").replace("centos-stream", "centosstream")
    return _NOT_ALNUM.sub("", lowered)


def os_hints(vm: Mapping[str, Any]) -> list[str]:
    """The guest OS names the VM carries: annotation ``vm.kubevirt.io/os``, ``os.template.kubevirt.io/*`` labels,
    containerdisk image names (repository without registry and tag)."""
    hints: list[str] = []
    template = (vm.get("spec") or {}).get("template") or {}
    for metadata in (vm.get("metadata") or {}, template.get("metadata") or {}):
        annotations = metadata.get("annotations") or {}
        if annotations.get(OS_ANNOTATION):
            hints.append(str(annotations[OS_ANNOTATION]))
        for label in metadata.get("labels") or {}:
            if str(label).startswith(OS_LABEL_PREFIX):
                hints.append(str(label)[len(OS_LABEL_PREFIX) :])
    for volume in _template(vm).get("volumes") or []:
        image = str((volume.get("containerDisk") or {}).get("image") or "")
        if image:
            hints.append(image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0])
    return hints


def _base(name: str) -> str:
    """A preference name without its variant suffixes (``windows.11.virtio`` -> ``windows.11``)."""
    for suffix in (".virtio", ".desktop", ".arm64", ".s390x", ".efi", ".dpdk", ".virtiotransitional"):
        name = name.removesuffix(suffix)
    return name


def preference_candidates(vm: Mapping[str, Any], preferences: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The preferences named after the VM's guest OS: the longest base name that starts one of the hints."""
    best: list[Mapping[str, Any]] = []
    best_length = 0
    for hint in (_compact(hint) for hint in os_hints(vm)):
        for preference in preferences:
            base = _compact(_base(str((preference.get("metadata") or {}).get("name") or "")))
            if base and hint.startswith(base) and len(base) >= best_length:
                if len(base) > best_length:
                    best, best_length = [], len(base)
                if preference not in best:
                    best.append(preference)
    return best


def effective(vm: Mapping[str, Any], instancetype: Any, preference: Any, defaults: ClusterDefaults) -> Json | None:
    """The template spec KubeVirt would run ``vm`` with: the expansion (with the specs its matchers name), or for
    a VM without matchers the same default disks, interface and VMI defaults. None on conflicts."""
    spec_of_vm = vm.get("spec") or {}
    if spec_of_vm.get("instancetype") is None and spec_of_vm.get("preference") is None:
        copy: Json = clone(dict(vm))
        spec = copy.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
        provenance = Provenance()
        default_volume_disks(TEMPLATE_SPEC, spec, provenance)
        default_network_interface(TEMPLATE_SPEC, spec, defaults, provenance)
        vmi_spec_defaults(TEMPLATE_SPEC, spec, defaults, provenance)
        spec.setdefault("domain", {}).setdefault("resources", {})
        spec["domain"].setdefault("devices", {})
        return _template(copy)
    result = expand_vm(vm, instancetype, preference, defaults=defaults)
    return _template(result.vm) if result.vm is not None else None


def _topology_defaults(spec: Json | None) -> Json | None:
    """A zero or absent socket, core or thread count means one (virt-launcher's reading): ``sockets: 1`` alone and
    ``sockets: 1, cores: 1, threads: 1`` are the same guest."""
    if spec is None:
        return None
    cpu = (spec.get("domain") or {}).get("cpu")
    if isinstance(cpu, dict):
        for key in ("sockets", "cores", "threads"):
            if not cpu.get(key):
                cpu[key] = 1
    return spec


def _path_parts(path: str) -> list[str]:
    return path.removeprefix(TEMPLATE_SPEC + ".").split(".")


def strip_conflicts(vm: Json, instancetype: Mapping[str, Any]) -> list[str]:
    """Remove from ``vm`` (in place) every field the instance type conflicts with; the paths removed."""
    removed: list[str] = []
    for _ in range(20):
        probe: Json = clone(vm)
        conflicts = apply_to_template(probe, clone(dict(instancetype)), None)
        if not conflicts:
            return removed
        for conflict in conflicts:
            parts = _path_parts(conflict.path)
            parent: Any = _template(vm)
            for part in parts[:-1]:
                parent = parent.get(part) if isinstance(parent, dict) else None
            if isinstance(parent, dict) and parts[-1] in parent:
                parent.pop(parts[-1])
                removed.append(conflict.path)
                _drop_emptied(_template(vm), parts[:-1])
            else:  # a conflict we cannot remove by path: stop rather than loop
                return removed
    return removed


def _drop_emptied(spec: Json, parts: list[str]) -> None:
    """Remove the objects along ``parts`` (below ``domain``) that removing a conflicting field left empty:
    ``cpu: {}`` would be a CPU section the original never had."""
    while len(parts) > 1:
        parent: Any = spec
        for part in parts[:-1]:
            parent = parent.get(part) if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or parent.get(parts[-1]) != {}:
            return
        parent.pop(parts[-1])
        parts = parts[:-1]


def _matcher(obj: Mapping[str, Any], cluster_kind: str) -> Json:
    kind = str(obj.get("kind") or cluster_kind)
    matcher: Json = {"name": (obj.get("metadata") or {}).get("name")}
    if kind != cluster_kind:
        matcher["kind"] = kind
    return matcher


def adopt(
    vm: Mapping[str, Any],
    instancetypes: Sequence[Mapping[str, Any]],
    preferences: Sequence[Mapping[str, Any]],
    *,
    instancetype: Mapping[str, Any] | None = None,
    preference: Mapping[str, Any] | None = None,
    defaults: ClusterDefaults | None = None,
) -> Adoption:
    """Adopt ``vm`` onto the given (or chosen) instance type and preference; see the module docstring."""
    defaults = defaults if defaults is not None else ClusterDefaults()
    name = str((vm.get("metadata") or {}).get("name") or "")
    need = need_of(vm)
    result = Adoption(name, need)
    spec = vm.get("spec") or {}
    if spec.get("instancetype") is not None or spec.get("preference") is not None:
        result.problems.append("the VM already has an instance type or preference: use switch to change them")
        return result
    chosen = instancetype
    if chosen is None and preference is not None:
        # a given preference's requirements narrow the choice: KubeVirt's admission denies a VM whose instance
        # type does not meet them (pkg/instancetype/preference/requirements)
        chosen = choose_instancetype(
            need, [c for c in instancetypes if evaluate(_spec(c), _spec(preference), architecture=None).fits]
        )
    chosen = chosen or choose_instancetype(need, instancetypes)
    if chosen is None:
        memory = format_bytes(need.memory)
        extra = (" with dedicated CPUs" if need.dedicated else "") + (
            f" with {need.hugepages} hugepages" if need.hugepages else ""
        )
        result.problems.append(f"no instance type has at least {need.vcpus} vCPU and {memory} memory{extra}")
        return result
    result.instancetype = chosen
    if preference is not None:
        from .requirements import DENIAL_PREFIX, unmet_requirement

        unmet = unmet_requirement(_spec(chosen), _spec(preference), _template(vm))
        if unmet is not None and not unmet.startswith("preference requires architecture"):
            result.preference = preference
            result.problems.append(DENIAL_PREFIX + unmet)
            return result
    original = _topology_defaults(effective(vm, None, None, defaults))
    if preference is None:
        # the architecture the VM runs with: its own, else the cluster's default (what the mutating webhook sets)
        architecture = str(_template(vm).get("architecture") or defaults.architecture or "")
        candidates = [
            candidate
            for candidate in preference_candidates(vm, preferences)
            if evaluate(_spec(chosen), _spec(candidate), architecture=architecture or None).fits
            and (not architecture or _spec(candidate).get("preferredArchitecture") in (None, architecture))
        ]
        if not candidates:
            hints = ", ".join(os_hints(vm)) or "none"
            result.notes.append(
                f"no preference chosen: no fitting preference is named after the VM's guest OS hints ({hints}); "
                "pass --preference"
            )
    else:
        candidates = [preference]
    adopted: Json = clone(dict(vm))
    result.removed = strip_conflicts(adopted, chosen)
    adopted["spec"]["instancetype"] = _matcher(chosen, "VirtualMachineClusterInstancetype")
    best: tuple[int, str, Mapping[str, Any] | None, Json | None] | None = None
    options: list[Mapping[str, Any] | None] = list(candidates) if candidates else [None]
    for candidate in options:
        attempt: Json = clone(adopted)
        if candidate is not None:
            attempt["spec"]["preference"] = _matcher(candidate, "VirtualMachineClusterPreference")
        expanded = _topology_defaults(
            effective(attempt, _spec(chosen), _spec(candidate) if candidate is not None else None, defaults)
        )
        if expanded is None:
            continue
        changed = len(differences(original, expanded))
        key = (changed, str((candidate or {}).get("metadata", {}).get("name") or ""))
        if best is None or key < best[:2]:
            best = (*key, candidate, attempt)
    if best is None:
        result.problems.append("the instance type still conflicts with the VM after removing its fields")
        return result
    _, _, result.preference, adopted_vm = best
    result.vm = adopted_vm
    assert adopted_vm is not None
    expanded = _topology_defaults(
        effective(adopted_vm, _spec(chosen), _spec(result.preference) if result.preference else None, defaults)
    )
    result.changes = [Difference(path, before, after) for path, before, after in differences(original, expanded)]
    result.compared = len({path for path, _, _ in differences({}, original)} | {c.path for c in result.changes})
    return result
