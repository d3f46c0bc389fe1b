"""Shared fixtures: the in-process CLI runner and the real local control plane."""

from __future__ import annotations

import io
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from kubectl_instancetype.cli.main import run
from kubectl_instancetype.env import Environment

# A fixed "now" for AGE columns: objects created by the tests are seconds old.
CATALOG_NAMESPACE = "catalog"


@dataclass
class Result:
    """What one in-process CLI run printed and returned."""

    exit_code: int
    stdout: str
    stderr: str


def run_cli(
    args: list[str],
    *,
    environ: Mapping[str, str] | None = None,
    clock=None,
    random_suffix=None,
    read_file=None,
    stdin: str = "",
) -> Result:
    """Run ``kubectl-instancetype ARGS`` in-process with captured streams (the httpie pattern)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(
        stdin=io.StringIO(stdin),
        stdout=stdout,
        stderr=stderr,
        environ=dict(environ if environ is not None else {"HOME": "/nonexistent"}),
    )
    for name, value in (("clock", clock), ("random_suffix", random_suffix), ("read_file", read_file)):
        if value is not None:
            setattr(env, name, value)
    code = run(args, env)
    return Result(code, stdout.getvalue(), stderr.getvalue())


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:  # noqa: F821
    """etcd + kube-apiserver with KubeVirt's CRDs and the embedded catalog (cluster + namespace "catalog")."""
    from hack.localcluster import ControlPlane, ControlPlaneUnavailable, binaries_dir

    try:
        bin_dir = binaries_dir()
    except ControlPlaneUnavailable as exc:
        pytest.skip(str(exc))
    # SIGTERM (a CI timeout, a killed run) must still stop etcd and kube-apiserver: turn it into SystemExit
    # so that the finally below runs.
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    plane = ControlPlane(bin_dir=bin_dir, workdir=tmp_path_factory.mktemp("controlplane"))
    plane.start()
    try:
        plane.load_catalog(namespaces=(CATALOG_NAMESPACE,))
        yield plane
    finally:
        plane.stop()
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture
def cli(control_plane):
    """Run the CLI in-process against the control plane as ``user`` (admin by default)."""

    def invoke(*args: str, user: str = "admin", extra_env: Mapping[str, str] | None = None) -> Result:
        environ = {"HOME": "/nonexistent", "KUBECONFIG": str(control_plane.kubeconfig(user))}
        environ.update(extra_env or {})
        return run_cli(list(args), environ=environ)

    return invoke


@pytest.fixture
def plugin_path(control_plane) -> str:
    """A PATH on which the real kubectl finds the installed ``kubectl-instancetype``."""
    import shutil
    import sys

    scripts = Path(sys.executable).parent
    if not (scripts / "kubectl-instancetype").exists():
        found = shutil.which("kubectl-instancetype")
        if not found:
            pytest.skip("kubectl-instancetype is not installed (pip install -e .)")
        scripts = Path(found).parent
    return os.pathsep.join([str(scripts), str(control_plane.bin_dir), "/usr/bin", "/bin"])
