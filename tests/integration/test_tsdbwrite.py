"""hack/prometheus/tsdbwrite (bench/rightsize.py's history writer) against the virt-handler metrics double: the same
fleet written both ways, by the double as OpenMetrics text backfilled with ``promtool tsdb create-blocks-from
openmetrics`` and by tsdbwrite as TSDB blocks, and each served by the real Prometheus, holds the same series with
the same samples (the families tsdbwrite writes: what rightsize reads)."""

from __future__ import annotations

import json
import subprocess
import urllib.parse
import urllib.request

import pytest

from tests.conftest import go_build_skip_reason
from tests.doubles import virt_handler_metrics as double
from tests.doubles.virt_handler_metrics import Profile, Size, Subject, write_openmetrics

WRITTEN = (
    double.CPU_USAGE,
    double.VCPU_SECONDS,
    double.RESIDENT,
    double.AVAILABLE,
    double.USABLE,
    double.DOMAIN,
    double.SWAP_IN,
    double.SWAP_OUT,
    double.MAJOR_FAULTS,
)
# namespace, name, node, vCPUs, memory, cpu share, memory share, balloon statistics
FLEET = (
    ("ns-a", "vm-1", "node-a", 1, 2 << 30, 0.05, 0.2, True),
    ("ns-a", "vm-2", "node-b", 4, 16 << 30, 0.55, 0.9, True),
    ("ns-b", "vm-3", "node-a", 2, 8 << 30, 1.0, 0.5, False),
)
STEP, HOURS = 60, 3
RULE_HOURS = 50


def _samples(url: str, end: int) -> dict[tuple, list[tuple[float, float]]]:
    # a range is open at its start: one second more takes in the first sample
    query = urllib.parse.urlencode({"query": f'{{__name__=~"kubevirt_vmi_.+"}}[{HOURS}h1s]', "time": str(end)})
    with urllib.request.urlopen(f"{url}/api/v1/query?{query}", timeout=30) as answer:
        result = json.load(answer)["data"]["result"]
    return {tuple(sorted(item["metric"].items())): [(float(t), float(v)) for t, v in item["values"]] for item in result}


