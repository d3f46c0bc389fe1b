"""Benchmark shell completion through the real kubectl, side by side with kubectl's own, on one control plane.

Scenarios (each run alternately, plugin then kubectl, for several rounds; medians reported):
  * static: ``kubectl __complete instancetype ""`` (commands) vs ``kubectl __complete get ""``
  * static: ``kubectl __complete instancetype list --min-`` (flags)
  * live names, catalog loaded (65 cluster instance types):
    ``kubectl __complete instancetype create vm --instancetype ""`` vs
    ``kubectl __complete get virtualmachineclusterinstancetypes ""``
  * the same with 10,000 more instance types loaded
Wall time is measured around kubectl, which runs ``kubectl_complete-instancetype`` as it does for users. Never a
test: timings are printed, not asserted.

Usage: python bench/completion.py [--rounds N] [--size 10000] [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import importlib.util
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

HERE = Path(__file__).resolve().parent


def _list_bench():
    spec = importlib.util.spec_from_file_location("bench_list", HERE / "list.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lines(command: list[str], environ: dict) -> int:
    """How many candidates one run returns (the directive line excluded)."""
    out = subprocess.run(command, env=environ, capture_output=True, text=True, check=True).stdout
    return sum(1 for line in out.splitlines() if line and not line.startswith(":"))


def compare(name: str, plugin: list[str], kubectl: list[str], environ: dict, rounds: int, wall) -> dict:
    """Alternate the two completions; medians, ratio and how many candidates each returned."""
    wall(plugin, environ), wall(kubectl, environ)  # warm caches
    plugin_times, kubectl_times = [], []
    for _ in range(rounds):
        plugin_times.append(wall(plugin, environ))
        kubectl_times.append(wall(kubectl, environ))
    row = {
        "scenario": name,
        "plugin_ms": statistics.median(plugin_times) * 1000,
        "kubectl_ms": statistics.median(kubectl_times) * 1000,
        "plugin_candidates": lines(plugin, environ),
        "kubectl_candidates": lines(kubectl, environ),
    }
    row["ratio"] = row["plugin_ms"] / row["kubectl_ms"]
    print(
        f"{name}: plugin {row['plugin_ms']:.0f} ms ({row['plugin_candidates']} candidates), "
        f"kubectl {row['kubectl_ms']:.0f} ms ({row['kubectl_candidates']}), ratio {row['ratio']:.2f}x",
        file=sys.stderr,
    )
    return row


def main() -> int:
    """Run every scenario and print a result table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--write", action="store_true", help="also put it into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    list_bench = _list_bench()
    bin_dir = binaries_dir()
    kubectl = str(bin_dir / "kubectl")
    scripts = Path(sys.executable).parent
    rows = []
    with ControlPlane(bin_dir=bin_dir) as plane:
        plane.load_catalog()
        home = plane.workdir / "home"
        home.mkdir()
        environ = {
            "PATH": os.pathsep.join([str(scripts), str(bin_dir), "/usr/bin", "/bin"]),
            "HOME": str(home),
            "KUBECONFIG": str(plane.kubeconfig()),
        }
        complete = [kubectl, "__complete"]
        live_plugin = [*complete, "instancetype", "create", "vm", "--instancetype", ""]
        live_kubectl = [*complete, "get", "virtualmachineclusterinstancetypes", ""]
        wall = list_bench.wall
        rows.append(
            compare(
                "static: commands", [*complete, "instancetype", ""], [*complete, "get", ""], environ, args.rounds, wall
            )
        )
        rows.append(
            compare(
                "static: flags (list --min-)",
                [*complete, "instancetype", "list", "--min-"],
                [*complete, "get", "--sho"],
                environ,
                args.rounds,
                wall,
            )
        )
        rows.append(compare("live names, catalog", live_plugin, live_kubectl, environ, args.rounds, wall))
        client = Client(load_cluster_config(ConnectionOptions(kubeconfig=str(plane.kubeconfig())), {}, str(home)))
        started = time.perf_counter()
        list_bench.load(client, 0, args.size)
        print(f"loaded {args.size} objects in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        rows.append(
            compare(
                f"live names, {args.size:,} more", live_plugin, live_kubectl, environ, max(3, args.rounds // 2), wall
            )
        )
    headers = ["scenario", "plugin ms", "kubectl ms", "ratio", "candidates plugin / kubectl"]
    table = [
        [
            row["scenario"],
            f"{row['plugin_ms']:.0f}",
            f"{row['kubectl_ms']:.0f}",
            f"{row['ratio']:.2f}x",
            f"{row['plugin_candidates']} / {row['kubectl_candidates']}",
        ]
        for row in rows
    ]
    if args.markdown or args.write:
        from tabulate import tabulate

        publish("completion", tabulate(table, headers, tablefmt="github"), args.write)
    else:
        for row in [headers, *table]:
            print("  ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
