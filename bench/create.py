"""Benchmark ``kubectl instancetype create vm --dry-run=client -o yaml`` (and virtctl's ``create vm`` when built).

Runs the same flags alternately through our plugin (directly and through the real kubectl) and through
KubeVirt's virtctl v1.8.0 built by ``hack/virtctl/build.sh`` (its create-vm code equals v1.9.0's), and
prints medians and the ratio. Nothing is sent to a server; a dummy kubeconfig satisfies virtctl.

With ``--server KUBECONFIG`` (a running plane: ``make cluster``) it times instead ``create vm --dry-run=server``
in the ``default`` namespace (the pre-flight's GETs, the POST with dryRun=All, then the fit check's GETs) and
counts the requests of one run (``-v 6``), for the plugin given by ``--plugin`` (default: this venv's).

Usage: python bench/create.py [--rounds N] [--markdown] [--write]
       python bench/create.py --server KUBECONFIG [--plugin PATH] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import publish  # noqa: E402
from hack.localcluster.crds import cache_root  # noqa: E402

FLAGS = [
    "create",
    "vm",
    "--name",
    "demo",
    "--instancetype",
    "u1.medium",
    "--preference",
    "fedora",
    "--volume-containerdisk",
    "src:quay.io/containerdisks/fedora:41",
]


def median_ms(command: list[str], environ: dict, rounds: int) -> float:
    """Median wall time of ``rounds`` runs, in milliseconds (one untimed warm-up run first)."""
    subprocess.run(
        command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, stdin=subprocess.DEVNULL
    )
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(
            command,
            env=environ,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            stdin=subprocess.DEVNULL,
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def server_run(plugin: str, kubeconfig: str, rounds: int) -> int:
    """``create vm --dry-run=server`` against a running plane: the median time and the requests of one run."""
    environ = {**os.environ, "KUBECONFIG": kubeconfig}
    command = [plugin, *FLAGS, "-n", "default", "--dry-run=server"]
    logged = subprocess.run(
        [*command, "-v", "6"], env=environ, capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL
    ).stderr.splitlines()
    requests = [line.split() for line in logged if line.startswith("I ") and line.split()[1].isupper()]
    methods = [words[1] for words in requests]
    after_post = requests[methods.index("POST") + 1 :] if "POST" in methods else []
    waited = sum(int(words[-2]) for words in after_post if words[-1] == "milliseconds")
    ms = median_ms(command, environ, rounds)
    print(f"create vm --dry-run=server: median {ms:.0f} ms over {rounds} runs; {len(methods)} requests")
    print(f"  {' '.join(methods)}; {len(after_post)} GETs after the POST, answered in {waited} ms (one run)")
    return 0


def main() -> int:
    """Time the three ways and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--write", action="store_true", help="also put it into bench/README.md (implies --markdown)")
    parser.add_argument("--server", metavar="KUBECONFIG", help="time --dry-run=server against this running plane")
    parser.add_argument("--plugin", help="the kubectl-instancetype executable (default: this venv's)")
    args = parser.parse_args()
    plugin = args.plugin or str(Path(sys.executable).parent / "kubectl-instancetype")
    if args.server:
        return server_run(plugin, args.server, args.rounds)
    kubectl = sorted((cache_root() / "controlplane").glob("*/kubectl"))
    virtctl = sorted((cache_root() / "virtctl").glob("*/virtctl"))
    with tempfile.TemporaryDirectory() as home:
        kubeconfig = Path(home) / "kubeconfig"
        kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n"
            "    server: https://127.0.0.1:1\nusers:\n- name: u\n  user:\n    token: t\n"
            "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
        )
        environ = {
            "HOME": home,
            "KUBECONFIG": str(kubeconfig),
            "PATH": os.pathsep.join([str(Path(plugin).parent), "/usr/bin", "/bin"]),
        }
        rows = [
            (
                "kubectl-instancetype (direct), pre-flight tried: the kubeconfig's server refuses",
                median_ms([plugin, *FLAGS, "--dry-run=client", "-o", "yaml"], environ, args.rounds),
            ),
            (
                "kubectl-instancetype (direct) --skip-checks: the manifest alone, as virtctl",
                median_ms([plugin, *FLAGS, "--dry-run=client", "-o", "yaml", "--skip-checks"], environ, args.rounds),
            ),
        ]
        if kubectl:
            rows.append(
                (
                    "kubectl instancetype (through kubectl)",
                    median_ms(
                        [str(kubectl[-1]), "instancetype", *FLAGS, "--dry-run=client", "-o", "yaml"],
                        environ,
                        args.rounds,
                    ),
                )
            )
        if virtctl:
            rows.append(("virtctl v1.8.0 create vm", median_ms([str(virtctl[-1]), *FLAGS], environ, args.rounds)))
    reference = rows[-1][1] if virtctl else None
    table = [[name, f"{ms:.0f}", f"{ms / reference:.2f}x" if reference else "-"] for name, ms in rows]
    from tabulate import tabulate

    tablefmt = "github" if args.markdown or args.write else "simple"
    publish("create", tabulate(table, ["command", "median (ms)", "vs virtctl"], tablefmt=tablefmt), args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
