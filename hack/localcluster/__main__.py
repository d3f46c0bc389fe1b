"""``python -m hack.localcluster up|down|status``: the local plane for ``make cluster`` and ``make demo``.

``up`` starts etcd, kube-apiserver, kube-controller-manager and (unless ``--bare``) kube-scheduler, KubeVirt's
virt-api and virt-controller and CDI's cdi-apiserver in the background (they outlive this process), installs
KubeVirt's and CDI's CRDs, optionally loads the embedded catalog and (``--nodes N``) starts KWOK with N simulated
nodes and their simulated virt-handler heartbeat, writes ``.cluster/kubeconfig`` and prints its path. Logs are in
``.cluster/run/*.log``. ``--fleet N`` also starts N bare kube-apiservers on the plane's etcd, each under its own
prefix (``edge-1``: an older catalog; hack/localcluster/fleet.py), and writes ``.cluster/fleet-kubeconfig`` with a
context for each and for the plane (``local``). ``down`` deletes the webhook configurations and APIServices first (they fail closed), then
stops exactly the processes ``up`` recorded in ``.cluster/state.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import ssl
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from .controlplane import REPO_ROOT, USERS, ControlPlane, ControlPlaneUnavailable, binaries_dir
from .crds import default_kubevirt_version

STATE_DIR = REPO_ROOT / ".cluster"
STATE_FILE = STATE_DIR / "state.json"
STOP_ORDER = (
    "virt-handler-heartbeat",
    "kwok",
    "kube-scheduler",
    "virt-api",
    "virt-controller",
    "cdi-apiserver",
    "kube-controller-manager",
    "kube-apiserver",
    "etcd",
)
# Processes of the plane that are Python modules (their /proc/PID/exe is the interpreter): name -> module.
PYTHON_MODULES = {"virt-handler-heartbeat": "hack.localcluster.heartbeat"}


def _alive(pid: int, binary: str) -> bool:
    """True when ``pid`` runs and is the binary (or harness module) we started (never signal a recycled PID)."""
    try:
        if binary in PYTHON_MODULES:
            return PYTHON_MODULES[binary].encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        return Path(f"/proc/{pid}/exe").resolve().name == binary
    except OSError:
        return False


def _read_state() -> dict | None:
    """``.cluster/state.json`` as far as it can be read, or None when there is none.

    The file may come from an older version of this module (no ``ca_file``, ``registered``, ``kubevirt``...) or be
    damaged: every key is optional to its readers, and an unreadable file reads as a state with nothing recorded.
    """
    try:
        text = STATE_FILE.read_text()
    except FileNotFoundError:
        return None
    except OSError:
        return {}
    try:
        state = json.loads(text)
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def _pids(state: dict) -> dict[str, int]:
    """The recorded processes, binary name -> PID (entries that are not one are skipped)."""
    pids = state.get("pids")
    if not isinstance(pids, dict):
        return {}
    return {name: pid for name, pid in pids.items() if isinstance(name, str) and isinstance(pid, int) and pid > 0}


def _running(state: dict) -> bool:
    """True when the recorded plane runs: every recorded process is alive (and something was recorded)."""
    pids = _pids(state)
    return bool(pids) and all(_alive(pid, name) for name, pid in pids.items())


def _fleet_pids(state: dict) -> dict[str, int]:
    """The extra API servers of ``--fleet`` (name -> PID of a kube-apiserver)."""
    fleet = state.get("fleet")
    if not isinstance(fleet, dict):
        return {}
    return {name: pid for name, pid in fleet.items() if isinstance(name, str) and isinstance(pid, int) and pid > 0}


# What the extra servers of ``--fleet`` hold: edge-1 an older catalog (two objects missing, u1.medium larger),
# the others the plane's catalog.
FLEET_VARIANTS = {"edge-1": {"version": "v1.6.0", "drop": ("u1.2xlarge", "windows.11"), "memory": {"u1.medium": "6Gi"}}}


def start_fleet(plane: ControlPlane, count: int, namespaces: list[str]) -> dict[str, object]:
    """``count`` extra API servers on ``plane``'s etcd with their catalogs; ``.cluster/fleet-kubeconfig``."""
    from .fleet import Member, catalog_variant, start_servers, write_kubeconfig

    names = [f"edge-{index}" for index in range(1, count + 1)]
    servers = start_servers(plane, {name: None for name in names}, STATE_DIR / "run" / "fleet")
    for name, server in servers.items():
        server.keep_workdir = True
        variant = FLEET_VARIANTS.get(name, {"version": "v1.7.0"})
        objects = catalog_variant(str(variant["version"]), drop=variant.get("drop", ()), memory=variant.get("memory"))
        for namespace in namespaces:
            server.ensure_namespace(namespace)
            objects += catalog_variant(
                str(variant["version"]), drop=variant.get("drop", ()), memory=variant.get("memory"), namespace=namespace
            )
        server.apply_all(objects)
    namespace = namespaces[0] if namespaces else "default"
    members = [Member("local", plane.server, plane.ca_file, plane.tokens["admin"], "admin", namespace)]
    members += [
        Member(name, server.server, server.ca_file, server.tokens["admin"], f"admin-{name}", namespace)
        for name, server in servers.items()
    ]
    write_kubeconfig(STATE_DIR / "fleet-kubeconfig", members)
    return dict(servers)


