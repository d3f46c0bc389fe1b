"""rightsize's parts without a server: flag checks, the fixed set of PromQL queries, the query API's answers, and
the virt-handler metrics double's exposition."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
        (
            ["--print-rules", "operator"],
            'error: invalid argument "operator" for "--print-rules" flag: expected one of prometheusrule, rulefile',
        ),
        (
            ["--print-rules", "rulefile", "-A", "--prometheus-url", "http://p"],
            "error: --print-rules prints the rules and measures nothing: drop -A, --prometheus-url",
        ),
        (
            ["--print-rules", "rulefile", "-o", "name"],
            'error: unable to match a printer suitable for the output format "name", allowed formats are: json,yaml',
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
    # label values that are not strings are made strings (the answer's labels are taken as they are otherwise); no
    # metric: no labels; NaN and infinities as Prometheus writes them
    body = b'{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":7,"ns":null},"value":[1,"NaN"]},{"value":[1,"+Inf"]}]}}'
    first, second = parse_vector(body, "P")
    assert (dict(first.labels), math.isnan(first.value)) == ({"name": "7", "ns": "None"}, True)
    assert (dict(second.labels), second.value) == ({}, math.inf)
    for malformed in (
        b'{"metric":["a"],"value":[1,"1"]}',
        b'{"metric":{},"value":[1]}',
        b'{"metric":{},"value":[1,"x"]}',
    ):
        with pytest.raises(PrometheusError, match="^P: a malformed sample: "):
            parse_vector(b'{"status":"success","data":{"resultType":"vector","result":[' + malformed + b"]}}", "P")


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
        (0.2, [], 10, None),
        # one VM below 5%: both are asked; one VM changed size: the filter names it
        (0.04, [("vm.1", 1.0)], 12, 'kubevirt_vmi_memory_domain_bytes{name=~"vm\\\\.1"}'),
    ],
)
def test_measure_skips_what_cannot_change_the_answer(headroom, changed, asked, filtered) -> None:
    from kubectl_instancetype.usecases.rightsize import RightsizeRequest, measure

    server = _Answers({"headroom": [("vm.1", headroom), ("vm-2", 0.5)], "changed": changed, "cpu": [("vm.1", 0.5)]})
    measured = measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0)  # type: ignore[arg-type]
    assert len(server.asked) == asked
    assert ("pressure" in server.asked) == (asked == 12)
    # the probe: two queries, the window's first and last two hours
    assert server.asked[:2] == ["rules", "rules"]
    assert measured.vms[("ns", "vm.1")].pressure_seconds == 0.0
    if filtered is None:
        assert "unless" not in server.promql["cpu"]
    else:
        assert filtered in server.promql["cpu"] and "unless" in server.promql["memory"]


def test_the_probe_reads_each_end_of_the_window_in_its_own_query() -> None:
    """One query per end: a query reads its selectors in every block overlapping any of them, so one query over both
    ends would read each series' index entries in every block of the window."""
    import re

    from kubectl_instancetype.instancetype import rightsize_rules as rr

    first, last = Queries(14 * 86400, 60, 1_700_000_000.0, 95).probes()
    for text, at in ((first, 1_700_000_000 - 14 * 86400 + 7200), (last, 1_700_000_000)):
        assert re.findall(r"@ ([0-9.]+)", text) == [f"{at:.3f}"], text
        assert text.startswith("count by (__name__) (last_over_time({__name__=~")
        assert text.endswith(f"}}[2h] @ {at:.3f}))")
        assert all(name in text for name in (*RULES.values(), *rr.PROBED))


def test_too_many_changed_vms_filter_every_vm() -> None:
    from kubectl_instancetype.usecases.rightsize import MAX_CHANGED_NAMES, RightsizeRequest, measure

    changed = [(f"vm-{i}", 1.0) for i in range(MAX_CHANGED_NAMES + 1)]
    server = _Answers({"changed": changed})
    measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0)  # type: ignore[arg-type]
    assert "(kubevirt_vmi_memory_domain_bytes) != on" in server.promql["cpu"]


