"""rightsize's parts without a server: flag checks, the fixed set of PromQL queries, the query API's answers, and
the virt-handler metrics double's exposition."""

from __future__ import annotations

import pytest

from kubectl_instancetype.kube.prometheus import PrometheusError, parse_service, parse_vector
from kubectl_instancetype.usecases.rightsize import QUERY_NAMES, RAW, RULES, Queries
from tests.conftest import run_cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "error: name the metrics server: --prometheus-url URL or --prometheus-service NAMESPACE/NAME:PORT"),
        (
            ["--prometheus-url", "http://p", "--window", "2x"],
            'error: invalid argument "2x" for "--window" flag: expected a duration such as 14d or 36h',
        ),
        (
            ["--prometheus-url", "http://p", "--percentile", "101"],
            'error: invalid argument "101" for "--percentile" flag: expected 0-100',
        ),
        (
            ["--prometheus-url", "http://p", "--headroom", "lots"],
            'error: invalid argument "lots" for "--headroom" flag: expected a percentage such as 20%',
        ),
        (
            ["--prometheus-service", "monitoring/prometheus"],
            "error: --prometheus-service 'monitoring/prometheus': expected NAMESPACE/NAME:PORT (e.g. monitoring/prometheus:9090)",
        ),
        (
            ["--prometheus-service", "m/p:9090", "--prometheus-token-file", "t"],
            "error: --prometheus-ca-file and --prometheus-token-file go with --prometheus-url; the service proxy uses "
            "your kubeconfig's credentials",
        ),
        (["--prometheus-url", "http://p", "--allow-restart"], "error: --allow-restart goes with --apply"),
        (["--prometheus-url", "http://p", "--window", "1d", "--step", "2d"], "error: --step is longer than --window"),
        (
            ["vm/a", "-A", "--prometheus-url", "http://p"],
            "error: a VM is named in one namespace: vm/NAME goes with -n, not -A",
        ),
    ],
)
def test_flags_are_checked_before_anything_is_read(args, message) -> None:
    result = run_cli(["rightsize", *args], environ={"HOME": "/nonexistent", "KUBECONFIG": "/nonexistent"})
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [message]


def test_service_spellings() -> None:
    assert (
        parse_service("openshift-monitoring/https:thanos-querier:9091")
        == "openshift-monitoring/https:thanos-querier:9091"
    )
    with pytest.raises(ValueError, match="expected NAMESPACE/NAME:PORT"):
        parse_service("thanos-querier:9091")


def test_the_queries_are_a_fixed_set_over_the_window_and_use_rules_when_present() -> None:
    raw = Queries(14 * 86400, 60, 1_700_000_000.0, 95)
    queries = raw.all()
    assert ("rules", *queries) == QUERY_NAMES
    assert queries["cpu"].startswith(
        "quantile_over_time(0.95, ((sum by (namespace, name) (rate(kubevirt_vmi_vcpu_seconds_total[5m]))"
    )
    assert queries["cpu"].endswith("[14d:1m])")
    assert "@ 1700000000.000" in queries["cpu"]  # the VM's size now: samples at another size are dropped
    assert RAW["used"] in queries["memory"] and RULES["used"] not in queries["memory"]
    ruled = Queries(14 * 86400, 60, 1_700_000_000.0, 99, frozenset(RULES)).all()
    assert RULES["used"] in ruled["memory"] and RULES["headroom"] in ruled["pressure"]
    assert ruled["memory"].startswith("quantile_over_time(0.99, ")


def test_vector_answers_and_refusals() -> None:
    body = b'{"status":"success","data":{"resultType":"vector","result":[{"metric":{"namespace":"a","name":"b"},"value":[1,"0.5"]}]}}'
    (sample,) = parse_vector(body, "P")
    assert (dict(sample.labels), sample.value) == ({"namespace": "a", "name": "b"}, 0.5)
    with pytest.raises(PrometheusError, match="^P: bad_data: parse error"):
        parse_vector(b'{"status":"error","errorType":"bad_data","error":"parse error"}', "P")
    with pytest.raises(PrometheusError, match="^P: the answer is not JSON"):
        parse_vector(b"<html>", "P")
    with pytest.raises(PrometheusError, match="expected a vector, the server answered 'matrix'"):
        parse_vector(b'{"status":"success","data":{"resultType":"matrix","result":[]}}', "P")


def test_the_double_speaks_kubevirts_names_labels_and_help() -> None:
    from tests.doubles.virt_handler_metrics import Counters, Profile, Size, Subject, exposition

    subject = Subject(
        "ns",
        "vm-1",
        "node-a",
        lambda _t: Size(2, 1 << 30),
        Profile(),
        started=0.0,
        labels={"kubevirt.io/domain": "vm-1"},
    )
    text = exposition([subject], {}, 600.0)
    lines = text.splitlines()
    assert "# TYPE kubevirt_vmi_vcpu_seconds_total counter" in lines
    assert (
        "# HELP kubevirt_vmi_memory_domain_bytes The amount of memory in bytes allocated to the domain. The `memory` "
        "value in domain xml file." in lines
    )
    labels = 'name="vm-1",namespace="ns",node="node-a",kubernetes_vmi_label_kubevirt_io_domain="vm-1"'
    assert f'kubevirt_vmi_vcpu_seconds_total{{{labels},id="1",state="running"}} 60' in lines  # 10% of 600 s
    assert f"kubevirt_vmi_memory_domain_bytes{{{labels}}} 1073741824" in lines
    counters = Counters(subject)
    counters.advance(600.0)
    assert counters.values["vcpu"] == pytest.approx(120.0)


