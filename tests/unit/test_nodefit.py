"""The scheduler's filters and words (instancetype/nodefit.py, golang/kubescheduler.py) and the quota admission
(instancetype/podquota.py) on the vectors of /work/shared/spec/scheduling.md and the upstream tests."""

from __future__ import annotations

import copy

import pytest

from kubectl_instancetype.golang import kubescheduler as words
from kubectl_instancetype.instancetype import nodefit, podquota
from tests.scheduling import GI, launcher, node, quota


def test_sidecar_init_container_is_added_and_ordinary_init_containers_are_maxed():
    pod = launcher()
    # spec: guest-console-log is a sidecar: its 5m/35M are added to the compute container's requests
    assert nodefit.scheduler_request(nodefit.pod_requests(pod))["cpu"] == 1005
    assert nodefit.scheduler_request(nodefit.pod_requests(pod))["memory"] == 2294 * 2**20 + 35_000_000
    # an ordinary init container (a containerDisk's volumecontainerdisk) counts as its max with the sidecars
    # started before it, not added
    pod["spec"]["initContainers"].append(
        {"name": "volumecontainerdisk", "resources": {"requests": {"cpu": "2", "memory": "40M"}}}
    )
    request = nodefit.scheduler_request(nodefit.pod_requests(pod))
    assert request["cpu"] == 2005  # max(1005, 2000 + 5)
    assert request["memory"] == 2294 * 2**20 + 35_000_000  # max(.., 40M + 35M)


def test_overhead_and_pod_level_requests():
    pod = {
        "spec": {
            "containers": [{"resources": {"requests": {"cpu": "100m", "memory": "1Gi"}}}],
            "overhead": {"cpu": "250m"},
        }
    }
    assert nodefit.scheduler_request(nodefit.pod_requests(pod)) == {"cpu": 350, "memory": GI}
    pod["spec"]["resources"] = {"requests": {"memory": "2Gi", "nvidia.com/gpu": "1"}}  # gpu is not pod-level
    assert nodefit.scheduler_request(nodefit.pod_requests(pod)) == {"cpu": 350, "memory": 2 * GI}


def test_bound_pods_count_their_resized_status_resources():
    pod = {
        "spec": {"nodeName": "n", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
        "status": {"phase": "Running", "containerStatuses": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}]},
    }
    assert nodefit.bound_request(pod) == {"cpu": 3000}
    assert nodefit.counts_on_node(pod)
    assert not nodefit.counts_on_node({**pod, "status": {"phase": "Succeeded"}})
    assert not nodefit.counts_on_node({"spec": {}, "status": {"phase": "Pending"}})


def test_units_round_up_as_milli_value_and_value():
    assert (
        nodefit.scheduler_units(
            "cpu",
            nodefit.pod_requests({"spec": {"containers": [{"resources": {"requests": {"cpu": "0.0001"}}}]}})["cpu"],
        )
        == 1
    )
    assert nodefit.scheduler_units("memory", nodefit.quantity_nanos("0.5")) == 1
    assert nodefit.quantity_nanos("1Gi") == 2**30 * 10**9


def test_every_node_short_of_memory():
    nodes = [node(f"n{i}", memory="2Gi") for i in range(4)]
    diagnosis = nodefit.diagnose(nodefit.pod_filter(launcher()), nodes)
    assert diagnosis.fitting == []
    assert diagnosis.message == "0/4 nodes are available: 4 Insufficient memory."


def test_reasons_sort_as_whole_strings_count_included():
    # spec: "1 node(s) had ..." comes before "4 Insufficient memory"
    nodes = [node(f"n{i}", memory="2Gi") for i in range(4)]
    nodes.append(node("tainted", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]))
    message = nodefit.diagnose(nodefit.pod_filter(launcher()), nodes).message
    assert message == "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 Insufficient memory."


