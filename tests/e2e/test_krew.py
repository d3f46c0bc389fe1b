"""The krew package through the real krew v0.4.4 and the real kubectl, against the local control plane.

``make krew``'s archive and manifest (built once per session; the frozen build is cached by source hash) are
checked by krew-index's own validate-krew-manifest, installed offline with ``kubectl krew install --manifest
--archive`` into a fresh KREW_ROOT, run by kubectl with a PATH of krew's bin folder, kubectl's folder and
/usr/bin:/bin only (no Python of ours), completed through the launcher of ``completion install-helper``, and
uninstalled.
"""

from __future__ import annotations

import hashlib
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_instancetype import __version__

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]

Run = Callable[..., subprocess.CompletedProcess]


def _krew_root(path: Path) -> Path:
    # `kubectl krew list/uninstall` want an index checkout; an empty git repository is one (the real index
    # would come from `kubectl krew update`, the one step that needs the network).
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path / "index" / "default")], check=True)
    return path


def _runner(control_plane, krew_binaries: Path, root: Path) -> tuple[Run, Run]:
    """(krew: runs kubectl with kubectl-krew on PATH, plugin: runs kubectl with krew's bin folder on PATH)."""
    base = {"HOME": str(root.parent), "KREW_ROOT": str(root), "KUBECONFIG": str(control_plane.kubeconfig("admin"))}
    system = f"{control_plane.bin_dir}:/usr/bin:/bin"

    def run(path: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(control_plane.kubectl), *args],
            env={**base, "PATH": path},
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )

    def krew(*args: str) -> subprocess.CompletedProcess:
        return run(f"{krew_binaries}:{system}", "krew", *args)

    def plugin(*args: str) -> subprocess.CompletedProcess:
        return run(f"{root / 'bin'}:{system}", *args)

    return krew, plugin


def _install(krew: Run, package) -> subprocess.CompletedProcess:
    return krew("install", f"--manifest={package.manifest}", f"--archive={package.archive}")


@pytest.fixture(scope="module")
def installed(control_plane, krew_binaries, krew_package, tmp_path_factory) -> tuple[Path, Run]:
    root = _krew_root(tmp_path_factory.mktemp("krew-home") / "krew")
    krew, plugin = _runner(control_plane, krew_binaries, root)
    result = _install(krew, krew_package)
    assert result.returncode == 0, result.stderr
    return root, plugin


def test_archive_holds_only_regular_files_an_executable_and_the_license(krew_package) -> None:
    with tarfile.open(krew_package.archive) as tar:
        members = {member.name: member for member in tar.getmembers()}
    assert all(member.isreg() or member.isdir() for member in members.values())
    assert not any(".." in name or name.startswith("/") for name in members)
    assert members["kubectl-instancetype"].isreg() and members["kubectl-instancetype"].mode == 0o755
    assert members["LICENSE"].isreg()


def test_validate_krew_manifest_accepts_it(krew_binaries, krew_package) -> None:
    assert krew_package.manifest.name == "instancetype.yaml"
    result = subprocess.run(
        [str(krew_binaries / "validate-krew-manifest"), "-manifest", str(krew_package.manifest), "-skip-install"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "structural validation OK" in result.stderr
    platform = yaml.safe_load(krew_package.manifest.read_text())["spec"]["platforms"][0]
    assert platform["sha256"] == hashlib.sha256(krew_package.archive.read_bytes()).hexdigest()


def test_install_links_the_plugin_into_krews_bin(installed) -> None:
    root, _ = installed
    link = root / "bin" / "kubectl-instancetype"
    store = root / "store" / "instancetype" / f"v{__version__}"
    assert link.is_symlink() and link.resolve() == (store / "kubectl-instancetype").resolve()
    assert (store / "LICENSE").is_file()
    assert (root / "receipts" / "instancetype.yaml").is_file()


def test_version_runs_against_the_control_plane(installed) -> None:
    _, plugin = installed
    result = plugin("instancetype", "version")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[:3] == [
        f"Client Version: v{__version__}",
        "Server Version: v1.36.3",
        "KubeVirt Version: v1.9.0",
    ]


def test_list_runs_against_the_control_plane(installed) -> None:
    _, plugin = installed
    result = plugin("instancetype", "list", "--min-cpu", "4", "--max-cpu", "4", "--class", "general.purpose")
    assert (result.returncode, result.stderr) == (0, "")
    header, *rows = result.stdout.splitlines()
    assert header.startswith("NAME        KIND      CPU   MEMORY   CLASS             AGE")
    assert [row.split()[:5] for row in rows] == [["u1.xlarge", "cluster", "4", "16Gi", "general.purpose"]]


def test_errors_stay_one_line(installed) -> None:
    _, plugin = installed
    result = plugin("instancetype", "list", "--bogus")
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "error: unknown flag: --bogus\n")


def test_install_helper_makes_kubectl_complete_the_plugin(installed) -> None:
    root, plugin = installed
    before = plugin("__complete", "instancetype", "")
    # without a helper kubectl falls back to file completion
    assert before.stdout == ":0\n"
    written = plugin("instancetype", "completion", "install-helper")
    assert (written.returncode, written.stderr) == (0, "")
    helper = root / "bin" / "kubectl_complete-instancetype"
    assert written.stdout == f"wrote {helper} (runs {root / 'bin' / 'kubectl-instancetype'} __complete)\n"
    after = plugin("__complete", "instancetype", "")
    assert after.returncode == 0
    names = {line.split("\t")[0] for line in after.stdout.splitlines()}
    assert {"list", "version", "create", "completion", ":4"} <= names
    flags = plugin("__complete", "instancetype", "list", "--min-")
    assert {line.split("\t")[0] for line in flags.stdout.splitlines()[:-1]} == {"--min-cpu", "--min-memory"}
    # the generated sh helper, bound to krew's link: static lines are its own, live ones the frozen plugin's
    assert helper.read_text().startswith("#!/bin/sh\n# kubectl_complete-instancetype: written by")
    live = plugin("__complete", "instancetype", "-n", "")
    assert {"default", "kube-system"} <= {line.split("\t")[0] for line in live.stdout.splitlines()}


def test_uninstall_removes_it(control_plane, krew_binaries, krew_package, tmp_path) -> None:
    root = _krew_root(tmp_path / "krew")
    krew, plugin = _runner(control_plane, krew_binaries, root)
    assert _install(krew, krew_package).returncode == 0
    assert plugin("instancetype", "version", "--client").returncode == 0
    result = krew("uninstall", "instancetype")
    assert result.returncode == 0, result.stderr
    assert "Uninstalled plugin: instancetype" in result.stderr
    assert not (root / "bin" / "kubectl-instancetype").exists()
    assert not (root / "store" / "instancetype").exists()
    assert not (root / "receipts" / "instancetype.yaml").exists()
    gone = plugin("instancetype", "version", "--client")
    assert gone.returncode == 1
    assert 'unknown command "instancetype" for "kubectl"' in gone.stderr