@pytest.mark.parametrize(
    ("changed", "plain", "subquery"),
    [
        # no VM changed size: every query a plain range function over the recorded series
        (frozenset(), True, False),
        # one did: the others plainly, it through the 5-minute series with the size filter
        (frozenset({"vm.1"}), True, True),
        # too many to name: every VM filtered
        (None, False, True),
    ],
)
def test_the_queries_over_rightsizes_own_rules(changed, plain, subquery) -> None:
    import re

    from kubectl_instancetype.instancetype import rightsize_rules as rr
    from kubectl_instancetype.usecases.rightsize import RecordedQueries

    queries = RecordedQueries(14 * 86400, 1_700_000_000.0, 95, changed).all()
    assert set(queries) == {
        "changed",
        "cpu",
        "cpu_peak",
        "memory",
        "memory_peak",
        "history",
        "headroom",
        "pressure",
        "low_available",
    }
    # the size check: plain range functions over the hourly roll-ups and the last hour, never a subquery
    assert not re.search(r"\[\w+:\w+\]", queries["changed"])
    assert queries["changed"] == (
        f"group by (namespace, name) (max_over_time({rr.DOMAIN_CHANGES}[14d]) > 0 or "
        f"max_over_time({rr.VCPUS_CHANGES}[14d]) > 0 or changes({rr.DOMAIN}[65m]) > 0 or changes({rr.VCPUS}[65m]) > 0)"
    )
    for name, text in queries.items():
        if name == "changed":
            continue
        assert bool(re.search(r"\[14d:5m\]", text)) == subquery, (name, text)
        assert (("{name!~" in text) or (changed == frozenset() and "[14d])" in text)) == plain, (name, text)
        assert "kubevirt_vmi_" not in text.replace("namespace_name:kubevirt_vmi_", ""), "raw series read"
    if changed == frozenset():
        assert queries["cpu"] == f"quantile_over_time(0.95, {rr.CPU}[14d])"
        assert queries["cpu_peak"] == f"max_over_time({rr.CPU_MAX}[14d])"
        assert queries["memory"] == f"quantile_over_time(0.95, {rr.MEMORY}[14d])"
        assert queries["history"] == f"sum by (namespace, name) (sum_over_time({rr.CPU_COUNT}[14d])) * 300"
        assert queries["headroom"] == f"min_over_time({rr.HEADROOM_MIN}[14d])"
    if changed:
        assert f'{rr.DOMAIN}{{name=~"vm\\\\.1"}}[10m] @ 1700000000.000' in queries["cpu"]


class _Recorded:
    """A server with rightsize's own rules: the probe names them all; the answers by the recorded series read."""

    def __init__(self, headroom: float):
        self.headroom = headroom
        self.asked: list[str] = []

    def query(self, promql: str, at: float, timeout: float):
        from kubectl_instancetype.instancetype import rightsize_rules as rr
        from kubectl_instancetype.kube.prometheus import Sample

        self.asked.append(promql)
        vm = {"namespace": "ns", "name": "vm-1"}
        if promql.startswith("count by (__name__)"):
            return [Sample({"__name__": name}, 1.0) for name in rr.PROBED]
        answers = {
            f"quantile_over_time(0.95, {rr.CPU}[1d])": [Sample({**vm, "source": "cpu"}, 0.5)],
            f"quantile_over_time(0.95, {rr.MEMORY}[1d])": [Sample({**vm, "source": "balloon"}, 1e9)],
            f"max_over_time({rr.CPU_MAX}[1d])": [Sample(vm, 0.9)],
            f"max_over_time({rr.MEMORY_MAX}[1d])": [Sample(vm, 2e9)],
            f"min_over_time({rr.HEADROOM_MIN}[1d])": [Sample(vm, self.headroom)],
            f"sum by (namespace, name) (sum_over_time({rr.CPU_COUNT}[1d])) * 300": [Sample(vm, 86400.0)],
            f"sum by (namespace, name) (count_over_time({rr.LOW_AVAILABLE}[1d])) * 300": [Sample(vm, 3600.0)],
        }
        return answers.get(promql, [])


@pytest.mark.parametrize(("headroom", "asked"), [(0.5, 11), (0.02, 13)])
def test_measure_over_rightsizes_own_rules(headroom, asked) -> None:
    from kubectl_instancetype.instancetype import rightsize_rules as rr
    from kubectl_instancetype.usecases.rightsize import RightsizeRequest, measure

    server = _Recorded(headroom)
    for more in (None, lambda: server):
        server.asked.clear()
        measures = measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0, more)  # type: ignore[arg-type]
        # the probe (two queries), the daily check (no complete day here), the size check (two), six measures (no
        # sources query: the CPU and memory answers carry it), and the two pressure queries only when a headroom went
        # below 5%
        assert (len(server.asked), measures.queries) == (asked, asked)
        assert measures.own and measures.rules == frozenset(rr.NAMES)
        got = measures.vms[("ns", "vm-1")]
        assert (got.cpu, got.cpu_peak, got.memory, got.memory_peak, got.history_seconds) == (0.5, 0.9, 1e9, 2e9, 86400)
        assert (got.cpu_source, got.memory_source) == ("cpu", "balloon")
        assert got.low_available_seconds == (3600.0 if asked == 13 else 0.0)


class _Resized:
    """A server with rightsize's own rules where the VMs ``changed`` changed size: every VM's plain answers say 1.0,
    the size-filtered ones (a 5-minute subquery) 2.0 for the VMs they name."""

    def __init__(self, changed: list[str], recent: bool = False):
        self.changed = changed
        self.recent = recent  # the VMs changed size within the last 65 minutes (else before)
        self.asked: list[str] = []

    def query(self, promql: str, at: float, timeout: float):
        import re

        from kubectl_instancetype.instancetype import rightsize_rules as rr
        from kubectl_instancetype.kube.prometheus import Sample

        self.asked.append(promql)
        if promql.startswith("count by (__name__)"):
            return [Sample({"__name__": name}, 1.0) for name in rr.PROBED]
        # the size check's two queries: the window's size-change roll-ups, the last 65 minutes' changes()
        if promql.startswith("group by (namespace, name) (max_over_time(") and not self.recent:
            return [Sample({"namespace": "ns", "name": name}, 1.0) for name in self.changed]
        if promql.startswith("group by (namespace, name) (changes(") and self.recent:
            return [Sample({"namespace": "ns", "name": name}, 1.0) for name in self.changed]
        if promql.startswith("group by (namespace, name) ("):
            return []
        every = ("vm-1", "vm-2", "vm-3")
        if re.search(r"\[1d:5m\]", promql):
            named = re.search(r'\{name=~"([^"]*)"\}', promql)
            filtered = [n for n in every if not named or re.fullmatch(named.group(1).replace("\\\\", "\\"), n)]
            # the filter leaves vm-3 no sample at its current size: no answer for it
            return [Sample({"namespace": "ns", "name": n, "source": "cpu"}, 2.0) for n in filtered if n != "vm-3"]
        assert "{name!~" not in promql, "the plain measures are read for every VM"
        return [Sample({"namespace": "ns", "name": n, "source": "cpu"}, 1.0) for n in every]


