"""The simulated nodes' pure parts (hack/localcluster/kwok.py, heartbeat.py, nodes.yaml): which shapes N nodes get,
the Node objects as kubelet and virt-handler leave them, the taints the node lifecycle controller would leave,
and virt-handler's heartbeat patch. The live side (KWOK, kube-scheduler) is tests/integration/test_scheduling.py."""

from __future__ import annotations

import collections
import json
import re

import pytest

from hack.localcluster import heartbeat
from hack.localcluster.kwok import (
    NOT_READY_TAINT,
    STAGES_FILE,
    UNSCHEDULABLE_TAINT,
    labeller_labels,
    lifted_taints,
    load_shapes,
    node_object,
)

SHAPES = load_shapes()


def test_few_nodes_take_the_shapes_in_file_order() -> None:
    names = [shape.name for shape in SHAPES.spread(8)]
    assert names == ["general", "hugepages-2m", "hugepages-1g", "gpu", "arm64", "small", "tainted", "cordoned"]
    assert [shape.name for shape in SHAPES.spread(3)] == ["general", "hugepages-2m", "hugepages-1g"]
    assert SHAPES.spread(0) == []


@pytest.mark.parametrize("count", [9, 100, 1000, 1001])
def test_many_nodes_are_one_of_each_then_spread_by_weight(count: int) -> None:
    counts = collections.Counter(shape.name for shape in SHAPES.spread(count))
    assert sum(counts.values()) == count
    assert set(counts) == set(SHAPES.shapes)
    total = sum(shape.weight for shape in SHAPES.shapes.values())
    for name, shape in SHAPES.shapes.items():
        share = (count - len(SHAPES.shapes)) * shape.weight / total
        assert abs(counts[name] - 1 - share) < 1, (name, counts[name], share)


def test_thousand_nodes_are_mostly_general() -> None:
    counts = collections.Counter(shape.name for shape in SHAPES.spread(1000))
    assert counts == {
        "general": 497,
        "hugepages-2m": 100,
        "hugepages-1g": 100,
        "arm64": 100,
        "small": 100,
        "gpu": 51,
        "tainted": 31,
        "cordoned": 21,
    }


def test_extends_takes_the_base_shape_and_overrides() -> None:
    general, tainted, cordoned = (SHAPES.shapes[n] for n in ("general", "tainted", "cordoned"))
    assert (tainted.capacity, tainted.allocatable, tainted.cpu) == (general.capacity, general.allocatable, general.cpu)
    assert tainted.taints == ({"key": "dedicated", "value": "infra", "effect": "NoSchedule"},)
    assert (cordoned.unschedulable, cordoned.taints, general.unschedulable) == (True, (), False)


def test_allocatable_is_capacity_with_the_shapes_reservations() -> None:
    hugepages = SHAPES.shapes["hugepages-1g"]
    assert hugepages.capacity["memory"] == "256Gi" and hugepages.allocatable["memory"] == "190Gi"
    assert hugepages.allocatable["hugepages-1Gi"] == hugepages.capacity["hugepages-1Gi"] == "64Gi"
    assert hugepages.allocatable["pods"] == "250"


def test_amd64_node_has_kubelet_and_virt_handler_labels() -> None:
    node = node_object(SHAPES, SHAPES.shapes["general"], "kwok-general-1", 0, cpu_manager_gate=False)
    labels, annotations = node["metadata"]["labels"], node["metadata"]["annotations"]
    assert {k: labels[k] for k in ("kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/hostname", "type")} == {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": "kwok-general-1",
        "type": "kwok",
    }
    assert labels["kubevirt.io/schedulable"] == "true"
    assert (labels["cpumanager"], labels["kubevirt.io/cpumanager"]) == ("false", "false")
    assert labels["machine-type.node.kubevirt.io/q35"] == "true"
    assert labels["host-model-cpu.node.kubevirt.io/Icelake-Server"] == "true"
    assert labels["cpu-vendor.node.kubevirt.io/Intel"] == "true"
    assert labels["cpu-model.node.kubevirt.io/Skylake-Server-noTSX-IBRS"] == "true"
    # an unusable model is known (migration label) but not a model the node runs
    assert "cpu-model.node.kubevirt.io/Icelake-Server" not in labels
    assert labels["cpu-model-migration.node.kubevirt.io/Icelake-Server"] == "true"
    assert labels["cpu-feature.node.kubevirt.io/avx512f"] == "true"
    assert labels["hyperv.node.kubevirt.io/reenlightenment"] == "true"
    assert labels["cpu-timer.node.kubevirt.io/tsc-frequency"] == "2095078000"
    assert "kubevirt.io/sev" not in labels
    assert annotations["kwok.x-k8s.io/node"] == "fake"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", annotations["kubevirt.io/heartbeat"])
    status = node["status"]
    assert status["allocatable"]["devices.kubevirt.io/vhost-net"] == "1k"
    assert status["capacity"]["cpu"] == "16" and status["allocatable"]["cpu"] == "15500m"
    assert status["nodeInfo"]["architecture"] == "amd64"
    assert node["spec"] == {"podCIDR": "10.128.0.0/24", "podCIDRs": ["10.128.0.0/24"]}


