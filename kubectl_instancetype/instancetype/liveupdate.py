"""What KubeVirt's virt-controller does with a changed VirtualMachine template: which fields change, and whether
each one reaches the running guest at once (hot-plug, live patch) or waits for a restart with a
``RestartRequired`` condition, and which message that condition carries. Pure: the caller hands in the
template specs (instance type and preference already applied) and the VMI.

It follows ``pkg/virt-controller/watch/vm/vm.go`` of KubeVirt v1.9.0, in its order:

1. ``syncRestartRequired``: the template the VM started with (the ``revision-start-vm-<uid>-<generation>``
   ControllerRevision, its matchers pinned to the revisions in use at start) is compared with the current one,
   both with their instance type and preference applied. Under the ``LiveUpdate`` rollout strategy
   (``spec.configuration.vmRolloutStrategy`` of the KubeVirt CR; the default since v1.6) ``domain.cpu.sockets``,
   ``domain.memory.guest``, ``nodeSelector``, ``affinity`` and ``tolerations`` are taken over first; any other
   difference sets ``RestartRequired`` "a non-live-updatable field was changed in the template spec" and
   nothing is hot-plugged. Under ``Stage`` every difference does.
2. ``handleCPUChangeRequest``: the new socket count against the VMI's: above the VMI's ``maxSockets``, lower,
   or on arm64, ``RestartRequired`` with its message; else the VMI is patched (``HotVCPUChange``).
3. node selector, affinity and tolerations are patched onto the VMI.
4. ``handleMemoryHotplugRequest``: the new guest memory against the VMI's (its ``status.memory``, its
   ``LiveMigratable`` condition, ``maxGuest``, ``pkg/liveupdate/memory.ValidateLiveUpdateMemory``).

The condition keeps the first message set in a sync (``UpdateCondition`` leaves a condition of the same status
and reason alone), so the VM shows the non-live message, else the CPU one, else the memory one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..golang.quantity import quantity_value

LIVE_UPDATE = "LiveUpdate"
STAGE = "Stage"
ROLLOUT_STRATEGIES = (LIVE_UPDATE, STAGE)

# RestartRequired messages, verbatim from pkg/virt-controller/watch/vm/vm.go (v1.9.0)
NON_LIVE = "a non-live-updatable field was changed in the template spec"
SOCKETS_ABOVE_MAX = "CPU sockets updated in template spec to a value higher than what's available"
SOCKETS_REDUCED = "Reduction of CPU socket count requires a restart"
ARM_NO_CPU_HOTPLUG = "ARM doesn't support CPU hotplug"
MEMORY_HOTPLUG_FAILED = (
    "memory updated in template spec. Memory-hotplug failed and is not available for this VM configuration"
)
MEMORY_NOT_MIGRATABLE = "memory updated in template spec. Memory-hotplug is only available for migratable VMs"
MEMORY_NO_MAX_GUEST = "memory updated in template spec. Memory-hotplug is not available for this VM configuration"
MEMORY_NOT_SUPPORTED = "memory hotplug not supported, {}"
MEMORY_BELOW_BOOT = "memory updated in template spec to a value lower than what the VM started with"
# unreachable in v1.9.0: ValidateLiveUpdateMemory refuses a guest above maxGuest first ("memory hotplug not
# supported, Guest memory is greater than the configured maxGuest memory"); kept in vm.go's order
MEMORY_ABOVE_MAX = "memory updated in template spec to a value higher than what's available"

# sync errors: the VM's Failure condition (reason) with the wrapped message; the change is retried
HOTPLUG_CPU_ERROR = "HotPlugCPUError"
HOTPLUG_MEMORY_ERROR = "HotPlugMemoryError"
CPU_ERROR_FORMAT = "Error encountered while handling CPU change request: {}"
MEMORY_ERROR_FORMAT = "error encountered while handling memory hotplug requests: {}"
CPU_IN_PROGRESS = "another CPU hotplug is in progress"
CPU_MIGRATING = "CPU hotplug is not allowed while VMI is migrating"
MEMORY_IN_PROGRESS = "another memory hotplug is in progress"
MEMORY_MIGRATING = "memory hotplug is not allowed while VMI is migrating"

# VMI conditions (kubevirt.io/api core/v1)
HOT_VCPU_CHANGE = "HotVCPUChange"
HOT_MEMORY_CHANGE = "HotMemoryChange"
LIVE_MIGRATABLE = "LiveMigratable"
RESTART_REQUIRED = "RestartRequired"

# what happens to one changed field
LIVE = "live"  # hot-plugged or patched onto the running VMI
RESTART = "restart"  # waits for a restart; the VM carries RestartRequired
NEXT_START = "next start"  # the VM is not running: the field is what it gets when it starts
RETRY = "retry"  # the controller reports a sync error and tries again (a hot-plug already in progress)
WAITS = "waits"  # neither applied nor flagged: KubeVirt skips it (see the change's note)
ALREADY = "already live"  # differs from the start template but the VMI already has it (an earlier hot-plug)

LIVE_FIELDS = ("domain.cpu.sockets", "domain.memory.guest", "nodeSelector", "affinity", "tolerations")

# pkg/liveupdate/memory: block alignment and minimum guest size for memory hot-plug
_HOTPLUG_BLOCK = 0x200000
_HOTPLUG_BLOCK_1G_HUGEPAGES = 0x40000000
_MIN_GUEST = 0x40000000
_QUANTITY_KEYS = frozenset({"guest", "maxGuest", "overcommitPercent"})
_RESOURCE_PARENTS = frozenset({"requests", "limits", "overhead"})


@dataclass(frozen=True)
class FieldChange:
    """One field of ``spec.template.spec`` that differs: its path (relative to the template spec), the value
    the running guest started with (or the stopped VM has) and the new one (None when absent), what happens
    to it and why (KubeVirt's message for a restart)."""

    path: str
    old: Any
    new: Any
    outcome: str
    message: str = ""


@dataclass(frozen=True)
class FailureCondition:
    """A VM's ``Failure`` condition: its reason and message (the one the controller will set when it refuses to
    act now, in a plan; the one it set, in what ``switch --wait`` saw)."""

    reason: str
    message: str


@dataclass(frozen=True)
class LivePlan:
    """The controller's answer to a changed template.

    ``restart_required`` is the message of the VM's ``RestartRequired`` condition (None: no condition);
    ``hotplug`` the VMI conditions a live change raises while virt-handler applies it; ``sync_error`` the
    VM's failure when the controller refuses to act now.
    """

    running: bool
    strategy: str
    changes: tuple[FieldChange, ...] = ()
    restart_required: str | None = None
    hotplug: tuple[str, ...] = ()
    sync_error: FailureCondition | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def live(self) -> tuple[FieldChange, ...]:
        """The changes that reach the running guest without a restart."""
        return tuple(change for change in self.changes if change.outcome == LIVE)

    @property
    def needs_restart(self) -> bool:
        """True when the VM will carry ``RestartRequired``."""
        return self.restart_required is not None


def rollout_strategy(kubevirt: Mapping[str, Any] | None) -> str:
    """``spec.configuration.vmRolloutStrategy`` of the KubeVirt CR; unset (or no CR) means ``LiveUpdate``
    (``pkg/virt-config``: ``IsVMRolloutStrategyLiveUpdate`` is true for nil)."""
    configuration = ((kubevirt or {}).get("spec") or {}).get("configuration") or {}
    value = configuration.get("vmRolloutStrategy")
    return str(value) if value else LIVE_UPDATE


# ---------------------------------------------------------------------------------------------------------------
# comparing templates as apimachinery's equality.Semantic does: quantities by value, nil and empty alike


def _is_quantity_path(path: str) -> bool:
    parts = path.split(".")
    return parts[-1] in _QUANTITY_KEYS or (len(parts) > 1 and parts[-2] in _RESOURCE_PARENTS)


# map-typed fields: an empty map is no map (equality.Semantic); any other ``{}`` is a set pointer to an empty
# struct (``rng: {}``, ``efi: {}``), which Go tells from nil
_MAP_FIELDS = frozenset(
    {"nodeSelector", "annotations", "labels", "requests", "limits", "overhead", "resources", "devices", "domain"}
)


def _empty(key: str, value: Any) -> bool:
    return value is None or value == [] or (value == {} and key in _MAP_FIELDS)


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(path, scalar) for every leaf (an empty struct is a leaf ``{}``); list items are addressed ``[i]``."""
    if isinstance(value, dict):
        if not value and path:
            yield path, {}
            return
        for key in sorted(value):
            child = value[key]
            if _empty(key, child):
                continue
            yield from _leaves(child, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{path}[{index}]")
    else:
        yield path, value


def same(path: str, old: Any, new: Any) -> bool:
    """Whether two values at ``path`` are equal as equality.Semantic compares them (quantities by value)."""
    if old == new:
        return True
    if _is_quantity_path(path):
        left, right = quantity_value(old), quantity_value(new)
        return left is not None and left == right
    return False


def differences(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[tuple[str, Any, Any]]:
    """(path, old, new) for every leaf that differs between two template specs, in path order."""
    left = dict(_leaves(dict(old or {}), ""))
    right = dict(_leaves(dict(new or {}), ""))
    result = []
    for path in sorted(set(left) | set(right), key=_path_key):
        before, after = left.get(path), right.get(path)
        if not same(path, before, after):
            result.append((path, before, after))
    return result


def _path_key(path: str) -> tuple[Any, ...]:
    return tuple((part.split("[")[0], part.count("[")) for part in path.split("."))


def _top(path: str) -> str:
    """The live-update unit a leaf belongs to: ``domain.cpu.sockets``, ``affinity``... or the path itself."""
    for live in LIVE_FIELDS:
        if path == live or path.startswith(live + ".") or path.startswith(live + "["):
            return live
    return path


# ---------------------------------------------------------------------------------------------------------------
# the VMI


def _get(obj: Mapping[str, Any] | None, *keys: str) -> Any:
    current: Any = obj
    for key in keys:
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


def _condition(vmi: Mapping[str, Any], kind: str) -> str | None:
    """The status ("True"/"False"/"Unknown") of the VMI's condition ``kind``, None without one."""
    for condition in _get(vmi, "status", "conditions") or []:
        if isinstance(condition, Mapping) and condition.get("type") == kind:
            return str(condition.get("status"))
    return None


def _migrating(vmi: Mapping[str, Any]) -> bool:
    """``pkg/util/migrations.IsMigrating``: a migration started and neither completed nor failed."""
    state = _get(vmi, "status", "migrationState") or {}
    return bool(state.get("startTimestamp")) and not state.get("completed") and not state.get("failed")


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _show(value: Fraction) -> str:
    """An alignment as ``resource.NewQuantity(n, BinarySI).String()`` prints it (2Mi, 1Gi)."""
    number = int(value)
    for suffix, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if number % size == 0:
            return f"{number // size}{suffix}"
    return str(number)


def memory_hotplug_problem(template: Mapping[str, Any], max_guest: Any) -> str | None:
    """``pkg/liveupdate/memory.ValidateLiveUpdateMemory``: why this template's memory cannot be hot-plugged
    under the VMI's ``maxGuest`` (None: it can)."""
    domain = template.get("domain") or {}
    cpu = domain.get("cpu") or {}
    if cpu.get("realtime") is not None:
        return "Memory hotplug is not compatible with realtime VMs"
    if _get(cpu, "numa", "guestMappingPassthrough") is not None:
        return "Memory hotplug is not compatible with guest mapping passthrough"
    if domain.get("launchSecurity") is not None:
        return "Memory hotplug is not compatible with encrypted VMs"
    memory = domain.get("memory") or {}
    block = _HOTPLUG_BLOCK_1G_HUGEPAGES if _get(memory, "hugepages", "pageSize") == "1Gi" else _HOTPLUG_BLOCK
    guest = quantity_value(memory.get("guest"))
    if guest is None:
        return "Guest memory must be configured when memory hotplug is enabled"
    maximum = quantity_value(max_guest)
    if maximum is None:
        return "Max guest memory must be configured when memory hotplug is enabled"
    if guest > maximum:
        return "Guest memory is greater than the configured maxGuest memory"
    if int(guest) % block:
        return f"Guest memory must be {_show(Fraction(block))} aligned"
    if int(maximum) % block:
        return f"MaxGuest must be {_show(Fraction(block))} aligned"
    if template.get("architecture") != "amd64":
        return "Memory hotplug is only available for x86_64 VMs"
    if guest < _MIN_GUEST:
        return "Memory hotplug is only available for VMs with at least 1Gi of guest memory"
    return None


# ---------------------------------------------------------------------------------------------------------------
# the plan


def plan_live_update(
    start: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    vmi: Mapping[str, Any] | None,
    *,
    strategy: str = LIVE_UPDATE,
    architecture: str = "",
) -> LivePlan:
    """What virt-controller does when the VM's template becomes ``new``.

    ``start``: for a running VM, the template it started with (None when that revision is unknown: the
    controller then sets nothing); for a stopped VM, its current template (the comparison is informative).
    ``new``: the template after the change. Both with instance type and preference applied (KubeVirt's
    ``ApplyToVM``), VMI defaults not added. ``vmi``: the VirtualMachineInstance, None when the VM is not
    running (a VMI being deleted counts as none). ``architecture``: the stored VM's
    ``spec.template.spec.architecture`` (the arm64 rule reads the VM, not the applied template).
    """
    if vmi is None or _get(vmi, "metadata", "deletionTimestamp"):
        changes = tuple(FieldChange(path, old, value, NEXT_START) for path, old, value in differences(start, new))
        return LivePlan(running=False, strategy=strategy, changes=changes)
    if start is None:
        changes = tuple(
            FieldChange(path, None, value, WAITS, "the VM's start revision is missing: the controller compares nothing")
            for path, _, value in differences(_vmi_template(vmi), new)
        )
        return LivePlan(running=True, strategy=strategy, changes=changes)

    live_update = strategy == LIVE_UPDATE
    diff = differences(start, new)
    # a live field the template keeps but the VMI no longer has (an earlier hot-plug): the controller acts on it
    changed = {path for path, _, _ in diff}
    for path, keys in (("domain.cpu.sockets", ("cpu", "sockets")), ("domain.memory.guest", ("memory", "guest"))):
        running_value = _get(vmi, "spec", "domain", *keys)
        wanted = _get(new, "domain", *keys)
        known = path not in changed and running_value is not None and wanted is not None
        if known and not same(path, running_value, wanted):
            diff.append((path, running_value, wanted))
    diff.sort(key=lambda entry: _path_key(entry[0]))
    non_live = [entry for entry in diff if not (live_update and _top(entry[0]) in LIVE_FIELDS)]
    outcomes: dict[str, tuple[str, str]] = {}
    restart: str | None = None
    hotplug: list[str] = []
    sync_error: tuple[str, str] | None = None
    notes: list[str] = []

    if non_live:
        restart = NON_LIVE
        for path, _, _ in diff:
            outcomes[path] = (RESTART, NON_LIVE)
        if live_update:
            notes.append("a field that cannot change live is among the changes: nothing is hot-plugged")
    else:
        cpu_outcome, cpu_error = _cpu(new, vmi, architecture)
        memory_outcome: tuple[str, str] | None = None
        if cpu_error is not None:
            sync_error = (HOTPLUG_CPU_ERROR, CPU_ERROR_FORMAT.format(cpu_error))
        else:
            memory_outcome, memory_error = _memory(new, vmi)
            if memory_error is not None:
                sync_error = (HOTPLUG_MEMORY_ERROR, MEMORY_ERROR_FORMAT.format(memory_error))
        for path, _, _ in diff:
            unit = _top(path)
            if unit == "domain.cpu.sockets":
                outcomes[path] = cpu_outcome if cpu_error is None else (RETRY, sync_error[1] if sync_error else "")
            elif unit == "domain.memory.guest":
                if cpu_error is not None:
                    outcomes[path] = (WAITS, "the controller stopped at the CPU error and retries")
                elif memory_outcome is not None:
                    outcomes[path] = memory_outcome
                else:
                    outcomes[path] = (RETRY, sync_error[1] if sync_error else "")
            else:
                outcomes[path] = (LIVE, "patched onto the VMI")
        for outcome, message in ([cpu_outcome] if cpu_error is None else []) + (
            [memory_outcome] if memory_outcome is not None else []
        ):
            if outcome == RESTART and restart is None:
                restart = message
        if cpu_error is None and cpu_outcome[0] == LIVE:
            hotplug.append(HOT_VCPU_CHANGE)
        if memory_outcome is not None and memory_outcome[0] == LIVE:
            hotplug.append(HOT_MEMORY_CHANGE)

    # the running guest's sockets and memory are the VMI's (an earlier hot-plug moved them from the start values)
    now = {
        "domain.cpu.sockets": _get(vmi, "spec", "domain", "cpu", "sockets"),
        "domain.memory.guest": _get(vmi, "spec", "domain", "memory", "guest"),
    }
    changes = tuple(
        FieldChange(
            path,
            now[path] if now.get(path) is not None else old,
            value,
            *outcomes.get(path, (RESTART, NON_LIVE)),
        )
        for path, old, value in diff
    )
    return LivePlan(
        running=True,
        strategy=strategy,
        changes=changes,
        restart_required=restart,
        hotplug=tuple(hotplug),
        sync_error=FailureCondition(*sync_error) if sync_error else None,
        notes=tuple(notes),
    )


def _vmi_template(vmi: Mapping[str, Any]) -> dict[str, Any]:
    return dict(vmi.get("spec") or {})


def _cpu(new: Mapping[str, Any], vmi: Mapping[str, Any], architecture: str) -> tuple[tuple[str, str], str | None]:
    """``handleCPUChangeRequest``: (outcome, message) for the socket count, or a sync error."""
    new_cpu = _get(new, "domain", "cpu")
    vmi_cpu = _get(vmi, "spec", "domain", "cpu")
    if new_cpu is None or vmi_cpu is None:
        return (WAITS, "the VM or its VMI has no domain.cpu: the controller leaves sockets alone"), None
    sockets, current = _int(new_cpu.get("sockets")), _int(vmi_cpu.get("sockets"))
    if sockets == current:
        return (ALREADY, f"the VMI already has {current} socket(s)"), None
    if _condition(vmi, HOT_VCPU_CHANGE) == "True":
        return (RETRY, ""), CPU_IN_PROGRESS
    if _migrating(vmi):
        return (RETRY, ""), CPU_MIGRATING
    if sockets > _int(vmi_cpu.get("maxSockets")):
        return (RESTART, SOCKETS_ABOVE_MAX), None
    if sockets < current:
        return (RESTART, SOCKETS_REDUCED), None
    if architecture == "arm64":
        return (RESTART, ARM_NO_CPU_HOTPLUG), None
    return (LIVE, f"hot-plugged: the VMI goes from {current} to {sockets} socket(s)"), None


def _memory(new: Mapping[str, Any], vmi: Mapping[str, Any]) -> tuple[tuple[str, str] | None, str | None]:
    """``handleMemoryHotplugRequest``: (outcome, message) for the guest memory, or a sync error."""
    guest = quantity_value(_get(new, "domain", "memory", "guest"))
    vmi_guest = quantity_value(_get(vmi, "spec", "domain", "memory", "guest"))
    status_memory = _get(vmi, "status", "memory") or {}
    if guest is None or vmi_guest is None or status_memory.get("guestCurrent") is None:
        return (
            WAITS,
            "the VMI reports no current guest memory yet: the controller neither hot-plugs nor asks for a restart",
        ), None
    if _condition(vmi, HOT_MEMORY_CHANGE) == "False":
        return (RESTART, MEMORY_HOTPLUG_FAILED), None
    if guest == vmi_guest:
        return (ALREADY, "the VMI already has this guest memory"), None
    if _condition(vmi, LIVE_MIGRATABLE) != "True":
        return (RESTART, MEMORY_NOT_MIGRATABLE), None
    max_guest = _get(vmi, "spec", "domain", "memory", "maxGuest")
    if max_guest is None:
        return (RESTART, MEMORY_NO_MAX_GUEST), None
    if _condition(vmi, HOT_MEMORY_CHANGE) == "True":
        return None, MEMORY_IN_PROGRESS
    if _migrating(vmi):
        return None, MEMORY_MIGRATING
    problem = memory_hotplug_problem(new, max_guest)
    if problem is not None:
        return (RESTART, MEMORY_NOT_SUPPORTED.format(problem)), None
    at_boot = quantity_value(status_memory.get("guestAtBoot"))
    if at_boot is not None and guest < at_boot:
        return (RESTART, MEMORY_BELOW_BOOT), None
    maximum = quantity_value(max_guest)
    if maximum is not None and guest > maximum:
        return (RESTART, MEMORY_ABOVE_MAX), None
    return (LIVE, "hot-plugged"), None
