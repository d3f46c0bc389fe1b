"""The ``--vms`` report: which VMs each preset's selector matches, what KubeVirt v0.58's preset mechanism
(``pkg/virt-api/webhooks/mutating-webhook/mutators/preset.go``: ``checkMergeConflicts``, ``mergeDomainSpec``)
would have done to each, and what each VM should reference instead."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError
from ...golang.strconv import go_quote
from ..jsoncopy import clone
from ..selectors import selector_matches
from .context import Preset, render
from .schema import PRESET_EXCLUDE_ANNOTATION


@dataclass
class VMReport:
    """What the preset mechanism would have done to one VM, and what it should reference instead."""

    name: str
    kind: str = "VirtualMachine"
    matched: list[str] = field(default_factory=list)
    excluded: bool = False
    messages: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    recommendation: str = ""
    references: dict[str, dict[str, str]] = field(default_factory=dict)  # matcher -> {kind, name} to write


def report_presets(presets: list[Preset], vms: Iterable[Mapping[str, Any]]) -> list[str]:
    """Report lines: the VMs each preset's selector matches, the preset mechanism's messages per VM, and the
    preference (and instance type) each VM should reference.

    Presets act on the VMI a VM starts, whose labels and annotations come from ``spec.template.metadata``;
    only presets in the VM's namespace apply (a missing namespace counts as the same one).
    """
    vm_list = []
    for vm in vms:
        if vm.get("kind") not in ("VirtualMachine", "VirtualMachineInstance"):
            name = (vm.get("metadata") or {}).get("name") or ""
            raise InputError(
                f"cannot match presets against {vm.get('kind')} {go_quote(str(name))}: give VirtualMachines or "
                "VirtualMachineInstances"
            )
        vm_list.append(vm)
    reports = [_vm_report(presets, vm) for vm in vm_list]
    lines = []
    for preset in presets:
        names = [report.name for report in reports if preset.name in report.matched]
        target = ", ".join(names) if names else "no VirtualMachine"
        lines.append(f"{preset.kind} {preset.name} matches {target}")
    for report in reports:
        subject = f"{report.kind} {report.name}"
        if report.excluded:
            lines.append(
                f'{subject}: excluded from presets ({PRESET_EXCLUDE_ANNOTATION}: "true"); nothing to reference'
            )
            continue
        lines.extend(f"{subject}: {message}" for message in report.messages)
        lines.append(f"{subject}: {report.recommendation}")
    return lines


@dataclass(frozen=True)
class Rewrite:
    """A VirtualMachine a preset applied to, and the matchers it should now carry (``spec.<key>``: kind, name)."""

    name: str
    namespace: str | None
    references: dict[str, dict[str, str]]

    @property
    def line(self) -> str:
        """What the rewrite does, in one line."""
        written = " and ".join(f"spec.{key}: {m['kind']} {m['name']}" for key, m in self.references.items())
        return f"VirtualMachine {self.name}: rewritten to reference {written}"

    def apply(self, vm: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of ``vm`` carrying the matchers."""
        copy: dict[str, Any] = clone(dict(vm))
        spec = copy.setdefault("spec", {})
        for key, matcher in self.references.items():
            spec[key] = dict(matcher)
        return copy


def rewrite_vms(presets: list[Preset], vms: Iterable[Mapping[str, Any]]) -> list[Rewrite]:
    """Each VirtualMachine of ``vms`` a preset applied to, with the preference (and instance type) the preset was
    converted to, exactly what the report recommends. VMs the report cannot give one reference (conflicting or
    several presets, their own preference, their own size) are left out: their report lines say what to do."""
    rewrites = []
    for vm in vms:
        if vm.get("kind") != "VirtualMachine":
            continue
        report = _vm_report(presets, vm)
        if report.excluded or not report.references:
            continue
        namespace = (vm.get("metadata") or {}).get("namespace")
        rewrites.append(Rewrite(report.name, str(namespace) if namespace else None, dict(report.references)))
    return rewrites


