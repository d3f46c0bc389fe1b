"""``fits`` and ``capacity`` as printed (output/placement.py) from placements computed on given nodes
(usecases.placement.place is pure), and the commands' usage errors."""

from __future__ import annotations

from kubectl_instancetype.instancetype import nodefit
from kubectl_instancetype.output import placement as printer
from kubectl_instancetype.usecases.placement import CapacityReport, FitsReport, TypeCapacity, place
from tests.conftest import run_cli
from tests.scheduling import GI, launcher, node, quota


def test_a_pod_that_fits_lists_the_nodes_with_what_is_left():
    placement = place("vm/a", "ns", launcher(), [node("n1"), node("n2", memory="2Gi"), node("n3", unschedulable=True)])
    assert printer.render_fits(FitsReport([placement], [])) == (
        "vm/a: the virt-launcher pod requests cpu 1005m, memory 2.3Gi, ephemeral-storage 47.7Mi, "
        "devices.kubevirt.io/kvm 1, devices.kubevirt.io/tun 1\n"
        "It fits 1 of 3 node(s); left on each after it:\n"
        "NODE   CPU     MEMORY   PODS\n"
        "n1     6995m   29.7Gi   109\n"
        "Not on the other 2: 1 Insufficient memory, 1 node(s) were unschedulable.\n"
    )


def test_a_pod_that_fits_nowhere_prints_the_schedulers_line_and_the_hints():
    pod = launcher(memory="4Gi", hugepages=("1Gi", "4Gi"))
    placement = place("m1.large1gi", "ns", pod, [node("a"), node("b")])
    text = printer.render_fits(FitsReport([placement], [], {"m1.large1gi": "m1.large"}))
    assert text.splitlines()[1:] == [
        "0/2 nodes are available: 2 Insufficient hugepages-1Gi.",
        "Hint: no node has hugepages-1Gi: hugepages are reserved on the host at boot (kernel arguments) and the "
        "kubelet reports them in allocatable",
        "Hint: m1.large would fit (kubectl instancetype fits --instancetype m1.large)",
    ]
    assert placement.runs is False


def test_no_nodes_is_unknown_and_a_quota_refusal_is_no():
    unknown = place("vm/a", "ns", launcher(), [])
    assert unknown.runs is None
    assert "No nodes: whether it fits is unknown." in printer.render_fits(FitsReport([unknown], []))
    refused = place(
        "vm/a", "ns", launcher(), [], [quota("q", {"pods": "1"}, {"pods": "1"})], generate_name="virt-launcher-a-"
    )
    assert refused.runs is False
    document = printer.fits_document(FitsReport([refused], []))
    assert document["items"][0]["quota"] == {
        "name": "q",
        "message": 'pods "virt-launcher-a-" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, '
        "limited: pods=1",
    }


def test_capacity_table_and_list():
    candidate = nodefit.pod_filter(launcher(cpu="2", memory="4Gi"))
    counted = nodefit.capacity(candidate, [node("a", memory="32Gi"), node("b", memory="9Gi")])
    report = CapacityReport(
        [
            TypeCapacity("u1.large", "", counted, candidate.request),
            TypeCapacity("bad", "fedora", None, {}, "failure checking preference requirements"),
        ],
        2,
        2,
        [],
    )
    assert printer.render_capacity(report) == (
        "2 node(s), 2 schedulable\n"
        "INSTANCETYPE   PREFERENCE   COUNT   LIMITED BY                                                 NODES\n"
        "u1.large       -            5       cpu                                                        2\n"
        "bad            fedora       -       cannot predict: failure checking preference requirements   -\n"
    )
    items = printer.capacity_document(report)["items"]
    assert (items[0]["count"], items[0]["limitedBy"], items[0]["requests"]["memory"]) == (5, "cpu", 4 * GI + 35_000_000)
    assert items[1]["count"] is None


def test_fits_needs_exactly_one_subject():
    result = run_cli(["fits"])
    assert (result.exit_code, result.stderr) == (1, "error: name one of vm/NAME, -f FILE or --instancetype TYPE\n")
    result = run_cli(["fits", "vm/a", "--preference", "fedora"])
    assert result.stderr == "error: --preference goes with --instancetype (a VM names its own preference)\n"
    result = run_cli(["fits", "pvc/a"])
    assert result.stderr == 'error: fits takes a VirtualMachine: vm/NAME, not "pvc/a"\n'


def test_capacity_refuses_a_bad_selector_and_both_ways_of_naming_types():
    assert run_cli(["capacity", "-l", "a in (b"]).exit_code == 1
    result = run_cli(["capacity", "-l", "a=b", "--instancetype", "u1.small"])
    assert result.stderr == "error: -l selects among all instance types; --instancetype names them: not both\n"
    result = run_cli(["recommend", "--preference", "fedora", "--catalog", "--fits"])
    assert result.stderr == "error: --fits looks at the cluster's nodes: it cannot go with --catalog\n"
