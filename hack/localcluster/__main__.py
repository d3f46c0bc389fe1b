"""``python -m hack.localcluster up|down|status``: the local control plane for ``make cluster`` and demos.

``up`` starts etcd + kube-apiserver in the background (they outlive this process), installs KubeVirt's
CRDs, optionally loads the embedded catalog, writes ``.cluster/kubeconfig`` and prints its path.
``down`` stops exactly the processes ``up`` recorded in ``.cluster/state.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from .controlplane import REPO_ROOT, USERS, ControlPlane, ControlPlaneUnavailable, binaries_dir

STATE_DIR = REPO_ROOT / ".cluster"
STATE_FILE = STATE_DIR / "state.json"


def _alive(pid: int, binary: str) -> bool:
    """True when ``pid`` runs and is the binary we started (never signal a recycled PID)."""
    try:
        return Path(f"/proc/{pid}/exe").resolve().name == binary
    except OSError:
        return False


def up(load_catalog: bool, namespaces: list[str]) -> int:
    """Start the control plane unless it runs already; print the kubeconfig path."""
    if STATE_FILE.exists():
        state = json.loads(STATE_FILE.read_text())
        if all(_alive(pid, name) for name, pid in state["pids"].items()):
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
    plane = ControlPlane(workdir=workdir, bin_dir=bin_dir, keep_workdir=True)
    plane.start()
    if load_catalog:
        count = plane.load_catalog(namespaces=tuple(namespaces))
        print(f"loaded {count} catalog objects", file=sys.stderr)
    kubeconfig = STATE_DIR / "kubeconfig"
    shutil.copy(plane.kubeconfig("admin"), kubeconfig)
    for user in USERS:
        shutil.copy(plane.kubeconfig(user), STATE_DIR / f"kubeconfig-{user}")
    STATE_FILE.write_text(
        json.dumps(
            {
                "pids": {name: process.pid for name, process in plane.processes.items()},
                "kubeconfig": str(kubeconfig),
                "bin_dir": str(bin_dir),
                "server": plane.server,
            }
        )
    )
    print(kubeconfig)
    return 0


def down(quiet: bool = False) -> int:
    """Stop the recorded processes (kube-apiserver first, then etcd) and remove the state."""
    if not STATE_FILE.exists():
        if not quiet:
            print("no local control plane is running", file=sys.stderr)
        return 0
    state = json.loads(STATE_FILE.read_text())
    for name in ("kube-apiserver", "etcd"):
        pid = state["pids"].get(name)
        if pid and _alive(pid, name):
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                if not _alive(pid, name):
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    if not quiet:
        print("stopped", file=sys.stderr)
    return 0


def status() -> int:
    """Print the kubeconfig path when the control plane runs; exit 1 otherwise."""
    if STATE_FILE.exists():
        state = json.loads(STATE_FILE.read_text())
        if all(_alive(pid, name) for name, pid in state["pids"].items()):
            print(state["kubeconfig"])
            return 0
    print("not running", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m hack.localcluster", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("up", help="start (or reuse) the control plane")
    start.add_argument("--catalog", action="store_true", help="load the embedded common-instancetypes catalog")
    start.add_argument("--namespace", action="append", default=[], help="also load the catalog's namespaced kinds here")
    sub.add_parser("down", help="stop it")
    sub.add_parser("status", help="print the kubeconfig path if it runs")
    sub.add_parser("bin-dir", help="build (once) and print the directory of etcd, kube-apiserver, kubectl")
    args = parser.parse_args(argv)
    if args.command == "up":
        return up(args.catalog, args.namespace)
    if args.command == "down":
        return down()
    if args.command == "bin-dir":
        print(binaries_dir())
        return 0
    return status()


if __name__ == "__main__":
    sys.exit(main())