@pytest.mark.parametrize(
    ("changed", "asked", "want"),
    [
        # nobody changed size: the probe and the daily check, then the six measures and the size check together
        ([], 11, {"vm-1": 1.0, "vm-2": 1.0, "vm-3": 1.0}),
        # vm-1 and vm-3 did: their answers replaced by the size-filtered ones (vm-3's: none), six queries more
        (["vm-1", "vm-3"], 17, {"vm-1": 2.0, "vm-2": 1.0}),
    ],
)
def test_measure_over_rightsizes_own_rules_with_size_changes(changed, asked, want) -> None:
    from kubectl_instancetype.usecases.rightsize import RightsizeRequest, measure

    # changed before the last 65 minutes (the roll-ups say so), or within them (changes() says so); one connection
    # or several
    for recent in (False, True):
        for parallel in (False, True):
            server = _Resized(changed, recent)
            more = (lambda s=server: s) if parallel else None
            measures = measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0, more)  # type: ignore[arg-type]
            assert (len(server.asked), measures.queries) == (asked, asked)
            assert {name: m.cpu for (_ns, name), m in measures.vms.items() if m.cpu is not None} == want
            assert {name: m.cpu_peak for (_ns, name), m in measures.vms.items() if m.cpu_peak is not None} == want


def test_measure_over_rightsizes_own_rules_too_many_changed() -> None:
    """More VMs changed size than can be named: every VM measured through the size filter, the plain answers
    dropped."""
    from kubectl_instancetype.usecases.rightsize import MAX_CHANGED_NAMES, RightsizeRequest, measure

    server = _Resized([f"vm-{i}" for i in range(MAX_CHANGED_NAMES + 1)])
    measures = measure(server, RightsizeRequest(window=86400, step=60), 1_700_000_000.0)  # type: ignore[arg-type]
    assert measures.queries == 17
    assert {name: m.cpu for (_ns, name), m in measures.vms.items() if m.cpu is not None} == {"vm-1": 2.0, "vm-2": 2.0}


def test_print_rules_prints_a_prometheusrule_in_the_namespace_or_a_rule_file(tmp_path) -> None:
    import json

    import yaml

    from kubectl_instancetype.instancetype import rightsize_rules as rr

    environ = {"HOME": "/nonexistent", "KUBECONFIG": "/nonexistent"}
    result = run_cli(["rightsize", "--print-rules", "prometheusrule", "-n", "monitoring"], environ=environ)
    assert result.exit_code == 0, result.stderr
    rule = yaml.safe_load(result.stdout)
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert (rule["metadata"]["name"], rule["metadata"]["namespace"]) == ("kubectl-instancetype-rightsize", "monitoring")
    assert [(g["name"], g["interval"]) for g in rule["spec"]["groups"]] == [
        ("kubectl-instancetype-rightsize", "5m"),
        ("kubectl-instancetype-rightsize-1h", "1h"),
        ("kubectl-instancetype-rightsize-1d", "1d"),
    ]
    records = [r["record"] for g in rule["spec"]["groups"] for r in g["rules"]]
    assert records == list(rr.NAMES + rr.DAILY_NAMES) and len(records) == 39
    # Prometheus's level:metric:operations, aggregated by namespace and name over KubeVirt's metric names (the two
    # evaluation marks: cluster-level)
    assert all(name.count(":") == 2 for name in records)
    assert [n for n in records if not n.startswith("namespace_name:kubevirt_vmi_")] == [
        rr.EVALUATED,
        rr.COMPLETE,
        *(rr.LEVEL_COMPLETE[days] for days in rr.LEVELS),
    ]
    as_json = run_cli(["rightsize", "--print-rules", "rulefile", "-o", "json"], environ=environ)
    assert json.loads(as_json.stdout) == {"groups": rule["spec"]["groups"]}


def _of(count: float, first: float, last: float):
    from kubectl_instancetype.kube.prometheus import Sample

    return [Sample({"of": "count"}, count), Sample({"of": "first"}, first), Sample({"of": "last"}, last)]