@pytest.mark.parametrize(
    ("cpu", "memory", "cell"),
    [
        (-7, -30 << 30, "-7 vCPU, -30Gi"),
        (1, 0, "+1 vCPU"),  # a CPU-only step (a series whose sizes differ in vCPUs only)
        (0, 2 << 30, "+2Gi"),
        (0, 0, "-"),
    ],
)
def test_the_change_column_names_only_what_changes(cpu, memory, cell) -> None:
    from kubectl_instancetype.instancetype.rightsize import OVER, Candidate, Sizing
    from kubectl_instancetype.output.rightsize import render
    from kubectl_instancetype.usecases.rightsize import RightsizeReport, VMSizing

    target = Candidate(
        "VirtualMachineClusterInstancetype", "u1.small", {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}}
    )
    row = VMSizing("ns", "vm", "u1.large", "", None, Sizing(OVER, "why", None, target, cpu, memory))
    report = RightsizeReport([row], "Prometheus at http://p", 10, (), 86400, 60, 95.0, 0.2, True)
    line = render(report).splitlines()[2]
    assert line.split("u1.small", 1)[1].strip().rsplit(" ", 1)[0].strip() == cell


class _Answers:
    """Prometheus's answers by query name (what :func:`measure` asks is recorded), for measure()'s control flow."""

    def __init__(self, answers: dict[str, list[tuple[str, float]]]):
        self.answers = answers
        self.asked: list[str] = []
        self.promql: dict[str, str] = {}

    def query(self, promql: str, at: float, timeout: float):
        from kubectl_instancetype.kube.prometheus import Sample

        name = next(
            (
                key
                for key, mark in _MARKS
                if promql.startswith(mark) or (key in ("rules", "pressure", "low_available") and mark in promql)
            ),
            None,
        )
        assert name is not None, promql
        self.asked.append(name)
        self.promql[name] = promql
        return [Sample({"namespace": "ns", "name": vm}, value) for vm, value in self.answers.get(name, [])]


# how each query is told apart: a mark it starts with, or (the pressure thresholds, the probe) contains
_MARKS = (
    ("rules", '__name__=~"vmi:'),
    ("pressure", "< 0.05"),
    ("low_available", "< 0.03"),
    ("sources", "label_replace("),
    ("changed", "group by (namespace, name) (count_over_time("),
    ("cpu", "quantile_over_time(0.95, ((sum by (namespace, name) (rate("),
    ("cpu_peak", "max_over_time(((sum by (namespace, name) (rate("),
    ("memory", "quantile_over_time(0.95, ((sum by (namespace, name) (kubevirt_vmi_memory_available"),
    ("memory_peak", "max_over_time(((sum by (namespace, name) (kubevirt_vmi_memory_available"),
    ("history", "count_over_time(((sum by (namespace, name) (rate("),
    ("headroom", "min_over_time(("),
)


@pytest.mark.parametrize(
    ("headroom", "changed", "asked", "filtered"),
    [
        # nobody's headroom went below 5%: the pressure queries could only answer zero; no size changed: no filter
        (0.2, [], 9, None),
        # one VM below 5%: both are asked; one VM changed size: the filter names it
        (0.04, [("vm.1", 1.0)], 11, 'kubevirt_vmi_memory_domain_bytes{name=~"vm\\\\.1"}'),
    ],
)
def test_measure_skips_what_cannot_change_the_answer(headroom, changed, asked, filtered) -> None:
    from kubectl_instancetype.usecases.rightsize import RightsizeRequest, measure

    server = _Answers({"headroom": [("vm.1", headroom), ("vm-2", 0.5)], "changed": changed, "cpu": [("vm.1", 0.5)]})
    measured = measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0)  # type: ignore[arg-type]
    assert len(server.asked) == asked
    assert ("pressure" in server.asked) == (asked == 11)
    assert measured.vms[("ns", "vm.1")].pressure_seconds == 0.0
    if filtered is None:
        assert "unless" not in server.promql["cpu"]
    else:
        assert filtered in server.promql["cpu"] and "unless" in server.promql["memory"]


def test_too_many_changed_vms_filter_every_vm() -> None:
    from kubectl_instancetype.usecases.rightsize import MAX_CHANGED_NAMES, RightsizeRequest, measure

    changed = [(f"vm-{i}", 1.0) for i in range(MAX_CHANGED_NAMES + 1)]
    server = _Answers({"changed": changed})
    measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0)  # type: ignore[arg-type]
    assert "(kubevirt_vmi_memory_domain_bytes) != on" in server.promql["cpu"]