def test_thousand_nodes_message_of_the_issue():
    nodes = [node(f"m{i:03}", memory="2Gi") for i in range(600)]
    nodes += [node(f"a{i:03}", labels={"node-labeller.kubevirt.io/obsolete-host-model": "x"}) for i in range(400)]
    message = nodefit.diagnose(nodefit.pod_filter(launcher()), nodes).message
    assert message == (
        "0/1000 nodes are available: 400 node(s) didn't match Pod's node affinity/selector, 600 Insufficient memory."
    )


def test_a_cordoned_node_is_unschedulable_never_short_of_memory():
    nodes = [node("cordoned", memory="1Gi", unschedulable=True), node("small", memory="1Gi", cpu="500m")]
    message = nodefit.diagnose(nodefit.pod_filter(launcher()), nodes).message
    assert (
        message == "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were unschedulable."
    )


def test_tolerating_the_unschedulable_taint_passes_a_cordoned_node():
    pod = launcher()
    pod["spec"]["tolerations"].append(
        {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
    )
    assert [fit.node for fit in nodefit.diagnose(nodefit.pod_filter(pod), [node("c", unschedulable=True)]).fitting] == [
        "c"
    ]


@pytest.mark.parametrize(
    ("toleration", "taint", "expected"),
    [
        ({"key": "k", "operator": "Equal", "value": "v"}, {"key": "k", "value": "v", "effect": "NoSchedule"}, True),
        ({"key": "k", "value": "v"}, {"key": "k", "value": "w", "effect": "NoSchedule"}, False),
        ({"key": "k", "operator": "Exists", "effect": "NoExecute"}, {"key": "k", "effect": "NoSchedule"}, False),
        ({"operator": "Exists"}, {"key": "anything", "value": "x", "effect": "NoExecute"}, True),
        ({"key": "k", "operator": "Gt", "value": "1"}, {"key": "k", "value": "5", "effect": "NoSchedule"}, False),
    ],
)
def test_toleration_matching(toleration, taint, expected):
    assert nodefit.tolerates(toleration, taint) is expected


def test_prefer_no_schedule_taints_do_not_filter():
    taint = {"key": "k", "value": "v", "effect": "PreferNoSchedule"}
    assert nodefit.diagnose(nodefit.pod_filter(launcher()), [node("n", taints=[taint])]).fitting


def test_dedicated_cpus_need_the_cpumanager_label():
    pod = nodefit.pod_filter(launcher(cpu="4", memory="8Gi", dedicated=True))
    assert nodefit.diagnose(pod, [node("n")]).message == (
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
    )
    assert nodefit.diagnose(pod, [node("n", labels={"kubevirt.io/cpumanager": "true"})]).fitting


def test_hugepages_nowhere():
    pod = nodefit.pod_filter(launcher(memory="4Gi", hugepages=("1Gi", "4Gi")))
    nodes = [node("a"), node("b", hugepages_2Mi="1Gi")]
    assert nodefit.diagnose(pod, nodes).message == "0/2 nodes are available: 2 Insufficient hugepages-1Gi."
    assert nodefit.diagnose(pod, [node("c", hugepages_1Gi="8Gi")]).fitting


def test_too_many_pods_and_requests_after_bound_pods():
    n = node("n", pods="2")
    n.add_pod({"cpu": 7000})
    n.add_pod({})
    fit = nodefit.diagnose(nodefit.pod_filter(launcher()), [n])
    assert fit.message == "0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods."


def test_a_pod_requesting_nothing_checks_only_the_pod_count():
    n = node("n", cpu="0", memory="0", pods="1")
    assert nodefit.diagnose(nodefit.pod_filter({"spec": {"containers": [{}]}}), [n]).fitting
    n.add_pod({})
    assert nodefit.diagnose(nodefit.pod_filter({"spec": {"containers": [{}]}}), [n]).message == (
        "0/1 nodes are available: 1 Too many pods."
    )


@pytest.mark.parametrize(
    ("expression", "labels", "expected"),
    [
        ({"key": "a", "operator": "In", "values": ["x", "y"]}, {"a": "y"}, True),
        ({"key": "a", "operator": "NotIn", "values": ["x"]}, {}, True),
        ({"key": "a", "operator": "Gt", "values": ["4"]}, {"a": "5"}, True),
        ({"key": "a", "operator": "Lt", "values": ["4"]}, {"a": "five"}, False),
        ({"key": "a", "operator": "Exists", "values": ["x"]}, {"a": "x"}, False),  # refused: matches nothing
        ({"key": "a", "operator": "In", "values": []}, {"a": ""}, False),
    ],
)
def test_node_affinity_requirements(expression, labels, expected):
    pod = {
        "spec": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [expression]}]
                    }
                }
            }
        }
    }
    n = nodefit.NodeInfo("n", labels, [], False, {"pods": 10})
    assert nodefit.matches_affinity(pod["spec"], n) is expected