def _vm_report(presets: list[Preset], vm: Mapping[str, Any]) -> VMReport:
    metadata = vm.get("metadata") or {}
    spec = vm.get("spec") or {}
    if vm.get("kind") == "VirtualMachineInstance":
        # The preset mechanism acted on VMIs directly: their own labels, annotations and domain.
        template: Mapping[str, Any] = {"metadata": metadata, "spec": spec}
    else:
        template = spec.get("template") or {}
    template_meta = template.get("metadata") or {}
    labels = {str(key): str(value) for key, value in (template_meta.get("labels") or {}).items()}
    report = VMReport(str(metadata.get("name") or ""), str(vm.get("kind")))
    namespace = metadata.get("namespace")
    matching = [
        preset
        for preset in presets
        if (not namespace or not preset.namespace or preset.namespace == namespace)
        and selector_matches(preset.selector, labels)
    ]
    report.matched = [preset.name for preset in matching]
    if (template_meta.get("annotations") or {}).get(PRESET_EXCLUDE_ANNOTATION) == "true":
        report.excluded = True
        return report
    if not matching:
        report.recommendation = "matches no preset; nothing to reference"
        return report
    domain = clone(((template.get("spec") or {}).get("domain")) or {})
    errors = []
    for index, preset in enumerate(matching):
        for earlier in matching[:index]:
            conflicts = merge_conflicts(preset.domain, earlier.domain)
            if conflicts:
                errors.append(f"presets '{preset.name}' and '{earlier.name}' conflict: {_aggregate(conflicts)}")
    if errors:
        report.messages.append(f"VirtualMachinePresets cannot be applied due to conflicts: {_aggregate(errors)}")
        report.recommendation = "no preset was applied to it (they conflict); reference at most one of " + ", ".join(
            preset.preference or preset.name for preset in matching
        )
        return report
    for preset in matching:
        conflicts = merge_conflicts(preset.domain, domain)
        applied = merge_domain(preset.domain, domain)
        kind = "VirtualMachineInstancePreset"
        if applied:
            report.applied.append(preset.name)
            if conflicts:
                report.messages.append(
                    f"Some settings were not applied for {kind} '{preset.name}': {_aggregate(conflicts)}"
                )
        else:
            text = _aggregate(conflicts) if conflicts else "<nil>"
            report.messages.append(f"Unable to apply {kind} '{preset.name}': {text}")
    report.recommendation = _recommendation(report, matching, vm)
    return report


def _recommendation(report: VMReport, matching: list[Preset], vm: Mapping[str, Any]) -> str:
    spec = vm.get("spec") or {}
    applied = [preset for preset in matching if preset.name in report.applied]
    if not applied:
        return "no preset was applied to it; referencing a converted preference would change it"
    if len(applied) > 1:
        names = ", ".join(preset.preference or preset.name for preset in applied)
        return f"a VM references one preference: merge {names} into one and reference it"
    preset = applied[0]
    references, notes = [], []
    own = spec.get("preference")
    if preset.preference and isinstance(own, dict) and own.get("name"):
        own_kind = own.get("kind") or "VirtualMachineClusterPreference"
        notes.append(
            f"already references {own_kind} {own.get('name')}: merge VirtualMachinePreference {preset.preference} into it"
        )
    elif preset.preference:
        references.append(_reference("preference", "VirtualMachinePreference", preset.preference))
        report.references["preference"] = {"kind": "VirtualMachinePreference", "name": preset.preference}
    if preset.preference:
        notes.extend(_overridden(preset, vm))
    if preset.instancetype:
        if _has_own_size(vm):
            notes.append(f"it sets CPU or memory itself, so instance type {preset.instancetype} would conflict")
        elif spec.get("instancetype"):
            notes.append("it keeps its own instance type")
        else:
            references.append(_reference("instancetype", "VirtualMachineInstancetype", preset.instancetype))
            report.references["instancetype"] = {"kind": "VirtualMachineInstancetype", "name": preset.instancetype}
    if not references and not notes:
        return f"the preset {preset.name} converted to nothing it could reference"
    if not references:
        return "; ".join(notes)
    if report.kind == "VirtualMachineInstance":
        text = "a VirtualMachineInstance references nothing: start it from a VirtualMachine that references "
    else:
        text = "should reference "
    return "; ".join([text + " and ".join(references), *notes])


def _overridden(preset: Preset, vm: Mapping[str, Any]) -> list[str]:
    """The VM's own settings that the preference would override where the preset left them alone."""
    domain = _domain(vm)
    notes = []
    for path in (("features", "acpi"), ("devices", "disableHotplug")):
        preset_value: Any = preset.domain
        own: Any = domain
        for key in path:
            preset_value = preset_value.get(key) if isinstance(preset_value, dict) else None
            own = own.get(key) if isinstance(own, dict) else None
        if preset_value is not None and own is not None and not _equal(preset_value, own):
            notes.append(
                f"the preference would override its {'.'.join(path)} ({render(own)} -> {render(preset_value)})"
            )
    return notes


def _domain(vm: Mapping[str, Any]) -> dict[str, Any]:
    spec = vm.get("spec") or {}
    if vm.get("kind") != "VirtualMachineInstance":
        spec = (spec.get("template") or {}).get("spec") or {}
    domain = spec.get("domain")
    return domain if isinstance(domain, dict) else {}


def _reference(field_name: str, kind: str, name: str) -> str:
    return f"{kind} {name} (spec.{field_name}: {{kind: {kind}, name: {name}}})"


def _has_own_size(vm: Mapping[str, Any]) -> bool:
    domain = _domain(vm)
    cpu = domain.get("cpu") or {}
    resources = domain.get("resources") or {}
    return bool(
        any(cpu.get(key) for key in ("sockets", "cores", "threads"))
        or (domain.get("memory") or {}).get("guest")
        or any(
            (resources.get(section) or {}).get(key) for section in ("requests", "limits") for key in ("cpu", "memory")
        )
    )


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: the message alone, or ``[a, b]``."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def _normal(value: Any) -> Any:
    """Drop what Go's semantic equality ignores in JSON form: null values and empty lists."""
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items() if item is not None and item != []}
    if isinstance(value, list):
        return [_normal(item) for item in value]
    return value


