"""Instance type application (``pkg/instancetype/apply``): the ten steps in KubeVirt's order, each collecting
its conflicts and changing the template only when it has none of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...golang.quantity import canonical_quantity
from ._tree import INSTANCETYPE, Json, Provenance, child, clone, is_set, set_scalar
from .conflicts import Conflict
from .memory import overcommitted_request
from .topology import guest_topology


class _Step:
    """One application step's view: the template spec, its base path, and where to record what it set."""

    def __init__(self, base: str, instancetype: Json, spec: Json, provenance: Provenance) -> None:
        self.base = base
        self.instancetype = instancetype
        self.spec = spec
        self.provenance = provenance

    def conflict(self, *names: str) -> Conflict:
        return Conflict(".".join((self.base, *names)))

    def record(self, *names: str) -> None:
        self.provenance.record(".".join((self.base, *names)), INSTANCETYPE)


def _node_selector(step: _Step) -> list[Conflict]:
    if not is_set(step.instancetype, "nodeSelector"):
        return []
    if is_set(step.spec, "nodeSelector"):
        return [step.conflict("nodeSelector")]
    step.spec["nodeSelector"] = dict(step.instancetype["nodeSelector"])
    step.record("nodeSelector")
    return []


def _scheduler_name(step: _Step) -> list[Conflict]:
    if not step.instancetype.get("schedulerName"):
        return []
    if step.spec.get("schedulerName"):
        return [step.conflict("schedulerName")]
    step.spec["schedulerName"] = step.instancetype["schedulerName"]
    step.record("schedulerName")
    return []


def _has_resource(domain: Json, kind: str, resource: str) -> bool:
    return resource in ((domain.get("resources") or {}).get(kind) or {})


def _cpu_conflicts(step: _Step, domain: Json, cpu: Json, it_cpu: Json) -> list[Conflict]:
    conflicts = []
    for kind in ("requests", "limits"):
        if _has_resource(domain, kind, "cpu"):
            conflicts.append(step.conflict("domain", "resources", kind, "cpu"))
    for name in ("sockets", "cores", "threads"):
        if cpu.get(name):
            conflicts.append(step.conflict("domain", "cpu", name))
    if cpu.get("model") and it_cpu.get("model") is not None:
        conflicts.append(step.conflict("domain", "cpu", "model"))
    # The VM spells it dedicatedCpuPlacement, the instance type dedicatedCPUPlacement; KubeVirt's path uses the
    # Go field name's JSON form in the VM (k8sfield paths are written by hand as "dedicatedCPUPlacement").
    for vm_name, it_name in (("dedicatedCpuPlacement", "dedicatedCPUPlacement"), ("isolateEmulatorThread",) * 2):
        if cpu.get(vm_name) and it_cpu.get(it_name) is not None:
            conflicts.append(step.conflict("domain", "cpu", it_name))
    for name in ("numa", "realtime"):
        if is_set(cpu, name) and is_set(it_cpu, name):
            conflicts.append(step.conflict("domain", "cpu", name))
    return conflicts


_CPU_SCALARS = (
    ("model", "model"),
    ("dedicatedCPUPlacement", "dedicatedCpuPlacement"),
    ("isolateEmulatorThread", "isolateEmulatorThread"),
    ("maxSockets", "maxSockets"),
)


def _cpu(step: _Step, preference: Json | None) -> list[Conflict]:
    domain = child(step.spec, "domain")
    cpu = child(domain, "cpu")
    it_cpu = step.instancetype.get("cpu") or {}
    conflicts = _cpu_conflicts(step, domain, cpu, it_cpu)
    if conflicts:
        return conflicts
    for it_name, vm_name in _CPU_SCALARS:
        if it_cpu.get(it_name) is not None:
            # An explicit false or "" in the instance type is copied too, which clears the VM's value.
            set_scalar(cpu, vm_name, it_cpu[it_name])
            step.record("domain", "cpu", vm_name)
    for name in ("numa", "realtime"):
        if is_set(it_cpu, name):
            cpu[name] = clone(it_cpu[name])
            step.record("domain", "cpu", name)
    sockets, cores, threads = guest_topology(int(it_cpu.get("guest") or 0), preference)
    for name, value in (("cores", cores), ("sockets", sockets), ("threads", threads)):
        set_scalar(cpu, name, value)
        step.record("domain", "cpu", name)
    return []


def _memory_conflict(step: _Step, domain: Json, memory: Json, it_memory: Json) -> list[Conflict]:
    # Only the first hit is reported, in this order, as KubeVirt does.
    if is_set(memory, "guest"):
        return [step.conflict("domain", "memory", "guest")]
    for name in ("hugepages", "maxGuest"):
        if is_set(memory, name) and is_set(it_memory, name):
            return [step.conflict("domain", "memory", name)]
    for kind in ("requests", "limits"):
        if _has_resource(domain, kind, "memory"):
            return [step.conflict("domain", "resources", kind, "memory")]
    return []