def test_affinity_terms_are_ored_and_match_fields_read_the_name():
    terms = [
        {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]},
    ]
    spec = {
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    }
    assert nodefit.matches_affinity(spec, nodefit.NodeInfo("n", {}, [], False, {}))
    assert not nodefit.matches_affinity(spec, nodefit.NodeInfo("m", {}, [], False, {}))
    empty = {
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}]}}}
    }
    assert not nodefit.matches_affinity(empty, nodefit.NodeInfo("n", {}, [], False, {}))


def test_capacity_sums_per_node_counts_and_names_the_next_line():
    pod = nodefit.pod_filter(launcher(cpu="2", memory="4Gi"))
    nodes = [node("a", cpu="8", memory="32Gi"), node("b", cpu="16", memory="9Gi"), node("c", unschedulable=True)]
    result = nodefit.capacity(pod, nodes)
    # a: cpu 8000 // 2005 = 3, memory 7; b: memory 9Gi // (4Gi + 35M) = 2
    assert (result.count, result.nodes) == (5, 2)
    assert result.limited_by == "cpu"  # tie (1 node each): report order cpu before memory
    assert result.next_message == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were unschedulable."
    )
    assert [fit.count for fit in nodefit.diagnose(pod, nodes).nodes] == [3, 2, 0]


def test_capacity_limited_by_the_pod_count():
    result = nodefit.capacity(nodefit.pod_filter(launcher()), [node("a", pods="3", cpu="64", memory="256Gi")])
    assert (result.count, result.limited_by) == (3, "pods")
    assert result.next_message == "0/1 nodes are available: 1 Too many pods."


def test_what_is_left_on_a_fitting_node():
    fit = nodefit.diagnose(nodefit.pod_filter(launcher()), [node("a")]).fitting[0]
    assert fit.left["cpu"] == 8000 - 1005
    assert fit.left["memory"] == 32 * GI - 2294 * 2**20 - 35_000_000
    assert fit.left["pods"] == 109


def test_fit_error_histogram():
    assert words.fit_error(3, [["Insufficient cpu", "Insufficient memory"], ["Insufficient memory"], []]) == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 Insufficient memory."
    )
    assert (
        words.first_sentence(
            "0/2 nodes are available: 2 Insufficient memory. no new claims to deallocate, preemption: 0/2 nodes are "
            "available: 2 No preemption victims found for incoming pod."
        )
        == "0/2 nodes are available: 2 Insufficient memory."
    )


# --- quota ----------------------------------------------------------------------------------------------


def test_quota_exceeded_message_as_the_api_server_writes_it():
    pod = launcher(memory="2Gi")
    denial = podquota.check(
        pod, [quota("mem", {"requests.memory": "2Gi"}, {"requests.memory": "512Mi"})], "virt-launcher-vm-"
    )
    assert denial is not None
    # 2Gi + 35M (the sidecar) prints in BinarySI's canonical form: not a multiple of 1Ki
    assert denial.message == (
        "exceeded quota: mem, requested: requests.memory=2182483648, used: requests.memory=512Mi, "
        "limited: requests.memory=2Gi"
    )
    assert denial.forbidden == 'pods "virt-launcher-vm-" is forbidden: ' + denial.message


