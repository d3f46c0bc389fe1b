"""Start-up of two trees of the plugin, side by side: the before/after figures of a restructuring.

Each case runs the plugin's entry point in-process-free (a fresh interpreter each time, as kubectl starts it),
once per tree in turn for ``--rounds`` rounds, with ``PYTHONPATH`` pointing at that tree; medians are printed.
The same interpreter and installed dependencies serve both trees, so only the plugin's own code differs. The
live cases need ``--kubeconfig`` (e.g. ``make cluster``'s); without it they are left out. Never a test: timings
are printed, not asserted.

Usage: python bench/startup.py --before ../old-checkout [--after .] [--kubeconfig .cluster/kubeconfig] [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ENTRY = (
    "import sys; from kubectl_instancetype.cli.main import main; sys.argv[0] = 'kubectl-instancetype'; sys.exit(main())"
)
OFFLINE = {
    "version --client": ["version", "--client"],
    "catalog list --cpu 4": ["catalog", "list", "--cpu", "4"],
    "__complete list --c": ["__complete", "list", "--c"],
    "create vm --dry-run=client --skip-checks -o yaml": [
        "create",
        "vm",
        "--name",
        "x",
        "--instancetype",
        "u1.medium",
        "--dry-run=client",
        "--skip-checks",
        "-o",
        "yaml",
    ],
}
LIVE = {
    "list --scope=cluster --cpu 4": ["list", "--scope=cluster", "--cpu", "4"],
    "__complete list vmcf/u1.m": ["__complete", "list", "vmcf/u1.m"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the other tree (a checkout of the older commit)")
    parser.add_argument("--after", default=str(Path(__file__).resolve().parents[1]), help="this tree (default)")
    parser.add_argument("--kubeconfig", help="a cluster for the live cases")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    environ = dict(os.environ, HOME="/nonexistent", KUBECONFIG=args.kubeconfig or "/nonexistent")
    cases = {**OFFLINE, **(LIVE if args.kubeconfig else {})}
    print(f"| command (median of {args.rounds}, ms) | before | after |")
    print("|---|---|---|")
    for case, words in cases.items():
        times: dict[str, list[float]] = {tree: [] for tree in trees}
        for _ in range(args.rounds):
            for tree, path in trees.items():
                started = time.perf_counter()
                result = subprocess.run(
                    [sys.executable, "-c", ENTRY, *words],
                    env=dict(environ, PYTHONPATH=path),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    check=False,
                )
                times[tree].append(time.perf_counter() - started)
                if result.returncode != 0:
                    raise SystemExit(f"{case} ({tree}): exit {result.returncode}: {result.stderr.decode()[:300]}")
        medians = [statistics.median(times[tree]) * 1000 for tree in trees]
        print(f"| `{case}` | {medians[0]:.0f} | {medians[1]:.0f} |")


if __name__ == "__main__":
    main()
