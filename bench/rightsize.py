"""``rightsize -A`` at scale: N VMs with history in the real Prometheus, in one pass (issue 31, section 4).

For each size in ``--sizes`` (default 1,000 then 10,000 VMs): the VMs are created in a bare plane (kube-apiserver
with KubeVirt's CRDs and the catalog: no virt-api, so 10,000 creates take seconds; rightsize only lists them), their
history is written by the virt-handler metrics double (tests/doubles/virt_handler_metrics.py; one vCPU each, steady
use, balloon statistics) over ``--days`` days at ``--scrape`` seconds, backfilled with ``promtool tsdb
create-blocks-from openmetrics``, and the real Prometheus (hack/prometheus) serves it. Then ``kubectl-instancetype
rightsize -A --prometheus-url ... --window <days>d --step <scrape>`` runs ``--rounds`` times: wall time (median),
peak RSS (the process's own, as bench/list.py measures it), and the number of Prometheus queries (from ``-o
json``). The setup's phases are timed too. Never a test: figures are printed, and with ``--write`` put into
bench/README.md.

Usage: python bench/rightsize.py [--sizes 1000,10000] [--days 1] [--scrape 120] [--rounds 3] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.list import peak_rss_mb
from bench.report import publish
from bench.scale import create_all
from hack.localcluster import ControlPlane, binaries_dir
from hack.localcluster.api import Api
from hack.localcluster.prometheus import Prometheus, backfill
from tests.doubles import virt_handler_metrics as double
from tests.doubles.virt_handler_metrics import Profile, Size, Subject, write_openmetrics

NAMESPACES = 10
TYPES = ("u1.small", "u1.medium", "u1.large", "u1.xlarge")
# what rightsize reads (the double writes them all for the tests; the bench writes these only)
READ = (
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
SIZES = {
    "u1.small": Size(1, 2 << 30),
    "u1.medium": Size(1, 4 << 30),
    "u1.large": Size(2, 8 << 30),
    "u1.xlarge": Size(4, 16 << 30),
}


def vm(namespace: str, name: str, instancetype: str) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"kind": "VirtualMachineClusterInstancetype", "name": instancetype},
            "template": {"spec": {"domain": {"devices": {}}}},
        },
    }


def fleet(count: int) -> list[tuple[str, str, str]]:
    return [(f"bench-{i % NAMESPACES}", f"vm-{i:05d}", TYPES[i % len(TYPES)]) for i in range(count)]


def const(value: float):
    return lambda _t: value


def subject(namespace: str, name: str, instancetype: str, start: float, index: int) -> Subject:
    size = SIZES[instancetype]
    profile = Profile(cpu=const(0.05 + (index % 10) / 20), memory=const(0.2 + (index % 7) / 10))
    return Subject(namespace, name, f"node-{index % 50}", lambda _t: size, profile, started=start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--days", type=float, default=0.25)
    parser.add_argument("--scrape", type=int, default=120, help="seconds between samples (the subquery step too)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    sizes = [int(value) for value in args.sizes.split(",")]
    plugin = str(Path(sys.executable).parent / "kubectl-instancetype")
    rows, setup = [], []
    window = f"{round(args.days * 24)}h"
    step = f"{args.scrape // 60}m" if args.scrape % 60 == 0 else f"{args.scrape}s"
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
        for count in sizes:
            vms = fleet(count)
            started = time.perf_counter()
            create_all(
                api,
                lambda obj: f"/apis/kubevirt.io/v1/namespaces/{obj['metadata']['namespace']}/virtualmachines",
                [vm(ns, name, kind) for ns, name, kind in vms[created:]],
            )
            created = count
            creating = time.perf_counter() - started
            end = float(int(time.time()) // args.scrape * args.scrape)
            start = end - args.days * 86400
            work = Path(tmp) / f"p{count}"
            work.mkdir()
            started = time.perf_counter()
            with (work / "history.om").open("w") as out:
                samples = write_openmetrics(
                    [subject(ns, name, kind, start, i) for i, (ns, name, kind) in enumerate(vms)],
                    start,
                    end,
                    args.scrape,
                    out,
                )
            writing = time.perf_counter() - started
            started = time.perf_counter()
            backfill(work / "history.om", work / "tsdb")
            backfilling = time.perf_counter() - started
            (work / "history.om").unlink()
            setup.append([f"{count:,}", f"{samples:,}", f"{creating:.0f}", f"{writing:.0f}", f"{backfilling:.0f}"])
            with Prometheus(work, work / "tsdb", rules=False) as server:
                command = [
                    plugin,
                    "rightsize",
                    "-A",
                    "--prometheus-url",
                    server.url,
                    "--window",
                    window,
                    "--step",
                    step,
                ]
                times = []
                for _ in range(args.rounds):
                    began = time.perf_counter()
                    result = subprocess.run([*command, "-o", "json"], env=environ, capture_output=True, check=False)
                    times.append(time.perf_counter() - began)
                    if result.returncode != 0:
                        raise SystemExit(f"error: rightsize failed: {result.stderr.decode()[-1000:]}")
                report = json.loads(result.stdout)
                rss = peak_rss_mb([*command, "-o", "json"], environ)
                findings = {}
                for item in report["items"]:
                    findings[item["finding"]] = findings.get(item["finding"], 0) + 1
                rows.append(
                    [
                        f"{count:,} VMs, {args.days:g} d at {step}",
                        f"{statistics.median(times):.1f}",
                        f"{rss:.0f}",
                        str(report["queries"]),
                        ", ".join(f"{k}: {v}" for k, v in sorted(findings.items())),
                    ]
                )
                print(rows[-1], file=sys.stderr)
    from tabulate import tabulate

    text = tabulate(rows, ["fleet", "wall (s, median)", "peak RSS (MB)", "queries", "findings"], tablefmt="github")
    text += "\n\n" + tabulate(
        setup,
        ["VMs", "samples backfilled", "VMs created (s)", "OpenMetrics written (s)", "promtool backfill (s)"],
        tablefmt="github",
    )
    publish("rightsize", text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
