"""Benchmark ``kubectl instancetype list`` against ``kubectl get`` on the same local control plane.

Scenarios (each run alternately, plugin then kubectl, for several rounds; medians reported):
  * the embedded catalog, 10 rows:           list --cpu 4 --scope=cluster   vs  get ... -l instancetype.kubevirt.io/cpu=4
  * 100 and 10,000 synthetic instance types: the same label filter (about one in six match),
                                              all objects, and a range filter (--min-cpu 8 --max-memory 64Gi)
  * ``kubectl instancetype version --client`` (start-up floor)
Wall time is measured around the real kubectl (so the plugin pays kubectl's dispatch, as users do).
Peak RSS is measured on the process itself (the plugin run directly, kubectl get as is): through kubectl,
ru_maxrss would include kubectl's own memory before it execs the plugin. Request counts come from
``-v 6`` request logs of one extra run each. Never a test: timings are printed, not asserted.

Usage: python bench/list.py [--rounds N] [--sizes 100,10000] [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import publish
from hack.localcluster import ControlPlane, binaries_dir
from kubectl_instancetype.kube.client import Client
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
from kubectl_instancetype.kube.resources import CLUSTER_INSTANCETYPES

CPU_CHOICES = (1, 2, 4, 8, 16, 32)  # cpu=4 matches one in six


def synthetic(index: int) -> dict:
    """A labelled cluster instance type like the catalog's, with a spread of sizes."""
    cpu = CPU_CHOICES[index % len(CPU_CHOICES)]
    memory = f"{cpu * 4}Gi"
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {
            "name": f"bench-{index:05d}",
            "labels": {
                "instancetype.kubevirt.io/cpu": str(cpu),
                "instancetype.kubevirt.io/memory": memory,
                "instancetype.kubevirt.io/class": "general.purpose",
                "bench": "true",
            },
        },
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": memory}},
    }


def load(client: Client, start: int, stop: int) -> None:
    """Create synthetic objects ``start..stop-1`` with keep-alive POSTs."""
    for index in range(start, stop):
        client.create(CLUSTER_INSTANCETYPES, synthetic(index))