def up(
    load_catalog: bool, namespaces: list[str], bare: bool, kubevirt_version: str, nodes: int = 0, fleet: int = 0
) -> int:
    """Start the plane unless it runs already; print the kubeconfig path."""
    state = _read_state()
    if state is not None:
        wanted = (not bare, kubevirt_version, nodes, fleet)
        running = (
            state.get("kubevirt", False),
            state.get("kubevirt_version"),
            state.get("nodes", 0),
            len(_fleet_pids(state)),
        )
        if _running(state) and wanted == running and state.get("kubeconfig"):
            print(state["kubeconfig"])
            return 0
        down(quiet=True)
    try:
        bin_dir = binaries_dir()
    except ControlPlaneUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    workdir = STATE_DIR / "run"
    shutil.rmtree(workdir, ignore_errors=True)
    plane = ControlPlane(
        workdir=workdir, bin_dir=bin_dir, keep_workdir=True, kubevirt=not bare, kubevirt_version=kubevirt_version
    )
    began = time.monotonic()
    try:
        plane.start()
    except ControlPlaneUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(f"error: the local plane did not start (logs in {workdir}): {exc}", file=sys.stderr)
        return 1
    if load_catalog:
        count = plane.load_catalog(namespaces=tuple(namespaces))
        print(f"loaded {count} catalog objects", file=sys.stderr)
    if nodes:
        try:
            plane.add_nodes(count=nodes)
        except (ControlPlaneUnavailable, RuntimeError) as exc:
            plane.stop()
            print(f"error: the simulated nodes did not start (logs in {workdir}): {exc}", file=sys.stderr)
            return 1
        print(f"{nodes} simulated nodes (KWOK, hack/localcluster/nodes.yaml)", file=sys.stderr)
    servers: dict[str, object] = {}
    if fleet:
        try:
            servers = start_fleet(plane, fleet, namespaces)
        except (ControlPlaneUnavailable, RuntimeError) as exc:
            plane.stop()
            print(f"error: the fleet's API servers did not start (logs in {workdir}): {exc}", file=sys.stderr)
            return 1
        print(f"{fleet} more API server(s) on the plane's etcd: {STATE_DIR / 'fleet-kubeconfig'}", file=sys.stderr)
    what = "bare API server" if bare else f"KubeVirt {kubevirt_version} + CDI + kube-scheduler"
    print(f"local plane ({what}) ready in {time.monotonic() - began:.1f}s; logs in {workdir}", file=sys.stderr)
    kubeconfig = STATE_DIR / "kubeconfig"
    shutil.copy(plane.kubeconfig("admin"), kubeconfig)
    for user in USERS:
        shutil.copy(plane.kubeconfig(user), STATE_DIR / f"kubeconfig-{user}")
    registered = plane.components.registered if plane.components else []
    STATE_FILE.write_text(
        json.dumps(
            {
                "pids": {name: process.pid for name, process in plane.processes.items()},
                "fleet": {
                    name: server.processes["kube-apiserver"].pid  # type: ignore[attr-defined]
                    for name, server in servers.items()
                },
                "kubeconfig": str(kubeconfig),
                "bin_dir": str(bin_dir),
                "server": plane.server,
                "ca_file": str(plane.ca_file),
                "kubevirt": not bare,
                "kubevirt_version": kubevirt_version,
                "nodes": nodes,
                "registered": [plane._object_path(o) + "/" + o["metadata"]["name"] for o in registered],
            }
        )
    )
    print(kubeconfig)
    return 0


