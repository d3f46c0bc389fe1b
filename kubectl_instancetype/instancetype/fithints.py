"""What to do when the launcher pod fits no node: the hint under the scheduler's line, from the same data.

The scheduler names counts, never causes. A hint names the one requirement no node meets: a label virt-handler's
node labeller (KubeVirt v1.9 ``pkg/virt-handler/node-labeller``) or heartbeat (``pkg/virt-handler/heartbeat``)
would set, a resource no node has (hugepages are reserved at boot; KubeVirt's device plugins advertise
``devices.kubevirt.io/*``), or a request larger than any node's allocatable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import nodefit

HUGEPAGES = "hugepages are reserved on the host at boot (kernel arguments) and the kubelet reports them in allocatable"
_LABEL_HINTS = (
    (
        "kubevirt.io/schedulable",
        "virt-handler labels the nodes it runs on (virt-controller sets false when a node's heartbeat stops)",
    ),
    (
        "kubevirt.io/cpumanager",
        "virt-handler sets it where the kubelet runs the static CPU manager policy and the KubeVirt CR enables the "
        "CPUManager feature gate; dedicated CPUs (dedicatedCPUPlacement) need such a node",
    ),
    (
        "cpumanager",
        "virt-handler sets it where the kubelet runs the static CPU manager policy and the KubeVirt CR enables the "
        "CPUManager feature gate; dedicated CPUs (dedicatedCPUPlacement) need such a node",
    ),
    ("machine-type.node.kubevirt.io/", "virt-handler's node labeller lists the machine types libvirt offers there"),
    ("cpu-model.node.kubevirt.io/", "virt-handler's node labeller lists the CPU models the host can run"),
    ("cpu-feature.node.kubevirt.io/", "virt-handler's node labeller lists the host's CPU features"),
    ("host-model-cpu.node.kubevirt.io/", "virt-handler's node labeller names the host's CPU model"),
    ("hyperv.node.kubevirt.io/", "virt-handler's node labeller lists the Hyper-V enlightenments the host supports"),
    ("scheduling.node.kubevirt.io/tsc-frequency-", "virt-controller labels each node with its TSC frequency"),
    ("kubevirt.io/sev", "virt-handler labels AMD hosts with SEV enabled in firmware and kernel"),
    ("kubernetes.io/arch", "the kubelet labels each node with its architecture"),
)


def _label_hint(key: str) -> str:
    for prefix, why in _LABEL_HINTS:
        if key.startswith(prefix):
            return why
    return ""


def _resource_text(name: str, value: int, *, up: bool = False) -> str:
    if name == nodefit.CPU:
        return f"{value}m cpu" if value % 1000 else f"{value // 1000} cpu"
    if name == nodefit.MEMORY or name.startswith(nodefit.HUGEPAGES_PREFIX) or name == nodefit.EPHEMERAL:
        return f"{human_bytes(value, up=up)} {name}"
    return f"{value} {name}"


def human_bytes(value: int, *, up: bool = False) -> str:
    """A byte count for people: the largest binary unit it reaches, one decimal when not whole (``61.2Gi``),
    rounded down (what is left) or ``up`` (what is asked for)."""
    for unit, size in (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if abs(value) >= size:
            tenths = -(-abs(value) * 10 // size) if up else abs(value) * 10 // size
            whole, rest = divmod(tenths, 10)
            sign = "-" if value < 0 else ""
            return f"{sign}{whole}{unit}" if rest == 0 else f"{sign}{whole}.{rest}{unit}"
    return str(value)


def hints(pod: nodefit.PodFilter, nodes: list[nodefit.NodeInfo]) -> list[str]:
    """Why no node takes the pod, where one requirement alone rules out every node (empty when the causes are
    spread over the nodes: then the scheduler's counts say it)."""
    out: list[str] = []
    if not nodes:
        return out
    for key, value in (pod.spec.get("nodeSelector") or {}).items():
        if not any(node.labels.get(str(key)) == str(value) for node in nodes):
            why = _label_hint(str(key))
            out.append(f"no node is labelled {key}={value}" + (f": {why}" if why else ""))
    required = ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = [t for t in required.get("nodeSelectorTerms") or () if t.get("matchExpressions")]
    if len(terms) == 1:
        for expression in terms[0].get("matchExpressions") or ():
            single = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [expression]}]}}}}  # fmt: skip
            if not any(nodefit.matches_affinity(single, node) for node in nodes):
                out.append(_affinity_hint(expression))
    placeable = [node for node in nodes if not nodefit.placement_reasons(pod, node)]
    if not placeable or out:
        return out
    for name, value in pod.request.items():
        most = max(node.allocatable.get(name, 0) for node in placeable)
        if most == 0:
            out.append(_missing(name))
        elif most < value:
            out.append(
                f"the pod requests {_resource_text(name, value, up=True)}; the largest matching node has "
                f"{_resource_text(name, most)} allocatable"
            )
        elif all(node.free(name) < value for node in placeable):
            best = max(node.free(name) for node in placeable)
            out.append(
                f"the pod requests {_resource_text(name, value, up=True)}; the most free on a matching node is "
                f"{_resource_text(name, max(best, 0))} (the rest is requested by the pods running there)"
            )
    return out


def _missing(name: str) -> str:
    if name.startswith(nodefit.HUGEPAGES_PREFIX):
        return f"no node has {name}: {HUGEPAGES}"
    if name.startswith("devices.kubevirt.io/"):
        return f"no node offers {name}: virt-handler's device plugin advertises it on the nodes it runs on"
    return f"no node offers {name}: a device plugin advertises it (for a GPU or host device, KubeVirt's " + (
        "permittedHostDevices names it)"
    )


def _affinity_hint(expression: Mapping[str, Any]) -> str:
    key = str(expression.get("key") or "")
    operator = str(expression.get("operator") or "")
    values = [str(v) for v in expression.get("values") or ()]
    if key == "node-labeller.kubevirt.io/obsolete-host-model" and operator == "DoesNotExist":
        return (
            f"every node is labelled {key}: virt-handler marks hosts whose CPU model is in the KubeVirt CR's "
            "obsoleteCPUModels, and launcher pods avoid them"
        )
    text = f"no node matches the pod's node affinity {key} {operator}" + (f" {','.join(values)}" if values else "")
    why = _label_hint(key)
    return text + (f": {why}" if why else "")