@pytest.mark.parametrize(
    ("samples", "want"),
    [
        # three complete daily evaluations, a day apart
        (_of(3, 1_700_000_000.123, 1_700_172_800.123), (1_700_000_000_123, 1_700_172_800_123)),
        (_of(1, 1_700_000_000.5, 1_700_000_000.5), (1_700_000_000_500, 1_700_000_000_500)),
        # a day missing between them (a daily evaluation missed, or one without its 24 hourly evaluations)
        (_of(2, 1_700_000_000.0, 1_700_172_800.0), None),
        # none within the window
        ([], None),
        (_of(0, float("nan"), float("nan"))[:1], None),
        # two such series (two servers' answers merged): not read
        (_of(1, 1_700_000_000.0, 1_700_000_000.0) * 2, None),
    ],
)
def test_the_daily_roll_ups_are_read_over_days_one_a_day_without_a_gap(samples, want) -> None:
    from kubectl_instancetype.usecases.rightsize import RecordedQueries

    assert RecordedQueries(14 * 86400, 1_700_300_000.0, 95.0).with_days(samples).days == want


def test_the_daily_roll_ups_stand_for_the_windows_whole_days() -> None:
    """With complete daily evaluations at 00:00:00.250 of each day (a 14-day window from noon to noon: 13 of them
    whose days lie within it), each measure that composes reads three disjoint parts: the hourly roll-ups of
    (start, first day's start], the daily roll-ups at the first to the last evaluation, and the hourly roll-ups after
    the last evaluation; the percentiles read the 5-minute series as before; the daily check asks for the
    evaluations at a day or more after the window's start."""
    from kubectl_instancetype.instancetype import rightsize_rules as rr
    from kubectl_instancetype.usecases.rightsize import PartQueries, RecordedQueries

    day = 86_400_000
    at = 1_700_000_000.0 // 86400 * 86400 + 43200  # noon
    # the first evaluation whose day lies within the window: 00:00:00.250 of the window's third date
    first = int(at * 1000) - 14 * day + day + day // 2 + 250
    last = first + 12 * day
    queries = RecordedQueries(14 * 86400, at, 95.0, frozenset(), days=(first, last))
    texts = queries.all()
    # and the completeness of the roll-ups over 2, 4 and 8 days (16 days span more than the window)
    assert queries.daily_check() == " or ".join(
        f'label_replace({f}({series}[1123200001ms] @ {at:.3f}), "of", "{of}{suffix}", "", "")'
        for series, suffix in (
            (rr.COMPLETE, ""),
            *((rr.LEVEL_COMPLETE[days], f":{days}d") for days in (2, 4, 8)),
        )
        for f, of in (("count_over_time", "count"), ("min_over_time", "first"), ("max_over_time", "last"))
    )
    head = f"{(first - day) // 1000}.250"
    split = queries.split()
    # each part a query of its own, so that each reads only the blocks of its time range
    assert split["cpu_peak"] == PartQueries(
        "max",
        (
            ("head", f"max_over_time({rr.CPU_MAX}[43200250ms] @ {head})"),
            ("days", f"max_over_time({rr.CPU_MAX_DAILY}[{12 * day + 1}ms] @ {last // 1000}.250)"),
            ("tail", f"max_over_time({rr.CPU_MAX}[{43200000 - 250}ms] @ {at:.3f})"),
        ),
    )
    assert split["history"] == PartQueries(
        "sum",
        (
            ("head", f"sum by (namespace, name) (sum_over_time({rr.CPU_COUNT}[43200250ms] @ {head}))"),
            (
                "days",
                f"sum by (namespace, name) (sum_over_time({rr.CPU_COUNT_DAILY}[{12 * day + 1}ms] @ {last // 1000}.250))",
            ),
            ("tail", f"sum by (namespace, name) (sum_over_time({rr.CPU_COUNT}[{43200000 - 250}ms] @ {at:.3f}))"),
        ),
        300,
    )
    assert [text for _part, text in split["memory_peak"].texts][1].startswith(f"max_over_time({rr.MEMORY_MAX_DAILY}[")
    assert split["headroom"].how == "min" and rr.HEADROOM_MIN_DAILY in split["headroom"].texts[1][1]
    assert set(split) == {"cpu_peak", "memory_peak", "history", "headroom"}
    # the percentiles read the 5-minute series as before; the whole window's hourly roll-ups in all() are the same
    # measures in one query each (not sent where split() has them)
    assert texts["cpu_peak"] == f"max_over_time({rr.CPU_MAX}[14d])"
    # a window that starts a day before the first daily evaluation and ends at the last: the days alone
    ends = RecordedQueries(13 * 86400, last / 1000, 95.0, frozenset(), days=(first, last))
    assert [part for part, _text in ends.split()["cpu_peak"].texts] == ["days"]
    # not split without complete days, nor for the size-filtered measures of the VMs that changed size
    assert RecordedQueries(14 * 86400, at, 95.0, frozenset()).split() == {}
    assert RecordedQueries(14 * 86400, at, 95.0, frozenset({"vm-1"}), days=(first, last)).split() == {}
    assert texts["cpu"] == f"quantile_over_time(0.95, {rr.CPU}[14d])"
    # a window of less than a day holds no whole day: no check
    assert RecordedQueries(3600, at, 95.0).daily_check() is None


