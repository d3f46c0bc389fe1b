"""Shared fixtures: the in-process CLI runner, the real local control plane, and the Go references (virtctl and
goref from hack/virtctl/build.sh) the differential tests compare with."""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import re
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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


FIXED_SUFFIX_LETTERS = "bcdfghjklmnpqrstvwxz"
GOLDEN = Path(__file__).resolve().parent / "golden"


def fixed_suffixes():
    """A ``random_suffix`` for the Environment returning ``bbbbb``, ``ccccc``, ... on successive calls."""
    letters = iter(FIXED_SUFFIX_LETTERS)
    return lambda length: next(letters) * length


def usage_error(call) -> str:
    """The message of the UsageError that ``call()`` raises (the test fails when it raises none)."""
    from kubectl_instancetype.errors import UsageError

    with pytest.raises(UsageError) as caught:
        call()
    return caught.value.message


def golden_create_cases() -> list[tuple[str, str, list[str], Path]]:
    """The virtctl-parity golden corpus: ``(case id, create subcommand, flags, expected.yaml)`` for every directory
    of tests/golden/createvm (flags in ``args``) and tests/golden/createtypes (subcommand, then flags)."""
    import shlex

    cases = []
    for group in ("createvm", "createtypes"):
        for case_dir in sorted((GOLDEN / group).iterdir()):
            words = shlex.split((case_dir / "args").read_text())
            command, argv = ("vm", words) if group == "createvm" else (words[0], words[1:])
            cases.append((f"{group}/{case_dir.name}", command, argv, case_dir / "expected.yaml"))
    return cases


def run_create(command: str, argv: list[str], *, read_file=None) -> Result:
    """``create COMMAND ARGV --dry-run=client -o yaml`` through the CLI (the Typer path users hit), with the fixed
    random suffixes and no kubeconfig (the client dry run's pre-flight is skipped without a cluster)."""
    return run_cli(
        ["create", command, "--dry-run=client", "-o", "yaml", *argv],
        random_suffix=fixed_suffixes(),
        read_file=read_file,
    )


def example_command_lines(examples: str, command: str) -> list[list[str]]:
    """The flags of every ``{prog} create <command> ...`` line of a help example block."""
    import shlex

    joined = examples.replace("\\\n", " ")
    lines = []
    for line in joined.splitlines():
        line = line.strip()
        prefix = f"{{prog}} create {command}"
        if line.startswith(prefix):
            lines.append(shlex.split(line[len(prefix) :].split("|")[0]))
    return lines


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


@pytest.fixture(scope="session")
def bare_plane(control_plane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:  # noqa: F821
    """A plane without KubeVirt's and CDI's processes (API server, controller manager and their CRDs only), for
    tests of what the plugin does where KubeVirt's APIs are not served. Started on first use."""
    plane = _start_plane(tmp_path_factory, "bare-plane", kubevirt=False)
    try:
        yield plane
    finally:
        plane.stop()


def run_on(plane, *args: str, user: str = "admin") -> Result:
    """Run the CLI in-process against ``plane`` as ``user``."""
    return run_cli(list(args), environ={"HOME": "/nonexistent", "KUBECONFIG": str(plane.kubeconfig(user))})


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


def _wait_for_cluster_view(control_plane, allowed: bool) -> None:
    import time

    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": "mallory",
            "groups": ["system:authenticated"],
            "resourceAttributes": {
                "group": "instancetype.kubevirt.io",
                "resource": "virtualmachineclusterinstancetypes",
                "verb": "list",
            },
        },
    }
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, answer = control_plane.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)
        if bool(((answer or {}).get("status") or {}).get("allowed")) == allowed:
            return
        time.sleep(0.1)
    raise RuntimeError(f"cluster instance types still {'not ' if allowed else ''}readable by every user")


@pytest.fixture
def without_instancetype_view(control_plane) -> Iterator[None]:
    """KubeVirt lets every authenticated user read cluster instance types and preferences (virt-operator's
    ClusterRoleBinding ``instancetype.kubevirt.io:view`` to ``system:authenticated``,
    pkg/virt-operator/resource/generate/rbac/cluster.go). For this test it is gone, as on a cluster whose
    administrator removed it, so that the restricted users get exactly their own grants; then it is restored."""
    path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/instancetype.kubevirt.io:view"
    code, binding = control_plane.request("GET", path)
    if code != 200:  # a bare plane: KubeVirt's RBAC is not installed
        yield
        return
    control_plane.request("DELETE", path)
    _wait_for_cluster_view(control_plane, allowed=False)
    try:
        yield
    finally:
        for key in ("resourceVersion", "uid", "creationTimestamp", "managedFields"):
            binding["metadata"].pop(key, None)
        control_plane.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)
        _wait_for_cluster_view(control_plane, allowed=True)


