"""Start-up of the two ways the plugin is installed: the frozen build (the krew archive) and a pip install.

Both run through the real kubectl with a PATH of that install's bin folder, kubectl's folder and /usr/bin:/bin,
alternately, for several rounds; medians reported. The pip install is the wheel in a fresh virtualenv (not the
editable development install); the frozen build is ``hack.freeze``'s (cached by source hash), completed
through the launcher that ``completion install-helper`` writes. Never a test: timings are printed, not asserted.

Usage: python bench/install.py [--rounds N] [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.report import publish  # noqa: E402
from hack.freeze import frozen_dir  # noqa: E402
from hack.localcluster import ControlPlane, binaries_dir  # noqa: E402


def wall(command: list[str], environ: dict) -> float:
    """Wall seconds of one run (output discarded, failures fatal)."""
    started = time.perf_counter()
    subprocess.run(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def pip_install(workdir: Path) -> Path:
    """A fresh virtualenv with the wheel of this tree installed; returns its bin folder."""
    base = getattr(sys, "_base_executable", sys.executable)
    wheels = workdir / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)], check=True)
    venv = workdir / "venv"
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *wheels.glob("*.whl")], check=True)
    return venv / "bin"


def frozen_install(workdir: Path, environ: dict) -> Path:
    """A bin folder holding the frozen plugin (as krew links it) and the completion launcher."""
    bin_dir = workdir / "frozen-bin"
    bin_dir.mkdir()
    (bin_dir / "kubectl-instancetype").symlink_to(frozen_dir() / "kubectl-instancetype")
    env = {**environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    subprocess.run([str(bin_dir / "kubectl-instancetype"), "completion", "install-helper"], env=env, check=True)
    return bin_dir


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--write", action="store_true", help="also put it into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    kube_bin = binaries_dir()
    with tempfile.TemporaryDirectory(prefix="bench-install-") as tmp, ControlPlane(bin_dir=kube_bin) as plane:
        workdir = Path(tmp)
        plane.load_catalog()
        base = {"HOME": str(workdir), "KUBECONFIG": str(plane.kubeconfig())}
        installs = {
            "frozen (krew archive)": frozen_install(workdir, base),
            "pip (wheel in a venv)": pip_install(workdir),
        }
        kubectl = str(plane.kubectl)
        cases = [
            ("kubectl instancetype version --client", lambda b: [kubectl, "instancetype", "version", "--client"]),
            (
                "kubectl-instancetype version --client (direct)",
                lambda b: [str(b / "kubectl-instancetype"), "version", "--client"],
            ),
            ('kubectl __complete instancetype ""', lambda b: [kubectl, "__complete", "instancetype", ""]),
            (
                "kubectl instancetype list --scope=cluster --cpu 4",
                lambda b: [kubectl, "instancetype", "list", "--scope=cluster", "--cpu", "4"],
            ),
        ]
        rows = []
        for label, command in cases:
            times: dict[str, list[float]] = {name: [] for name in installs}
            for bin_dir in installs.values():  # one warm-up run each (page cache, bytecode)
                wall(command(bin_dir), {**base, "PATH": f"{bin_dir}:{kube_bin}:/usr/bin:/bin"})
            for _ in range(args.rounds):
                for name, bin_dir in installs.items():
                    times[name].append(wall(command(bin_dir), {**base, "PATH": f"{bin_dir}:{kube_bin}:/usr/bin:/bin"}))
            medians = [statistics.median(values) * 1000 for values in times.values()]
            rows.append([label, *(f"{value:.0f}" for value in medians), f"{medians[0] / medians[1]:.2f}x"])
    headers = ["command (median ms)", *installs, "frozen / pip"]
    if args.markdown or args.write:
        from tabulate import tabulate

        publish("install", tabulate(rows, headers=headers, tablefmt="github"), args.write)
    else:
        for row in [headers, *rows]:
            print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
