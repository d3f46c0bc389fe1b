"""Scale: simulated nodes and the pods bound to them, and what reading them costs (issue 28, section 5).

On one local plane (kube-apiserver, kube-scheduler, KubeVirt's virt-api and virt-controller, the catalog), for
each size in ``--sizes`` (default 100 then 1,000 nodes) the benchmark grows the fleet:

* nodes: KWOK nodes of hack/localcluster/nodes.yaml's shapes (mostly ``general``), Ready and untainted
  (``plane.add_nodes``);
* pods: ``--pods-per-node`` (30) plain pods per node, created with ``spec.nodeName`` set (as a DaemonSet's or a
  static pod would be: the scheduler need not place 30,000 pods), each sized to fill about 60% of its node, and
  KWOK's pod-ready stage marks them Running;
* VMs: ``--vms-per-100-nodes`` (10) real KubeVirt VMs (runStrategy Always, u1/o1 types + fedora), whose launcher
  pods virt-controller renders and kube-scheduler binds, also Running on KWOK.

The setup's phases are timed. Then, alternately for ``--rounds`` rounds, it times the baseline, reading the
same data as kubectl does (``kubectl get nodes -o json`` plus ``kubectl get pods -A -o json``), and the plugin's
``kubectl instancetype fits`` (one VM) and ``capacity`` (the whole catalog) when this tree has those commands,
through the real kubectl. Medians, the plugin's ratio to the baseline, and peak RSS (each process's own, as
bench/list.py measures it). Never a test: figures are printed, and with ``--write`` put into bench/README.md.

Usage: python bench/scale.py [--sizes 100,1000] [--pods-per-node 30] [--vms-per-100-nodes 10] [--rounds 3]
                             [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.list import peak_rss_mb
from bench.report import publish
from hack.localcluster import ControlPlane, binaries_dir
from hack.localcluster.api import Api

POD_NAMESPACES = [f"bench-{i:02d}" for i in range(20)]
VM_NAMESPACE = "bench-vms"
VM_TYPES = ["u1.small", "u1.medium", "u1.large", "o1.medium", "u1.xlarge"]
FILL = 0.6  # the share of a node's allocatable cpu and memory its plain pods request
# The plugin's commands compared with the baseline (run only when this tree has the command).
PLUGIN_SCENARIOS = [
    (
        "fits",
        "fits, one VM (--instancetype u1.medium --preference fedora)",
        ["fits", "--instancetype", "u1.medium", "--preference", "fedora"],
    ),
    ("capacity", "capacity, the whole catalog", ["capacity"]),
]


def milli(quantity: str) -> int:
    """A cpu quantity of nodes.yaml ("16", "15500m") in millicores."""
    return int(quantity[:-1]) if quantity.endswith("m") else int(float(quantity) * 1000)


def mebi(quantity: str) -> int:
    """A memory quantity of nodes.yaml ("63Gi", "512Mi") in MiB."""
    units = {"Gi": 1024, "Mi": 1, "Ti": 1024 * 1024}
    for suffix, factor in units.items():
        if quantity.endswith(suffix):
            return int(float(quantity[: -len(suffix)]) * factor)
    return int(quantity) // (1024 * 1024)


def plain_pod(namespace: str, name: str, node: str, cpu_m: int, memory_mi: int, index: int) -> dict:
    """A plain workload pod bound to ``node``: one or two containers (one pod in three has a sidecar)."""
    containers = [
        {
            "name": "app",
            "image": "registry.k8s.io/pause:3.10",
            "resources": {"requests": {"cpu": f"{cpu_m}m", "memory": f"{memory_mi}Mi"}},
        }
    ]
    if index % 3 == 0:
        containers[0]["resources"]["requests"] = {"cpu": f"{cpu_m * 3 // 4}m", "memory": f"{memory_mi * 3 // 4}Mi"}
        containers.append(
            {
                "name": "sidecar",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": f"{cpu_m // 4}m", "memory": f"{memory_mi // 4}Mi"}},
            }
        )
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": f"bench-{index % 50}"}},
        "spec": {"nodeName": node, "containers": containers, "terminationGracePeriodSeconds": 0},
    }


def vm(namespace: str, name: str, instancetype: str) -> dict:
    """A VM of the catalog's ``instancetype`` with the fedora preference, running."""
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runStrategy": "Always",
            "instancetype": {"name": instancetype},
            "preference": {"name": "fedora"},
            "template": {
                "spec": {
                    "domain": {"devices": {}},
                    "volumes": [{"name": "disk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
                }
            },
        },
    }


