"""Shared data and helpers of the scheduling tests: launcher-like pods and nodes for the unit tables
(tests/unit/test_nodefit.py, test_placement_output.py), and for the live tests on KWOK nodes (the launcher pod of a
VM as the real scheduler leaves it)."""

from __future__ import annotations

import json
import time

from kubectl_instancetype.golang.kubescheduler import first_sentence
from kubectl_instancetype.instancetype import nodefit
from kubectl_instancetype.kube import resources
from kubectl_instancetype.kube.client import Client, ClusterConfig

GI = 1024**3


def launcher(cpu="1", memory="2294Mi", *, hugepages=None, dedicated=False, arch="amd64"):
    """The scheduling part of a v1.9 virt-launcher pod, as virt-controller writes it."""
    compute = {"requests": {"cpu": cpu, "memory": memory, "ephemeral-storage": "50M"}, "limits": {}}
    compute["limits"].update({"devices.kubevirt.io/kvm": "1", "devices.kubevirt.io/tun": "1"})
    compute["requests"].update({"devices.kubevirt.io/kvm": "1", "devices.kubevirt.io/tun": "1"})
    if hugepages:
        compute["requests"][f"hugepages-{hugepages[0]}"] = hugepages[1]
        compute["limits"][f"hugepages-{hugepages[0]}"] = hugepages[1]
    console = {"requests": {"cpu": "5m", "memory": "35M"}, "limits": {"cpu": "15m", "memory": "60M"}}
    if dedicated:
        compute["limits"].update({"cpu": cpu, "memory": memory})
        console = {"requests": {"cpu": "15m", "memory": "60M"}, "limits": {"cpu": "15m", "memory": "60M"}}
    selector = {"kubevirt.io/schedulable": "true", "machine-type.node.kubevirt.io/q35": "true"}
    if dedicated:
        selector["kubevirt.io/cpumanager"] = "true"
    spec = {
        "containers": [{"name": "compute", "resources": compute}],
        "initContainers": [{"name": "guest-console-log", "restartPolicy": "Always", "resources": console}],
        "nodeSelector": selector,
        "tolerations": [
            {
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
            {
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": 300,
            },
        ],
    }
    if arch == "amd64":
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "node-labeller.kubevirt.io/obsolete-host-model", "operator": "DoesNotExist"}
                            ]
                        }
                    ]
                }
            }
        }
    return {"spec": spec, "status": {"qosClass": "Guaranteed" if dedicated else "Burstable"}}


def node(name, cpu="8", memory="32Gi", pods="110", *, labels=None, taints=None, unschedulable=False, **extra):
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, "ephemeral-storage": "100Gi"}
    allocatable.update({"devices.kubevirt.io/kvm": "1k", "devices.kubevirt.io/tun": "1k"})
    allocatable.update({k.replace("_", "-"): v for k, v in extra.items()})
    node_labels = {"kubevirt.io/schedulable": "true", "machine-type.node.kubevirt.io/q35": "true"}
    node_labels.update(labels or {})
    obj = {
        "metadata": {"name": name, "labels": node_labels},
        "spec": {"taints": taints or [], "unschedulable": unschedulable},
        "status": {"allocatable": allocatable},
    }
    return nodefit.node_info(obj)


def quota(name, hard, used, **spec):
    return {"metadata": {"name": name}, "spec": {"hard": hard, **spec}, "status": {"hard": hard, "used": used}}


WAIT = 60.0


def client_of(plane) -> Client:
    config = ClusterConfig(server=plane.server, ca_file=str(plane.ca_file), token=plane.tokens["admin"])
    return Client(config, environ={})


def vm_of(name: str, instancetype: str) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name},
        "spec": {
            "runStrategy": "Always",
            "instancetype": {"kind": "VirtualMachineClusterInstancetype", "name": instancetype},
            "template": {"spec": {"domain": {"devices": {}}}},
        },
    }


def launcher_pod(client: Client, namespace: str, vm: str, predicate) -> dict:
    """The VM's launcher pod once ``predicate`` holds for it (virt-controller creates it, the scheduler decides)."""
    deadline = time.monotonic() + WAIT
    last: list = []
    while time.monotonic() < deadline:
        page = client.list_pages(resources.PODS, namespace, label_selector=f"vm.kubevirt.io/name={vm}")
        last = [pod for p in page for pod in p.get("items") or ()]
        for pod in last:
            if predicate(pod):
                return pod
        time.sleep(0.2)
    raise AssertionError(f"no launcher pod of {vm} reached the state wanted in {WAIT}s: {json.dumps(last)[:2000]}")


def bound(pod: dict) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


def unschedulable(pod: dict) -> bool:
    return any(
        c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason") == "Unschedulable"
        for c in (pod.get("status") or {}).get("conditions") or ()
    )


def condition_line(pod: dict) -> str:
    condition = next(c for c in pod["status"]["conditions"] if c.get("type") == "PodScheduled")
    return first_sentence(condition["message"])
