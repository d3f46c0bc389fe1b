"""``rightsize -A`` at scale: N VMs with 1-minute history in the real Prometheus, in one pass (issue 31, section 4).

For each size in ``--runs`` (default 1,000 then 10,000 VMs): the VMs are created in a bare plane (kube-apiserver
with KubeVirt's CRDs and the catalog: no virt-api, so 10,000 creates take seconds; rightsize only lists them);
their history (one vCPU to four, steady use, balloon statistics: the series the virt-handler metrics double writes,
tests/doubles/virt_handler_metrics.py, narrowed to what rightsize reads) is written as TSDB blocks by
``hack/prometheus/tsdbwrite`` (Prometheus's own tsdb package: OpenMetrics text through promtool would be some
300 GB at 10,000 VMs x 14 days) in the blocks a Prometheus with its default retention (15 days) holds once its
compactor is done (18-hour blocks of 2-hour chunks: tsdbwrite -max-block-duration), and the real Prometheus
(hack/prometheus) serves it with that retention (the compactor then finds nothing to do: the output says how many
compactions ran while measuring). Then, for each window asked
for that size, ``kubectl-instancetype rightsize -A --prometheus-url ... --window W --step S -o json`` runs
``--rounds`` times: wall time (median), peak RSS of the process (wait4's rusage), the number of Prometheus queries
(from its JSON). The query side alone: the queries rightsize sends (usecases/rightsize.py's measure(), with its
choices) straight to Prometheus with ``stats=all``: its time and the samples it read. Never a test: figures are printed, and with
``--write`` put into bench/README.md.

With ``--rules``, tsdbwrite also writes the series rightsize's own recording rules record (``rightsize
--print-rules``: 5-minute and hourly, exactly what Prometheus's evaluation of them stores, tests/integration/
test_tsdbwrite.py) over the whole history, and rightsize reads those (``--raw D`` writes the raw 1-minute series for
the last D only: 14 days of them are two billion samples). Its table goes into its own block of bench/README.md.

With ``--nodes N``, the fleet runs: N simulated nodes (KWOK, the harness's, of nodes.yaml's largest amd64 shape),
and for each VM (runStrategy Always) its virt-launcher pod, the one the real virt-controller created
(bench/data/virt-launcher-pod.json, bench/capture_launcher_pod.py) with the VM's requests, bound to the node with the
most memory left and moved to Running by KWOK; rightsize's fit check then lists the nodes and every bound pod, as on
a cluster where the VMs run (without nodes it is skipped with a warning). The table adds kube-apiserver's CPU
seconds.

Usage: python bench/rightsize.py [--runs 1000:2h,1000:1d,10000:2h] [--step 1m] [--rounds 1] [--rules [--raw 1d]]
[--nodes N] [--write] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.manifests import LAUNCHER
from bench.report import publish
from bench.scale import create_all, none_pending, wait_until
from hack.localcluster import ControlPlane, binaries_dir
from hack.localcluster.api import Api
from hack.localcluster.controlplane import REPO_ROOT, run_build
from hack.localcluster.prometheus import Prometheus
from kubectl_instancetype.cli.rightsize import parse_window
from kubectl_instancetype.instancetype import rightsize_rules as rr
from kubectl_instancetype.kube.prometheus import Sample
from kubectl_instancetype.usecases.rightsize import QUERY_NAMES, RightsizeRequest, measure

NAMESPACES = 10
# the catalog's u1 sizes the fleet cycles through: vCPUs and guest memory
TYPES = (("u1.small", 1, 2 << 30), ("u1.medium", 1, 4 << 30), ("u1.large", 2, 8 << 30), ("u1.xlarge", 4, 16 << 30))


def vm(namespace: str, name: str, instancetype: str, running: bool = False) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runStrategy": "Always" if running else "Halted",
            "instancetype": {"kind": "VirtualMachineClusterInstancetype", "name": instancetype},
            "template": {"spec": {"domain": {"devices": {}}}},
        },
    }


# A virt-launcher pod as KubeVirt v1.9.0's virt-controller created it for a u1.medium VM with the fedora preference
# and a containerDisk, bound to a node (bench/capture_launcher_pod.py): 11 KB of JSON as the API server lists it
LAUNCHER_POD = Path(__file__).resolve().parent / "data" / "virt-launcher-pod.json"
# the simulated nodes' shape (hack/localcluster/nodes.yaml, KWOK keeps them Ready): the largest amd64 one, 62 CPUs
# and 190 GiB allocatable, 250 pods
NODE_SHAPE = "hugepages-1g"


def launcher_pod(template: dict, namespace: str, vm_name: str, index: int) -> dict:
    """The captured launcher pod for the VM ``vm_name`` of the fleet's ``index``-th type (not bound yet): its
    compute container's requests scaled from u1.medium's as virt-controller sets them (a tenth of a CPU per vCPU at
    the default cpuAllocationRatio of 10; the guest memory plus the same overhead)."""
    import copy

    pod = copy.deepcopy(template)
    metadata = pod["metadata"]
    for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields", "ownerReferences", "generation"):
        metadata.pop(key, None)
    metadata.pop("generateName", None)
    metadata["name"], metadata["namespace"] = f"virt-launcher-{vm_name}-{index:05x}", namespace
    metadata["labels"] = {**metadata.get("labels", {}), "vm.kubevirt.io/name": vm_name}
    pod.pop("status", None)
    _kind, vcpus, memory = TYPES[index % len(TYPES)]
    compute = next(c for c in pod["spec"]["containers"] if c["name"] == "compute")
    requests = compute["resources"]["requests"]
    requests["cpu"] = f"{100 * vcpus}m"
    requests["memory"] = str(_bytes(requests["memory"]) - (4 << 30) + memory)
    return pod


def place(pods: list[dict], nodes: list[dict]) -> None:
    """Bind each pod to the node with the most memory left that holds its requests (the scheduler's default
    LeastAllocated spreading, on the plugin's own accounting: instancetype/nodefit.py), so that every node stays
    within its allocatable and the fit check's answers mean what they would on a real fleet."""
    import heapq

    from kubectl_instancetype.instancetype import nodefit

    infos = {node["metadata"]["name"]: nodefit.node_info(node) for node in nodes}
    free = [(-info.free("memory"), name) for name, info in infos.items()]
    heapq.heapify(free)
    for pod in pods:
        request = nodefit.bound_request(pod)
        _most, name = free[0]
        info = infos[name]
        if any(info.free(resource) < value for resource, value in request.items()) or info.pods >= info.allocatable.get(
            "pods", 0
        ):
            raise SystemExit(f"error: {len(nodes)} nodes do not hold the fleet's launcher pods: use more --nodes")
        info.add_pod(request)
        pod["spec"]["nodeName"] = name
        heapq.heapreplace(free, (-info.free("memory"), name))


def _bytes(quantity: str) -> int:
    """A memory quantity in bytes (the plugin's resource.ParseQuantity: instancetype/nodefit.py)."""
    from kubectl_instancetype.instancetype import nodefit

    nanos = nodefit.quantity_nanos(quantity)
    if nanos is None:
        raise ValueError(f"not a quantity: {quantity!r}")
    return nanos // 10**9


def fleet_tsv(count: int) -> str:
    """tsdbwrite's input: namespace, name, node, vCPUs, memory, cpu share, memory share, balloon."""
    lines = []
    for i in range(count):
        _kind, vcpus, memory = TYPES[i % len(TYPES)]
        cpu, used = 0.05 + (i % 10) / 20, 0.2 + (i % 7) / 10
        lines.append(f"bench-{i % NAMESPACES}\tvm-{i:05d}\tnode-{i % 50}\t{vcpus}\t{memory}\t{cpu:g}\t{used:g}\t1")
    return "\n".join(lines) + "\n"


def timed_run(command: list[str], environ: dict) -> tuple[float, float, dict, float]:
    """One run: wall seconds, peak RSS in MB, its JSON, and its CPU seconds. Started by bench/manifests.py's bare
    launcher: Linux carries a parent's peak RSS into the children it forks, and this process holds the fleet's
    objects (10,000 launcher pods: the plugin's 157 MB read as 306 before)."""
    with tempfile.NamedTemporaryFile(prefix="rightsize-") as out:
        done = subprocess.run(
            [sys.executable, "-S", "-c", LAUNCHER, out.name, *command],
            env=environ,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        fields = done.stdout.split()
        if done.returncode != 0 or len(fields) != 5 or fields[0] != "0":
            raise SystemExit(f"error: rightsize failed: {done.stderr[-1000:]}")
        _code, wall, _first, cpu, rss_kb = fields
        return float(wall), int(rss_kb) / 1024, json.loads(Path(out.name).read_bytes()), float(cpu)


class Timed:
    """The plugin's own Prometheus client, each query sent with ``stats=all``: Prometheus's evaluation time and the
    samples it read, per query."""

    def __init__(self, url: str):
        self.url = url
        self.each: list[tuple[str, float, int]] = []

    def query(self, promql: str, at: float, timeout: float) -> list[Sample]:
        params = urllib.parse.urlencode({"query": promql, "time": f"{at:.3f}", "stats": "all", "timeout": "30m"})
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{params}", timeout=3600) as answer:
            data = json.load(answer)["data"]
        stats = data["stats"]
        self.each.append((promql, stats["timings"]["evalTotalTime"], stats["samples"]["totalQueryableSamples"]))
        return [Sample(item["metric"], float(item["value"][1])) for item in data["result"]]


# what each query over rightsize's own rules measures, by the series it reads (usecases/rightsize.py
# _measure_recorded: the probe, the daily check, the measures, some in a query per part of the window, the size check)
DAILY_MEASURES: tuple[tuple[str, str], ...] = ((rr.CPU_MAX, "cpu_peak"), (rr.MEMORY_MAX, "memory_peak"))
DAILY_MEASURES += ((rr.CPU_COUNT, "history"), (rr.HEADROOM_MIN, "headroom"))
RECORDED_MEASURES = (
    (rr.COMPLETE, "daily"),
    *(
        (series, name)
        for plain, name in DAILY_MEASURES
        for series in (plain, rr.DAILY_OF[plain][0], *rr.LEVELS_OF[rr.DAILY_OF[plain][0]].values())
    ),
    (rr.DOMAIN_CHANGES, "changed"),
    (rr.DOMAIN, "changed 65m"),
    (rr.PRESSURE, "pressure"),
    (rr.LOW_AVAILABLE, "low_available"),
    (rr.CPU, "cpu"),
    (rr.MEMORY, "memory"),
)


def recorded_name(promql: str, at: float) -> str:
    """The measure a query over rightsize's own rules reads (and its part of the window: head, days, tail)."""
    if promql.startswith("count by (__name__)"):
        return "rules"
    name = next((name for series, name in RECORDED_MEASURES if series in promql), "?")
    if name in ("cpu_peak", "memory_peak", "history", "headroom") and " @ " in promql:
        daily = any(series in promql for series in rr.DAILY_NAMES)
        return f"{name}/{'days' if daily else 'tail' if f'@ {at:.3f}' in promql else 'head'}"
    return name


# Prometheus's own default retention (--storage.tsdb.retention.time, cmd/prometheus/main.go), the least that holds a
# 14-day window, and the longest block its compactor makes with it: a tenth of the retention (cmd/prometheus/main.go:
# MaxBlockDuration = min(retention / 10, 31d)), 36 hours, so blocks of 18 hours (tsdb.ExponentialBlockRanges(2h, 10,
# 3) cut at 36h: 2h, 6h, 18h)
RETENTION = "15d"
MAX_BLOCK_HOURS = 36


def query_side(url: str, window: int, step: int, at: float) -> tuple[float, int, list[str]]:
    """The queries rightsize sends (usecases/rightsize.py's measure(), the same choices), straight to Prometheus
    with stats=all, one after the other: total seconds (Prometheus's own evalTotalTime), samples read
    (totalQueryableSamples), and each query's seconds."""
    server = Timed(url)
    measures = measure(server, RightsizeRequest(window=window, step=step), at)  # type: ignore[arg-type]
    # sent in QUERY_NAMES's order (the probe two queries: its window's start and end; the two pressure queries, last,
    # may be skipped); over rightsize's rules, named by the series they read
    if measures.own:
        order = [recorded_name(promql, at) for promql, _s, _n in server.each]
    else:
        order = ["rules", *QUERY_NAMES]
    each = [f"{name} {seconds:.1f}" for name, (_q, seconds, _n) in zip(order, server.each, strict=False)]
    return sum(e[1] for e in server.each), sum(e[2] for e in server.each), each


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU seconds so far (/proc/PID/stat): Prometheus's share of a run, whatever the
    load of the machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _metric(url: str, name: str) -> float:
    """A metric of Prometheus's own /metrics (the sum of its series)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as answer:
        lines = answer.read().decode().splitlines()
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith((f"{name} ", f"{name}{{")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="1000:2h,1000:1d,10000:2h", help="VMS:WINDOW,... (sizes ascending)")
    parser.add_argument("--step", default="1m", help="the history's resolution and the subquery step")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--rules", action="store_true", help="write and read rightsize's recorded series too")
    parser.add_argument("--raw", default="", help="with --rules: the raw 1-minute history's length (default all)")
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="N simulated nodes and, for each VM, its virt-launcher pod bound to one (a running fleet: rightsize's fit "
        "check lists the nodes and every bound pod; 10,000 VMs need about 450); 0: no nodes, the fit check is skipped",
    )
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--keep",
        default="",
        metavar="DIR",
        help="leave each size's TSDB in DIR/pN (and the history's end, Unix seconds, in DIR/pN/end) to replay the "
        "queries against a Prometheus started on it (e.g. with its /debug/pprof/profile)",
    )
    args = parser.parse_args()
    runs: dict[int, list[str]] = {}
    for item in args.runs.split(","):
        count, window = item.split(":")
        runs.setdefault(int(count), []).append(window)
    step = parse_window(args.step, "--step")
    writer = run_build(REPO_ROOT / "hack" / "prometheus" / "build-tsdbwrite.sh", "tsdbwrite")
    plugin = str(Path(sys.executable).parent / "kubectl-instancetype")
    rows, setup, where = [], [], []
    with (
        tempfile.TemporaryDirectory(prefix="rightsize-bench-") as tmp,
        ControlPlane(bin_dir=binaries_dir(), kubevirt=False) as plane,
    ):
        plane.load_catalog()
        api = Api(plane.server, plane.ca_file, plane.tokens["admin"])
        for index in range(NAMESPACES):
            plane.ensure_namespace(f"bench-{index}")
        environ = {"PATH": os.environ["PATH"], "HOME": tmp, "KUBECONFIG": str(plane.kubeconfig())}
        created = 0
        template, placed_on = {}, []
        if args.nodes:
            started = time.perf_counter()
            names = set(plane.simulated_nodes().add([NODE_SHAPE], count=args.nodes))
            _code, listed = api.request("GET", "/api/v1/nodes")
            placed_on = [item for item in (listed or {}).get("items") or [] if item["metadata"]["name"] in names]
            template = json.loads(LAUNCHER_POD.read_text())
            print(f"{args.nodes} simulated nodes Ready in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        for count in sorted(runs):
            windows = runs[count]
            running = bool(args.nodes)
            objects = [
                vm(f"bench-{i % NAMESPACES}", f"vm-{i:05d}", TYPES[i % len(TYPES)][0], running)
                for i in range(created, count)
            ]
            started = time.perf_counter()
            create_all(
                api,
                lambda obj: f"/apis/kubevirt.io/v1/namespaces/{obj['metadata']['namespace']}/virtualmachines",
                objects,
            )
            if args.nodes:
                if "kwok" not in plane.processes:  # stopped after the size before: started again for these pods
                    plane.simulated_nodes().start()
                pods = [
                    launcher_pod(template, f"bench-{i % NAMESPACES}", f"vm-{i:05d}", i) for i in range(created, count)
                ]
                place(pods, placed_on)
                create_all(api, lambda obj: f"/api/v1/namespaces/{obj['metadata']['namespace']}/pods", pods)
                # KWOK moves them to Running (their status as kubelet writes it: the list the fit check reads)
                wait_until("launcher pods Running", lambda: none_pending(api, "metadata.namespace!=kube-system"), 1200)
            if args.nodes:
                # then KWOK and the heartbeat stop: the nodes and pods stay as they are (this plane runs no node
                # lifecycle controller), and their writes do not share the two cores with what is measured (on a
                # real cluster, kubelets and the control plane do not run on the machine rightsize runs on)
                plane._terminate(["kwok", "virt-handler-heartbeat"])
            created = count
            creating = time.perf_counter() - started
            history = max(parse_window(window, "--window") for window in windows)
            end = int(time.time()) // step * step
            work = Path(tmp) / f"p{count}"
            work.mkdir()
            started = time.perf_counter()
            raw = parse_window(args.raw, "--raw") if args.raw else history
            extra = ["-rules", "-raw-from", str(end - raw)] if args.rules else []
            # the blocks a Prometheus with RETENTION holds once its compactor is done: 18-hour blocks (6- and 2-hour
            # ones for the newest hours) whose chunks are cut every 2 hours, as its head cut them
            extra += ["-max-block-duration", str(MAX_BLOCK_HOURS)]
            written = subprocess.run(
                [str(writer), "-out", str(work / "tsdb"), "-start", str(end - history), "-end", str(end)]
                + ["-step", str(step), *extra],
                input=fleet_tsv(count),
                capture_output=True,
                text=True,
                check=True,
            )
            writing = time.perf_counter() - started
            samples = int(written.stdout)
            size = sum(f.stat().st_size for f in (work / "tsdb").rglob("*") if f.is_file()) / 1e9
            span = f"{history // 3600} h" + (f" recorded, {raw // 3600} h raw" if args.rules else "")
            setup.append([f"{count:,}", span, f"{samples:,}", f"{size:.2f}", f"{creating:.0f}"])
            setup[-1] += [f"{writing:.0f}", f"{samples / writing / 1e6:.1f}"]
            blocks = len(list((work / "tsdb").glob("*/meta.json")))
            # Prometheus's defaults but for the retention (its default: the harness's is 400 days) and the query
            # sample limit the harness raises (a bound, not a cost); the compactor finds nothing to do in blocks laid
            # out as it lays them out (compactions: below)
            with Prometheus(work, work / "tsdb", rules=False, retention=RETENTION) as server:
                for window in windows:
                    command = [plugin, "rightsize", "-A", "--prometheus-url", server.url, "--window", window]
                    command += ["--step", args.step, "-o", "json"]
                    measured, cpu, apiserver = [], [], []
                    apiserver_pid = plane.processes["kube-apiserver"].pid
                    for _ in range(args.rounds):
                        before = cpu_seconds(server.process.pid)  # type: ignore[union-attr]
                        apiserver_before = cpu_seconds(apiserver_pid)
                        measured.append(timed_run(command, environ))
                        cpu.append(cpu_seconds(server.process.pid) - before)  # type: ignore[union-attr]
                        apiserver.append(cpu_seconds(apiserver_pid) - apiserver_before)
                    report = measured[-1][2]
                    findings: dict[str, int] = {}
                    for item in report["items"]:
                        findings[item["finding"]] = findings.get(item["finding"], 0) + 1
                    seconds = parse_window(window, "--window")
                    prom, read, each = query_side(server.url, seconds, step, time.time())
                    every = 300 if report["rulesFrom"] == "kubectl-instancetype" else step
                    how = "rules" if every == 300 else args.step
                    rows.append(
                        [
                            f"{count:,} VMs, {window} at {'5m (rules)' if every == 300 else args.step}"
                            + (f", {args.nodes} nodes, a pod per VM" if report["nodesKnown"] else ""),
                            f"{count * seconds // every / 1e6:.2f}",
                            f"{statistics.median(m[0] for m in measured):.1f}",
                            f"{max(m[1] for m in measured):.0f}",
                            str(report["queries"]),
                            f"{statistics.median(m[3] for m in measured):.1f}",
                            f"{statistics.median(cpu):.1f}",
                            f"{statistics.median(apiserver):.1f}",
                            f"{prom:.1f}",
                            f"{read / 1e6:.0f}",
                            f"{read / prom / 1e6:.1f}",
                            ", ".join(f"{k}: {v}" for k, v in sorted(findings.items())),
                        ]
                    )
                    compactions = _metric(server.url, "prometheus_tsdb_compactions_total")
                    walls = ", ".join(f"{m[0]:.1f}" for m in measured)
                    where.append(
                        f"{count:,} VMs, {window} ({how}): " + ", ".join(each) + f" ({blocks} blocks, "
                        f"{compactions:.0f} compactions while measuring; each round's wall: {walls} s)"
                    )
                    print(rows[-1], where[-1], file=sys.stderr)
            if args.keep:
                kept = Path(args.keep) / f"p{count}"
                kept.mkdir(parents=True)
                shutil.move(work / "tsdb", kept / "tsdb")
                (kept / "end").write_text(f"{end}\n")
            subprocess.run(["rm", "-rf", str(work / "tsdb")], check=True)
    from tabulate import tabulate

    text = tabulate(
        rows,
        [
            "fleet, window at step",
            "VM-steps (M)",
            "wall (s, median)",
            "peak RSS (MB)",
            "queries",
            "plugin CPU (s, median)",
            "Prometheus CPU (s, median)",
            "kube-apiserver CPU (s, median)",
            "Prometheus alone (s)",
            "samples read (M)",
            "samples/s (M)",
            "findings",
        ],
        tablefmt="github",
    )
    text += "\n\n" + tabulate(
        setup,
        [
            "VMs",
            "history",
            "samples written",
            "TSDB (GB)",
            "VMs (and their pods) created (s)",
            "tsdbwrite (s)",
            "M samples/s",
        ],
        tablefmt="github",
    )
    text += "\n\nEach query's Prometheus time (s):\n\n" + "\n".join(f"- {line}" for line in where)
    publish("rightsize-rules" if args.rules else "rightsize", text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
