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


def _start_plane(tmp_path_factory: pytest.TempPathFactory, name: str, **options) -> ControlPlane:  # noqa: F821
    from hack.localcluster import ControlPlane, ControlPlaneUnavailable, binaries_dir

    try:
        bin_dir = binaries_dir()
    except ControlPlaneUnavailable as exc:
        pytest.skip(str(exc))
    plane = ControlPlane(bin_dir=bin_dir, workdir=tmp_path_factory.mktemp(name), **options)
    try:
        plane.start()
    except ControlPlaneUnavailable as exc:
        pytest.skip(str(exc))
    return plane


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:  # noqa: F821
    """The session's plane: etcd, kube-apiserver, kube-controller-manager, KubeVirt's virt-api and virt-controller
    and CDI's cdi-apiserver (default KubeVirt version: $KUBEVIRT_VERSION or hack/kubevirt/KUBEVIRT_VERSION), with
    KubeVirt's and CDI's CRDs and the embedded catalog (cluster + namespace "catalog")."""
    # SIGTERM (a CI timeout, a killed run) must still stop every process: turn it into SystemExit so that the
    # finally below runs.
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    plane = _start_plane(tmp_path_factory, "controlplane")
    try:
        plane.load_catalog(namespaces=(CATALOG_NAMESPACE,))
        yield plane
    finally:
        plane.stop()
        signal.signal(signal.SIGTERM, previous)


class KubeVirtPlanes:
    """One plane per KubeVirt version for the session, started on first use (the default version's is
    ``control_plane``), stopped at the end of the session."""

    def __init__(self, default: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> None:  # noqa: F821
        self.planes = {default.kubevirt_version: default}
        self.started: list = []
        self.tmp_path_factory = tmp_path_factory

    def get(self, version: str) -> ControlPlane:  # noqa: F821
        if version not in self.planes:
            plane = _start_plane(self.tmp_path_factory, f"kubevirt-{version}", kubevirt_version=version)
            self.started.append(plane)
            try:
                plane.load_catalog(namespaces=(CATALOG_NAMESPACE,))
            except BaseException:
                plane.stop()
                raise
            self.planes[version] = plane
        return self.planes[version]


@pytest.fixture(scope="session")
def kubevirt_planes(control_plane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeVirtPlanes]:
    """Planes by KubeVirt version (``kubevirt_planes.get("v1.8.0")``), each with the catalog loaded."""
    planes = KubeVirtPlanes(control_plane, tmp_path_factory)
    try:
        yield planes
    finally:
        for plane in planes.started:
            plane.stop()


def _kubevirt_versions() -> list[str]:
    from hack.localcluster.crds import default_kubevirt_version, supported_kubevirt_versions

    default = default_kubevirt_version()
    return [default] + [v for v in reversed(supported_kubevirt_versions()) if v != default]


@pytest.fixture(params=_kubevirt_versions(), ids=lambda version: f"kubevirt-{version}")
def kubevirt_plane(request, kubevirt_planes):
    """Each supported KubeVirt version's plane in turn (a test using it runs once per version; select one with
    ``-k kubevirt-v1.8.0``). The plane's ``kubevirt_version`` says which it is."""
    return kubevirt_planes.get(request.param)


@pytest.fixture
def namespace(control_plane, request) -> Iterator[str]:
    """A fresh namespace for this test, deleted afterwards (kube-controller-manager removes what is in it)."""
    import re
    import secrets

    base = re.sub(r"[^a-z0-9-]+", "-", request.node.name.lower()).strip("-")[:40].strip("-")
    name = f"{base}-{secrets.token_hex(3)}"
    control_plane.ensure_namespace(name)
    try:
        yield name
    finally:
        control_plane.delete_namespace(name)


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
