"""Start-up on the hot paths, two trees of the plugin and the peers side by side in one run.

Each case runs, in turn for ``--rounds`` rounds, the plugin of the ``--before`` tree (when given), the plugin of
this tree, and the peer it is compared with: ``kubectl get`` of the same objects (the plugin runs through the
real kubectl, as users run it), virtctl's ``create vm`` (the plugin run directly, as the virtctl binary is), and
kubectl's own static completion (kubectl runs ``kubectl_complete-instancetype`` as it does for users: since issue 30
the generated sh script the wheel ships, in the ``installed`` columns as pip installs it); then, in the judged
column only, the same completion with the helper ``completion install-helper`` writes (krew's channel), and the
floors: the same kubectl commands running a plugin or completion helper that does
nothing (an empty script for the judged tree's Python, one for /bin/sh, and a Python one that only imports ssl,
socket and json and makes a TLS context), against the same peers. Each tree
gets its own ``kubectl-instancetype`` (and, in a tree before issue 30, ``kubectl_complete-instancetype``), written
like pip's console scripts but importing that tree, and its wheel's scripts as they are; both trees share this interpreter and its installed dependencies, so only the plugin's
own code differs. Both trees are byte-compiled first (as an install is).

That development virtualenv is not what users run: it holds every test dependency, an editable install's
``.pth`` and setuptools' ``distutils-precedence.pth`` (which imports ``_distutils_hack`` on every start), so its
``python -c pass`` costs about twice a clean one's. So each tree is also measured as users install it (unless
``--no-install``): its wheel (``pip wheel --no-deps``) installed by pip into a fresh virtualenv made without pip
(as pipx and ``uv tool`` make theirs), with only the runtime dependencies, pinned to the versions of this
virtualenv (``pip freeze`` as constraints) so that both trees get the same ones; pip writes the console scripts
and byte-compiles. Those columns are marked "installed", and the goal is judged on them. Medians are printed with each tree's
ratio to the peer and the goal of issue 30, and the same ratio of CPU time (user + system of the process and its
children: kubectl and the plugin it runs), which a busy machine changes far less than wall time. A bare local
control plane (kube-apiserver v1.36.3 with KubeVirt's CRDs and the catalog's 65 + 54 objects) serves the lists,
unless ``--kubeconfig`` names one. Never a test: timings are printed, not asserted.

Usage: python bench/startup.py [--before ../old-checkout] [--rounds 15] [--kubeconfig K] [--no-install] [--only TEXT]
       [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import os
import resource
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

# pip's console scripts (pip 25), importing the package from one tree
LAUNCHER = """#!{python}
import sys
sys.path.insert(0, {tree!r})
from {module} import {function}
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit({function}())
"""
CREATE = ["create", "vm", "--name", "demo", "--instancetype", "u1.medium", "--preference", "fedora"]
CREATE += ["--volume-containerdisk", "src:quay.io/containerdisks/fedora:41"]
GET_10 = ["get", "virtualmachineclusterinstancetypes", "-l", "instancetype.kubevirt.io/cpu=4"]


def cases(kubectl: str, virtctl: str | None) -> list[tuple[str, list[str], list[str], float | None]]:
    """(case, the plugin's command with PLUGIN for its executable, the peer's command, goal ratio or None)."""
    through = [kubectl, "instancetype"]
    found = [
        ("list, 10 rows, through kubectl (`list --scope=cluster --cpu 4`) vs `kubectl get`",
         [*through, "list", "--scope=cluster", "--cpu", "4"], [kubectl, *GET_10], 1.5),
        ("list, both scopes, through kubectl (`list --cpu 4`) vs `kubectl get` (one scope)",
         [*through, "list", "--cpu", "4"], [kubectl, *GET_10], None),
        ("describe vmcf/u1.medium, through kubectl vs `kubectl get vmcf/u1.medium`",
         [*through, "describe", "vmcf/u1.medium"], [kubectl, "get", "vmcf/u1.medium"], None),
    ]  # fmt: skip
    if virtctl:
        found.append(
            (
                "`create vm --dry-run=client -o yaml --skip-checks` (direct) vs virtctl `create vm`",
                ["PLUGIN", *CREATE, "--dry-run=client", "-o", "yaml", "--skip-checks"],
                [virtctl, *CREATE],
                3.0,
            )
        )
    complete = [kubectl, "__complete"]
    found += [
        ("static completion: commands (`kubectl __complete instancetype \"\"` vs `kubectl __complete get \"\"`)",
         [*complete, "instancetype", ""], [*complete, "get", ""], 1.2),
        ("static completion: flags (`instancetype list --min-` vs `get --sho`)",
         [*complete, "instancetype", "list", "--min-"], [*complete, "get", "--sho"], 1.2),
        ("`version --client` (direct) vs `python -c pass`",
         ["PLUGIN", "version", "--client"], [sys.executable, "-c", "pass"], None),
    ]  # fmt: skip
    return found


# The floors: kubectl running a plugin (or its completion helper) that does nothing, timed in the same run as the
# real one against the same peer. ``noop`` is an empty Python script run by the judged tree's interpreter (its
# virtualenv's python: what any Python helper pays before its first import), ``shnoop`` an empty /bin/sh script
# (what kubectl's own dispatch costs), ``tlsnoop`` a Python script that imports what any Python client of an API
# server needs (ssl, socket, json) and makes a TLS client context, and sends nothing. Run in the judged column only.
FLOOR_PLUGINS = {
    "noop": "",
    "shnoop": "",
    "tlsnoop": "import json, socket, ssl\nssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n",
}


def floor_cases(kubectl: str) -> list[tuple[str, list[str], list[str], float | None]]:
    """The floor rows: the list's and static completion's, with a Python and a /bin/sh helper that do nothing."""
    complete = [kubectl, "__complete"]
    return [
        ("floor: `kubectl noop` (an empty Python script as the plugin) vs `kubectl get`",
         [kubectl, "noop"], [kubectl, *GET_10], 1.5),
        ("floor: `kubectl shnoop` (an empty /bin/sh script as the plugin) vs `kubectl get`",
         [kubectl, "shnoop"], [kubectl, *GET_10], 1.5),
        ("floor: `kubectl tlsnoop` (Python importing ssl, socket, json, making a TLS context) vs `kubectl get`",
         [kubectl, "tlsnoop"], [kubectl, *GET_10], 1.5),
        ("floor: `kubectl __complete noop \"\"` (an empty Python script as the helper) vs `__complete get \"\"`",
         [*complete, "noop", ""], [*complete, "get", ""], 1.2),
        ("floor: `kubectl __complete shnoop \"\"` (an empty /bin/sh script as the helper) vs `__complete get \"\"`",
         [*complete, "shnoop", ""], [*complete, "get", ""], 1.2),
        ("floor: `kubectl __complete shnoop list --min-` (an empty /bin/sh script as the helper) vs `get --sho`",
         [*complete, "shnoop", "list", "--min-"], [*complete, "get", "--sho"], 1.2),
    ]  # fmt: skip


def krew_cases(kubectl: str) -> list[tuple[str, list[str], list[str], float | None]]:
    """The static completion rows again with the helper `completion install-helper` writes (krew's channel)."""
    complete = [kubectl, "__complete"]
    return [
        ("static completion: commands, krew channel (the helper `completion install-helper` writes)",
         [*complete, "instancetype", ""], [*complete, "get", ""], 1.2),
        ("static completion: flags, krew channel (`instancetype list --min-` vs `get --sho`)",
         [*complete, "instancetype", "list", "--min-"], [*complete, "get", "--sho"], 1.2),
    ]  # fmt: skip


def krew_channel(bin_dir: Path, folder: Path, environ: dict) -> Path:
    """A bin folder as krew makes it (the plugin, a symlink) with the helper ``completion install-helper`` writes
    there, by the judged tree's plugin: krew installs no helper, the user runs that command once."""
    folder.mkdir(parents=True)
    (folder / "kubectl-instancetype").symlink_to(bin_dir / "kubectl-instancetype")
    subprocess.run(
        [str(folder / "kubectl-instancetype"), "completion", "install-helper", "--dir", str(folder)],
        env=dict(environ, PATH=os.pathsep.join([str(folder), environ["PATH"]])),
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return folder


def floor_plugins(python: Path, folder: Path) -> Path:
    """A bin folder with the do-nothing plugins and completion helpers of :data:`FLOOR_PLUGINS`."""
    folder.mkdir(parents=True)
    for name, body in FLOOR_PLUGINS.items():
        interpreter = "/bin/sh" if name == "shnoop" else str(python)
        for script in (f"kubectl-{name}", f"kubectl_complete-{name}"):
            path = folder / script
            path.write_text(f"#!{interpreter}\n{body}")
            path.chmod(0o755)
    return folder


def wall(command: list[str], environ: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and its children) of one run (stdout discarded,
    failures fatal). CPU time barely moves with the machine's load, where wall time on a busy machine grows
    with every other process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {result.returncode}: {result.stderr.decode()[:300]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def launchers(tree: Path, folder: Path) -> Path:
    """A bin folder with the executables ``tree`` installs: its console scripts (the entry points its
    pyproject.toml names) and its wheel's scripts (the sh completion helper, since issue 30)."""
    import shutil
    import tomllib

    folder.mkdir(parents=True)
    project = tomllib.loads((tree / "pyproject.toml").read_text())
    for name, entry in project["project"]["scripts"].items():
        module, function = entry.split(":")
        path = folder / name
        path.write_text(LAUNCHER.format(python=sys.executable, tree=str(tree), module=module, function=function))
        path.chmod(0o755)
    shared = project.get("tool", {}).get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
    for source, name in shared.get("shared-scripts", {}).items():
        shutil.copy(tree / source, folder / name)
    compileall.compile_dir(str(tree / "kubectl_instancetype"), quiet=1)
    return folder


def installed(tree: Path, folder: Path, constraints: Path) -> Path:
    """``tree`` as a user installs it: its wheel in a fresh virtualenv without pip (as pipx and ``uv tool``
    make theirs), the runtime dependencies pinned by ``constraints``; the virtualenv's bin folder."""
    base = getattr(sys, "_base_executable", sys.executable)
    wheels = folder / "wheel"
    quiet = {"stdout": subprocess.DEVNULL, "check": True}
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(tree)], **quiet)
    venv = folder / "venv"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], **quiet)
    python = venv / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", "-c", str(constraints), *map(str, wheels.glob("*.whl"))], **quiet
    )
    return venv / "bin"


