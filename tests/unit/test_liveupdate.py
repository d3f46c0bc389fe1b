"""The live-update plan against the cases of KubeVirt v1.9.0's pkg/virt-controller/watch/vm (vm.go and
vm_test.go): which change is hot-plugged, which sets RestartRequired and with which message."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_instancetype.instancetype import liveupdate as lu


def template(sockets: int = 1, cores: int = 1, guest: str = "2Gi", arch: str = "amd64", **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "architecture": arch,
        "domain": {"cpu": {"sockets": sockets, "cores": cores, "threads": 1}, "memory": {"guest": guest}},
    }
    for key, value in extra.items():
        if key == "cpu":
            spec["domain"]["cpu"].update(value)
        else:
            spec[key] = value
    return spec


def vmi(
    sockets: int = 1,
    max_sockets: int = 4,
    guest: str = "2Gi",
    max_guest: str | None = "8Gi",
    migratable: bool = False,
    at_boot: str | None = None,
    current: str | None = "__guest__",
    conditions: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    memory: dict[str, Any] = {"guest": guest}
    if max_guest:
        memory["maxGuest"] = max_guest
    status_memory: dict[str, Any] = {"guestAtBoot": at_boot or guest}
    if current is not None:
        status_memory["guestCurrent"] = guest if current == "__guest__" else current
    conds = [{"type": kind, "status": status} for kind, status in conditions]
    if migratable:
        conds.append({"type": "LiveMigratable", "status": "True"})
    return {
        "spec": {"domain": {"cpu": {"sockets": sockets, "maxSockets": max_sockets, "cores": 1}, "memory": memory}},
        "status": {"memory": status_memory, "conditions": conds, "phase": "Running"},
    }


def outcome(plan: lu.LivePlan, path: str) -> tuple[str, str]:
    (change,) = [c for c in plan.changes if c.path == path]
    return change.outcome, change.message


CASES = [
    # (id, start, new, vmi, strategy, arch, restart message, {path: outcome}, hotplug)
    (
        "sockets up within maxSockets: hot-plugged",
        template(1),
        template(2),
        vmi(1, 4),
        lu.LIVE_UPDATE,
        "amd64",
        None,
        {"domain.cpu.sockets": lu.LIVE},
        (lu.HOT_VCPU_CHANGE,),
    ),
    (
        "sockets above the VMI's maxSockets",
        template(1),
        template(8),
        vmi(1, 4),
        lu.LIVE_UPDATE,
        "amd64",
        lu.SOCKETS_ABOVE_MAX,
        {"domain.cpu.sockets": lu.RESTART},
        (),
    ),
    (
        "sockets down",
        template(2),
        template(1),
        vmi(2, 8),
        lu.LIVE_UPDATE,
        "amd64",
        lu.SOCKETS_REDUCED,
        {"domain.cpu.sockets": lu.RESTART},
        (),
    ),
    (
        "arm64 has no CPU hot-plug",
        template(1, arch="arm64"),
        template(2, arch="arm64"),
        vmi(1, 4),
        lu.LIVE_UPDATE,
        "arm64",
        lu.ARM_NO_CPU_HOTPLUG,
        {"domain.cpu.sockets": lu.RESTART},
        (),
    ),
    (
        "u1.small -> u1.large on a VMI that is not migratable (what the real controller did)",
        template(1, guest="2Gi"),
        template(2, guest="8Gi"),
        vmi(1, 4, guest="2Gi", max_guest="8Gi"),
        lu.LIVE_UPDATE,
        "amd64",
        lu.MEMORY_NOT_MIGRATABLE,
        {"domain.cpu.sockets": lu.LIVE, "domain.memory.guest": lu.RESTART},
        (lu.HOT_VCPU_CHANGE,),
    ),
    (
        "memory up on a migratable VMI within maxGuest",
        template(guest="2Gi"),
        template(guest="4Gi"),
        vmi(guest="2Gi", max_guest="8Gi", migratable=True),
        lu.LIVE_UPDATE,
        "amd64",
        None,
        {"domain.memory.guest": lu.LIVE},
        (lu.HOT_MEMORY_CHANGE,),
    ),
    (
        "memory down below what the guest booted with",
        template(guest="4Gi"),
        template(guest="2Gi"),
        vmi(guest="4Gi", max_guest="16Gi", migratable=True),
        lu.LIVE_UPDATE,
        "amd64",
        lu.MEMORY_BELOW_BOOT,
        {"domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "memory above maxGuest: ValidateLiveUpdateMemory answers before the max check",
        template(guest="2Gi"),
        template(guest="16Gi"),
        vmi(guest="2Gi", max_guest="8Gi", migratable=True),
        lu.LIVE_UPDATE,
        "amd64",
        "memory hotplug not supported, Guest memory is greater than the configured maxGuest memory",
        {"domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "migratable VMI without maxGuest",
        template(guest="2Gi"),
        template(guest="4Gi"),
        vmi(guest="2Gi", max_guest=None, migratable=True),
        lu.LIVE_UPDATE,
        "amd64",
        lu.MEMORY_NO_MAX_GUEST,
        {"domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "a failed memory hot-plug (HotMemoryChange False)",
        template(guest="2Gi"),
        template(guest="4Gi"),
        vmi(guest="2Gi", migratable=True, conditions=(("HotMemoryChange", "False"),)),
        lu.LIVE_UPDATE,
        "amd64",
        lu.MEMORY_HOTPLUG_FAILED,
        {"domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "memory hot-plug on arm64",
        template(guest="2Gi", arch="arm64"),
        template(guest="4Gi", arch="arm64"),
        vmi(guest="2Gi", max_guest="8Gi", migratable=True),
        lu.LIVE_UPDATE,
        "arm64",
        "memory hotplug not supported, Memory hotplug is only available for x86_64 VMs",
        {"domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "memory below 1Gi cannot be hot-plugged",
        template(guest="512Mi"),
        template(guest="768Mi"),
        vmi(guest="512Mi", max_guest="2Gi", migratable=True),
        lu.LIVE_UPDATE,
        "amd64",
        "memory hotplug not supported, Memory hotplug is only available for VMs with at least 1Gi of guest memory",
        {"domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "vCPUs landing in cores (preferredCPUTopology cores): non-live",
        template(1, cores=1),
        template(1, cores=2),
        vmi(1, 4),
        lu.LIVE_UPDATE,
        "amd64",
        lu.NON_LIVE,
        {"domain.cpu.cores": lu.RESTART},
        (),
    ),
    (
        "a non-live field stops the sockets hot-plug too",
        template(1, cores=1),
        template(2, cores=2),
        vmi(1, 4),
        lu.LIVE_UPDATE,
        "amd64",
        lu.NON_LIVE,
        {"domain.cpu.cores": lu.RESTART, "domain.cpu.sockets": lu.RESTART},
        (),
    ),
    (
        "switching to dedicated CPUs",
        template(2),
        template(2, cpu={"dedicatedCpuPlacement": True}),
        vmi(2, 8),
        lu.LIVE_UPDATE,
        "amd64",
        lu.NON_LIVE,
        {"domain.cpu.dedicatedCpuPlacement": lu.RESTART},
        (),
    ),
    (
        "Stage rollout: nothing is live",
        template(1),
        template(2),
        vmi(1, 4),
        lu.STAGE,
        "amd64",
        lu.NON_LIVE,
        {"domain.cpu.sockets": lu.RESTART},
        (),
    ),
    (
        "node selector is patched live",
        template(),
        template(nodeSelector={"zone": "a"}),
        vmi(),
        lu.LIVE_UPDATE,
        "amd64",
        None,
        {"nodeSelector.zone": lu.LIVE},
        (),
    ),
    (
        "the first message wins: sockets beyond maxSockets and memory on a non-migratable VMI",
        template(1, guest="2Gi"),
        template(8, guest="8Gi"),
        vmi(1, 4),
        lu.LIVE_UPDATE,
        "amd64",
        lu.SOCKETS_ABOVE_MAX,
        {"domain.cpu.sockets": lu.RESTART, "domain.memory.guest": lu.RESTART},
        (),
    ),
    (
        "no current guest memory reported: KubeVirt neither hot-plugs nor flags",
        template(guest="2Gi"),
        template(guest="4Gi"),
        vmi(guest="2Gi", current=None),
        lu.LIVE_UPDATE,
        "amd64",
        None,
        {"domain.memory.guest": lu.WAITS},
        (),
    ),
    (
        "sockets already hot-plugged earlier",
        template(1),
        template(2),
        vmi(2, 4),
        lu.LIVE_UPDATE,
        "amd64",
        None,
        {"domain.cpu.sockets": lu.ALREADY},
        (),
    ),
]


@pytest.mark.parametrize(
    ("start", "new", "instance", "strategy", "arch", "restart", "outcomes", "hotplug"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_plan(
    start: Any, new: Any, instance: Any, strategy: str, arch: str, restart: Any, outcomes: Any, hotplug: Any
) -> None:
    plan = lu.plan_live_update(start, new, instance, strategy=strategy, architecture=arch)
    assert plan.running
    assert plan.restart_required == restart
    assert {c.path: c.outcome for c in plan.changes} == outcomes
    assert plan.hotplug == hotplug
    assert plan.sync_error is None


def test_each_change_carries_its_own_message() -> None:
    plan = lu.plan_live_update(template(8, guest="2Gi"), template(8, guest="8Gi"), vmi(8, 8), architecture="amd64")
    assert outcome(plan, "domain.memory.guest") == (lu.RESTART, lu.MEMORY_NOT_MIGRATABLE)


def test_stopped_vm_gets_everything_at_next_start() -> None:
    plan = lu.plan_live_update(template(1, guest="2Gi"), template(2, guest="8Gi"), None)
    assert not plan.running and plan.restart_required is None
    assert [(c.path, c.old, c.new, c.outcome) for c in plan.changes] == [
        ("domain.cpu.sockets", 1, 2, lu.NEXT_START),
        ("domain.memory.guest", "2Gi", "8Gi", lu.NEXT_START),
    ]


def test_vmi_being_deleted_counts_as_stopped() -> None:
    instance = vmi()
    instance["metadata"] = {"deletionTimestamp": "2026-11-24T00:00:00Z"}
    assert not lu.plan_live_update(template(1), template(2), instance).running


@pytest.mark.parametrize(
    ("conditions", "migration", "error"),
    [
        (
            (("HotVCPUChange", "True"),),
            None,
            lu.FailureCondition(lu.HOTPLUG_CPU_ERROR, lu.CPU_ERROR_FORMAT.format(lu.CPU_IN_PROGRESS)),
        ),
        (
            (),
            {"startTimestamp": "x"},
            lu.FailureCondition(lu.HOTPLUG_CPU_ERROR, lu.CPU_ERROR_FORMAT.format(lu.CPU_MIGRATING)),
        ),
    ],
)
def test_cpu_sync_errors(conditions: Any, migration: Any, error: Any) -> None:
    instance = vmi(1, 4, conditions=conditions)
    if migration:
        instance["status"]["migrationState"] = migration
    plan = lu.plan_live_update(template(1), template(2), instance)
    assert plan.sync_error == error
    assert plan.restart_required is None
    assert outcome(plan, "domain.cpu.sockets")[0] == lu.RETRY


def test_memory_hotplug_in_progress_is_a_sync_error() -> None:
    instance = vmi(guest="2Gi", migratable=True, conditions=(("HotMemoryChange", "True"),))
    plan = lu.plan_live_update(template(guest="2Gi"), template(guest="4Gi"), instance)
    assert plan.sync_error == lu.FailureCondition(
        lu.HOTPLUG_MEMORY_ERROR, lu.MEMORY_ERROR_FORMAT.format(lu.MEMORY_IN_PROGRESS)
    )


def test_quantities_compare_by_value_and_empty_equals_absent() -> None:
    start = template(guest="2Gi", nodeSelector={})
    new = template(guest="2048Mi")
    assert lu.differences(start, new) == []
    assert lu.plan_live_update(start, new, vmi()).changes == ()


def test_missing_start_revision_sets_nothing() -> None:
    plan = lu.plan_live_update(None, template(2), vmi(1))
    assert plan.running and plan.restart_required is None
    assert {c.outcome for c in plan.changes} == {lu.WAITS}


@pytest.mark.parametrize(
    ("kubevirt", "expected"),
    [
        (None, lu.LIVE_UPDATE),
        ({"spec": {}}, lu.LIVE_UPDATE),
        ({"spec": {"configuration": {"vmRolloutStrategy": "Stage"}}}, lu.STAGE),
    ],
)
def test_rollout_strategy(kubevirt: Any, expected: str) -> None:
    assert lu.rollout_strategy(kubevirt) == expected


@pytest.mark.parametrize(
    ("guest", "max_guest", "extra", "problem"),
    [
        ("2Gi", "8Gi", {}, None),
        ("2Gi", "8Gi", {"cpu": {"realtime": {}}}, "Memory hotplug is not compatible with realtime VMs"),
        ("3Mi", "8Gi", {}, "Guest memory must be 2Mi aligned"),
        ("2Gi", "9Mi", {}, "Guest memory is greater than the configured maxGuest memory"),
        ("2Gi", None, {}, "Max guest memory must be configured when memory hotplug is enabled"),
        ("1Gi", "3Gi", {"hugepages": True}, None),
        ("1026Mi", "4Gi", {"hugepages": True}, "Guest memory must be 1Gi aligned"),
    ],
)
def test_validate_live_update_memory(guest: str, max_guest: Any, extra: Any, problem: Any) -> None:
    spec = template(guest=guest)
    if "cpu" in extra:
        spec["domain"]["cpu"].update(extra["cpu"])
    if extra.get("hugepages"):
        spec["domain"]["memory"]["hugepages"] = {"pageSize": "1Gi"}
    assert lu.memory_hotplug_problem(spec, max_guest) == problem


def test_a_template_back_at_its_start_value_still_reduces_a_hot_plugged_vmi() -> None:
    """Started with 1 socket, hot-plugged to 2, switched back to 1: the template equals the start revision, the
    VMI does not; KubeVirt sets "Reduction of CPU socket count requires a restart" (seen on the real controller)."""
    plan = lu.plan_live_update(template(1), template(1), vmi(2, 4))
    assert plan.restart_required == lu.SOCKETS_REDUCED
    assert [(c.path, c.old, c.new, c.outcome) for c in plan.changes] == [("domain.cpu.sockets", 2, 1, lu.RESTART)]