def test_arm64_node_has_machine_types_only() -> None:
    """archLabellerARM64: no host-supported features, named models or host model."""
    labels = labeller_labels(SHAPES, SHAPES.shapes["arm64"])
    assert labels == {
        "machine-type.node.kubevirt.io/virt": "true",
        "machine-type.node.kubevirt.io/virt-rhel9.6.0": "true",
        "machine-type.node.kubevirt.io/virt-rhel9.4.0": "true",
    }


def test_amd_node_with_sev() -> None:
    labels = labeller_labels(SHAPES, SHAPES.shapes["hugepages-1g"])
    assert (labels["kubevirt.io/sev"], labels["kubevirt.io/sev-es"]) == ("true", "true")
    assert labels["cpu-vendor.node.kubevirt.io/AMD"] == "true"


def test_node_names_pick_distinct_addresses_and_pod_cidrs() -> None:
    nodes = [node_object(SHAPES, SHAPES.shapes["small"], f"n{i}", i, False) for i in range(0, 70000, 7)]
    cidrs = [n["spec"]["podCIDR"] for n in nodes[:2000]]  # 10.128.0.0/24 .. : 32,768 /24s before 10.255
    addresses = [n["status"]["addresses"][0]["address"] for n in nodes]
    assert len(set(cidrs)) == len(cidrs) and len(set(addresses)) == len(addresses)
    assert all(re.fullmatch(r"172\.\d+\.\d+\.(\d+)", a) and 0 < int(a.rsplit(".", 1)[1]) < 255 for a in addresses)


def test_cpu_manager_label_needs_the_gate_and_the_static_policy() -> None:
    static, none = SHAPES.shapes["hugepages-2m"], SHAPES.shapes["general"]
    on = node_object(SHAPES, static, "a", 1, cpu_manager_gate=True)["metadata"]["labels"]
    off = node_object(SHAPES, static, "a", 1, cpu_manager_gate=False)["metadata"]["labels"]
    plain = node_object(SHAPES, none, "b", 2, cpu_manager_gate=True)["metadata"]["labels"]
    assert (on["cpumanager"], off["cpumanager"], plain["cpumanager"]) == ("true", "false", "false")


def test_taints_left_on_a_ready_node() -> None:
    """doNoScheduleTaintingPass: the not-ready taint goes, a cordoned node gets the unschedulable taint, other
    taints stay; nothing is left as an empty list."""
    not_ready = {"key": NOT_READY_TAINT, "effect": "NoSchedule"}
    own = {"key": "dedicated", "value": "infra", "effect": "NoSchedule"}
    assert lifted_taints({"spec": {"taints": [not_ready]}}) == []
    assert lifted_taints({"spec": {"taints": [own, not_ready]}}) == [own]
    cordoned = lifted_taints({"spec": {"unschedulable": True, "taints": [not_ready]}})
    assert [(t["key"], t["effect"]) for t in cordoned] == [(UNSCHEDULABLE_TAINT, "NoSchedule")]
    already = {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}
    assert lifted_taints({"spec": {"unschedulable": True, "taints": [already]}}) == [already]


def test_heartbeat_patch_is_virt_handlers() -> None:
    """HeartBeat.do's strategic merge patch: the same keys, values as strings, the metav1.Now JSON timestamp."""
    go_format = (
        '{"metadata": { "labels": {"kubevirt.io/schedulable": "true", "cpumanager": "true", '
        '"kubevirt.io/cpumanager": "true"}, "annotations": {"kubevirt.io/heartbeat": "2026-11-27T01:02:03Z"}}}'
    )
    assert heartbeat.heartbeat_patch(True, "2026-11-27T01:02:03Z") == json.loads(go_format)
    unschedulable = heartbeat.heartbeat_patch(False, "t", schedulable=False)["metadata"]["labels"]
    assert unschedulable == {
        "kubevirt.io/schedulable": "false",
        "cpumanager": "false",
        "kubevirt.io/cpumanager": "false",
    }


@pytest.mark.parametrize(
    ("configuration", "enabled"),
    [
        (None, False),
        ({}, False),
        ({"developerConfiguration": {"featureGates": ["CPUManager"]}}, True),
        ({"developerConfiguration": {"featureGates": ["Sidecar"]}}, False),
        ({"developerConfiguration": {"featureGates": None}}, False),
    ],
)
def test_cpu_manager_gate_is_alpha(configuration, enabled: bool) -> None:
    """featuregate.IsEnabled: an Alpha gate is on only when listed."""
    assert heartbeat.cpu_manager_gate(configuration) is enabled


def test_stages_file_holds_kwoks_fast_stages() -> None:
    import yaml

    stages = [doc for doc in yaml.safe_load_all(STAGES_FILE.read_text()) if doc]
    assert [(s["kind"], s["metadata"]["name"], s["spec"]["resourceRef"]["kind"]) for s in stages] == [
        ("Stage", "node-initialize", "Node"),
        ("Stage", "pod-ready", "Pod"),
        ("Stage", "pod-complete", "Pod"),
        ("Stage", "pod-delete", "Pod"),
    ]