# goref runs once per hypothesis example (a batch of inputs): a process start each time
GO = settings(
    max_examples=25,
    deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- the Go references: virtctl v1.8.0 and goref (hack/virtctl/goref/main.go) ------------------------------------

REPO = Path(__file__).resolve().parents[1]
VIRTCTL_MODULE = REPO / "hack" / "virtctl"
VIRTCTL_VERSION = (VIRTCTL_MODULE / "VIRTCTL_VERSION").read_text().strip()


def goref_source_hash() -> str:
    """The hash build.sh names goref's directory after (``cat goref/main.go go.sum | sha256sum``)."""
    source = (VIRTCTL_MODULE / "goref" / "main.go").read_bytes() + (VIRTCTL_MODULE / "go.sum").read_bytes()
    return hashlib.sha256(source).hexdigest()[:16]


def cached_binary_dir() -> Path | None:
    """The build directory holding virtctl and the goref built from this checkout's source."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kubectl-instancetype" / "virtctl"
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    for candidate in sorted(cache.glob(f"{VIRTCTL_VERSION}-*-{platform.system().lower()}-{arch}")):
        binaries = candidate / f"ref-{goref_source_hash()}"
        if (binaries / "virtctl").is_file() and (binaries / "goref").is_file():
            return binaries
    return None


@pytest.fixture(scope="session")
def binaries() -> Path:
    """The directory of virtctl and goref; built first with ``KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1``."""
    if os.environ.get("KUBECTL_INSTANCETYPE_BUILD_VIRTCTL") == "1":
        subprocess.run(["bash", str(VIRTCTL_MODULE / "build.sh")], check=True, stdout=subprocess.DEVNULL)
    found = cached_binary_dir()
    if found is None:
        pytest.skip(
            f"virtctl {VIRTCTL_VERSION} not built (run make tools, or set KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1)"
        )
    return found


def run_goref(binaries: Path, mode: str, cases: list) -> list:
    """goref's JSON answer for ``cases`` in ``mode`` (see hack/virtctl/goref/main.go)."""
    result = subprocess.run(
        [str(binaries / "goref"), mode],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(result.stdout)


@pytest.fixture(scope="session")
def goref(binaries: Path):
    """``goref(mode, cases)``: goref's answer for ``cases`` in ``mode``."""
    return lambda mode, cases: run_goref(binaries, mode, cases)


# --- virtctl parity: the same command line through virtctl and through our CLI ------------------------------------

RANDOM_SUFFIX = r"[bcdfghjklmnpqrstvwxz2456789]{5}"
# printed on every failure by the unstamped virtctl before its error line
VERSION_CHECK_LINE = re.compile(r"^failed to validate metadata: .* is not a valid semver identifier$")
PASSWORD = "  pa55word with spaces \n"
# files the create rows read (``--password-file``), written into the virtctl work directory
VIRTCTL_FILES = {"/pw": "  s3cret \n", "/blank-pw": " \n"}


@pytest.fixture(scope="session")
def virtctl_workdir(tmp_path_factory) -> Path:
    """A directory with a kubeconfig virtctl can load (it never connects for create) and the rows' files."""
    path = tmp_path_factory.mktemp("virtctl")
    (path / "kubeconfig").write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:1\n  name: dummy\n"
        "contexts:\n- context:\n    cluster: dummy\n    user: dummy\n  name: dummy\ncurrent-context: dummy\n"
        "users:\n- name: dummy\n  user:\n    token: dummy\n"
    )
    (path / "password").write_text(PASSWORD)
    (path / "empty-password").write_text(" \n")
    for name, content in VIRTCTL_FILES.items():
        (path / name.lstrip("/")).write_text(content)
    return path


def expand_dir(argv: list[str], workdir: Path) -> list[str]:
    """``{dir}`` in the flags replaced by the virtctl work directory."""
    return [arg.replace("{dir}", str(workdir)) for arg in argv]


def run_virtctl(binaries: Path, workdir: Path, command: str, argv: list[str]) -> tuple[int, str, list[str]]:
    """(exit code, stdout, stderr lines without the version-check noise) of ``virtctl create <command> ...``."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(workdir), "KUBECONFIG": str(workdir / "kubeconfig")}
    result = subprocess.run(
        [str(binaries / "virtctl"), "create", command, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=workdir,
        timeout=60,
    )
    lines = [line for line in result.stderr.splitlines() if not VERSION_CHECK_LINE.match(line)]
    return result.returncode, result.stdout, lines


def normalise_generated_names(text: str, command: str) -> str:
    """Replace virtctl's random name suffixes by the fixed test suffixes, in the order virtctl drew them."""
    import yaml

    document = yaml.safe_load(text)
    drawn = []
    prefixes = {"vm": "vm", "instancetype": "(?:cluster)?instancetype", "preference": "(?:cluster)?preference"}
    match = re.fullmatch(rf"{prefixes[command]}-({RANDOM_SUFFIX})", document["metadata"].get("name", ""))
    if match:
        drawn.append(match.group(1))
    if command == "vm":
        for volume in document["spec"]["template"]["spec"].get("volumes", []):
            match = re.fullmatch(rf"imported-volume-({RANDOM_SUFFIX})", volume["name"])
            if "dataVolume" in volume and match:
                drawn.append(match.group(1))
    suffixes = fixed_suffixes()
    for suffix in drawn:
        text = re.sub(rf"(?<=-){suffix}\b", suffixes(5), text)
    return text


def create_through_cli(command: str, argv: list[str]) -> tuple[str | None, str | None, list[str]]:
    """(YAML or None, error or None, warnings) of ``create COMMAND ARGV --dry-run=client -o yaml`` through the CLI
    (the Typer path users hit), with the fixed random suffixes."""
    result = run_create(command, argv)
    lines = result.stderr.splitlines()
    if result.exit_code:
        return None, lines[-1].removeprefix("error: "), lines[:-1]
    return result.stdout, None, lines


def flags_to_argv(flags: dict, namespace: str | None = None) -> list[str]:
    """Command-line flags for a ``*Options.from_flags`` mapping of the unit tests (files moved to ``{dir}``)."""
    argv = ["-n", namespace] if namespace else []
    for name, value in flags.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            text = str(item).lower() if isinstance(item, bool) else str(item)
            if name == "password-file":
                text = "{dir}" + text
            argv.append(f"--{name}={text}")
    return argv


def virtctl_answers(binaries: Path, workdir: Path, rows: list[tuple[str, list[str]]]) -> dict:
    """virtctl's answer for every ``(command, argv)`` row, computed up front on a few threads."""
    from concurrent.futures import ThreadPoolExecutor

    keys = list(dict.fromkeys((command, tuple(expand_dir(argv, workdir))) for command, argv in rows))
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = pool.map(lambda key: run_virtctl(binaries, workdir, key[0], list(key[1])), keys)
        return dict(zip(keys, answers))


def assert_same_as_virtctl(answers: dict, workdir: Path, command: str, argv: list[str]) -> None:
    """Our CLI and virtctl agree on the row: the same YAML (generated names mapped to the fixed suffixes) and
    warnings, or the same error (virtctl prints it as its last stderr line) after the same warnings."""
    argv = expand_dir(argv, workdir)
    code, stdout, stderr = answers[(command, tuple(argv))]
    text, error, warnings = create_through_cli(command, argv)
    if code == 0:
        assert error is None, f"virtctl succeeded, we failed with: {error}"
        assert text == normalise_generated_names(stdout, command)
        assert warnings == stderr
    else:
        assert error is not None, f"virtctl failed with {stderr[-1:]}, we succeeded"
        assert error == stderr[-1]
        assert warnings == stderr[:-1]


VIRT_API_SNAPSHOT_READER = "kubectl-instancetype-tests:virt-api-volumesnapshots"


def _virt_api_may_read_snapshots(control_plane) -> bool:
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": "system:serviceaccount:kubevirt:kubevirt-apiserver",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:kubevirt", "system:authenticated"],
            "resourceAttributes": {"group": "snapshot.storage.k8s.io", "resource": "volumesnapshots", "verb": "get"},
        },
    }
    _, answer = control_plane.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)
    return bool(((answer or {}).get("status") or {}).get("allowed"))