def _memory(step: _Step) -> list[Conflict]:
    domain = child(step.spec, "domain")
    memory = child(domain, "memory")
    it_memory = step.instancetype.get("memory") or {}
    conflicts = _memory_conflict(step, domain, memory, it_memory)
    if conflicts:
        return conflicts
    guest = str(it_memory.get("guest") or "0")
    memory["guest"] = canonical_quantity(guest)
    step.record("domain", "memory", "guest")
    percent = int(it_memory.get("overcommitPercent") or 0)
    if percent > 0:
        requests = child(child(domain, "resources"), "requests")
        requests["memory"] = overcommitted_request(guest, percent)
        step.record("domain", "resources", "requests", "memory")
    if is_set(it_memory, "hugepages"):
        memory["hugepages"] = clone(it_memory["hugepages"])
        step.record("domain", "memory", "hugepages")
    if is_set(it_memory, "maxGuest"):
        memory["maxGuest"] = canonical_quantity(str(it_memory["maxGuest"]))
        step.record("domain", "memory", "maxGuest")
    return []


def _io_threads(step: _Step) -> list[Conflict]:
    count = (step.instancetype.get("ioThreads") or {}).get("supplementalPoolThreadCount")
    if count is None:
        return []
    domain = child(step.spec, "domain")
    if (domain.get("ioThreads") or {}).get("supplementalPoolThreadCount") is not None:
        return [step.conflict("domain", "ioThreads", "supplementalPoolThreadCount")]
    child(domain, "ioThreads")["supplementalPoolThreadCount"] = count
    step.record("domain", "ioThreads", "supplementalPoolThreadCount")
    return []


def _domain_field(name: str) -> Callable[[_Step], list[Conflict]]:
    """A step that copies one domain field of the instance type, a conflict when the VM sets it too."""

    def apply(step: _Step) -> list[Conflict]:
        if not is_set(step.instancetype, name):
            return []
        domain = child(step.spec, "domain")
        if is_set(domain, name):
            return [step.conflict("domain", name)]
        domain[name] = clone(step.instancetype[name])
        step.record("domain", name)
        return []

    return apply


def _device_list(name: str) -> Callable[[_Step], list[Conflict]]:
    """A step that copies a device list (gpus, hostDevices), a conflict when the VM has any."""

    def apply(step: _Step) -> list[Conflict]:
        if not step.instancetype.get(name):
            return []
        devices = child(child(step.spec, "domain"), "devices")
        if devices.get(name):
            return [step.conflict("domain", "devices", name)]
        devices[name] = clone(step.instancetype[name])
        step.record("domain", "devices", name)
        return []

    return apply


def apply_annotations(
    annotations: dict[str, Any] | None, metadata: Json, provenance: Provenance, path: str, source: str
) -> list[Conflict]:
    """Add ``annotations`` to ``metadata``; an existing key with another value is a conflict (``annotations.<key>``).

    Keys are visited in sorted order (Go visits a map in random order) so that messages are stable.
    """
    conflicts = []
    target = metadata.get("annotations") or {}
    for key in sorted(annotations or {}):
        value = (annotations or {})[key]
        if key in target:
            if target[key] != value and source == INSTANCETYPE:
                conflicts.append(Conflict(f"annotations.{key}"))
            continue
        target[key] = value
        provenance.record(f"{path}.{key}", source)
    if target:
        metadata["annotations"] = target
    return conflicts


def apply_instancetype(
    base: str, instancetype: Json, preference: Json | None, spec: Json, metadata: Json, provenance: Provenance
) -> list[Conflict]:
    """Apply ``instancetype`` to the template ``spec`` and its ``metadata``; the conflicts of every step."""
    step = _Step(base, instancetype, spec, provenance)
    conflicts: list[Conflict] = []
    conflicts += _node_selector(step)
    conflicts += _scheduler_name(step)
    conflicts += _cpu(step, preference)
    conflicts += _memory(step)
    conflicts += _io_threads(step)
    conflicts += _domain_field("ioThreadsPolicy")(step)
    conflicts += _domain_field("launchSecurity")(step)
    conflicts += _device_list("gpus")(step)
    conflicts += _device_list("hostDevices")(step)
    annotations_path = base.rsplit(".", 1)[0] + ".metadata.annotations"
    conflicts += apply_annotations(
        instancetype.get("annotations"), metadata, provenance, annotations_path, INSTANCETYPE
    )
    return conflicts