def wall(command: list[str], environ: dict) -> float:
    """Wall seconds of one run (stdout discarded, failures fatal)."""
    started = time.perf_counter()
    subprocess.run(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


# Linux carries a parent's peak RSS into a forked child (and across exec), so wait4 on a child of this
# benchmark, which holds the 10,000 objects' client, would report the benchmark's own peak. A bare interpreter
# (about 10 MB, below anything measured here) forks and execs the command instead and reports its child's peak.
_RSS_LAUNCHER = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    null = os.open(os.devnull, os.O_WRONLY)\n"
    "    os.dup2(null, 1)\n"
    "    os.dup2(null, 2)\n"
    "    os.execvp(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(usage.ru_maxrss)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def peak_rss_mb(command: list[str], environ: dict) -> float:
    """Peak RSS of one run of ``command``, in MB (wait4's rusage of that process, forked from a bare launcher)."""
    result = subprocess.run(
        [sys.executable, "-S", "-c", _RSS_LAUNCHER, *command],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        check=True,
    )
    return int(result.stdout) / 1024


def request_count(command: list[str], environ: dict, verbose_flag: str) -> int:
    """How many HTTP requests one run makes, counted from its ``-v 6`` request log."""
    result = subprocess.run(command + [verbose_flag], env=environ, capture_output=True, text=True, check=True)
    return sum(1 for line in result.stderr.splitlines() if "/apis/" in line or "/api/" in line or "/version" in line)


def compare(
    name: str, plugin_args: list[str], kubectl_args: list[str], environ: dict, rounds: int, kubectl: str, plugin: str
) -> dict:
    """Alternate plugin and kubectl runs; return medians, ratio, RSS and request counts."""
    plugin_cmd = [kubectl, "instancetype", *plugin_args]
    kubectl_cmd = [kubectl, *kubectl_args]
    wall(plugin_cmd, environ), wall(kubectl_cmd, environ)  # warm caches
    plugin_times, kubectl_times = [], []
    for _ in range(rounds):
        plugin_times.append(wall(plugin_cmd, environ))
        kubectl_times.append(wall(kubectl_cmd, environ))
    row = {
        "scenario": name,
        "plugin_ms": statistics.median(plugin_times) * 1000,
        "kubectl_ms": statistics.median(kubectl_times) * 1000,
        "plugin_rss_mb": peak_rss_mb([plugin, *plugin_args], environ),
        "kubectl_rss_mb": peak_rss_mb(kubectl_cmd, environ),
        "plugin_requests": request_count([plugin, *plugin_args], environ, "-v=6"),
        "kubectl_requests": request_count(kubectl_cmd, environ, "-v=6"),
    }
    row["ratio"] = row["plugin_ms"] / row["kubectl_ms"]
    print(
        f"{name}: plugin {row['plugin_ms']:.0f} ms, kubectl {row['kubectl_ms']:.0f} ms, "
        f"ratio {row['ratio']:.2f}x, RSS {row['plugin_rss_mb']:.0f}/{row['kubectl_rss_mb']:.0f} MB, "
        f"requests {row['plugin_requests']}/{row['kubectl_requests']}",
        file=sys.stderr,
    )
    return row


def startup_floor(environ: dict, rounds: int, kubectl: str, plugin: str, workdir: Path) -> list[list[str]]:
    """Where the time of a small list goes: medians of the pieces, each run on its own."""
    noop_dir = workdir / "noop"
    noop_dir.mkdir(exist_ok=True)
    noop = noop_dir / "kubectl-noop"
    noop.write_text("#!/bin/sh\nexit 0\n")
    noop.chmod(0o755)
    with_noop = dict(environ, PATH=f"{noop_dir}{os.pathsep}{environ['PATH']}")
    python = str(Path(plugin).parent / "python")
    steps = [
        ("kubectl plugin dispatch (kubectl noop, a /bin/sh plugin)", [kubectl, "noop"], with_noop),
        ("python -c pass (the plugin's interpreter)", [python, "-c", "pass"], environ),
        ("python -c 'import typer'", [python, "-c", "import typer"], environ),
        ("kubectl-instancetype version --client (direct)", [plugin, "version", "--client"], environ),
        (
            "kubectl-instancetype list --scope=cluster --cpu 4 (direct)",
            [plugin, "list", "--scope=cluster", "--cpu", "4"],
            environ,
        ),
        (
            "kubectl get ... -l instancetype.kubevirt.io/cpu=4",
            [kubectl, "get", "virtualmachineclusterinstancetypes", "-l", "instancetype.kubevirt.io/cpu=4"],
            environ,
        ),
    ]
    rows = []
    for label, command, env in steps:
        wall(command, env)
        times = sorted(wall(command, env) for _ in range(rounds))
        rows.append([label, f"{statistics.median(times) * 1000:.0f}"])
    return rows


def main() -> int:
    """Run every scenario and print a result table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--sizes", default="100,10000")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--write", action="store_true", help="also put them into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    bin_dir = binaries_dir()
    plugin = str(Path(sys.executable).parent / "kubectl-instancetype")
    kubectl = str(bin_dir / "kubectl")
    rows = []
    with ControlPlane(bin_dir=bin_dir) as plane:
        plane.load_catalog()
        home = plane.workdir / "home"
        home.mkdir()
        environ = {
            "PATH": os.pathsep.join([str(Path(plugin).parent), str(bin_dir), "/usr/bin", "/bin"]),
            "HOME": str(home),
            "KUBECONFIG": str(plane.kubeconfig()),
        }
        label = ["-l", "instancetype.kubevirt.io/cpu=4"]
        get = ["get", "virtualmachineclusterinstancetypes"]
        rows.append(
            compare(
                "catalog, 10 rows (--cpu 4)",
                ["list", "--scope=cluster", "--cpu", "4"],
                [*get, *label],
                environ,
                args.rounds,
                kubectl,
                plugin,
            )
        )
        version = compare(
            "version --client", ["version", "--client"], ["version", "--client"], environ, args.rounds, kubectl, plugin
        )
        rows.append(version)
        floor = startup_floor(environ, args.rounds, kubectl, plugin, plane.workdir)
        client = Client(load_cluster_config(ConnectionOptions(kubeconfig=str(plane.kubeconfig())), {}, str(home)))
        loaded = 0
        for size in (int(value) for value in args.sizes.split(",")):
            started = time.perf_counter()
            load(client, loaded, size)
            print(f"loaded {size - loaded} objects in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            loaded = size
            bench = ["-l", "bench=true"]
            rows.append(
                compare(
                    f"{size:,} types, cpu=4 label (1 in 6)",
                    ["list", "--scope=cluster", "--cpu", "4", "-l", "bench=true"],
                    [*get, "-l", "instancetype.kubevirt.io/cpu=4,bench=true"],
                    environ,
                    args.rounds,
                    kubectl,
                    plugin,
                )
            )
            rows.append(
                compare(
                    f"{size:,} types, all listed",
                    ["list", "--scope=cluster", *bench],
                    [*get, *bench],
                    environ,
                    max(3, args.rounds // 3),
                    kubectl,
                    plugin,
                )
            )
            rows.append(
                compare(
                    f"{size:,} types, --min-cpu 8 --max-memory 64Gi",
                    ["list", "--scope=cluster", "--min-cpu", "8", "--max-memory", "64Gi", *bench],
                    [*get, *bench],
                    environ,
                    max(3, args.rounds // 3),
                    kubectl,
                    plugin,
                )
            )
        client.close()
    headers = [
        "scenario",
        "plugin (ms)",
        "kubectl (ms)",
        "ratio",
        "plugin RSS (MB)",
        "kubectl RSS (MB)",
        "requests plugin/kubectl",
    ]
    table = [
        [
            r["scenario"],
            f"{r['plugin_ms']:.0f}",
            f"{r['kubectl_ms']:.0f}",
            f"{r['ratio']:.2f}x",
            f"{r['plugin_rss_mb']:.0f}",
            f"{r['kubectl_rss_mb']:.0f}",
            f"{r['plugin_requests']}/{r['kubectl_requests']}",
        ]
        for r in rows
    ]
    from tabulate import tabulate

    tablefmt = "github" if args.markdown or args.write else "simple"
    floor_table = tabulate(floor, ["start-up piece (catalog loaded, 10 rows)", "median (ms)"], tablefmt=tablefmt)
    publish("list", f"{tabulate(table, headers, tablefmt=tablefmt)}\n\n{floor_table}", args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