def constraints_file(workdir: Path) -> Path:
    """This virtualenv's packages (``pip freeze``, without the plugin itself) as pip constraints."""
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "freeze", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = workdir / "constraints.txt"
    path.write_text("".join(line + "\n" for line in frozen.splitlines() if not line.startswith("kubectl-instancetype")))
    return path


def run(args: argparse.Namespace, kubeconfig: str, home: str, workdir: Path) -> str:
    """Time every case for every tree and the peer; the Markdown table."""
    kubectl = str(sorted((cache_root() / "controlplane").glob("*/kubectl"))[-1])
    virtctls = sorted((cache_root() / "virtctl").glob("*/virtctl"))
    trees = {"after": ROOT} | ({"before": Path(args.before).resolve()} if args.before else {})
    bins = {name: launchers(tree, workdir / name) for name, tree in trees.items()}
    if not args.no_install:
        constraints = constraints_file(workdir)
        for name, tree in trees.items():
            print(f"installing the {name} tree's wheel into a fresh virtualenv", file=sys.stderr)
            bins[f"{name}, installed"] = installed(tree, workdir / f"{name}-installed", constraints)
    base = {"HOME": home, "KUBECONFIG": kubeconfig}
    environs = {
        name: dict(base, PATH=os.pathsep.join([str(folder), str(Path(kubectl).parent), "/usr/bin", "/bin"]))
        for name, folder in bins.items()
    }
    peer_environ = environs["after"]
    columns = [name for name in ("before", "after", "before, installed", "after, installed") if name in bins]
    judged = "after, installed" if "after, installed" in columns else "after"
    floors = floor_plugins(
        bins[judged] / "python" if "installed" in judged else Path(sys.executable), workdir / "floor"
    )
    environs["floor"] = dict(environs[judged], PATH=os.pathsep.join([str(floors), environs[judged]["PATH"]]))
    krew = krew_channel(bins[judged], workdir / "krew", environs[judged])
    environs["krew"] = dict(environs[judged], PATH=os.pathsep.join([str(krew), environs[judged]["PATH"]]))
    rows = []
    every: list[tuple[tuple[str, list[str], list[str], float | None], str | None]]
    every = [(case, None) for case in cases(kubectl, str(virtctls[-1]) if virtctls else None)]
    every += [(case, "krew") for case in krew_cases(kubectl)] + [(case, "floor") for case in floor_cases(kubectl)]
    every = [item for item in every if not args.only or any(text in item[0][0] for text in args.only)]
    for (case, plugin, peer, goal), extra in every:
        timed = [judged] if extra else columns
        commands = {
            name: [str(bins[name] / "kubectl-instancetype") if word == "PLUGIN" else word for word in plugin]
            for name in timed
        }
        environ = {name: environs[extra] if extra else environs[name] for name in timed}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in [*timed, "peer"]}
        for name in timed:
            wall(commands[name], environ[name])  # warm the page cache
        wall(peer, peer_environ)
        for _ in range(args.rounds):
            for name in timed:
                times[name].append(wall(commands[name], environ[name]))
            times["peer"].append(wall(peer, peer_environ))
        medians = {name: statistics.median(t[0] for t in values) * 1000 for name, values in times.items()}
        cpu = {name: statistics.median(t[1] for t in values) * 1000 for name, values in times.items()}
        ratios = {name: medians[name] / medians["peer"] for name in timed}
        # a floor's "met" says whether a helper that does nothing would meet the goal
        met = "-" if goal is None else ("met" if ratios[judged] <= goal else "not met")
        row = [case]
        row += [f"{medians[name]:.0f}" if name in timed else "-" for name in columns] + [f"{medians['peer']:.0f}"]
        row += [f"{ratios[name]:.2f}x" if name in timed else "-" for name in columns]
        row += ["-" if goal is None else f"{goal}x", met]
        row += [f"{cpu[name] / cpu['peer']:.2f}x" if name in timed else "-" for name in columns]
        print(" | ".join(row), file=sys.stderr)
        rows.append(row)
    headers = ["case (median wall ms)", *columns, "peer", *[f"{name} / peer" for name in columns], "goal", judged]
    headers += [f"{name} / peer, CPU time" for name in columns]
    from tabulate import tabulate

    return tabulate(rows, headers, tablefmt="github" if args.markdown or args.write else "simple")


