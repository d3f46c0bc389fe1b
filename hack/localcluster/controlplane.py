"""Start and stop etcd + kube-apiserver on loopback, with token users, RBAC and KubeVirt's CRDs.

Modelled on controller-runtime's envtest: free ports, a temporary directory, ``/readyz`` polling, and on
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
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .crds import all_crds

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO_ROOT / "hack" / "controlplane" / "build.sh"
START_TIMEOUT = 60.0

# Restricted users for RBAC tests. Aggregated roles (view/edit) stay empty without a controller
# manager, so every grant is an explicit rule.
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


class ControlPlaneUnavailable(RuntimeError):
    """The control plane cannot run here (no Go toolchain, build failure); the reason is the message."""


def binaries_dir() -> Path:
    """Build (once per version) and return the directory holding etcd, kube-apiserver and kubectl."""
    if not shutil.which("go"):
        raise ControlPlaneUnavailable("Go is not installed: cannot build kube-apiserver, etcd and kubectl")
    result = subprocess.run(["bash", str(BUILD_SCRIPT)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ControlPlaneUnavailable(f"building the control plane failed: {result.stderr.strip()[-2000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1 (racy by nature, as envtest's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _service_account_key(path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


@dataclass
class ControlPlane:
    """One etcd + kube-apiserver pair. Use as a context manager or call :meth:`start`/:meth:`stop`."""

    workdir: Path | None = None
    bin_dir: Path | None = None
    keep_workdir: bool = False
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    port: int = 0

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
        """Start etcd and kube-apiserver, wait until ready, then install RBAC and CRDs."""
        self.bin_dir = self.bin_dir or binaries_dir()
        self.workdir = Path(self.workdir or tempfile.mkdtemp(prefix="kubectl-instancetype-cp-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._start_processes()
            self._wait_ready()
            self._write_kubeconfigs()
            self._install_rbac()
            self.install_crds()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_processes(self) -> None:
        (self.workdir / "certs").mkdir(exist_ok=True)
        etcd_port, etcd_peer = free_port(), free_port()
        self.port = free_port()
        self.tokens = {"admin": secrets.token_hex(16)} | {user: secrets.token_hex(16) for user in USERS}
        lines = [f"{self.tokens['admin']},admin,uid-admin,system:masters"]
        lines += [f"{self.tokens[user]},{user},uid-{user}" for user in USERS]
        (self.workdir / "tokens.csv").write_text("\n".join(lines) + "\n")
        os.chmod(self.workdir / "tokens.csv", 0o600)
        _service_account_key(self.workdir / "sa.key")
        log = open(self.workdir / "etcd.log", "wb")  # noqa: SIM115 - handed to the child process
        self.processes["etcd"] = subprocess.Popen(
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
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log = open(self.workdir / "kube-apiserver.log", "wb")  # noqa: SIM115 - handed to the child process
        self.processes["kube-apiserver"] = subprocess.Popen(
            [
                str(self.bin_dir / "kube-apiserver"),
                f"--etcd-servers=http://127.0.0.1:{etcd_port}",
                f"--secure-port={self.port}",
                "--bind-address=127.0.0.1",
                f"--cert-dir={self.workdir / 'certs'}",
                f"--token-auth-file={self.workdir / 'tokens.csv'}",
                f"--service-account-issuer=https://127.0.0.1:{self.port}/",
                f"--service-account-key-file={self.workdir / 'sa.key'}",
                f"--service-account-signing-key-file={self.workdir / 'sa.key'}",
                "--service-cluster-ip-range=10.0.0.0/24",
                "--authorization-mode=Node,RBAC",
                "--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtection",
                "--allow-privileged=true",
                "--enable-priority-and-fairness=false",
                "--profiling=false",
                "--v=1",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        (self.workdir / "pids.json").write_text(json.dumps({n: p.pid for n, p in self.processes.items()}))

    def request(
        self, method: str, path: str, body: object = None, token: str | None = None, timeout: float = 10.0
    ) -> tuple[int, dict | None]:
        """One JSON request to the API server as ``token``'s user (admin by default): (status, decoded body)."""
        context = ssl.create_default_context(cafile=str(self.ca_file))
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, context=context, timeout=timeout)
        try:
            headers = {"Authorization": f"Bearer {token or self.tokens['admin']}", "Accept": "application/json"}
            payload = None
            if body is not None:
                payload = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
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
            for name, process in self.processes.items():
                if process.poll() is not None:
                    log = (self.workdir / f"{name}.log").read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"{name} exited with {process.returncode}:\n{log}")
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
            config = {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "local",
                "clusters": [
                    {"name": "local", "cluster": {"server": self.server, "certificate-authority": str(self.ca_file)}}
                ],
                "users": [{"name": user, "user": {"token": self.tokens[user]}}],
                "contexts": [{"name": "local", "context": {"cluster": "local", "user": user, "namespace": namespace}}],
            }
            path = self.kubeconfig(user)
            # YAML, as kubectl writes kubeconfigs: the plugin and the benchmarks take the usual parsing path.
            path.write_text(yaml.safe_dump(config, sort_keys=False))
            os.chmod(path, 0o600)

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

    def delete(self, obj: dict) -> None:
        """Delete ``obj`` (by kind, namespace and name); a missing object is fine."""
        status, answer = self.request("DELETE", f"{self._object_path(obj)}/{obj['metadata']['name']}")
        if status >= 300 and status != 404:
            raise RuntimeError(f"deleting {obj['kind']} {obj['metadata']['name']}: {status} {answer}")

    def get(self, obj: dict) -> dict | None:
        """The server's copy of ``obj``, or None when it does not exist."""
        status, answer = self.request("GET", f"{self._object_path(obj)}/{obj['metadata']['name']}")
        return answer if status == 200 else None

    def ensure_namespace(self, name: str) -> None:
        """Create namespace ``name`` unless it exists (namespaces are never deleted: no controller)."""
        self.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})

    def _install_rbac(self) -> None:
        for user, grants in USERS.items():
            self.ensure_namespace(user)
            for namespace, resources in grants["namespace_rules"].items():
                self.apply(
                    {
                        "apiVersion": "rbac.authorization.k8s.io/v1",
                        "kind": "Role",
                        "metadata": {"name": f"{user}-instancetypes", "namespace": namespace},
                        "rules": [
                            {
                                "apiGroups": ["instancetype.kubevirt.io"],
                                "resources": resources,
                                "verbs": ["get", "list", "watch"],
                            }
                        ],
                    }
                )
                self.apply(
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
                self.apply(
                    {
                        "apiVersion": "rbac.authorization.k8s.io/v1",
                        "kind": "ClusterRole",
                        "metadata": {"name": f"{user}-instancetypes"},
                        "rules": [
                            {
                                "apiGroups": ["instancetype.kubevirt.io"],
                                "resources": grants["cluster_rules"],
                                "verbs": ["get", "list", "watch"],
                            }
                        ],
                    }
                )
                self.apply(
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

    def install_crds(self) -> None:
        """Create KubeVirt's CRDs (and the companions) and wait until each is Established and served."""
        crds = all_crds()
        for crd in crds:
            self.apply(crd)
        deadline = time.monotonic() + 30
        for crd in crds:
            name = crd["metadata"]["name"]
            group, version = crd["spec"]["group"], crd["spec"]["versions"][0]["name"]
            plural = crd["spec"]["names"]["plural"]
            while True:
                _, answer = self.request("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
                conditions = {
                    c["type"]: c["status"] for c in ((answer or {}).get("status") or {}).get("conditions") or []
                }
                if conditions.get("Established") == "True":
                    served, _ = self.request("GET", f"/apis/{group}/{version}/{plural}?limit=1")
                    if served == 200:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"CRD {name} not established: {conditions}")
                time.sleep(0.1)

    def load_catalog(self, namespaces: tuple[str, ...] = ()) -> int:
        """Create the embedded common-instancetypes catalog (cluster objects, plus namespaced copies)."""
        from kubectl_instancetype.catalog.loader import load_catalog

        catalog = load_catalog()
        objects = list(catalog.instancetypes) + list(catalog.preferences)
        for namespace in namespaces:
            self.ensure_namespace(namespace)
            namespaced = catalog.namespaced(namespace)
            objects += list(namespaced.instancetypes) + list(namespaced.preferences)
        for obj in objects:
            self.apply(obj)
        return len(objects)

    def stop(self) -> None:
        """SIGTERM kube-apiserver (it drains), then etcd; SIGKILL what does not stop; remove the workdir."""
        for name in ("kube-apiserver", "etcd"):
            process = self.processes.pop(name, None)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        if self.workdir and not self.keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

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
}


def _plural(obj: dict) -> str:
    kind = obj["kind"]
    return _PLURALS.get(kind) or kind.lower() + "s"
