"""A named test double for CDI's upload path: the token API (aggregated), the upload proxy and the controller.

CDI cannot run here (no pods, no storage), so this double speaks its protocol on loopback:

* **cdi-api**, an HTTPS server that the real kube-apiserver reaches through **API aggregation**: an
  ``APIService`` ``v1beta1.upload.cdi.kubevirt.io`` names the Service ``cdi/cdi-api``, a Service of type
  ``ExternalName`` (``localhost``) whose port is the double's. kube-apiserver's aggregator resolves an
  ExternalName Service to ``https://<externalName>:<port>`` (k8s.io/apiserver ``ResolveCluster``) and verifies the
  double's certificate against the APIService's ``caBundle`` for ``cdi-api.cdi.svc``. So
  ``POST /apis/upload.cdi.kubevirt.io/v1beta1/namespaces/NS/uploadtokenrequests`` goes through the real API
  server (authentication, RBAC, the aggregator's proxy) exactly as on a cluster; the double answers with
  the request and ``status.token``, as CDI's ``uploadHandler`` does.
* **cdi-uploadproxy**, an HTTPS server for ``HEAD``/``POST /v1beta1/upload[-async]``: checks
  ``Authorization: Bearer <token>`` (401 otherwise), reads exactly Content-Length bytes (counting them), and
  answers 200; tests script failures (``fail_with``), expired tokens (``expire_tokens``) and a proxy that
  never answers (``hang``).
* **the controller**: a thread that does what CDI's controllers do to the objects, on the real API server:
  for an upload DataVolume it creates the PVC (labels copied, upload annotations) and moves the DataVolume's
  status (status subresource) to ``UploadReady``; for an upload PVC it sets ``storage.pod.phase: Running`` and
  ``storage.pod.ready: "true"``; after an upload, ``Succeeded`` on both.

On the test plane the real cdi-apiserver (hack/localcluster) serves that APIService too: the double takes it over
while it runs (its proxy only knows its own tokens) and gives it back on :meth:`stop`.

Everything listens on 127.0.0.1, loops are bounded, and the servers stop with :meth:`stop` or after
``lifetime`` seconds.
"""

from __future__ import annotations

import base64
import datetime
import json
import secrets
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

GROUP = "upload.cdi.kubevirt.io"
SERVICE_NAMESPACE, SERVICE_NAME = "cdi", "cdi-api"
POD_PHASE = "cdi.kubevirt.io/storage.pod.phase"
POD_READY = "cdi.kubevirt.io/storage.pod.ready"
UPLOAD_TARGET = "cdi.kubevirt.io/storage.upload.target"
CONTENT_TYPE = "cdi.kubevirt.io/storage.contentType"