def test_the_roll_ups_over_several_days_stand_for_the_days_where_they_are_complete() -> None:
    """Where the roll-ups over 2, 4 and 8 days were recorded complete over the window (the daily check's count,
    first and last of each one's completeness series, one a day), the 13 days are two overlapping points of the
    8-day roll-up for a maximum or a minimum, and 8 + 4 + 1 disjoint days for the history's sum; each a point of
    1 ms at a daily evaluation's time."""
    from kubectl_instancetype.instancetype import rightsize_rules as rr
    from kubectl_instancetype.kube.prometheus import Sample
    from kubectl_instancetype.usecases.rightsize import RecordedQueries

    day = 86_400_000
    at = 1_700_000_000.0 // 86400 * 86400 + 43200
    first = int(at * 1000) - 14 * day + day + day // 2 + 250
    last = first + 12 * day
    samples = _of(13, first / 1000, last / 1000)
    for days in (2, 4, 8):
        # each complete from its days-th daily evaluation on
        for of, value in (
            ("count", 13 - days + 1),
            ("first", (first + (days - 1) * day) / 1000),
            ("last", last / 1000),
        ):
            samples.append(Sample({"of": f"{of}:{days}d"}, value))
    queries = RecordedQueries(14 * 86400, at, 95.0, frozenset()).with_days(samples)
    assert queries.days == (first, last)
    assert queries.levels == ((2, first + day, last), (4, first + 3 * day, last), (8, first + 7 * day, last))

    def point(series: str, end: int) -> str:
        return f"{series}[1ms] @ {end // 1000}.250"

    split = queries.split()
    assert [text for part, text in split["cpu_peak"].texts if part == "days"] == [
        f"max_over_time({point(rr.LEVELS_OF[rr.CPU_MAX_DAILY][8], last)})",
        f"max_over_time({point(rr.LEVELS_OF[rr.CPU_MAX_DAILY][8], first + 7 * day)})",
    ]
    assert [text for part, text in split["history"].texts if part == "days"] == [
        f"sum by (namespace, name) (sum_over_time({point(rr.LEVELS_OF[rr.CPU_COUNT_DAILY][8], last)}))",
        f"sum by (namespace, name) (sum_over_time({point(rr.LEVELS_OF[rr.CPU_COUNT_DAILY][4], last - 8 * day)}))",
        f"sum by (namespace, name) (sum_over_time({point(rr.CPU_COUNT_DAILY, first)}))",
    ]
    assert rr.LEVELS_OF[rr.HEADROOM_MIN_DAILY][8] in split["headroom"].texts[1][1]
    # a level whose completeness series has a gap is not read: without the 8-day one, 4 + 4 + 4 + 1 days
    gap = [s for s in samples if s.labels["of"] != "count:8d"] + [Sample({"of": "count:8d"}, 4)]
    history = RecordedQueries(14 * 86400, at, 95.0, frozenset()).with_days(gap).split()["history"]
    assert [text.count("count4d") for part, text in history.texts if part == "days"] == [1, 1, 1, 0]