def test_quota_that_fits_and_quota_with_other_scope():
    pod = launcher()
    assert podquota.check(pod, [quota("pods", {"pods": "10"}, {"pods": "9"})], "p-") is None
    denial = podquota.check(
        pod, [quota("pods", {"pods": "10", "count/pods": "10"}, {"pods": "10", "count/pods": "3"})], "p-"
    )
    assert (
        denial is not None
        and denial.message == "exceeded quota: pods, requested: pods=1, used: pods=10, limited: pods=10"
    )
    best_effort_only = quota("be", {"pods": "0"}, {"pods": "0"}, scopes=["BestEffort"])
    assert podquota.check(pod, [best_effort_only], "p-") is None


def test_quota_on_limits_needs_every_container_to_state_them():
    pod = launcher()
    denial = podquota.check(pod, [quota("lim", {"limits.memory": "10Gi"}, {"limits.memory": "0"})], "virt-launcher-vm-")
    assert denial is not None and denial.message == "failed quota: lim: must specify limits.memory for: compute"


def test_quota_without_status_is_unknown():
    q = quota("q", {"requests.cpu": "4", "pods": "5"}, {})
    denial = podquota.check(launcher(), [q], "p-")
    assert denial is not None and denial.message == "status unknown for quota: q, resources: pods,requests.cpu"


def test_quota_requested_cpu_sum_prints_canonically():
    pod = copy.deepcopy(launcher(cpu="2"))
    denial = podquota.check(pod, [quota("c", {"requests.cpu": "2"}, {"requests.cpu": "0"})], "p-")
    assert denial is not None and denial.message == (
        "exceeded quota: c, requested: requests.cpu=2005m, used: requests.cpu=0, limited: requests.cpu=2"
    )


# --- hints ----------------------------------------------------------------------------------------------


def test_hint_names_the_cpumanager_label_virt_handler_sets():
    from kubectl_instancetype.instancetype import fithints

    pod = nodefit.pod_filter(launcher(cpu="4", memory="8Gi", dedicated=True))
    assert fithints.hints(pod, [node("a"), node("b")]) == [
        "no node is labelled kubevirt.io/cpumanager=true: virt-handler sets it where the kubelet runs the static CPU manager "
        "policy and the KubeVirt CR enables the CPUManager feature gate; dedicated CPUs (dedicatedCPUPlacement) "
        "need such a node"
    ]


def test_hint_says_no_node_has_hugepages_1gi():
    from kubectl_instancetype.instancetype import fithints

    pod = nodefit.pod_filter(launcher(memory="4Gi", hugepages=("1Gi", "4Gi")))
    assert fithints.hints(pod, [node("a"), node("b", hugepages_2Mi="8Gi")]) == [
        f"no node has hugepages-1Gi: {fithints.HUGEPAGES}"
    ]


def test_hint_for_a_request_larger_than_any_node_and_for_full_nodes():
    from kubectl_instancetype.instancetype import fithints

    pod = nodefit.pod_filter(launcher(cpu="2", memory="64Gi"))
    assert fithints.hints(pod, [node("a", memory="32Gi"), node("b", memory="16Gi")]) == [
        "the pod requests 64.1Gi memory; the largest matching node has 32Gi memory allocatable"
    ]
    busy = node("c", memory="80Gi")
    busy.add_pod({"memory": 40 * GI})
    assert fithints.hints(pod, [busy]) == [
        "the pod requests 64.1Gi memory; the most free on a matching node is 40Gi memory (the rest is requested "
        "by the pods running there)"
    ]


def test_hint_for_the_obsolete_host_model_affinity():
    from kubectl_instancetype.instancetype import fithints

    labelled = node("a", labels={"node-labeller.kubevirt.io/obsolete-host-model": "Penryn"})
    assert fithints.hints(nodefit.pod_filter(launcher()), [labelled]) == [
        "every node is labelled node-labeller.kubevirt.io/obsolete-host-model: virt-handler marks hosts whose CPU "
        "model is in the KubeVirt CR's obsoleteCPUModels, and launcher pods avoid them"
    ]