def make_certificates(workdir: Path) -> tuple[Path, Path, bytes]:
    """A CA and a serving certificate for cdi-api.cdi.svc, localhost and 127.0.0.1: (cert, key, CA PEM)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cdi-double-ca")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names = [f"{SERVICE_NAME}.{SERVICE_NAMESPACE}.svc", "localhost"]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(n) for n in names] + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_path, key_path, ca_path = workdir / "cdi.crt", workdir / "cdi.key", workdir / "cdi-ca.crt"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    ca_pem = ca.public_bytes(serialization.Encoding.PEM)
    ca_path.write_bytes(ca_pem)
    return cert_path, key_path, ca_pem


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class CdiUploadDouble:
    """Start with :meth:`start` (needs a started ``hack.localcluster.ControlPlane``); stop with :meth:`stop`."""

    def __init__(self, control_plane: Any, workdir: Path, lifetime: float = 600.0):
        self.cp = control_plane
        self.workdir = workdir
        self.lifetime = lifetime
        self.ca_file = workdir / "cdi-ca.crt"
        # scripted behaviour
        self.fail_with: list[int] = []  # statuses for the next POSTs, in order (then success)
        self.hang = False  # POSTs get no answer (until stop or hang_limit)
        self.hang_limit = 30.0
        self.async_supported = True
        self.expire_after_failure = False  # a scripted failure also expires every token issued (then 401)
        self.reject_all = False  # every POST gets 401 (a token the proxy never accepts)
        self.never_ready = False  # the controller never reports upload readiness
        self.provisioning_failure = ""  # instead of readiness, a ProvisioningFailed event with this message
        self.complete_processing = True  # set Succeeded after an upload
        self.on_bytes: Any = None  # callable(received) per chunk (tests interrupt through it)
        # what happened
        self.token_requests: list[dict[str, Any]] = []  # {namespace, pvcName, user}
        self.valid_tokens: dict[str, tuple[str, str]] = {}  # token -> (namespace, pvc)
        self.posts: list[dict[str, Any]] = []  # {path, status, received, length}
        self.heads = 0
        self.uploaded: dict[tuple[str, str], int] = {}  # (namespace, pvc) -> bytes
        self._stop = threading.Event()
        self._replaced: dict[str, Any] | None = None  # the APIService this double took over, given back on stop
        self._servers: list[ThreadingHTTPServer] = []
        self._threads: list[threading.Thread] = []
        self.api_port = self.proxy_port = 0

    # -- lifecycle -----------------------------------------------------------------------------------------

    @property
    def proxy_url(self) -> str:
        """The upload proxy's URL (for --uploadproxy-url)."""
        return f"https://127.0.0.1:{self.proxy_port}"

    def start(self) -> CdiUploadDouble:
        """Start both servers and the controller, register the APIService and wait until it is Available."""
        cert, key, ca_pem = make_certificates(self.workdir)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        api = _Server(("127.0.0.1", 0), self._api_handler())
        proxy = _Server(("127.0.0.1", 0), self._proxy_handler())
        for server in (api, proxy):
            server.socket = context.wrap_socket(server.socket, server_side=True)
            self._servers.append(server)
            self._spawn(server.serve_forever, 0.2)
        self.api_port, self.proxy_port = api.server_address[1], proxy.server_address[1]
        self._spawn(self._controller)
        self._spawn(self._lifetime_guard)
        self._register(ca_pem)
        return self

    def _spawn(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _lifetime_guard(self) -> None:
        self._stop.wait(self.lifetime)
        self.stop()

    def stop(self) -> None:
        """Unregister the APIService (an unavailable aggregated API would trouble discovery in later tests),
        then stop the servers and the controller (idempotent)."""
        if not self._stop.is_set() and self._servers:
            try:
                self._unregister()
            except Exception:  # the control plane may already be gone
                pass
        self._stop.set()
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def _unregister(self) -> None:
        """Delete this double's APIService, or give back the registration it replaced (the real cdi-apiserver's).
        kube-apiserver's aggregator takes the port of an ExternalName service from the APIService, so the one
        ``cdi/cdi-api`` Service serves both."""
        path = f"/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.{GROUP}"
        if self._replaced is None:
            self.cp.request("DELETE", path, timeout=5)
            return
        _, live = self.cp.request("GET", path, timeout=5)
        body = dict(self._replaced)
        body["metadata"] = {
            **body["metadata"],
            "resourceVersion": (live or {}).get("metadata", {}).get("resourceVersion"),
        }
        self.cp.request("PUT", path, body, timeout=5)

    def _register(self, ca_pem: bytes) -> None:
        cp = self.cp
        cp.ensure_namespace(SERVICE_NAMESPACE)
        cp.apply(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": SERVICE_NAME, "namespace": SERVICE_NAMESPACE},
                "spec": {
                    "type": "ExternalName",
                    "externalName": "localhost",
                    "ports": [{"port": self.api_port, "protocol": "TCP"}],
                },
            }
        )
        name = f"v1beta1.{GROUP}"
        body = {
            "apiVersion": "apiregistration.k8s.io/v1",
            "kind": "APIService",
            "metadata": {"name": name},
            "spec": {
                "group": GROUP,
                "version": "v1beta1",
                "groupPriorityMinimum": 1000,
                "versionPriority": 15,
                "caBundle": base64.b64encode(ca_pem).decode(),
                "service": {"namespace": SERVICE_NAMESPACE, "name": SERVICE_NAME, "port": self.api_port},
            },
        }
        path = f"/apis/apiregistration.k8s.io/v1/apiservices/{name}"
        status, current = cp.request("GET", path)
        if status == 200 and self._replaced is None:
            # the real cdi-apiserver's registration: given back by stop()
            self._replaced = {k: current[k] for k in ("apiVersion", "kind", "spec")}
            self._replaced["metadata"] = {"name": name, "labels": current["metadata"].get("labels") or {}}
        if status == 200:  # a double from an earlier test: point the APIService at this one
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            status, answer = cp.request("PUT", path, body)
        else:
            status, answer = cp.request("POST", "/apis/apiregistration.k8s.io/v1/apiservices", body)
        if status >= 300:
            raise RuntimeError(f"registering the APIService: {status} {answer}")
        deadline = time.monotonic() + 60
        probe = f"/apis/{GROUP}/v1beta1"
        while time.monotonic() < deadline:
            status, answer = cp.request("GET", probe, timeout=5)
            if status == 200 and (answer or {}).get("groupVersion") == f"{GROUP}/v1beta1":
                return
            time.sleep(0.2)
        _, service = cp.request("GET", path)
        raise RuntimeError(f"the aggregated upload API did not become available: {status} {answer}; {service}")

    # -- the aggregated API (cdi-api) ----------------------------------------------------------------------

    def _api_handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, status: int, obj: Any) -> None:
                body = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                group_version = {"groupVersion": f"{GROUP}/v1beta1", "version": "v1beta1"}
                if self.path.split("?")[0] in ("/apis", "/apis/"):
                    group = {"name": GROUP, "versions": [group_version], "preferredVersion": group_version}
                    self._json(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [group]})
                elif self.path.split("?")[0] == f"/apis/{GROUP}/v1beta1":
                    resource = {
                        "name": "uploadtokenrequests",
                        "singularName": "uploadtokenrequest",
                        "namespaced": True,
                        "kind": "UploadTokenRequest",
                        "verbs": ["create"],
                        "shortNames": ["utr", "utrs"],
                    }
                    self._json(
                        200,
                        {
                            "kind": "APIResourceList",
                            "apiVersion": "v1",
                            "groupVersion": f"{GROUP}/v1beta1",
                            "resources": [resource],
                        },
                    )
                else:
                    self._json(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404})

            def do_POST(self) -> None:
                parts = self.path.split("?")[0].strip("/").split("/")
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                # /apis/upload.cdi.kubevirt.io/v1beta1/namespaces/NS/uploadtokenrequests
                if len(parts) != 6 or parts[:3] != ["apis", GROUP, "v1beta1"] or parts[5] != "uploadtokenrequests":
                    self._json(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404})
                    return
                user = self.headers.get("X-Remote-User")
                if not user:  # only the aggregator's proxy sends it: nothing else may ask for tokens
                    self._json(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 401})
                    return
                request = json.loads(raw or b"{}")
                namespace, pvc = parts[4], (request.get("spec") or {}).get("pvcName", "")
                token = secrets.token_urlsafe(24)
                double.valid_tokens[token] = (namespace, pvc)
                double.token_requests.append({"namespace": namespace, "pvcName": pvc, "user": user})
                metadata = dict(request.get("metadata") or {})
                request["status"] = {"token": token}
                request["metadata"] = metadata
                self._json(200, request)

        return Handler

    def expire_tokens(self) -> None:
        """Every token issued so far stops working (as CDI's 5-minute tokens expire)."""
        self.valid_tokens.clear()

    # -- the upload proxy ----------------------------------------------------------------------------------

    def _proxy_handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _drain(self, length: int) -> int:
                """Read the request body (an answer before it would reset a client still sending)."""
                received = 0
                while received < length:
                    chunk = self.rfile.read(min(1 << 16, length - received))
                    if not chunk:
                        break
                    received += len(chunk)
                return received

            def _answer(self, status: int, text: str = "") -> None:
                body = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _target(self) -> tuple[str, str] | None:
                auth = self.headers.get("Authorization", "")
                if not auth.startswith("Bearer "):
                    return None
                return double.valid_tokens.get(auth[len("Bearer ") :])

            def do_HEAD(self) -> None:
                double.heads += 1
                path = self.path.split("?")[0]
                ok = path == "/v1beta1/upload-async" and double.async_supported and self._target() is not None
                self.send_response(200 if ok else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                path = self.path.split("?")[0]
                length = int(self.headers.get("Content-Length") or -1)
                record = {"path": path, "length": length, "received": 0, "status": 0}
                double.posts.append(record)
                if path not in ("/v1beta1/upload", "/v1beta1/upload-async") or length < 0:
                    record["status"] = 400
                    self._answer(400, "bad request")
                    self.close_connection = True
                    return
                if double.hang:
                    double._stop.wait(double.hang_limit)
                    self.close_connection = True
                    return
                target = None if double.reject_all else self._target()
                if target is None:
                    record["status"] = 401
                    self._drain(length)
                    self._answer(401, "Unauthorized")
                    self.close_connection = True
                    return
                if double.fail_with:
                    status = double.fail_with.pop(0)
                    if double.expire_after_failure:
                        double.expire_tokens()
                    record["status"] = status
                    self._drain(length)
                    self._answer(status, "upload server error")
                    self.close_connection = True
                    return
                received = 0
                while received < length:
                    chunk = self.rfile.read(min(1 << 16, length - received))
                    if not chunk:
                        break
                    received += len(chunk)
                    record["received"] = received
                    if double.on_bytes is not None:
                        double.on_bytes(received)
                if received != length:
                    record["status"] = 400
                    return  # the client went away mid-body
                record["status"] = 200
                double.uploaded[target] = received
                self._answer(200)

        return Handler

    # -- the controller ------------------------------------------------------------------------------------

    def _controller(self) -> None:
        while not self._stop.wait(0.1):
            try:
                self._reconcile()
            except Exception:
                continue

    def _reconcile(self) -> None:
        cp = self.cp
        _, dvs = cp.request("GET", "/apis/cdi.kubevirt.io/v1beta1/datavolumes", timeout=5)
        for dv in (dvs or {}).get("items") or []:
            if "upload" not in ((dv.get("spec") or {}).get("source") or {}):
                continue
            meta = dv["metadata"]
            namespace, name = meta["namespace"], meta["name"]
            phase = (dv.get("status") or {}).get("phase")
            if not phase:
                self._create_dv_pvc(dv)
                waiting = "Pending" if self.provisioning_failure else "UploadScheduled"
                self._dv_status(
                    namespace, name, waiting if self.never_ready or self.provisioning_failure else "UploadReady"
                )
            elif phase == "UploadReady" and self.complete_processing and (namespace, name) in self.uploaded:
                self._dv_status(namespace, name, "Succeeded", "100.0%")
        _, pvcs = cp.request("GET", "/api/v1/persistentvolumeclaims", timeout=5)
        for pvc in (pvcs or {}).get("items") or []:
            meta = pvc["metadata"]
            annotations = meta.get("annotations") or {}
            if UPLOAD_TARGET not in annotations:
                continue
            key = (meta["namespace"], meta["name"])
            patch: dict[str, str] = {}
            if self.provisioning_failure and POD_PHASE not in annotations:
                self._provisioning_failed(pvc)
            elif POD_PHASE not in annotations and not self.never_ready:
                patch = {POD_PHASE: "Running", POD_READY: "true"}
            elif annotations.get(POD_PHASE) == "Running" and self.complete_processing and key in self.uploaded:
                patch = {POD_PHASE: "Succeeded", POD_READY: "false"}
            if patch:
                self.merge_patch(
                    f"/api/v1/namespaces/{key[0]}/persistentvolumeclaims/{key[1]}",
                    {"metadata": {"annotations": patch}},
                )

    def _provisioning_failed(self, pvc: dict[str, Any]) -> None:
        """The event a CSI provisioner records when it cannot provision the claim (once per PVC)."""
        meta = pvc["metadata"]
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{meta['name']}.provisioning", "namespace": meta["namespace"]},
            "involvedObject": {
                "kind": "PersistentVolumeClaim",
                "namespace": meta["namespace"],
                "name": meta["name"],
                "uid": meta["uid"],
                "apiVersion": "v1",
            },
            "reason": "ProvisioningFailed",
            "message": self.provisioning_failure,
            "type": "Warning",
            "source": {"component": "cdi-double"},
        }
        self.cp.apply(event)

    def _create_dv_pvc(self, dv: dict[str, Any]) -> None:
        meta = dv["metadata"]
        storage = (dv.get("spec") or {}).get("storage") or {}
        spec: dict[str, Any] = {
            "accessModes": storage.get("accessModes") or ["ReadWriteOnce"],
            "resources": storage.get("resources") or {"requests": {"storage": "1Gi"}},
        }
        for field in ("storageClassName", "volumeMode"):
            if field in storage:
                spec[field] = storage[field]
        pvc = {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": meta["name"],
                "namespace": meta["namespace"],
                "labels": dict(meta.get("labels") or {}),  # CDI propagates the DataVolume's labels
                "annotations": {
                    UPLOAD_TARGET: "",
                    CONTENT_TYPE: (dv.get("spec") or {}).get("contentType") or "kubevirt",
                },
                "ownerReferences": [
                    {
                        "apiVersion": "cdi.kubevirt.io/v1beta1",
                        "kind": "DataVolume",
                        "name": meta["name"],
                        "uid": meta["uid"],
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": spec,
        }
        self.cp.apply(pvc)

    def _dv_status(self, namespace: str, name: str, phase: str, progress: str = "N/A") -> None:
        self.merge_patch(
            f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{namespace}/datavolumes/{name}/status",
            {"status": {"phase": phase, "progress": progress, "claimName": name}},
        )

    def merge_patch(self, path: str, body: dict[str, Any]) -> None:
        import http.client

        context = ssl.create_default_context(cafile=str(self.cp.ca_file))
        connection = http.client.HTTPSConnection("127.0.0.1", self.cp.port, context=context, timeout=5)
        try:
            connection.request(
                "PATCH",
                path,
                body=json.dumps(body).encode(),
                headers={
                    "Authorization": f"Bearer {self.cp.tokens['admin']}",
                    "Content-Type": "application/merge-patch+json",
                },
            )
            connection.getresponse().read()
        finally:
            connection.close()
