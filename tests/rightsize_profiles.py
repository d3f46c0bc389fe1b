"""Usage profiles for ``rightsize``'s end-to-end tests, bench and demo: VMs of the catalog's types with histories that
give each finding, written as virt-handler's series (tests/doubles/virt_handler_metrics.py) and backfilled into the
real Prometheus with promtool.

Each profile: the VM's name, its type now, its history (a :class:`Subject` factory over the window's end), and the
finding and type ``rightsize`` must give with the default percentile (95) and headroom (20%).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.doubles.virt_handler_metrics import Profile, Size, Subject, write_openmetrics

GI = 1 << 30
HOUR = 3600.0
# the catalog's u1 sizes (common-instancetypes v1.x): vCPUs and guest memory
U1 = {
    "u1.small": Size(1, 2 * GI),
    "u1.medium": Size(1, 4 * GI),
    "u1.large": Size(2, 8 * GI),
    "u1.xlarge": Size(4, 16 * GI),
    "u1.2xlarge": Size(8, 32 * GI),
}


def const(value: float) -> Callable[[float], float]:
    return lambda _t: value


def bursts(base: float, peak: float, every: float, share: float) -> Callable[[float], float]:
    """``peak`` for ``share`` of each period of ``every`` seconds, ``base`` otherwise."""
    return lambda t: peak if (t % every) < every * share else base


def daily(low: float, high: float) -> Callable[[float], float]:
    """A day-shaped curve between ``low`` and ``high``."""
    return lambda t: low + (high - low) * (0.5 + 0.5 * math.sin(2 * math.pi * t / 86400))


@dataclass(frozen=True)
class Case:
    name: str
    instancetype: str
    finding: str
    recommended: str | None
    subject: Callable[[str, float, float], Subject]  # (namespace, window start, end) -> Subject
    running: bool = False  # runStrategy Always (a VMI the controller creates), else Halted


def _steady_subject(size: str, profile: Profile, name: str) -> Callable[[str, float, float], Subject]:
    return lambda ns, start, end: Subject(ns, name, "node-a", const_size(U1[size]), profile, started=start)


def const_size(size: Size) -> Callable[[float], Size]:
    return lambda _t: size


def _late(name: str) -> Callable[[str, float, float], Subject]:
    # started 20 hours before the end: less than Compute Optimizer's 30 hours
    return lambda ns, start, end: Subject(
        ns, name, "node-a", const_size(U1["u1.large"]), Profile(cpu=const(0.1)), started=end - 20 * HOUR
    )


def _changed(name: str) -> Callable[[str, float, float], Subject]:
    # u1.2xlarge and busy until 48 hours before the end, then switched (restarted) to u1.xlarge and quiet
    def subject(ns: str, start: float, end: float) -> Subject:
        change = end - 48 * HOUR
        return Subject(
            ns,
            name,
            "node-a",
            lambda t: U1["u1.2xlarge"] if t < change else U1["u1.xlarge"],
            Profile(cpu=lambda t: 0.9 if t < change else 0.05, memory=lambda t: 0.8 if t < change else 0.1),
            started=start,
            restarts=(change,),
        )

    return subject


CASES = (
    Case(
        "idle",
        "u1.2xlarge",
        "Over-provisioned",
        "u1.small",
        _steady_subject("u1.2xlarge", Profile(cpu=const(0.02), memory=const(0.04)), "idle"),
    ),
    Case(
        "steady",
        "u1.large",
        "Optimized",
        "u1.large",
        _steady_subject("u1.large", Profile(cpu=daily(0.4, 0.6), memory=const(0.6)), "steady"),
    ),
    Case(
        "bursty",
        "u1.xlarge",
        "Under-provisioned",
        "u1.2xlarge",
        _steady_subject("u1.xlarge", Profile(cpu=bursts(0.1, 1.0, 3600, 0.2), memory=const(0.3)), "bursty"),
    ),
    Case(
        "pressure",
        "u1.large",
        "Under-provisioned",
        "u1.xlarge",
        _steady_subject("u1.large", Profile(cpu=const(0.1), memory=const(0.97), major_faults=const(20.0)), "pressure"),
    ),
    Case(
        "no-balloon",
        "u1.xlarge",
        "Over-provisioned",
        "u1.medium",
        _steady_subject("u1.xlarge", Profile(cpu=const(0.05), memory=const(0.1), balloon=False), "no-balloon"),
    ),
    Case("late", "u1.large", "Insufficient data", None, _late("late")),
    Case("changed", "u1.xlarge", "Over-provisioned", "u1.small", _changed("changed")),
)


def vm_manifest(case: Case) -> dict:
    """The VM of a case: its instance type (a namespaced one for the :data:`LIVE` series, else the cluster's), halted
    unless the case runs (the history is Prometheus's, not a running guest's)."""
    namespaced = case.instancetype in LIVE
    template: dict = {"domain": {"devices": {}}}
    if case.running:
        template["volumes"] = [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": case.name},
        "spec": {
            "runStrategy": "Always" if case.running else "Halted",
            "instancetype": {
                "kind": "VirtualMachineInstancetype" if namespaced else "VirtualMachineClusterInstancetype",
                "name": case.instancetype,
            },
            "template": {"spec": template},
        },
    }


# a namespaced series whose two sizes differ in vCPUs only: moving up is a CPU hotplug, which KubeVirt applies
# live (sockets up within maxSockets) where a change of memory needs a restart on a VM that cannot migrate
LIVE = {"lv.small": Size(1, 2 * GI), "lv.large": Size(2, 2 * GI)}


def live_instancetypes() -> list[dict]:
    """The :data:`LIVE` series as VirtualMachineInstancetype objects."""
    return [
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": name},
            "spec": {"cpu": {"guest": size.vcpus}, "memory": {"guest": f"{size.memory // GI}Gi"}},
        }
        for name, size in LIVE.items()
    ]


def write_history(path: Path, subjects: list[Subject], start: float, end: float, step: float) -> int:
    """The subjects' series as OpenMetrics text in ``path``; the number of samples."""
    with path.open("w") as out:
        return write_openmetrics(subjects, start, end, step, out)


# a copy of "idle" that --apply's test switches (the other cases stay as they are for the other tests)
APPLY_CASE = Case(
    "apply-me",
    "u1.2xlarge",
    "Over-provisioned",
    "u1.small",
    _steady_subject("u1.2xlarge", Profile(cpu=const(0.02), memory=const(0.04)), "apply-me"),
)


# running VMs for --apply: one whose recommendation KubeVirt applies live (vCPUs up), one that needs a restart
# (memory down on a VM that cannot migrate: there is no kubelet, so no VMI is ever migratable here)
RUNNING_CASES = (
    Case(
        "grow-live",
        "lv.small",
        "Under-provisioned",
        "lv.large",
        lambda ns, start, end: Subject(
            ns,
            "grow-live",
            "node-a",
            const_size(LIVE["lv.small"]),
            Profile(cpu=bursts(0.1, 1.0, 3600, 0.2), memory=const(0.3)),
            started=start,
        ),
        running=True,
    ),
    Case(
        "shrink-restart",
        "u1.2xlarge",
        "Over-provisioned",
        "u1.small",
        _steady_subject("u1.2xlarge", Profile(cpu=const(0.02), memory=const(0.04)), "shrink-restart"),
        running=True,
    ),
)
