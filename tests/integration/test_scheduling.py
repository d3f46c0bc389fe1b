"""The plane's real scheduling parts (issue 28): kube-scheduler binds pods to KWOK's simulated nodes, KWOK runs
them, and the nodes look as virt-handler leaves them (hack/localcluster/kwok.py, nodes.yaml, heartbeat.py).

One module-scoped group of 8 nodes (one per shape: ``kwok_nodes``); the nodes and their pods are gone after the
module, so other tests' pods stay Pending as before."""

from __future__ import annotations

import time

import pytest

from hack.localcluster import heartbeat
from hack.localcluster.kwok import NOT_READY_TAINT, UNSCHEDULABLE_TAINT

pytestmark = pytest.mark.controlplane

SCHEDULABLE_AMD64 = {"general", "hugepages-2m", "hugepages-1g", "gpu", "small"}


def _wait(predicate, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout:.0f}s")
        time.sleep(0.2)


def _shape(node_name: str) -> str:
    return node_name.removeprefix("kwok-").rsplit("-", 1)[0]


def _pod(name: str, namespace: str, requests: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": requests}}]
        },
    }


def _get_pod(plane, namespace: str, name: str) -> dict:
    code, pod = plane.request("GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
    assert code == 200, pod
    return pod


def _condition(pod: dict, kind: str) -> dict:
    return next((c for c in (pod.get("status") or {}).get("conditions") or [] if c["type"] == kind), {})


def test_nodes_look_as_virt_handler_leaves_them(kwok_nodes) -> None:
    """Ready, without the API server's not-ready taint, with kubelet's and virt-handler's labels (node-labeller on
    amd64 only for CPU models), the heartbeat annotation, device plugins' resources, and the shape's taints."""
    plane = kwok_nodes.simulated.plane
    assert sorted(_shape(n) for n in kwok_nodes.names) == sorted(
        ["general", "hugepages-2m", "hugepages-1g", "gpu", "arm64", "small", "tainted", "cordoned"]
    )
    nodes = {n["metadata"]["name"]: n for n in plane.request("GET", "/api/v1/nodes")[1]["items"]}
    assert set(nodes) == set(kwok_nodes.names)
    for name, node in nodes.items():
        shape = _shape(name)
        labels, status = node["metadata"]["labels"], node["status"]
        ready = [c["status"] for c in status["conditions"] if c["type"] == "Ready"]
        taints = {(t["key"], t["effect"]) for t in node["spec"].get("taints") or []}
        assert ready == ["True"], name
        assert (NOT_READY_TAINT, "NoSchedule") not in taints, name
        assert labels[heartbeat.NODE_SCHEDULABLE] == "true"
        assert "kubevirt.io/heartbeat" in node["metadata"]["annotations"]
        assert status["allocatable"]["devices.kubevirt.io/kvm"] == "1k"
        assert labels["kubernetes.io/arch"] == ("arm64" if shape == "arm64" else "amd64")
        if shape == "arm64":
            assert labels["machine-type.node.kubevirt.io/virt"] == "true"
            assert not [key for key in labels if key.startswith("cpu-model.node.kubevirt.io/")]
        else:
            assert labels["machine-type.node.kubevirt.io/q35"] == "true"
            assert labels["cpu-timer.node.kubevirt.io/tsc-frequency"].isdigit()
        expected_taints = {
            "tainted": {("dedicated", "NoSchedule")},
            "cordoned": {(UNSCHEDULABLE_TAINT, "NoSchedule")},
        }.get(shape, set())
        assert taints == expected_taints, name
        assert node["spec"].get("unschedulable", False) == (shape == "cordoned")
    gpu = next(n for n in nodes.values() if _shape(n["metadata"]["name"]) == "gpu")
    assert gpu["status"]["allocatable"]["nvidia.com/GA102GL_A10"] == "4"
    hugepages = next(n for n in nodes.values() if _shape(n["metadata"]["name"]) == "hugepages-1g")
    assert hugepages["status"]["allocatable"]["hugepages-1Gi"] == "64Gi"


def test_plain_pod_is_bound_by_the_scheduler_and_run_by_kwok(kwok_nodes, namespace) -> None:
    """kube-scheduler binds a plain pod to a schedulable simulated node (never the tainted or cordoned one);
    KWOK's pod-ready stage runs it with an IP from the node's pod CIDR."""
    plane = kwok_nodes.simulated.plane
    plane.apply(_pod("plain", namespace, {"cpu": "100m", "memory": "64Mi"}))
    pod = _wait(
        lambda: (p := _get_pod(plane, namespace, "plain"))["status"].get("phase") == "Running" and p, "pod Running"
    )
    node = pod["spec"]["nodeName"]
    assert node in kwok_nodes.names and _shape(node) not in {"tainted", "cordoned"}
    assert _condition(pod, "PodScheduled")["status"] == "True"
    assert _condition(pod, "Ready")["status"] == "True"
    _, node_object = plane.request("GET", f"/api/v1/nodes/{node}")
    prefix = node_object["spec"]["podCIDR"].rsplit(".", 1)[0] + "."
    assert pod["status"]["podIP"].startswith(prefix)


def test_vm_launcher_pod_is_bound_and_running(kwok_nodes, namespace) -> None:
    """A real KubeVirt VM (u1.small + fedora, runStrategy Always): virt-controller renders its launcher pod,
    kube-scheduler binds it to an amd64 node labelled for KubeVirt (q35 machine type, schedulable, not the tainted
    or cordoned one), KWOK runs it, and virt-controller hands the VMI over (phase Scheduled on that node)."""
    plane = kwok_nodes.simulated.plane
    plane.apply(
        {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "scheduled", "namespace": namespace},
            "spec": {
                "runStrategy": "Always",
                "instancetype": {"name": "u1.small"},
                "preference": {"name": "fedora"},
                "template": {
                    "spec": {
                        "domain": {"devices": {}},
                        "volumes": [{"name": "disk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
                    }
                },
            },
        }
    )
    pods = f"/api/v1/namespaces/{namespace}/pods?labelSelector=kubevirt.io%3Dvirt-launcher"

    def running_launcher():
        items = (plane.request("GET", pods)[1] or {}).get("items") or []
        return next((p for p in items if p["status"].get("phase") == "Running"), None)

    pod = _wait(running_launcher, "a Running virt-launcher pod", timeout=90)
    node = pod["spec"]["nodeName"]
    assert _shape(node) in SCHEDULABLE_AMD64, node
    assert pod["spec"]["nodeSelector"]["machine-type.node.kubevirt.io/q35"] == "true"
    assert _condition(pod, "PodScheduled")["status"] == "True"
    vmi_path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachineinstances/scheduled"
    vmi = _wait(
        lambda: (v := plane.request("GET", vmi_path)[1] or {}).get("status", {}).get("phase") == "Scheduled" and v,
        "the VMI Scheduled",
    )
    assert vmi["status"]["nodeName"] == node


def test_a_pod_that_fits_nowhere_stays_pending_with_the_schedulers_words(kwok_nodes, namespace) -> None:
    """1 TiB of memory fits no node: the pod stays Pending and its PodScheduled condition carries the scheduler's
    sentence, each node counted once under the first filter that rejects it (the cordoned node as unschedulable,
    the tainted one as untolerated, the rest as short of memory), the reasons sorted as strings."""
    plane = kwok_nodes.simulated.plane
    plane.apply(_pod("huge", namespace, {"cpu": "100m", "memory": "1Ti"}))
    condition = _wait(
        lambda: (c := _condition(_get_pod(plane, namespace, "huge"), "PodScheduled")).get("reason") and c,
        "the scheduler's verdict",
    )
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    first_sentence = condition["message"].split(". ", 1)[0] + "."
    assert first_sentence == (
        "0/8 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, "
        "6 Insufficient memory."
    )
    pod = _get_pod(plane, namespace, "huge")
    assert (pod["status"]["phase"], pod["spec"].get("nodeName")) == ("Pending", None)


def test_nodes_added_for_a_block_are_removed_with_their_pods(kwok_nodes, namespace) -> None:
    """``added()``: nodes for one ``with`` block; after it they and the pods bound to them are gone."""
    plane = kwok_nodes.simulated.plane
    with kwok_nodes.added(["small"], 2) as names:
        assert [_shape(n) for n in names] == ["small", "small"]
        pod = _pod("pinned", namespace, {"cpu": "100m"})
        pod["spec"]["nodeName"] = names[0]
        plane.apply(pod)
        _wait(lambda: _get_pod(plane, namespace, "pinned")["status"].get("phase") == "Running", "pinned Running")
    assert all(plane.request("GET", f"/api/v1/nodes/{n}")[0] == 404 for n in names)
    assert plane.request("GET", f"/api/v1/namespaces/{namespace}/pods/pinned")[0] == 404
    assert len(plane.request("GET", "/api/v1/nodes")[1]["items"]) == 8


def test_heartbeat_reports_the_cpu_manager_when_the_gate_is_on(kwok_nodes) -> None:
    """virt-handler's heartbeat labels cpumanager=true only on nodes with kubelet's static policy, and only while
    KubeVirt's CPUManager feature gate is on; every beat refreshes kubevirt.io/heartbeat."""
    plane = kwok_nodes.simulated.plane
    components = plane.components
    original = components.configuration

    def cpumanager() -> dict[str, str]:
        nodes = plane.request("GET", "/api/v1/nodes")[1]["items"]
        return {_shape(n["metadata"]["name"]): n["metadata"]["labels"]["cpumanager"] for n in nodes}

    assert set(cpumanager().values()) == {"false"}
    try:
        gates = {"developerConfiguration": {"featureGates": ["CPUManager"]}}
        components.configure({**original, **gates})
        assert sorted(kwok_nodes.beat()) == sorted(kwok_nodes.names)
        labels = cpumanager()
        assert {shape for shape, value in labels.items() if value == "true"} == {"hugepages-2m", "hugepages-1g"}
        assert set(labels) == {_shape(n) for n in kwok_nodes.names}
    finally:
        components.configure(original)
        kwok_nodes.beat()
    assert set(cpumanager().values()) == {"false"}