def main() -> int:
    """Parse the flags, start a control plane unless given one, run every case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another tree (a checkout of an older commit) to run side by side")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--kubeconfig", help="a cluster with the catalog loaded (default: start a bare one)")
    parser.add_argument(
        "--no-install", action="store_true", help="only the development virtualenv's launchers (no wheel installs)"
    )
    parser.add_argument(
        "--only", action="append", help="only the cases whose name holds this text (repeatable; iterating, not --write)"
    )
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--write", action="store_true", help="also put it into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    if args.only and args.write:
        parser.error("--only measures some cases: it cannot --write the table")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch, contextlib.ExitStack() as stack:
        workdir = Path(scratch)
        home = workdir / "home"
        home.mkdir()
        kubeconfig = args.kubeconfig
        if kubeconfig is None:
            from hack.localcluster import ControlPlane, binaries_dir

            plane = stack.enter_context(ControlPlane(bin_dir=binaries_dir(), kubevirt=False))
            plane.load_catalog()
            kubeconfig = str(plane.kubeconfig())
        table = run(args, str(Path(kubeconfig).resolve()), str(home), workdir)
    # the stamp says the load at the end; other work on the machine slows every column, the ratios less
    publish("startup", f"Load average at the start: {load:.1f}.\n\n{table}", args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