@pytest.fixture(scope="module")
def virt_api_reads_snapshots(control_plane) -> Iterator[None]:
    """KubeVirt v1.9.0 follows VolumeSnapshots in inference, but its virt-operator grants virt-api no access to
    them (pkg/virt-operator/resource/generate/rbac/apiserver.go): on a default install the webhook is refused.
    For tests of the snapshot chain itself, virt-api is granted ``get`` on VolumeSnapshots, as an administrator
    would grant it; removed afterwards (the corpus holds the default install's answer)."""
    import time

    rbac = "/apis/rbac.authorization.k8s.io/v1"
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": VIRT_API_SNAPSHOT_READER},
        "rules": [{"apiGroups": ["snapshot.storage.k8s.io"], "resources": ["volumesnapshots"], "verbs": ["get"]}],
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": VIRT_API_SNAPSHOT_READER},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": VIRT_API_SNAPSHOT_READER},
        "subjects": [{"kind": "ServiceAccount", "name": "kubevirt-apiserver", "namespace": "kubevirt"}],
    }
    control_plane.request("POST", f"{rbac}/clusterroles", role)
    control_plane.request("POST", f"{rbac}/clusterrolebindings", binding)
    deadline = time.monotonic() + 10
    while not _virt_api_may_read_snapshots(control_plane) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        yield
    finally:
        control_plane.request("DELETE", f"{rbac}/clusterrolebindings/{VIRT_API_SNAPSHOT_READER}")
        control_plane.request("DELETE", f"{rbac}/clusterroles/{VIRT_API_SNAPSHOT_READER}")
        deadline = time.monotonic() + 10
        while _virt_api_may_read_snapshots(control_plane) and time.monotonic() < deadline:
            time.sleep(0.1)
