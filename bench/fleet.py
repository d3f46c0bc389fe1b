"""Benchmark ``kubectl instancetype list --all-contexts`` against the sum of one ``kubectl get`` per context.

The fleet: 10 kubeconfig contexts, each with 2,000 namespaced instance types in its own namespace, spread over a
bare plane's kube-apiserver and extra kube-apiservers on its etcd under their own prefixes
(hack/localcluster/fleet.py; ``--servers``, default 3: ten API servers would not fit a 2-core machine next to the
clients being measured). The plugin lists every context at once (``--parallel`` 8, the default) through the real
kubectl; kubectl gets each context in turn, as a user without the plugin would (``for c in ...; do kubectl get
vmf --context $c; done``), and its time is the sum of those runs. Rounds alternate plugin and kubectl; medians.
Peak RSS of the plugin (run directly, the median of three runs: it moves by a few MB from run to run) is measured
with 1, 5 and 10 contexts: it should not grow with them. The API servers' and etcd's CPU during each side's runs
(from /proc) and where their list requests were served (the watch cache or etcd: their ``/metrics``) are printed
too: the servers' work bounds the plugin's wall on a 2-core machine. Never a test: timings are printed, not asserted.

Usage: python bench/fleet.py [--contexts 10] [--objects 2000] [--servers 3] [--rounds 3] [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.list import peak_rss_mb, wall
from bench.report import publish
from hack.localcluster import ControlPlane, binaries_dir
from hack.localcluster.fleet import Member, start_servers, write_kubeconfig


def synthetic(index: int, namespace: str) -> dict:
    """A labelled namespaced instance type like the catalog's."""
    cpu = (1, 2, 4, 8, 16, 32)[index % 6]
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {
            "name": f"bench-{index:05d}",
            "namespace": namespace,
            "labels": {"instancetype.kubevirt.io/cpu": str(cpu), "instancetype.kubevirt.io/class": "general.purpose"},
        },
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": f"{cpu * 4}Gi"}},
    }


def load(server: ControlPlane, namespace: str, count: int) -> None:
    """``count`` objects in ``namespace`` of ``server``: keep-alive POSTs on two connections."""
    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
    from kubectl_instancetype.kube.resources import INSTANCETYPES

    server.ensure_namespace(namespace)
    config = ConnectionOptions(kubeconfig=str(server.kubeconfig()))

    def part(indexes: range) -> None:
        with Client(load_cluster_config(config, {}, "/nonexistent"), {}) as client:
            for index in indexes:
                client.create(INSTANCETYPES, synthetic(index, namespace), namespace)

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(part, (range(0, count, 2), range(1, count, 2))))


def server_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes ``pids`` used so far."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def list_sources(servers: list[ControlPlane]) -> tuple[int, int]:
    """How many lists of instance types the servers served so far from their watch cache and from etcd
    (``apiserver_cache_list_total`` and ``etcd_requests_total{operation="list"}``)."""
    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config

    cache = etcd = 0
    for server in servers:
        config = load_cluster_config(ConnectionOptions(kubeconfig=str(server.kubeconfig())), {}, "/nonexistent")
        with Client(config, {}) as client:
            text = client.transport.request("GET", "/metrics", raw=True).decode()
        for line in text.splitlines():
            if 'resource="virtualmachineinstancetypes"' not in line:
                continue
            if line.startswith("apiserver_cache_list_total{"):
                cache += int(float(line.rsplit(" ", 1)[1]))
            elif line.startswith("etcd_requests_total{") and 'operation="list"' in line:
                etcd += int(float(line.rsplit(" ", 1)[1]))
    return cache, etcd