def create_all(api: Api, path_of, objects: list[dict], workers: int = 8) -> None:
    """POST every object (``path_of(obj)`` is its collection), failing on the first error."""

    def create(obj: dict) -> None:
        status, answer = api.request("POST", path_of(obj), obj)
        if status >= 300 and status != 409:
            raise SystemExit(f"error: creating {obj['kind']} {obj['metadata']['name']}: {status} {answer}")

    api.map(create, objects, workers=workers)


def wait_until(what: str, done, timeout: float) -> float:
    """Poll ``done()`` until true; the seconds it took."""
    started = time.perf_counter()
    while not done():
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"error: {what} not done after {timeout:.0f}s")
        time.sleep(0.5)
    return time.perf_counter() - started


def none_pending(api: Api, selector: str) -> bool:
    """No pod matching the field selector ``selector`` (and Pending) is left (one item asked for, not the list)."""
    fields = quote(f"status.phase=Pending,{selector}")
    status, answer = api.request("GET", f"/api/v1/pods?fieldSelector={fields}&limit=1")
    return status == 200 and not (answer or {}).get("items")


def grow(plane: ControlPlane, api: Api, nodes: int, pods_per_node: int, vms: int, state: dict) -> dict:
    """Add nodes, plain pods and VMs up to the size; return the phases' seconds."""
    simulated = plane.simulated_nodes()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    new_nodes = simulated.add(count=nodes - len(simulated.names)) if nodes > len(simulated.names) else []
    timings["nodes"] = time.perf_counter() - started
    shapes = {name: simulated.shapes.shapes[name.removeprefix("kwok-").rsplit("-", 1)[0]] for name in new_nodes}
    pods = []
    for node in new_nodes:
        shape = shapes[node]
        cpu_m = int(milli(shape.allocatable["cpu"]) * FILL / pods_per_node)
        memory_mi = int(mebi(shape.allocatable["memory"]) * FILL / pods_per_node)
        for _ in range(pods_per_node):
            index = state["pods"]
            state["pods"] += 1
            namespace = POD_NAMESPACES[index % len(POD_NAMESPACES)]
            pods.append(plain_pod(namespace, f"pod-{index:05d}", node, max(cpu_m, 10), max(memory_mi, 16), index))
    started = time.perf_counter()
    create_all(api, lambda o: f"/api/v1/namespaces/{o['metadata']['namespace']}/pods", pods)
    timings["pods created"] = time.perf_counter() - started
    timings["pods Running"] = timings["pods created"] + wait_until(
        "plain pods Running", lambda: none_pending(api, f"metadata.namespace!={VM_NAMESPACE}"), 1800
    )
    machines = []
    for _ in range(vms - state["vms"]):
        index = state["vms"]
        state["vms"] += 1
        machines.append(vm(VM_NAMESPACE, f"vm-{index:04d}", VM_TYPES[index % len(VM_TYPES)]))
    started = time.perf_counter()
    create_all(api, lambda o: f"/apis/kubevirt.io/v1/namespaces/{VM_NAMESPACE}/virtualmachines", machines, workers=4)

    def launchers_running() -> bool:
        path = f"/api/v1/namespaces/{VM_NAMESPACE}/pods?labelSelector=kubevirt.io%3Dvirt-launcher"
        status, answer = api.request("GET", path)
        items = (answer or {}).get("items") or []
        running = [p for p in items if (p.get("status") or {}).get("phase") == "Running"]
        return status == 200 and len(running) >= state["vms"]

    timings["launchers"] = wait_until("launcher pods Running", launchers_running, 900)
    return timings


def timed(command: list[str], environ: dict) -> tuple[float, int]:
    """Wall seconds and stdout bytes of one run (exit 0, or 1 as ``fits`` ends when nothing fits)."""
    started = time.perf_counter()
    result = subprocess.run(command, env=environ, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"error: {' '.join(command)} exited {result.returncode}: {result.stderr.decode()[-500:]}")
    return elapsed, len(result.stdout)


def has_command(plugin: str, name: str, environ: dict) -> bool:
    """This tree's plugin has the command ``name``."""
    result = subprocess.run([plugin, name, "--help"], env=environ, capture_output=True, check=False)
    return result.returncode == 0


