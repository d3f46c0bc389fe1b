"""CPU counts and layouts of ``kubevirt.io/v1`` CPUs, as instance types and preferences express them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def cpu_preference_hint(key: str) -> str:
    if key in ("sockets", "cores", "threads"):
        return "spec.cpu.preferredCPUTopology"
    if key == "features":
        return "spec.cpu.preferredCPUFeatures"
    return "no v1beta1 field"


def count_vcpus(cpu: dict[str, Any]) -> int:
    """sockets x cores x threads (zero or unset counts as 1), as KubeVirt counts a VMI's vCPUs."""
    count = 1
    for key in ("sockets", "cores", "threads"):
        value = cpu.pop(key, None)
        if isinstance(value, int) and value > 0:
            count *= value
    return count


def take_cpu_settings(cpu: dict[str, Any], target: dict[str, Any]) -> None:
    """Move the instance-type CPU settings of a kubevirt.io/v1 CPU from ``cpu`` to ``target``."""
    model = cpu.pop("model", None)
    if model:
        target["model"] = model
    for key in ("dedicatedCPUPlacement", "isolateEmulatorThread"):
        value = cpu.pop(key, None)
        if value:
            target[key] = True
    for key in ("numa", "realtime", "maxSockets"):
        if key in cpu:
            target[key] = cpu.pop(key)


def cpu_counts(cpu: Mapping[str, Any]) -> dict[str, int]:
    """The sockets/cores/threads above 1 of a kubevirt.io/v1 CPU."""
    return {key: cpu[key] for key in ("sockets", "cores", "threads") if isinstance(cpu.get(key), int) and cpu[key] > 1}


def topology_for(counts: Mapping[str, int]) -> dict[str, Any] | None:
    """The preferredCPUTopology (and spreadOptions) that gives these sockets/cores/threads, if one does."""
    keys = set(counts)
    if len(keys) == 1:
        return {"preferredCPUTopology": next(iter(keys))}
    if keys == {"sockets", "cores"}:
        return {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCores", "ratio": counts["cores"]}}
    # KubeVirt admits only a ratio of 2 when spreading over cores and threads.
    if keys == {"cores", "threads"} and counts["threads"] == 2:
        return {"preferredCPUTopology": "spread", "spreadOptions": {"across": "CoresThreads", "ratio": 2}}
    if keys == {"sockets", "cores", "threads"} and counts["threads"] == 2:
        return {
            "preferredCPUTopology": "spread",
            "spreadOptions": {"across": "SocketsCoresThreads", "ratio": counts["cores"]},
        }
    return None