def timed(command: list[str], environ: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, from the children's rusage) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = wall(command, environ)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    """Build the fleet, run both sides, print (and with --write publish) the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=10)
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--write", action="store_true", help="also put it into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    bin_dir = binaries_dir()
    plugin = str(Path(sys.executable).parent / "kubectl-instancetype")
    kubectl = str(bin_dir / "kubectl")
    workdir = Path(tempfile.mkdtemp(prefix="bench-fleet-"))
    began = time.monotonic()
    with ControlPlane(bin_dir=bin_dir, kubevirt=False, controller_manager=False, scheduler=False) as plane:
        extra = start_servers(plane, {f"s{i}": None for i in range(1, args.servers)}, workdir)
        try:
            servers = [plane, *extra.values()]
            names = [f"ctx-{i:02d}" for i in range(args.contexts)]
            placed = [(name, servers[i % len(servers)], f"fleet-{i:02d}") for i, name in enumerate(names)]
            with ThreadPoolExecutor(max_workers=len(servers)) as pool:
                list(pool.map(lambda item: load(item[1], item[2], args.objects), placed))
            print(f"fleet ready in {time.monotonic() - began:.0f}s", file=sys.stderr)
            members = [
                Member(name, server.server, server.ca_file, server.tokens["admin"], f"admin-{name}", namespace)
                for name, server, namespace in placed
            ]
            home = workdir / "home"
            home.mkdir()
            environ = {
                "PATH": os.pathsep.join([str(Path(plugin).parent), str(bin_dir), "/usr/bin", "/bin"]),
                "HOME": str(home),
                "KUBECONFIG": str(write_kubeconfig(workdir / "kubeconfig", members)),
            }
            fleet_cmd = [kubectl, "instancetype", "list", "vmf", "--all-contexts"]
            gets = [[kubectl, "get", "virtualmachineinstancetypes", "--context", name] for name in names]
            wall(fleet_cmd, environ)
            for get in gets:
                wall(get, environ)
            pids = [plane.processes["etcd"].pid] + [s.processes["kube-apiserver"].pid for s in servers]
            plugin_runs, kubectl_runs = [], []
            served = {"plugin": [0, 0], "kubectl": [0, 0]}
            servers_cpu: dict[str, list[float]] = {"plugin": [], "kubectl": []}
            for _ in range(args.rounds):
                for side in ("plugin", "kubectl"):
                    before, cpu_before = list_sources(servers), server_cpu(pids)
                    if side == "plugin":
                        plugin_runs.append(timed(fleet_cmd, environ))
                    else:
                        runs = [timed(get, environ) for get in gets]
                        kubectl_runs.append((sum(w for w, _ in runs), sum(c for _, c in runs)))
                    servers_cpu[side].append(server_cpu(pids) - cpu_before)
                    after = list_sources(servers)
                    served[side][0] += after[0] - before[0]
                    served[side][1] += after[1] - before[1]
            plugin_ms = statistics.median(w for w, _ in plugin_runs) * 1000
            kubectl_ms = statistics.median(w for w, _ in kubectl_runs) * 1000
            plugin_cpu = statistics.median(c for _, c in plugin_runs)
            kubectl_cpu = statistics.median(c for _, c in kubectl_runs)
            rss = {}
            for count in sorted({1, max(1, args.contexts // 2), args.contexts}):
                pattern = "^(" + "|".join(names[:count]) + ")$"
                command = [plugin, "list", "vmf", "--contexts", pattern]
                rss[count] = statistics.median(peak_rss_mb(command, environ) for _ in range(3))
            kubectl_rss = peak_rss_mb(gets[0], environ)
        finally:
            for server in extra.values():
                server.stop()
            shutil.rmtree(workdir, ignore_errors=True)  # the kubeconfig, the servers' certificates and logs
    total = args.contexts * args.objects
    lines = [
        f"{args.contexts} contexts x {args.objects:,} namespaced instance types ({total:,} rows) on {args.servers} "
        "kube-apiservers (one etcd, one prefix each).",
        "",
        "| | wall (median) | ratio | client CPU (median) | servers' CPU (median) | lists from cache / etcd |",
        "|---|---:|---:|---:|---:|---:|",
        f"| `kubectl instancetype list vmf --all-contexts` | {plugin_ms:,.0f} ms | {plugin_ms / kubectl_ms:.2f}x "
        f"| {plugin_cpu:.2f} s | {statistics.median(servers_cpu['plugin']):.2f} s "
        f"| {served['plugin'][0]} / {served['plugin'][1]} |",
        f"| {args.contexts} x `kubectl get vmf --context C`, in turn (sum) | {kubectl_ms:,.0f} ms | 1.00x "
        f"| {kubectl_cpu:.2f} s | {statistics.median(servers_cpu['kubectl']):.2f} s "
        f"| {served['kubectl'][0]} / {served['kubectl'][1]} |",
        "",
        "| contexts | plugin peak RSS (median of 3) |",
        "|---:|---:|",
        *[f"| {count} | {mb:.0f} MB |" for count, mb in rss.items()],
        f"| (one `kubectl get` of {args.objects:,}) | {kubectl_rss:.0f} MB |",
    ]
    publish("fleet", "\n".join(lines), args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
