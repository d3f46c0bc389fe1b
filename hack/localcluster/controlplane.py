"""Start and stop a local Kubernetes control plane with KubeVirt's real components beside it.

etcd + kube-apiserver (with the front-proxy flags aggregated API servers need) + kube-controller-manager (namespace
deletion, garbage collection, service accounts and their tokens, the root CA configmap, RBAC aggregation) +
kube-scheduler, all built from Kubernetes' Go modules (hack/controlplane). By default KubeVirt's virt-api and
virt-controller and CDI's cdi-apiserver run beside them as local processes (hack/localcluster/kubevirt.py);
``kubevirt=False`` gives a bare API server with KubeVirt's and CDI's real CRDs only (and no scheduler). Simulated
nodes (KWOK and a simulated virt-handler heartbeat, hack/localcluster/kwok.py) start on first use:
:meth:`ControlPlane.add_nodes`. Without nodes, every pod stays Pending.

Modelled on controller-runtime's envtest: free ports, a work directory (logs there), ``/readyz`` polling, and on
stop only the processes this object started are signalled.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .crds import all_crds, default_kubevirt_version

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO_ROOT / "hack" / "controlplane" / "build.sh"
START_TIMEOUT = 60.0

# Restricted users for RBAC tests. Their grants are explicit rules (kube-controller-manager now aggregates the
# admin/edit/view roles, but these users' tests are about exactly what they may do).
INSTANCETYPE_RESOURCES = ["virtualmachineinstancetypes", "virtualmachinepreferences"]
CLUSTER_INSTANCETYPE_RESOURCES = ["virtualmachineclusterinstancetypes", "virtualmachineclusterpreferences"]
USERS = {
    # may list namespaced instance types/preferences in its own namespace only
    "alice": {"namespace_rules": {"alice": INSTANCETYPE_RESOURCES}, "cluster_rules": []},
    # may list cluster-scoped instance types/preferences only
    "carol": {"namespace_rules": {}, "cluster_rules": CLUSTER_INSTANCETYPE_RESOURCES},
    # may do nothing at all
    "mallory": {"namespace_rules": {}, "cluster_rules": []},
}

# kube-controller-manager's controllers for a plane without nodes (names from
# k8s.io/kubernetes/cmd/kube-controller-manager/names/controller_names.go).
CONTROLLERS = [
    "namespace-controller",
    "garbage-collector-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    "clusterrole-aggregation-controller",
    "root-ca-certificate-publisher-controller",
    "resourcequota-controller",  # ResourceQuota status (hard, used): the quota admission plugin enforces status.hard
]
FRONT_PROXY_CLIENT = "front-proxy-client"


class ControlPlaneUnavailable(RuntimeError):
    """The control plane cannot run here (no Go toolchain, build failure); the reason is the message."""


def run_build(script: Path, what: str, env: dict[str, str] | None = None) -> Path:
    """Run one of the hack/*/build.sh scripts (cached builds) and return the folder it prints."""
    if not shutil.which("go"):
        raise ControlPlaneUnavailable(f"Go is not installed: cannot build {what}")
    result = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, check=False, env={**os.environ, **(env or {})}
    )
    if result.returncode != 0:
        raise ControlPlaneUnavailable(f"building {what} failed: {result.stderr.strip()[-2000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def binaries_dir() -> Path:
    """Build (once per version) and return the folder of etcd, kube-apiserver, kube-controller-manager, kubectl."""
    return run_build(BUILD_SCRIPT, "kube-apiserver, etcd, kube-controller-manager and kubectl")


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (racy by nature, as envtest's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP reached a process that holds a running plane.

    The plane's processes run in their own sessions (a Ctrl-C in the terminal is not theirs), so a signal that ended
    this process at once would leave them running, orphaned. Raised in the main thread instead, it unwinds the
    ``with ControlPlane()`` blocks and ``finally`` clauses, which stop the planes. A KeyboardInterrupt, not a
    SystemExit: pytest ends the session on it (running its fixtures' teardown), where a SystemExit inside a test
    would only fail that test and the run would go on.
    """


class StopSignals:
    """SIGTERM and SIGHUP for the planes one process holds: :class:`Terminated` while a plane runs, deferred while
    one stops (a stop cut short would orphan what it had not stopped yet), the previous handlers back when the last
    plane has stopped. Only at work in the main thread, and only over handlers at their defaults (a handler someone
    else installed is left alone). One instance per process (:data:`STOP_SIGNALS`)."""

    # Windows has no SIGHUP (the harness runs on Linux; the module must still import there for the unit suite)
    def __init__(
        self, numbers: tuple[int, ...] = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))
    ) -> None:
        self.numbers = numbers
        self.running: list[object] = []  # the planes started and not yet stopped
        self.replaced: dict[int, object] = {}  # signal -> the handler ours replaced
        self.received: list[int] = []  # signals received until the last plane stopped
        self.terminated = False  # Terminated was raised for them

    def on_signal(self, signum: int, frame: object) -> None:
        """The handler while planes run: raise :class:`Terminated` once, then defer."""
        self.received.append(signum)
        self.terminated = True
        for number in self.replaced:
            signal.signal(number, self.defer)
        raise Terminated(f"{signal.Signals(signum).name}: stopping the local plane")

    def defer(self, signum: int, frame: object) -> None:
        """The handler while planes stop, or unwind after a first signal: remember the signal."""
        self.received.append(signum)

    def hold(self, plane: object) -> None:
        """``plane`` runs from now on."""
        self.running.append(plane)
        if threading.current_thread() is not threading.main_thread():
            return
        for number in self.numbers:
            if number not in self.replaced and signal.getsignal(number) is signal.SIG_DFL:
                self.replaced[number] = signal.signal(number, self.on_signal)

    def stopping(self, plane: object) -> None:
        """``plane`` is being stopped: signals wait."""
        if threading.current_thread() is threading.main_thread():
            for number in self.replaced:
                signal.signal(number, self.defer)

    def stopped(self, plane: object) -> None:
        """``plane`` has stopped: a signal that arrived during its stop raises :class:`Terminated` now (unless one
        is already unwinding); with no plane left, the previous handlers are back."""
        if plane in self.running:
            self.running.remove(plane)
        if threading.current_thread() is not threading.main_thread() or not self.replaced:
            return
        raise_now = bool(self.received) and not self.terminated
        self.terminated = self.terminated or raise_now
        first = self.received[0] if self.received else 0
        for number, previous in list(self.replaced.items()):
            if not self.running:
                signal.signal(number, previous)  # type: ignore[arg-type]
                del self.replaced[number]
            elif not self.terminated:
                signal.signal(number, self.on_signal)
        if not self.running:
            self.received.clear()
            self.terminated = False
        if raise_now:
            raise Terminated(f"{signal.Signals(first).name}: the local plane was stopped")


STOP_SIGNALS = StopSignals()


def _service_account_key(path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


@dataclass
class ControlPlane:
    """One local plane. Use as a context manager or call :meth:`start`/:meth:`stop`.

    ``kubevirt``: run virt-api, virt-controller and cdi-apiserver (else a bare API server with the real CRDs).
    ``kubevirt_version``: which KubeVirt (hack/kubevirt/<version>/; default ``$KUBEVIRT_VERSION`` or v1.9.0).
    ``kubevirt_configuration``: the KubeVirt CR's ``spec.configuration``.
    ``scheduler``: run kube-scheduler (default: when KubeVirt runs).
    """

    workdir: Path | None = None
    bin_dir: Path | None = None
    keep_workdir: bool = False
    kubevirt: bool = True
    kubevirt_version: str = field(default_factory=default_kubevirt_version)
    kubevirt_configuration: dict = field(default_factory=dict)
    controller_manager: bool = True
    scheduler: bool | None = None
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    port: int = 0
    etcd_url: str = ""
    scheduler_port: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    components: object = None  # hack.localcluster.kubevirt.KubeVirtComponents when kubevirt=True
    simulated: object = None  # hack.localcluster.kwok.SimulatedNodes once nodes were asked for

    @property
    def server(self) -> str:
        """The API server URL."""
        return f"https://127.0.0.1:{self.port}"

    @property
    def ca_file(self) -> Path:
        """The apiserver's self-signed serving certificate, followed by its CA: usable as a CA bundle."""
        return self.workdir / "certs" / "apiserver.crt"

    @property
    def kubectl(self) -> Path:
        """The kubectl built from the same Kubernetes version."""
        return self.bin_dir / "kubectl"

    def kubeconfig(self, user: str = "admin") -> Path:
        """Path of a kubeconfig for ``user`` (admin or one of :data:`USERS`)."""
        return self.workdir / f"kubeconfig-{user}"

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> ControlPlane:
        """Start everything, wait until ready, then install RBAC, CRDs and (by default) KubeVirt and CDI."""
        began = time.monotonic()
        self.workdir = Path(self.workdir or tempfile.mkdtemp(prefix="kubectl-instancetype-cp-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        components = None
        if self.kubevirt:
            from .kubevirt import KubeVirtComponents

            components = KubeVirtComponents(self, self.kubevirt_version, self.kubevirt_configuration)
        with ThreadPoolExecutor(max_workers=3) as pool:
            # The builds are cached: a few tenths of a second each when warm.
            bin_dir = pool.submit(lambda: self.bin_dir or binaries_dir())
            crds = pool.submit(all_crds, self.kubevirt_version)
            built = pool.submit(components.build) if components else None
            self.bin_dir = bin_dir.result()
            self._crds = crds.result()
            if built:
                built.result()
        self.timings["build"] = time.monotonic() - began
        STOP_SIGNALS.hold(self)
        try:
            self._start_processes()
            self._wait_ready()
            self.timings["apiserver"] = time.monotonic() - began
            self._write_kubeconfigs()
            if self.controller_manager:
                self._start_controller_manager()
            if self.scheduler is None:
                self.scheduler = self.kubevirt
            if self.scheduler:
                self._start_scheduler()
            self._install_rbac()
            self.install_crds()
            self.timings["crds"] = time.monotonic() - began
            if components:
                self.components = components
                components.start()
                self.timings["kubevirt"] = time.monotonic() - began
            if self.scheduler:
                self._wait_scheduler_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _write_credentials(self) -> None:
        """A free port for kube-apiserver, fresh static tokens for admin and :data:`USERS` (``tokens.csv``) and the
        service-account key: what every kube-apiserver of the harness is started with."""
        self.port = free_port()
        self.tokens = {"admin": secrets.token_hex(16)} | {user: secrets.token_hex(16) for user in USERS}
        lines = [f"{self.tokens['admin']},admin,uid-admin,system:masters"]
        lines += [f"{self.tokens[user]},{user},uid-{user}" for user in USERS]
        (self.workdir / "tokens.csv").write_text("\n".join(lines) + "\n")
        os.chmod(self.workdir / "tokens.csv", 0o600)
        _service_account_key(self.workdir / "sa.key")

    def _apiserver_argv(self, certs: Path, *extra: str) -> list[str]:
        """kube-apiserver's command line, built in one place: on ``self.etcd_url`` and ``self.port`` (loopback),
        serving certificates in ``certs``, the static tokens and service-account key of :meth:`_write_credentials`,
        no ServiceAccount admission, priority and fairness or profiling; ``extra`` adds what one server needs
        (the authorization modes, the front proxy of aggregated APIs, an etcd prefix)."""
        return [
            str(self.bin_dir / "kube-apiserver"),
            f"--etcd-servers={self.etcd_url}",
            f"--secure-port={self.port}",
            "--bind-address=127.0.0.1",
            f"--cert-dir={certs}",
            f"--token-auth-file={self.workdir / 'tokens.csv'}",
            f"--service-account-issuer=https://127.0.0.1:{self.port}/",
            f"--service-account-key-file={self.workdir / 'sa.key'}",
            f"--service-account-signing-key-file={self.workdir / 'sa.key'}",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection",
            "--enable-priority-and-fairness=false",
            "--profiling=false",
            *extra,
            "--v=1",
        ]

    def _start_processes(self) -> None:
        from .certs import Authority

        certs = self.workdir / "certs"
        certs.mkdir(exist_ok=True)
        etcd_port, etcd_peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{etcd_port}"  # extra API servers may share it (hack/localcluster/fleet.py)
        self._write_credentials()
        # The front proxy: kube-apiserver authenticates to aggregated API servers (virt-api, cdi-apiserver) with
        # this client certificate; they trust requests whose certificate that CA signed (requestheader-*).
        front_proxy = Authority.create(certs, "front-proxy-ca", "front-proxy-ca")
        front_proxy.issue("front-proxy-client", FRONT_PROXY_CLIENT, client=True)
        self._spawn(
            "etcd",
            [
                str(self.bin_dir / "etcd"),
                "--data-dir",
                str(self.workdir / "etcd"),
                "--listen-client-urls",
                f"http://127.0.0.1:{etcd_port}",
                "--advertise-client-urls",
                f"http://127.0.0.1:{etcd_port}",
                "--listen-peer-urls",
                f"http://127.0.0.1:{etcd_peer}",
                "--initial-advertise-peer-urls",
                f"http://127.0.0.1:{etcd_peer}",
                "--initial-cluster",
                f"default=http://127.0.0.1:{etcd_peer}",
                "--unsafe-no-fsync",
                "--log-level=error",
            ],
        )
        self._spawn(
            "kube-apiserver",
            self._apiserver_argv(
                certs,
                "--authorization-mode=Node,RBAC",
                "--allow-privileged=true",
                f"--requestheader-client-ca-file={front_proxy.cert_file}",
                f"--requestheader-allowed-names={FRONT_PROXY_CLIENT}",
                "--requestheader-username-headers=X-Remote-User",
                "--requestheader-group-headers=X-Remote-Group",
                "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                f"--proxy-client-cert-file={certs / 'front-proxy-client.crt'}",
                f"--proxy-client-key-file={certs / 'front-proxy-client.key'}",
            ),
        )

    def _spawn(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start one process of this plane, its output in ``<workdir>/<name>.log``, and record its PID."""
        with open(self.workdir / f"{name}.log", "wb") as log:
            process = subprocess.Popen(
                argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.workdir,
                env={**os.environ, **env} if env else None,
            )
        self.processes[name] = process
        (self.workdir / "pids.json").write_text(json.dumps({n: p.pid for n, p in self.processes.items()}))
        return process

    def _start_controller_manager(self) -> None:
        self._spawn(
            "kube-controller-manager",
            [
                str(self.bin_dir / "kube-controller-manager"),
                f"--kubeconfig={self.kubeconfig('admin')}",
                "--leader-elect=false",
                "--secure-port=0",
                f"--controllers={','.join(CONTROLLERS)}",
                f"--root-ca-file={self.ca_file}",
                f"--service-account-private-key-file={self.workdir / 'sa.key'}",
                "--use-service-account-credentials=false",
                "--concurrent-namespace-syncs=5",
                "--concurrent-gc-syncs=5",
                "--v=1",
            ],
        )

    def _start_scheduler(self) -> None:
        """kube-scheduler with its default profile, as kubeadm runs it (one kubeconfig for the API, authentication
        and authorization delegation), leader election off (one scheduler), on a free loopback port with a
        self-signed serving certificate (--cert-dir); :meth:`_wait_scheduler_ready` polls its /readyz."""
        self.scheduler_port = free_port()
        kubeconfig = self.kubeconfig("admin")
        self._spawn(
            "kube-scheduler",
            [
                str(self.bin_dir / "kube-scheduler"),
                f"--kubeconfig={kubeconfig}",
                f"--authentication-kubeconfig={kubeconfig}",
                f"--authorization-kubeconfig={kubeconfig}",
                "--leader-elect=false",
                "--bind-address=127.0.0.1",
                f"--secure-port={self.scheduler_port}",
                f"--cert-dir={self.workdir / 'certs' / 'kube-scheduler'}",
                "--v=1",
            ],
        )

    def _wait_scheduler_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Wait for kube-scheduler's /readyz: its informers have synced and its event handlers are registered
        (cmd/kube-scheduler/app/server.go: the sched-handler-sync and informer-sync checks; /healthz, which that
        file marks deprecated, would pass before). Anonymous: /readyz is one of the scheduler's
        --authorization-always-allow-paths."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # readiness only, on loopback: the certificate is self-signed
        deadline = time.monotonic() + timeout
        last = "not started"
        while time.monotonic() < deadline:
            self.check_processes()
            connection = http.client.HTTPSConnection("127.0.0.1", self.scheduler_port, context=context, timeout=2)
            try:
                connection.request("GET", "/readyz")
                response = connection.getresponse()
                body = response.read()
                if response.status == 200:
                    return
                last = f"readyz {response.status}: {body[-300:].decode(errors='replace')}"
            except (OSError, http.client.HTTPException) as exc:
                last = str(exc)
            finally:
                connection.close()
            time.sleep(0.1)
        raise RuntimeError(f"kube-scheduler not ready after {timeout:.0f}s: {last}")

    def add_nodes(self, shapes: list[str] | tuple[str, ...] | None = None, count: int | None = None) -> list[str]:
        """Create simulated nodes (KWOK and the simulated virt-handler heartbeat start on first use) and return
        their names; see :meth:`hack.localcluster.kwok.SimulatedNodes.add`."""
        return self.simulated_nodes().add(shapes, count)

    def simulated_nodes(self):  # -> hack.localcluster.kwok.SimulatedNodes
        """This plane's simulated nodes (KWOK and the heartbeat started on first call)."""
        if self.simulated is None:
            from .kwok import SimulatedNodes

            simulated = SimulatedNodes(self)
            simulated.start()
            self.simulated = simulated
        return self.simulated

    def check_processes(self) -> None:
        """Raise with the end of its log when a process of this plane has exited."""
        for name, process in self.processes.items():
            if process.poll() is not None:
                log = (self.workdir / f"{name}.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{name} exited with {process.returncode}:\n{log}")

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        token: str | None = None,
        timeout: float = 10.0,
        content_type: str = "application/json",
    ) -> tuple[int, dict | None]:
        """One JSON request to the API server as ``token``'s user (admin by default): (status, decoded body)."""
        context = ssl.create_default_context(cafile=str(self.ca_file))
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, context=context, timeout=timeout)
        try:
            headers = {"Authorization": f"Bearer {token or self.tokens['admin']}", "Accept": "application/json"}
            payload = None
            if body is not None:
                payload = json.dumps(body).encode()
                headers["Content-Type"] = content_type
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read()
            try:
                return response.status, json.loads(data) if data else None
            except ValueError:
                return response.status, {"raw": data.decode("utf-8", "replace")}
        finally:
            connection.close()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        last = "not started"
        while time.monotonic() < deadline:
            self.check_processes()
            if self.ca_file.exists():
                try:
                    status, _ = self.request("GET", "/readyz", timeout=2)
                    if status == 200 and self.request("GET", "/api/v1/namespaces/default", timeout=2)[0] == 200:
                        return
                    last = f"readyz {status}"
                except (OSError, ssl.SSLError, http.client.HTTPException) as exc:
                    last = str(exc)
            time.sleep(0.1)
        raise RuntimeError(f"kube-apiserver not ready after {START_TIMEOUT:.0f}s: {last}")

    def _write_kubeconfigs(self) -> None:
        for user in ["admin", *USERS]:
            namespace = user if user in USERS else "default"
            self.write_kubeconfig(self.kubeconfig(user), user, self.tokens[user], namespace)

    def write_kubeconfig(self, path: Path, user: str, token: str, namespace: str = "default") -> Path:
        """A kubeconfig for this plane authenticating with ``token`` (YAML, as kubectl writes them)."""
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "local",
            "clusters": [
                {"name": "local", "cluster": {"server": self.server, "certificate-authority": str(self.ca_file)}}
            ],
            "users": [{"name": user, "user": {"token": token}}],
            "contexts": [{"name": "local", "context": {"cluster": "local", "user": user, "namespace": namespace}}],
        }
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        os.chmod(path, 0o600)
        return path

    def apply(self, obj: dict, token: str | None = None) -> dict:
        """Create ``obj`` (or leave it when it exists) with the admin token; returns the server's object."""
        status, answer = self.request("POST", self._object_path(obj), obj, token=token)
        if status == 409:
            return answer or {}
        if status >= 300:
            raise RuntimeError(f"creating {obj['kind']} {obj['metadata'].get('name')}: {status} {answer}")
        return answer or {}

    def _object_path(self, obj: dict) -> str:
        api_version = obj["apiVersion"]
        group_path = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        namespace = obj.get("metadata", {}).get("namespace")
        plural = _plural(obj)
        return f"{group_path}/namespaces/{namespace}/{plural}" if namespace else f"{group_path}/{plural}"

    def delete(self, obj: dict, propagation: str | None = None) -> None:
        """Delete ``obj`` (by kind, namespace and name); a missing object is fine."""
        body = {"propagationPolicy": propagation} if propagation else None
        status, answer = self.request("DELETE", f"{self._object_path(obj)}/{obj['metadata']['name']}", body)
        if status >= 300 and status != 404:
            raise RuntimeError(f"deleting {obj['kind']} {obj['metadata']['name']}: {status} {answer}")

    def get(self, obj: dict) -> dict | None:
        """The server's copy of ``obj``, or None when it does not exist."""
        status, answer = self.request("GET", f"{self._object_path(obj)}/{obj['metadata']['name']}")
        return answer if status == 200 else None

    def ensure_namespace(self, name: str, labels: dict[str, str] | None = None) -> None:
        """Create namespace ``name`` unless it exists."""
        metadata: dict = {"name": name}
        if labels:
            metadata["labels"] = labels
        self.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata})

    def delete_namespace(self, name: str, wait: float = 0.0) -> None:
        """Delete namespace ``name`` (kube-controller-manager empties and removes it); optionally wait until gone."""
        self.delete({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        deadline = time.monotonic() + wait
        while wait and time.monotonic() < deadline:
            if self.request("GET", f"/api/v1/namespaces/{name}")[0] == 404:
                return
            time.sleep(0.2)
        if wait:
            raise RuntimeError(f"namespace {name} still exists {wait:.0f}s after its deletion")

    def _install_rbac(self) -> None:
        objects: list[dict] = []
        for user, grants in USERS.items():
            objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": user}})
            for namespace, resources in grants["namespace_rules"].items():
                rule = {
                    "apiGroups": ["instancetype.kubevirt.io"],
                    "resources": resources,
                    "verbs": ["get", "list", "watch"],
                }
                objects.append(
                    {
                        "apiVersion": "rbac.authorization.k8s.io/v1",
                        "kind": "Role",
                        "metadata": {"name": f"{user}-instancetypes", "namespace": namespace},
                        "rules": [rule],
                    }
                )
                objects.append(
                    {
                        "apiVersion": "rbac.authorization.k8s.io/v1",
                        "kind": "RoleBinding",
                        "metadata": {"name": f"{user}-instancetypes", "namespace": namespace},
                        "roleRef": {
                            "apiGroup": "rbac.authorization.k8s.io",
                            "kind": "Role",
                            "name": f"{user}-instancetypes",
                        },
                        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
                    }
                )
            if grants["cluster_rules"]:
                rule = {
                    "apiGroups": ["instancetype.kubevirt.io"],
                    "resources": grants["cluster_rules"],
                    "verbs": ["get", "list", "watch"],
                }
                objects.append(
                    {
                        "apiVersion": "rbac.authorization.k8s.io/v1",
                        "kind": "ClusterRole",
                        "metadata": {"name": f"{user}-instancetypes"},
                        "rules": [rule],
                    }
                )
                objects.append(
                    {
                        "apiVersion": "rbac.authorization.k8s.io/v1",
                        "kind": "ClusterRoleBinding",
                        "metadata": {"name": f"{user}-instancetypes"},
                        "roleRef": {
                            "apiGroup": "rbac.authorization.k8s.io",
                            "kind": "ClusterRole",
                            "name": f"{user}-instancetypes",
                        },
                        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
                    }
                )
        # Namespaces first, then the rest concurrently.
        self.apply_all([o for o in objects if o["kind"] == "Namespace"])
        self.apply_all([o for o in objects if o["kind"] != "Namespace"])

    def apply_all(self, objects: list[dict], workers: int = 4) -> list[dict]:
        """:meth:`apply` each object, a few at a time (their order among one another does not matter)."""
        if len(objects) <= 1:
            return [self.apply(obj) for obj in objects]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(self.apply, objects))

    def install_crds(self, crds: list[dict] | None = None) -> None:
        """Create the CRDs (KubeVirt's and CDI's own, and VolumeSnapshot) and wait until each is served.

        kube-apiserver builds a CRD's handler on the first request for it (KubeVirt's VMI and VM schemas take the
        longest); asking for them one at a time is faster than all at once (measured: 8 s against 38 s on a loaded
        2-core machine)."""
        crds = crds if crds is not None else self._crds
        self.apply_all(crds, workers=8)
        deadline = time.monotonic() + 60
        for crd in crds:
            name = crd["metadata"]["name"]
            group = crd["spec"]["group"]
            version = next(v["name"] for v in crd["spec"]["versions"] if v.get("storage"))
            plural = crd["spec"]["names"]["plural"]
            while True:
                code, answer = self.request("GET", f"/apis/{group}/{version}/{plural}?limit=1", timeout=30)
                if code == 200:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"CRD {name} not served: {code} {answer}")
                time.sleep(0.05)

    def load_catalog(self, namespaces: tuple[str, ...] = ()) -> int:
        """Create the embedded common-instancetypes catalog (cluster objects, plus namespaced copies)."""
        from kubectl_instancetype.catalog.loader import load_catalog

        catalog = load_catalog()
        objects = list(catalog.instancetypes) + list(catalog.preferences)
        for namespace in namespaces:
            self.ensure_namespace(namespace)
            namespaced = catalog.namespaced(namespace)
            objects += list(namespaced.instancetypes) + list(namespaced.preferences)
        self.apply_all(objects)
        return len(objects)

    def stop(self) -> None:
        """Unregister KubeVirt's webhooks and APIServices, then SIGTERM every process (etcd last), SIGKILL what
        does not stop, and remove the workdir (unless kept)."""
        STOP_SIGNALS.stopping(self)
        if self.components is not None:
            self.components.unregister()
        # The API server's clients first (KWOK, the heartbeat, the scheduler, controllers), then the API server,
        # then etcd: no client logs a storm of refused connections and etcd outlives every write.
        clients = [name for name in self.processes if name not in ("kube-apiserver", "etcd")]
        self._terminate(clients)
        self._terminate(["kube-apiserver"])
        self._terminate(["etcd"])
        if self.workdir and not self.keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
        STOP_SIGNALS.stopped(self)

    def _terminate(self, names: list[str], timeout: float = 15.0) -> None:
        running = []
        for name in names:
            process = self.processes.pop(name, None)
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                running.append(process)
        deadline = time.monotonic() + timeout
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)

    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_PLURALS = {
    "Namespace": "namespaces",
    "Role": "roles",
    "RoleBinding": "rolebindings",
    "ClusterRole": "clusterroles",
    "ClusterRoleBinding": "clusterrolebindings",
    "CustomResourceDefinition": "customresourcedefinitions",
    "PersistentVolumeClaim": "persistentvolumeclaims",
    "ControllerRevision": "controllerrevisions",
    "KubeVirt": "kubevirts",
    "CDI": "cdis",
    "CDIConfig": "cdiconfigs",
    "StorageProfile": "storageprofiles",
    "DataSource": "datasources",
    "DataVolume": "datavolumes",
    "VirtualMachine": "virtualmachines",
    "VirtualMachineInstance": "virtualmachineinstances",
    "VolumeSnapshot": "volumesnapshots",
    "StorageClass": "storageclasses",
}


def _plural(obj: dict) -> str:
    kind = obj["kind"]
    return _PLURALS.get(kind) or kind.lower() + "s"
