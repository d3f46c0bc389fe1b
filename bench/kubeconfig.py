"""Benchmark reading big kubeconfigs: the plugin against the real kubectl on the same generated files, in one run.

Generates kubeconfigs of N contexts (kubectl's own layout: ``- context: {cluster, user}`` then ``name``; one cluster
whose server nobody listens on, so every command ends at the connection, after the whole file was read) and
times, alternately:
  * ``kubectl-instancetype list --context c999`` (direct) vs ``kubectl --context c999 get --raw /version``
    (both read and merge the file, resolve the context, and fail to connect);
  * ``kubectl config view --minify --context c999`` (kubectl's reading alone);
  * completion of ``--context c99``: ``kubectl_complete-instancetype list --context c99`` (its budget: 1 s) vs
    ``kubectl __complete config use-context c99``.
Wall times are medians; peak RSS is each process's own (``wait4``). ``--before DIR`` also runs the plugin from
another checkout (its package on PYTHONPATH; ``python -P`` keeps the current directory's package out of the way),
for before/after figures. Never a test: timings are printed.

Usage: python bench/kubeconfig.py [--sizes 10000,150000] [--rounds N] [--before DIR] [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import publish
from hack.localcluster import binaries_dir

ROOT = Path(__file__).resolve().parents[1]


def generate(path: Path, contexts: int) -> None:
    """A kubeconfig of ``contexts`` contexts in the layout kubectl writes."""
    with path.open("w") as out:
        out.write(
            "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:1\n  name: k\n"
            "users:\n- name: u\n  user:\n    token: abcdefgh\ncontexts:\n"
        )
        for index in range(contexts):
            out.write(f"- context:\n    cluster: k\n    user: u\n  name: c{index}\n")
        out.write("current-context: c0\n")


def run(command: list[str], environ: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one run; its output is discarded."""
    started = time.perf_counter()
    pid = os.posix_spawn(
        command[0],
        command,
        environ,
        file_actions=[
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ],
    )
    _, _, usage = os.wait4(pid, 0)
    return time.perf_counter() - started, usage.ru_maxrss // 1024


Command = tuple[list[str], dict[str, str]]


def measure(commands: dict[str, Command], rounds: int) -> dict[str, tuple[float, int]]:
    """Run each command ``rounds`` times, alternating; the median wall time and the largest RSS of each."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, int] = dict.fromkeys(commands, 0)
    for _ in range(rounds):
        for name, (command, environ) in commands.items():
            wall, rss = run(command, environ)
            times[name].append(wall)
            peaks[name] = max(peaks[name], rss)
    return {name: (statistics.median(times[name]), peaks[name]) for name in commands}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,150000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="another checkout whose plugin is measured too (before/after)")
    parser.add_argument(
        "--kubectl", help="the kubectl to compare with (default: the control plane's, built if need be)"
    )
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--write", action="store_true", help="also put the table into bench/README.md")
    args = parser.parse_args()
    kubectl = args.kubectl or str(binaries_dir() / "kubectl")
    python = sys.executable
    entry = "import sys; from kubectl_instancetype.cli.main import {0}; sys.exit({0}())"
    trees = {"plugin": str(ROOT)} | ({"before": str(Path(args.before).resolve())} if args.before else {})
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for size in (int(text) for text in args.sizes.split(",")):
            path = Path(workdir) / f"kubeconfig-{size}"
            generate(path, size)
            megabytes = path.stat().st_size / 1e6
            environ = {"PATH": "/usr/bin:/bin", "HOME": workdir, "KUBECONFIG": str(path)}
            commands: dict[str, Command] = {}
            for label, tree in trees.items():
                with_tree = {**environ, "PYTHONPATH": tree}
                commands[f"{label}: list --context c999"] = (
                    [python, "-P", "-c", entry.format("main"), "list", "--context", "c999"],
                    with_tree,
                )
                commands[f"{label}: complete --context c99"] = (
                    [python, "-P", "-c", entry.format("complete_main"), "list", "--context", "c99"],
                    with_tree,
                )
            commands["kubectl get --raw /version"] = (
                [kubectl, "--context", "c999", "get", "--raw", "/version"],
                environ,
            )
            commands["kubectl config view --minify"] = (
                [kubectl, "config", "view", "--minify", "--context", "c999"],
                environ,
            )
            commands["kubectl __complete config use-context c99"] = (
                [kubectl, "__complete", "config", "use-context", "c99"],
                environ,
            )
            results = measure(commands, args.rounds)
            for name, (wall, rss) in results.items():
                rows.append([f"{size:,} contexts ({megabytes:.1f} MB)", name, f"{wall * 1000:.0f}", str(rss)])
                print(f"{size} {name}: {wall * 1000:.0f} ms, {rss} MB", file=sys.stderr)
    headers = ["kubeconfig", "command", "median (ms)", "peak RSS (MB)"]
    if args.markdown or args.write:
        from tabulate import tabulate

        publish("kubeconfig", tabulate(rows, headers, tablefmt="github"), args.write)
    else:
        for row in [headers, *rows]:
            print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