def _equal(left: Any, right: Any) -> bool:
    return bool(_normal(left) == _normal(right))


def _quantities_equal(left: Any, right: Any) -> bool:
    return _same_quantity(str(left), str(right))


@functools.lru_cache(maxsize=1 << 12)
def _same_quantity(left: str, right: str) -> bool:
    """Cached: a large List compares the same few preset and VM quantities thousands of times."""
    from ...golang.quantity import QuantityError, parse_quantity

    try:
        return bool(parse_quantity(left) == parse_quantity(right))
    except QuantityError:
        return left == right


def merge_conflicts(preset: Mapping[str, Any], vmi: Mapping[str, Any]) -> list[str]:
    """KubeVirt's ``checkMergeConflicts`` (v0.58): the preset fields a VMI domain sets differently."""
    errors = []
    preset_requests = (preset.get("resources") or {}).get("requests") or {}
    vmi_requests = (vmi.get("resources") or {}).get("requests") or {}
    for key, value in preset_requests.items():
        if key in vmi_requests and not _quantities_equal(value, vmi_requests[key]):
            errors.append(f"spec.resources.requests[{key}]: {value} != {vmi_requests[key]}")
    for key, path in (("cpu", "spec.cpu"), ("firmware", "spec.firmware")):
        if preset.get(key) is not None and vmi.get(key) is not None and not _equal(preset[key], vmi[key]):
            errors.append(f"{path}: {render(preset[key])} != {render(vmi[key])}")
    preset_clock, vmi_clock = preset.get("clock"), vmi.get("clock")
    if isinstance(preset_clock, dict) and isinstance(vmi_clock, dict):
        preset_offset, vmi_offset = _clock_offset(preset_clock), _clock_offset(vmi_clock)
        if not _equal(preset_offset, vmi_offset):
            errors.append(f"spec.clock.clockoffset: {render(preset_offset)} != {render(vmi_offset)}")
        timers = preset_clock.get("timer"), vmi_clock.get("timer")
        if timers[0] is not None and timers[1] is not None and not _equal(*timers):
            errors.append(f"spec.clock.timer: {render(preset_clock['timer'])} != {render(vmi_clock['timer'])}")
    features = preset.get("features"), vmi.get("features")
    if features[0] is not None and features[1] is not None and not _equal(*features):
        errors.append(f"spec.features: {render(preset['features'])} != {render(vmi['features'])}")
    preset_watchdog = (preset.get("devices") or {}).get("watchdog")
    vmi_watchdog = (vmi.get("devices") or {}).get("watchdog")
    if preset_watchdog is not None and vmi_watchdog is not None and not _equal(preset_watchdog, vmi_watchdog):
        errors.append(f"spec.devices.watchdog: {render(preset_watchdog)} != {render(vmi_watchdog)}")
    policy, vmi_policy = preset.get("ioThreadsPolicy"), vmi.get("ioThreadsPolicy")
    if policy is not None and vmi_policy is not None and policy != vmi_policy:
        errors.append(f"spec.ioThreadsPolicy: {policy} != {vmi_policy}")
    return errors


def _clock_offset(clock: Mapping[str, Any]) -> dict[str, Any]:
    return {key: clock[key] for key in ("utc", "timezone") if key in clock}


def merge_domain(preset: Mapping[str, Any], vmi: dict[str, Any]) -> bool:
    """KubeVirt's ``mergeDomainSpec`` (v0.58): fill unset sections of ``vmi`` in place; True when any section of
    the preset ended up in the VMI (the preset counts as applied)."""
    applied = False
    preset_requests = (preset.get("resources") or {}).get("requests") or {}
    if preset_requests:
        resources = vmi.setdefault("resources", {})
        if not resources.get("requests"):
            resources["requests"] = clone(preset_requests)
        requests = resources["requests"]
        if set(requests) == set(preset_requests) and all(
            _quantities_equal(value, requests[key]) for key, value in preset_requests.items()
        ):
            applied = True

    def whole(key: str, container: dict[str, Any], value: Any) -> bool:
        if value is None:
            return False
        if container.get(key) is None:
            container[key] = clone(value)
        return _equal(container[key], value)

    applied = whole("cpu", vmi, preset.get("cpu")) or applied
    applied = whole("firmware", vmi, preset.get("firmware")) or applied
    preset_clock = preset.get("clock")
    if isinstance(preset_clock, dict):
        if vmi.get("clock") is None:
            vmi["clock"] = clone(_clock_offset(preset_clock))
        if _equal(vmi["clock"], preset_clock):
            applied = True
        if preset_clock.get("timer") is not None:
            applied = whole("timer", vmi["clock"], preset_clock["timer"]) or applied
    applied = whole("features", vmi, preset.get("features")) or applied
    watchdog = (preset.get("devices") or {}).get("watchdog")
    if watchdog is not None:
        applied = whole("watchdog", vmi.setdefault("devices", {}), watchdog) or applied
    applied = whole("ioThreadsPolicy", vmi, preset.get("ioThreadsPolicy")) or applied
    return applied