def test_tsdbwrite_writes_the_doubles_series(tmp_path) -> None:
    reason = go_build_skip_reason("tsdbwrite")
    if reason:
        pytest.skip(reason)
    from hack.localcluster.controlplane import REPO_ROOT, run_build
    from hack.localcluster.prometheus import Prometheus, backfill

    writer = run_build(REPO_ROOT / "hack" / "prometheus" / "build-tsdbwrite.sh", "tsdbwrite")
    end = 1_790_000_000 // STEP * STEP
    start = end - HOURS * 3600
    subjects = [
        Subject(
            ns,
            name,
            node,
            lambda _t, s=Size(vcpus, memory): s,
            Profile(lambda _t, c=cpu: c, lambda _t, m=mem: m, balloon=balloon),
            started=start,
        )
        for ns, name, node, vcpus, memory, cpu, mem, balloon in FLEET
    ]
    with (tmp_path / "history.om").open("w") as out:
        expected = write_openmetrics(subjects, start, end, STEP, out, WRITTEN)
    backfill(tmp_path / "history.om", tmp_path / "promtool")
    fleet = "".join("\t".join(str(int(f) if isinstance(f, bool) else f) for f in row) + "\n" for row in FLEET)
    # one block per -block hours, and the blocks a Prometheus with --storage.tsdb.max-block-duration=6h leaves
    # after compaction (written minute by minute through a head with 2h chunks)
    for name, layout in (("tsdbwrite", []), ("compacted", ["-max-block-duration", "6"])):
        written = subprocess.run(
            [str(writer), "-out", str(tmp_path / name), "-start", str(start), "-end", str(end), "-step", str(STEP)]
            + layout,
            input=fleet,
            capture_output=True,
            text=True,
            check=True,
        )
        assert int(written.stdout) == expected
    answers = []
    for name in ("promtool", "tsdbwrite", "compacted"):
        with Prometheus(tmp_path / f"{name}-server", tmp_path / name, rules=False) as server:
            answers.append(_samples(server.url, end))
    from_double = answers[0]
    assert sum(len(points) for points in from_double.values()) == expected
    for from_writer in answers[1:]:
        assert sorted(from_writer) == sorted(from_double)
        for series, points in from_double.items():
            assert [t for t, _ in from_writer[series]] == [t for t, _ in points]
            # counters: the double sums minute by minute, tsdbwrite multiplies; the same up to rounding
            assert [v for _, v in from_writer[series]] == pytest.approx([v for _, v in points], rel=1e-12), series
    # the compacted layout of 3 hours: the head's 2h blocks (the first from the first sample, then at multiples of
    # 2h), none compacted (no 6h range holds two of them but the newest's)
    boundary = (start // 7200 + 1) * 7200
    blocks = sorted(
        (meta["minTime"], meta["maxTime"])
        for meta in (json.loads(path.read_text()) for path in (tmp_path / "compacted").glob("*/meta.json"))
    )
    assert blocks == [
        (start * 1000, (boundary - STEP) * 1000 + 1),
        (boundary * 1000, (boundary + 7200 - STEP) * 1000 + 1),
        ((boundary + 7200) * 1000, end * 1000 + 1),
    ]


def _range(url: str, query: str, start: int, end: int, step: int) -> dict[tuple, list[tuple[float, float]]]:
    params = urllib.parse.urlencode({"query": query, "start": str(start), "end": str(end), "step": str(step)})
    with urllib.request.urlopen(f"{url}/api/v1/query_range?{params}", timeout=30) as answer:
        result = json.load(answer)["data"]["result"]
    return {
        tuple(sorted((k, v) for k, v in item["metric"].items() if k != "__name__")): [
            (float(t), float(v)) for t, v in item["values"]
        ]
        for item in result
    }


def test_tsdbwrite_writes_what_the_printed_rules_record(tmp_path) -> None:
    """tsdbwrite -rules against the real Prometheus evaluating `rightsize --print-rules rulefile`'s expressions over
    tsdbwrite's raw series: every rule, at every multiple of its group's interval (what a rule evaluation at that
    time stores, and the range query promtool tsdb create-blocks-from rules sends), gives exactly the samples
    tsdbwrite wrote under the rule's name, labels and all. The hourly roll-ups are evaluated over the 5-minute
    series tsdbwrite wrote, which the first half of the check proves equal to the rules' own, and the daily ones over
    the hourly ones."""
    reason = go_build_skip_reason("tsdbwrite")
    if reason:
        pytest.skip(reason)
    from hack.localcluster.controlplane import REPO_ROOT, run_build
    from hack.localcluster.prometheus import Prometheus
    from kubectl_instancetype.instancetype.rightsize_rules import groups

    writer = run_build(REPO_ROOT / "hack" / "prometheus" / "build-tsdbwrite.sh", "tsdbwrite")
    # 50 hours from a day's start: daily evaluations at 0h (one hourly evaluation in its day: not complete, and its
    # roll-ups over an hour without a CPU rate), 24h and 48h (complete)
    start = 1_790_000_000 // 86400 * 86400
    end = start + RULE_HOURS * 3600
    # and a guest with 1.5% headroom: KubeVirtVMGuestMemoryAvailableLow's condition holds
    fleet = (*FLEET, ("ns-b", "vm-4", "node-b", 2, 4 << 30, 0.3, 0.985, True))
    text = "".join("\t".join(str(int(f) if isinstance(f, bool) else f) for f in row) + "\n" for row in fleet)
    subprocess.run(
        [str(writer), "-out", str(tmp_path / "tsdb"), "-start", str(start), "-end", str(end), "-step", str(STEP)]
        + ["-rules"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    checked = 0
    with Prometheus(tmp_path / "server", tmp_path / "tsdb", rules=False) as server:
        for group in groups():
            step = {"5m": 300, "1h": 3600, "1d": 86400}[group["interval"]]
            for rule in group["rules"]:
                evaluated = _range(server.url, rule["expr"], start, end, step)
                written = _range(server.url, rule["record"], start, end, step)
                # a range query at a step sees the last sample up to 5 minutes back: the written samples are at
                # the step's instants exactly, so those are the ones it returns
                assert written == evaluated, rule["record"]
                checked += sum(len(points) for points in evaluated.values())
        assert checked > 0, checked
        low = _range(
            server.url, "namespace_name:kubevirt_vmi_memory_headroom_ratio:guest_memory_available_low", start, end, 300
        )
        assert [dict(k)["name"] for k in low] == ["vm-4"]
        # the daily completeness series: the days whose 24 hourly evaluations were there, at their time
        complete = _range(server.url, "cluster:kubectl_instancetype_rightsize_1d:complete_time", start, end, 86400)
        assert complete == {(): [(start + 86400.0, start + 86400.0), (start + 2 * 86400.0, start + 2 * 86400.0)]}
        daily = _range(server.url, "namespace_name:kubevirt_vmi_cpu_usage_seconds:count1d_rate5m", start, end, 86400)
        # the hourly counts of a day, 12 points an hour (none at the history's first instant: no rate there)
        assert {v for points in daily.values() for _, v in points} == {12.0 * 24}
        # the roll-ups over two days: complete at 48h only (the daily evaluations at 24h and 48h), over both days'
        # counts; none over four days is complete
        both = _range(server.url, "cluster:kubectl_instancetype_rightsize_2d:complete_time", start, end, 86400)
        assert both == {(): [(start + 2 * 86400.0, start + 2 * 86400.0)]}
        assert _range(server.url, "cluster:kubectl_instancetype_rightsize_4d:complete_time", start, end, 86400) == {}
        two = _range(server.url, "namespace_name:kubevirt_vmi_cpu_usage_seconds:count2d_rate5m", start, end, 86400)
        assert {v for points in two.values() for t, v in points if t == start + 2 * 86400} == {12.0 * 24 * 2}