@pytest.mark.parametrize(
    ("levels", "how", "want"),
    [
        # 13 days (0 to 12), every level complete from its own first day on
        ({2: 1, 4: 3, 8: 7}, "max", [(8, 12), (8, 7)]),
        ({2: 1, 4: 3, 8: 7}, "sum", [(8, 12), (4, 4), (1, 0)]),
        # the 8-day roll-up complete only from day 10: 8 at 12, then the 4-day one at 4 and at 3 (overlapping)
        ({2: 1, 4: 3, 8: 10}, "min", [(8, 12), (4, 4), (4, 3)]),
        # none over several days: one range over the daily roll-ups
        ({}, "max", None),
        # more than four points: one range
        ({2: 1}, "sum", None),
        ({2: 1}, "max", None),
        # the 4-day one alone: four points (the last two overlapping)
        ({4: 3}, "max", [(4, 12), (4, 8), (4, 4), (4, 3)]),
        ({4: 3}, "sum", [(4, 12), (4, 8), (4, 4), (1, 0)]),
    ],
)
def test_day_reads_cover_the_days_with_few_points(levels, how, want) -> None:
    from kubectl_instancetype.instancetype.rightsize_rules import DAY_MS, day_reads

    first = 1_000 * DAY_MS + 250
    last = first + 12 * DAY_MS
    got = day_reads(first, last, [(days, first + lo * DAY_MS, last) for days, lo in levels.items()], how)
    assert got == (None if want is None else [(days, first + end * DAY_MS) for days, end in want])
    if got is not None:
        # every day exactly once for a sum, at least once for a maximum or a minimum
        covered = [end // DAY_MS - k for days, end in got for k in range(days)]
        assert set(covered) == set(range(first // DAY_MS, last // DAY_MS + 1))
        assert how != "sum" or len(covered) == 13


def _combined(parts, how, factor=1):
    """Each VM's value over the parts, folded in one after the other as the query threads fold them."""
    from kubectl_instancetype.usecases.rightsize import Combined

    into = Combined(how, factor)
    for part in parts:
        into.add(part)
    return into.result()


@pytest.mark.parametrize(
    ("how", "parts", "factor", "want"),
    [
        # each VM's largest, smallest or summed value over the parts, whatever part it is missing from
        ("max", [[("a", 1.0), ("b", 5.0)], [("a", 3.0)], [("a", 2.0), ("b", 4.0)]], 1, {"a": 3.0, "b": 5.0}),
        ("min", [[("a", 1.0), ("b", 5.0)], [("a", 3.0)], [("a", 2.0), ("b", 4.0)]], 1, {"a": 1.0, "b": 4.0}),
        ("sum", [[("a", 12.0)], [("a", 288.0), ("b", 24.0)], [("a", 7.0)]], 300, {"a": 307 * 300.0, "b": 7200.0}),
        # a NaN gives way to any later value, and a later NaN does not replace a number (PromQL's max and min)
        ("max", [[("a", math.nan)], [("a", 1.0)], [("a", math.nan)]], 1, {"a": 1.0}),
        ("min", [[("a", 2.0)], [("a", math.nan)], [("a", 1.0)]], 1, {"a": 1.0}),
        ("max", [[("a", math.nan)]], 1, {"a": math.nan}),
        ("max", [[("a", math.nan), ("a", 2.0)], [("a", math.nan)], [("a", 1.0), ("a", math.nan)]], 1, {"a": 2.0}),
        ("min", [[("a", math.nan)], [("a", math.nan), ("a", 3.0)], []], 1, {"a": 3.0}),
        # infinities compare as numbers
        ("max", [[("a", 1.0)], [("a", math.inf)]], 1, {"a": math.inf}),
        ("min", [[("a", -math.inf)], [("a", 1.0)]], 1, {"a": -math.inf}),
        # no samples
        ("max", [[], [], []], 1, {}),
    ],
)
def test_the_parts_of_a_window_combine_as_promql_aggregates_them(how, parts, factor, want) -> None:
    from kubectl_instancetype.kube.prometheus import Sample
    from kubectl_instancetype.usecases.rightsize import per_vm

    answers = [[Sample({"namespace": "ns", "name": name}, value) for name, value in part] for part in parts]
    got = _combined([per_vm(answer, how) for answer in answers], how, factor)
    assert repr({name: value for (_ns, name), value in got.items()}) == repr(want)
    # the same as over all the samples at once, in one part
    assert repr(_combined([per_vm([s for answer in answers for s in answer], how)], how, factor)) == repr(got)


def test_the_parts_combine_over_every_series_of_a_vm() -> None:
    """A VM whose CPU source changed within the window has a series of each source in a part: its peak is the larger
    of them; VMs are told apart by namespace as well as name."""
    from kubectl_instancetype.kube.prometheus import Sample
    from kubectl_instancetype.usecases.rightsize import per_vm

    head = [Sample({"namespace": "a", "name": "vm", "source": "cpu"}, 2.0)]
    days = [
        Sample({"namespace": "a", "name": "vm", "source": "vcpu"}, 1.5),
        Sample({"namespace": "a", "name": "vm", "source": "cpu"}, 2.5),
        Sample({"namespace": "b", "name": "vm", "source": "vcpu"}, 9.0),
    ]
    assert _combined([per_vm(head, "max"), per_vm(days, "max")], "max") == {("a", "vm"): 2.5, ("b", "vm"): 9.0}
    # an answer read plainly: each VM's last sample
    assert per_vm(days) == {("a", "vm"): 2.5, ("b", "vm"): 9.0} and per_vm(days[:2]) == {("a", "vm"): 2.5}


class _Daily:
    """A server with rightsize's own rules whose daily roll-ups are complete over a 14-day window: each part of a
    split measure answers its own values, so that the combination shows; every query is recorded."""

    def __init__(self, first: int, last: int):
        self.first, self.last = first, last
        self.asked: list[str] = []

    def query(self, promql: str, at: float, timeout: float):
        from kubectl_instancetype.instancetype import rightsize_rules as rr
        from kubectl_instancetype.kube.prometheus import Sample

        self.asked.append(promql)
        if promql.startswith("count by (__name__)"):
            return [Sample({"__name__": name}, 1.0) for name in rr.PROBED]
        if rr.COMPLETE in promql:
            count = (self.last - self.first) // 86_400_000 + 1
            return [
                Sample({"of": "count"}, float(count)),
                Sample({"of": "first"}, self.first / 1000),
                Sample({"of": "last"}, self.last / 1000),
            ]
        if promql.startswith("group by (namespace, name) ("):
            return []
        daily = any(name in promql for name in rr.DAILY_NAMES)
        tail = f"@ {at:.3f}" in promql and not daily
        # head, days, tail: 1, 2, 3 for vm-1 (sums: 12, 288 and 6 steps); vm-2 only in the days
        value = 2.0 if daily else 3.0 if tail else 1.0
        if "sum_over_time" in promql:
            value = 288.0 if daily else 6.0 if tail else 12.0
        samples = [Sample({"namespace": "ns", "name": "vm-1", "source": "vcpu"}, value)]
        if daily or promql.startswith("quantile_over_time"):
            samples.append(Sample({"namespace": "ns", "name": "vm-2", "source": "vcpu"}, value))
        return samples


def test_measure_reads_the_daily_roll_ups_a_part_in_each_query() -> None:
    from kubectl_instancetype.usecases.rightsize import RecordedQueries, RightsizeRequest, measure

    day = 86_400_000
    at = 1_700_000_000.0 // 86400 * 86400 + 43200
    first = int(at * 1000) - 13 * day + day // 2  # midnight + 0, a day after the window's start's midnight
    last = first + 12 * day
    for parallel in (False, True):
        server = _Daily(first, last)
        more = (lambda s=server: s) if parallel else None
        measures = measure(server, RightsizeRequest(window=14 * 86400, step=60), at, more)  # type: ignore[arg-type]
        split = RecordedQueries(14 * 86400, at, 95.0, frozenset(), days=(first, last)).split()
        # the probe (2), the daily check, the two percentiles, 4 measures x 3 parts, the size check (2)
        assert (len(server.asked), measures.queries) == (19, 19)
        assert {text for parts in split.values() for _part, text in parts.texts} <= set(server.asked)
        vm1, vm2 = measures.vms[("ns", "vm-1")], measures.vms[("ns", "vm-2")]
        assert (vm1.cpu_peak, vm1.memory_peak, vm1.min_headroom_ratio) == (3.0, 3.0, 1.0)
        assert vm1.history_seconds == (12 + 288 + 6) * 300
        assert (vm2.cpu_peak, vm2.min_headroom_ratio, vm2.history_seconds) == (2.0, 2.0, 288 * 300)
        assert measures.rules >= frozenset(("namespace_name:kubevirt_vmi_cpu_usage_seconds:max1d_rate5m",))


def test_in_threads_gives_each_call_the_next_free_connection() -> None:
    """One thread per connection, each taking the next call not taken: a long call holds up only its own
    connection; the results come back in order; the first call's exception is raised once all ended."""
    import threading
    import time

    from kubectl_instancetype.usecases.rightsize import in_threads

    release = threading.Event()
    used: dict[int, str] = {}

    def call(index: int):
        def run(owner: str):
            used[index] = owner
            if index == 0:
                assert release.wait(10)
            if index == 5:
                release.set()  # the long first call ends only once the others got past it
            return index * 10

        return run

    started = time.monotonic()
    assert in_threads([call(i) for i in range(6)], ["a", "b"]) == [0, 10, 20, 30, 40, 50]
    assert time.monotonic() - started < 10
    # the connection that took the first call held it until the last: the other made all the others
    assert {used[i] for i in range(1, 6)} == {"ab".replace(used[0], "")}

    def fails(index: int):
        def run(owner: str):
            if index in (1, 3):
                raise ValueError(index)
            return index

        return run

    with pytest.raises(ValueError, match="1"):
        in_threads([fails(i) for i in range(5)], ["a", "b", "c"])


@pytest.mark.parametrize(
    ("namespace", "names", "want"),
    [
        (None, (), ""),
        ("prod", (), 'namespace="prod"'),
        ("prod", ("db-1", "web.2"), 'namespace="prod",name=~"db-1|web\\\\.2"'),
        # what is not a DNS name is left out: the matchers only narrow, the measures are kept by name after
        ("Prod", ("db-1",), 'name=~"db-1"'),
        ("prod", ('a"b',), 'namespace="prod"'),
        ("prod", tuple(f"vm-{i}" for i in range(101)), 'namespace="prod"'),
    ],
)
def test_the_scope_of_the_vms_asked_for(namespace, names, want) -> None:
    from kubectl_instancetype.usecases.rightsize import scope_of

    assert scope_of(namespace, names) == want


def test_every_query_over_the_vms_series_is_narrowed_to_the_scope() -> None:
    """-n and vm/NAME over rightsize's own rules: every query of a VM's series carries the namespace (and names)
    matchers, beside the size filter's; the probe and the daily check, over cluster-wide series, do not."""
    from kubectl_instancetype.instancetype import rightsize_rules as rr
    from kubectl_instancetype.usecases.rightsize import RightsizeRequest, measure

    day = 86_400_000
    at = 1_700_000_000.0 // 86400 * 86400 + 43200
    first = int(at * 1000) - 13 * day + day // 2
    server = _Daily(first, first + 12 * day)
    measure(server, RightsizeRequest(window=14 * 86400, step=60), at, None, 'namespace="prod"')  # type: ignore[arg-type]
    assert len(server.asked) == 19
    for text in server.asked:
        cluster_wide = text.startswith("count by (__name__)") or rr.COMPLETE in text
        per_vm = [name for name in rr.NAMES + rr.DAILY_NAMES if name in text and not name.startswith("cluster:")]
        assert cluster_wide or per_vm, text
        for name in [] if cluster_wide else per_vm:
            assert text.count(name) == text.count(name + '{namespace="prod"'), text
    resized = _Resized(["vm-1"])
    measure(resized, RightsizeRequest(window=3600, step=60), 1_700_000_000.0, None, 'namespace="prod"')  # type: ignore[arg-type]
    filtered = [text for text in resized.asked if "[1h:5m]" in text]
    assert filtered and all('{namespace="prod",name=~"vm-1"}' in text for text in filtered)


_LABEL_TEXT = st.text(st.characters(codec="utf-8"), max_size=6) | st.sampled_from(["vm-1", "prod", "vcpu", ""])


@st.composite
def _vector_answers(draw) -> bytes:
    """An instant vector as Prometheus's API writes it (compact JSON, labels sorted by name, non-ASCII as is): mostly
    samples labelled by name and namespace (and source), with any text in a value (quotes, escapes, control
    characters), sometimes other labels, odd values, or a warning after the result."""
    import json

    samples = []
    for _ in range(draw(st.integers(0, 6))):
        keys = draw(
            st.sampled_from([("name", "namespace"), ("name", "namespace", "source"), ("name",), ("__name__", "of")])
        )
        labels = {key: draw(_LABEL_TEXT) for key in sorted(keys)}
        value = draw(
            st.sampled_from(["0.5", "1e+21", "NaN", "+Inf", "-Inf", "-0", "x", " 2"])
            | st.floats(allow_nan=False).map(repr)
        )
        at = draw(st.sampled_from([1795825260, 1795825260.123, 0]))
        samples.append({"metric": labels, "value": [at, value]})
    # now and then an element the fast read must not take for a sample: no labels, nothing, one more field
    odd = st.sampled_from(
        [{"value": [1, "2"]}, {}, {"metric": {"name": "a", "namespace": "b"}, "value": [1, "1"], "x": 1}]
    )
    if samples and draw(st.integers(0, 3)) == 0:
        samples.insert(draw(st.integers(0, len(samples))), draw(odd))
    document: dict = {"status": "success", "data": {"resultType": "vector", "result": samples}}
    if draw(st.booleans()) and draw(st.booleans()):
        document["warnings"] = ["PromQL info: ..."]
    # and now and then with a space after a comma (what a server that indents its JSON writes)
    separators = (", ", ":") if draw(st.integers(0, 7)) == 0 else (",", ":")
    return json.dumps(document, separators=separators, ensure_ascii=False).encode()


@given(_vector_answers())
@settings(max_examples=400, deadline=None)
def test_the_vm_samples_read_are_the_answers_json(raw: bytes) -> None:
    """parse_vector reads an answer of samples labelled by name and namespace (and source) with one pattern, any
    other through the JSON scanner: either way, the samples are the answer's JSON (NaN as NaN; an element without
    labels is a sample without labels), and an element without a value, or one that is not a number, is refused."""
    import json

    result = json.loads(raw)["data"]["result"]
    try:
        want = [(item.get("metric") or {}, float(item["value"][1])) for item in result]
    except (KeyError, ValueError):
        with pytest.raises(PrometheusError, match="^P: a malformed sample: "):
            parse_vector(raw, "P")
        return
    got = parse_vector(raw, "P")
    assert [(dict(s.labels), repr(s.value)) for s in got] == [(labels, repr(value)) for labels, value in want]


def test_the_vm_samples_are_read_without_the_json_scanner(mocker) -> None:
    """Answers of the shape rightsize's per-VM queries get (non-ASCII values too, an empty result) are read without
    the scanner; a label value with an escape, a sample with other labels, or a warning after the result sends them
    through it."""
    from kubectl_instancetype.kube import jsonscan

    head = b'{"status":"success","data":{"resultType":"vector","result":['
    vm = b'{"metric":{"name":"vm-\xc3\xa9","namespace":"prod"},"value":[1795825260.5,"0.25"]}'
    sourced = b'{"metric":{"name":"b","namespace":"prod","source":"vcpu"},"value":[1,"NaN"]}'
    scanner = mocker.patch.object(jsonscan, "loads", side_effect=jsonscan.loads)
    got = parse_vector(head + vm + b"," + sourced + b"]}}", "P")
    assert [dict(s.labels) for s in got] == [
        {"name": "vm-\u00e9", "namespace": "prod"},
        {"name": "b", "namespace": "prod", "source": "vcpu"},
    ]
    assert got[0].value == 0.25 and math.isnan(got[1].value)
    assert parse_vector(head + b"]}}", "P") == []
    assert scanner.call_count == 0
    others = (
        b'{"metric":{"name":"a\\"b","namespace":"prod"},"value":[1,"1"]}',
        b'{"metric":{"__name__":"x","name":"a","namespace":"prod"},"value":[1,"1"]}',
        b'{"metric":{},"value":[1,"1"]}',
    )
    for other in others:
        assert len(parse_vector(head + vm + b"," + other + b"]}}", "P")) == 2
    assert len(parse_vector(head + vm + b']},"warnings":["w"]}', "P")) == 1
    # an element that is not such a sample, next to one that is: through the scanner (which refuses the empty one)
    assert [dict(s.labels) for s in parse_vector(head + vm + b',{"value":[1,"2"]}]}}', "P")][1:] == [{}]
    with pytest.raises(PrometheusError, match="^P: a malformed sample: {}"):
        parse_vector(head + vm + b",{}]}}", "P")
    assert len(parse_vector(head + vm + b", " + vm + b"]}}", "P")) == 2
    assert scanner.call_count == len(others) + 4