def measure(environ: dict, kubectl: str, plugin: str, rounds: int, nodes: int, pods: int) -> list[list[str]]:
    """The baseline and the plugin's commands, alternately; rows of the table."""
    baseline = [[kubectl, "get", "nodes", "-o", "json"], [kubectl, "get", "pods", "-A", "-o", "json"]]
    scenarios = [(label, args) for name, label, args in PLUGIN_SCENARIOS if has_command(plugin, name, environ)]
    for command in baseline:  # warm up: the API server's watch cache, the page cache
        timed(command, environ)
    read_bytes = sum(timed(command, environ)[1] for command in baseline)
    base_times: list[float] = []
    plugin_times: dict[str, list[float]] = {label: [] for label, _ in scenarios}
    for _label, args in scenarios:
        timed([kubectl, "instancetype", *args], environ)
    for _ in range(rounds):
        base_times.append(sum(timed(command, environ)[0] for command in baseline))
        for label, args in scenarios:
            plugin_times[label].append(timed([kubectl, "instancetype", *args], environ)[0])
    base_ms = statistics.median(base_times) * 1000
    base_rss = max(peak_rss_mb(command, environ) for command in baseline)
    size = f"{nodes:,} nodes, {pods:,} pods"
    rows = [
        [
            size,
            f"kubectl get nodes -o json + get pods -A -o json ({read_bytes / 1e6:.0f} MB of JSON)",
            f"{base_ms:.0f}",
            "1.00x",
            f"{base_rss:.0f}",
        ]
    ]
    for label, args in scenarios:
        ms = statistics.median(plugin_times[label]) * 1000
        rss = _plugin_rss(plugin, args, environ)
        rows.append([size, label, f"{ms:.0f}", f"{ms / base_ms:.2f}x", f"{rss:.0f}"])
    for row in rows:
        print(" | ".join(row), file=sys.stderr)
    return rows


def _plugin_rss(plugin: str, args: list[str], environ: dict) -> float:
    """Peak RSS of the plugin run directly (``fits`` may exit 1: nothing fits is an answer, not a failure)."""
    try:
        return peak_rss_mb([plugin, *args], environ)
    except subprocess.CalledProcessError as exc:
        if exc.returncode == 1:
            return int(exc.stdout) / 1024
        raise


def main() -> int:
    """Grow the fleet size by size, measure at each, print (and with --write publish) the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000", help="node counts, ascending (default: %(default)s)")
    parser.add_argument("--pods-per-node", type=int, default=30)
    parser.add_argument("--vms-per-100-nodes", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--write", action="store_true", help="also put them into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    sizes = [int(value) for value in args.sizes.split(",")]
    bin_dir = binaries_dir()
    plugin = str(Path(sys.executable).parent / "kubectl-instancetype")
    kubectl = str(bin_dir / "kubectl")
    rows: list[list[str]] = []
    setup: list[list[str]] = []
    with ControlPlane(bin_dir=bin_dir) as plane:
        plane.load_catalog()
        for namespace in [*POD_NAMESPACES, VM_NAMESPACE]:
            plane.ensure_namespace(namespace)
        home = plane.workdir / "home"
        home.mkdir()
        environ = {
            "PATH": os.pathsep.join([str(Path(plugin).parent), str(bin_dir), "/usr/bin", "/bin"]),
            "HOME": str(home),
            "KUBECONFIG": str(plane.kubeconfig()),
        }
        api = Api(plane.server, plane.ca_file, plane.tokens["admin"])
        state = {"pods": 0, "vms": 0}
        for nodes in sizes:
            vms = nodes * args.vms_per_100_nodes // 100
            timings = grow(plane, api, nodes, args.pods_per_node, vms, state)
            pods = state["pods"]
            setup.append(
                [f"{nodes:,} nodes, {pods:,} pods, {vms} VMs"]
                + [f"{timings[key]:.0f}" for key in ("nodes", "pods created", "pods Running", "launchers")]
            )
            print(f"setup {nodes} nodes: {timings}", file=sys.stderr)
            rows += measure(environ, kubectl, plugin, args.rounds, nodes, pods + vms)
    from tabulate import tabulate

    tablefmt = "github" if args.markdown or args.write else "simple"
    measured = tabulate(rows, ["fleet", "what", "median (ms)", "vs the read", "peak RSS (MB)"], tablefmt=tablefmt)
    setup_table = tabulate(
        setup,
        [
            "setup (growing from the previous size)",
            "nodes Ready, untainted (s)",
            "plain pods created (s)",
            "... and Running (s)",
            "VMs' launcher pods bound, Running (s)",
        ],
        tablefmt=tablefmt,
    )
    publish("scale", f"{measured}\n\n{setup_table}", args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