def _unregister(state: dict) -> None:
    """Delete the recorded webhook configurations and APIServices with the admin token.

    A state written before KubeVirt ran in the plane records none (and no ``ca_file``); the server and the CA then
    come from the recorded kubeconfig, as kubectl would read them.
    """
    import yaml

    registered = state.get("registered") or []
    if not registered:
        return
    try:
        config = yaml.safe_load(Path(state["kubeconfig"]).read_text())
        token = config["users"][0]["user"]["token"]
        cluster = config["clusters"][0]["cluster"]
    except (OSError, KeyError, IndexError, TypeError, yaml.YAMLError):
        return
    server = state.get("server") or cluster.get("server")
    ca_file = state.get("ca_file") or cluster.get("certificate-authority")
    if not server or not ca_file:
        return
    try:
        context = ssl.create_default_context(cafile=ca_file)
    except OSError:
        return  # the CA is gone with the plane's files: nothing can be deleted securely
    for path in registered:
        request = urllib.request.Request(server + path, method="DELETE", headers={"Authorization": f"Bearer {token}"})
        try:
            urllib.request.urlopen(request, context=context, timeout=5).close()
        except (OSError, urllib.error.URLError):
            pass  # already gone, or the API server is down: nothing left to fail closed


def down(quiet: bool = False) -> int:
    """Unregister KubeVirt's and CDI's APIs, stop the recorded processes (etcd last), and remove the state."""
    state = _read_state()
    if state is None:
        if not quiet:
            print("no local control plane is running", file=sys.stderr)
        return 0
    pids = _pids(state)
    if pids.get("kube-apiserver") and _alive(pids["kube-apiserver"], "kube-apiserver"):
        _unregister(state)
    # the fleet's API servers first, the known processes in their order, then any other recorded one (a newer
    # component), etcd last
    fleet = [(pid, "kube-apiserver") for pid in _fleet_pids(state).values()]
    first = list(STOP_ORDER[:-1]) + sorted(set(pids) - set(STOP_ORDER))
    for extra, group in ((fleet, []), ([], first), ([], STOP_ORDER[-1:])):
        stopping = []
        for pid, name in [*extra, *((pids.get(name), name) for name in group)]:
            if pid and _alive(pid, name):
                os.kill(pid, signal.SIGTERM)
                stopping.append((pid, name))
        deadline = time.monotonic() + 15
        for pid, name in stopping:
            while _alive(pid, name) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _alive(pid, name):
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    if not quiet:
        print("stopped", file=sys.stderr)
    return 0


def status() -> int:
    """Print the kubeconfig path when the plane runs; exit 1 otherwise."""
    state = _read_state()
    if state and _running(state) and state.get("kubeconfig"):
        print(state["kubeconfig"])
        return 0
    print("not running", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m hack.localcluster", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("up", help="start (or reuse) the plane")
    start.add_argument("--catalog", action="store_true", help="load the embedded common-instancetypes catalog")
    start.add_argument("--namespace", action="append", default=[], help="also load the catalog's namespaced kinds here")
    start.add_argument("--bare", action="store_true", help="no KubeVirt or CDI processes: the API server and CRDs only")
    start.add_argument(
        "--kubevirt-version", default=default_kubevirt_version(), help="KubeVirt version (default: %(default)s)"
    )
    start.add_argument(
        "--nodes", type=int, default=0, help="simulated nodes (KWOK) to start, shapes from hack/localcluster/nodes.yaml"
    )
    start.add_argument(
        "--fleet", type=int, default=0, help="more kube-apiservers on the plane's etcd (.cluster/fleet-kubeconfig)"
    )
    sub.add_parser("down", help="stop it")
    sub.add_parser("status", help="print the kubeconfig path if it runs")
    sub.add_parser("bin-dir", help="build (once) and print the folder of etcd, kube-apiserver, kubectl")
    args = parser.parse_args(argv)
    if args.command == "up":
        if args.nodes and args.bare:
            parser.error("--nodes needs KubeVirt and the scheduler: drop --bare")
        return up(args.catalog, args.namespace, args.bare, args.kubevirt_version, args.nodes, args.fleet)
    if args.command == "down":
        return down()
    if args.command == "bin-dir":
        print(binaries_dir())
        return 0
    return status()


if __name__ == "__main__":
    sys.exit(main())
