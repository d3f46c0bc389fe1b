"""A named test double for CDI's upload data path: the upload proxy and what CDI's controller does for an upload.

The upload server runs in a pod that CDI's controller starts, and no kubelet runs here; everything before it is
real: the token comes from CDI's real cdi-apiserver (``UploadTokenRequest`` through kube-apiserver's aggregator,
hack/localcluster) and CDI's real webhooks admit the DataVolume. This double stands in for the rest:

* **cdi-uploadproxy** (``pkg/uploadproxy`` of CDI v1.64.0), an HTTPS server for ``HEAD``/``POST
  /v1beta1/upload[-async]``. It checks the token as CDI's proxy does (``handleUploadRequest``): the ``Bearer``
  header (400 without one), the JWT's signature with the **public key of the real cdi-apiserver**, read from the
  Secret ``cdi/cdi-api-signing-key`` (``id_rsa.pub``) as CDI's operator hands it to the proxy
  (``APISERVER_PUBLIC_KEY``), the issuer ``cdi-apiserver`` and the times with 10 s of leeway (``pkg/token``: 401
  otherwise), then the claims (operation ``Upload``, a name, a namespace, resource ``persistentvolumeclaims``: 400
  otherwise), then the claim's PVC (``uploadReady``: 503 when it does not exist, is no upload target or has
  finished uploading; polled up to 10 s for readiness). Then, for the **upload server**: reads exactly
  Content-Length bytes (counting them) and answers 200; ``HEAD`` on the async path answers 200.
* **the controller**: a thread that does what CDI's controllers do to the objects, on the real API server: for an
  upload DataVolume it creates the PVC (labels copied, upload annotations) and moves the DataVolume's status
  (status subresource) to ``UploadReady``; for an upload PVC it sets ``storage.pod.phase: Running`` and
  ``storage.pod.ready: "true"``; after an upload, ``Succeeded`` on both.

Tests script the data path's failures: ``fail_with`` (statuses for the next POSTs), ``hang`` (a proxy that never
answers), ``expire_tokens``/``expire_after_failure`` (tokens the proxy then treats as expired: 401),
``reject_all``, ``never_ready``, ``provisioning_failure``. CDI's populators (the upload going to a PVC prime) are
not modelled: this controller never uses them.

Everything listens on 127.0.0.1, loops are bounded, and the servers stop with :meth:`stop` or after
``lifetime`` seconds.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import json
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CDI_NAMESPACE = "cdi"
SIGNING_KEY_SECRET = "cdi-api-signing-key"  # pkg/apiserver APISigningKeySecretName
PUBLIC_KEY_FIELD = "id_rsa.pub"  # pkg/keys KeyStorePublicKeyFile
TOKEN_ISSUER = "cdi-apiserver"  # pkg/common UploadTokenIssuer
TOKEN_LEEWAY = 10.0  # pkg/uploadproxy uploadTokenLeeway
UPLOAD_PATHS = ("/v1beta1/upload", "/v1beta1/upload-async")
ASYNC_PATH = "/v1beta1/upload-async"
POD_PHASE = "cdi.kubevirt.io/storage.pod.phase"
POD_READY = "cdi.kubevirt.io/storage.pod.ready"
UPLOAD_TARGET = "cdi.kubevirt.io/storage.upload.target"
CONTENT_TYPE = "cdi.kubevirt.io/storage.contentType"
# pkg/uploadproxy authHeaderMatcher
AUTH_HEADER = re.compile(r"Bearer\s+([A-Za-z0-9\-._~+/]+)", re.IGNORECASE)  # matched whole (fullmatch)
# the RSA algorithms go-jose v3 verifies with an RSA public key (asymmetric.go, rsaEncrypterVerifier)
RSA_ALGORITHMS = {
    "RS256": ("sha256", False),
    "RS384": ("sha384", False),
    "RS512": ("sha512", False),
    "PS256": ("sha256", True),
    "PS384": ("sha384", True),
    "PS512": ("sha512", True),
}


def make_certificates(workdir: Path) -> tuple[Path, Path, bytes]:
    """A CA and a serving certificate for cdi-uploadproxy.cdi.svc, localhost and 127.0.0.1: (cert, key, CA PEM)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cdi-upload-double-ca")])
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
    names = [f"cdi-uploadproxy.{CDI_NAMESPACE}.svc", "localhost"]
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


class TokenRefused(Exception):
    """The proxy's answer to a token it does not accept: ``status`` (400 or 401) and why (for the test's record)."""

    def __init__(self, status: int, reason: str, token: str = "") -> None:
        super().__init__(reason)
        self.status = status
        self.token = token


def _b64url(part: str) -> bytes:
    # go-jose's base64URLDecode: padding tolerated, then the raw URL alphabet
    part = part.rstrip("=")
    if not re.fullmatch(r"[A-Za-z0-9_-]*", part):
        raise ValueError("illegal base64 data")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def verify_token(token: str, public_key: Any, now: float | None = None) -> dict[str, Any]:
    """The claims of an upload token CDI's cdi-uploadproxy accepts, else :class:`TokenRefused`.

    ``pkg/token`` Validate (go-jose v3 ``jwt.ParseSigned``, ``Claims(key)``, ``ValidateWithLeeway``) and then
    ``handleUploadRequest``'s checks of the payload.
    """
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    parts = token.split(".")
    if len(parts) != 3:
        raise TokenRefused(401, "compact JWS format must have three parts")
    try:
        header = json.loads(_b64url(parts[0]))
        signature = _b64url(parts[2])
        payload = _b64url(parts[1])
    except (ValueError, binascii.Error) as exc:
        raise TokenRefused(401, f"malformed token: {exc}") from None
    if not isinstance(header, dict):
        raise TokenRefused(401, "malformed header")
    if header.get("crit"):
        raise TokenRefused(401, "unsupported critical header")
    algorithm = RSA_ALGORITHMS.get(header.get("alg"))  # "none", HS256 ...: go-jose refuses them for an RSA key
    if algorithm is None:
        raise TokenRefused(401, f"unsupported algorithm {header.get('alg')!r}")
    digest = {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}[algorithm[0]]()
    scheme = (
        padding.PSS(mgf=padding.MGF1(digest), salt_length=padding.PSS.AUTO)  # Go's rsa.VerifyPSS(..., nil)
        if algorithm[1]
        else padding.PKCS1v15()
    )
    try:
        public_key.verify(signature, f"{parts[0]}.{parts[1]}".encode(), scheme, digest)
    except InvalidSignature:
        raise TokenRefused(401, "crypto/rsa: verification error") from None
    try:
        claims = json.loads(payload)
    except ValueError:
        raise TokenRefused(401, "malformed claims") from None
    if not isinstance(claims, dict):
        raise TokenRefused(401, "malformed claims")
    now = time.time() if now is None else now
    if claims.get("iss") != TOKEN_ISSUER:
        raise TokenRefused(401, "validation failed, invalid issuer claim (iss)")
    times = {}
    for name in ("nbf", "exp", "iat"):
        value = claims.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TokenRefused(401, f"malformed {name}")
        times[name] = int(value)  # go-jose's NumericDate: whole seconds
    if "nbf" in times and now + TOKEN_LEEWAY < times["nbf"]:
        raise TokenRefused(401, "validation failed, token not valid yet (nbf)")
    if "exp" in times and now - TOKEN_LEEWAY > times["exp"]:
        raise TokenRefused(401, "validation failed, token is expired (exp)")
    if "iat" in times and now + TOKEN_LEEWAY < times["iat"]:
        raise TokenRefused(401, "validation failed, token issued in the future (iat)")
    resource = claims.get("resource") or {}
    for field in ("operation", "name", "namespace"):
        if not isinstance(claims.get(field, ""), str):
            raise TokenRefused(401, f"malformed {field}")
    if (
        claims.get("operation") != "Upload"
        or not claims.get("name")
        or not claims.get("namespace")
        or not isinstance(resource, dict)
        or resource.get("resource") != "persistentvolumeclaims"
    ):
        raise TokenRefused(400, "Bad token")
    return claims


def read_public_key(control_plane: Any, timeout: float = 30.0) -> Any:
    """The real cdi-apiserver's token-signing public key, from the Secret it creates at start-up."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    path = f"/api/v1/namespaces/{CDI_NAMESPACE}/secrets/{SIGNING_KEY_SECRET}"
    deadline = time.monotonic() + timeout
    while True:
        status, secret = control_plane.request("GET", path, timeout=5)
        if status == 200 and PUBLIC_KEY_FIELD in ((secret or {}).get("data") or {}):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"cdi-apiserver's {SIGNING_KEY_SECRET} Secret: {status} (is cdi-apiserver running?)")
        time.sleep(0.2)
    key = load_pem_public_key(base64.b64decode(secret["data"][PUBLIC_KEY_FIELD]))
    if not isinstance(key, rsa.RSAPublicKey):  # pkg/controller DecodePublicKey
        raise RuntimeError("PEM does not contain RSA key")
    return key


def _parse_bool(text: str) -> bool:
    """``ready, _ := strconv.ParseBool(pvc.Annotations[cc.AnnPodReady])`` (CDI v1.64.0 pkg/uploadproxy/uploadproxy.go):
    a value ParseBool refuses (``"yes"``, ``"tRuE"``) is false."""
    from kubectl_instancetype.golang.strconv import GoNumError, go_parse_bool

    try:
        return go_parse_bool(text)
    except GoNumError:
        return False


def fingerprint(token: str) -> str:
    """A short name for a token in the double's records (the token itself is a credential)."""
    return hashlib.sha256(token.encode()).hexdigest()[:12]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class CdiUploadDouble:
    """Start with :meth:`start` (needs a started ``hack.localcluster.ControlPlane`` with CDI); stop with
    :meth:`stop`."""

    def __init__(self, control_plane: Any, workdir: Path, lifetime: float = 600.0):
        self.cp = control_plane
        self.workdir = workdir
        self.lifetime = lifetime
        self.ca_file = workdir / "cdi-ca.crt"
        self.public_key: Any = None
        # scripted behaviour of the data path
        self.fail_with: list[int] = []  # statuses for the next POSTs with a valid token, in order (then success)
        self.hang = False  # POSTs get no answer (until stop or hang_limit)
        self.hang_limit = 30.0
        self.async_supported = True
        self.expire_after_failure = False  # a scripted failure also expires every token presented (then 401)
        self.reject_all = False  # every POST gets 401 (a token the proxy never accepts)
        self.never_ready = False  # the controller never reports upload readiness
        self.provisioning_failure = ""  # instead of readiness, a ProvisioningFailed event with this message
        self.complete_processing = True  # set Succeeded after an upload
        self.on_bytes: Any = None  # callable(received) per chunk (tests interrupt through it)
        self.ready_timeout = 10.0  # pkg/uploadproxy waitReadyTime
        # what happened
        self.posts: list[dict[str, Any]] = []  # {path, status, received, length, token, claims, refused}
        self.heads: list[dict[str, Any]] = []  # {path, status, token, refused}
        self.uploaded: dict[tuple[str, str], int] = {}  # (namespace, pvc) from the token's claims -> bytes
        self._seen: set[str] = set()  # tokens presented so far
        self._expired: set[str] = set()  # tokens the proxy treats as expired (scripted)
        self._expired_before = 0.0  # and every token issued before this second
        self._stop = threading.Event()
        self._servers: list[ThreadingHTTPServer] = []
        self._threads: list[threading.Thread] = []
        self.proxy_port = 0

    # -- lifecycle -----------------------------------------------------------------------------------------

    @property
    def proxy_url(self) -> str:
        """The upload proxy's URL (for --uploadproxy-url)."""
        return f"https://127.0.0.1:{self.proxy_port}"

    def start(self) -> CdiUploadDouble:
        """Read cdi-apiserver's public key, start the proxy and the controller."""
        self.public_key = read_public_key(self.cp)
        cert, key, _ = make_certificates(self.workdir)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        proxy = _Server(("127.0.0.1", 0), self._proxy_handler())
        proxy.socket = context.wrap_socket(proxy.socket, server_side=True)
        self._servers.append(proxy)
        self._spawn(proxy.serve_forever, 0.2)
        self.proxy_port = proxy.server_address[1]
        self._spawn(self._controller)
        self._spawn(self._lifetime_guard)
        return self

    def _spawn(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _lifetime_guard(self) -> None:
        self._stop.wait(self.lifetime)
        self.stop()

    def stop(self) -> None:
        """Stop the proxy and the controller (idempotent)."""
        self._stop.set()
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def expire_tokens(self) -> None:
        """Every token presented so far, and every token issued before this second, stops working (as CDI's
        5-minute tokens expire): the proxy answers 401. (A token issued within this second and not yet presented
        cannot be told from a later one: it still works.)"""
        self._expired |= self._seen
        self._expired_before = float(int(time.time()))

    # -- cdi-uploadproxy ------------------------------------------------------------------------------------

    def check(self, authorization: str | None) -> tuple[str, dict[str, Any]]:
        """The token and its claims, as CDI's proxy checks them (:class:`TokenRefused` otherwise), and the
        scripted expiry."""
        if not authorization:
            raise TokenRefused(400, "no Authorization header")
        match = AUTH_HEADER.fullmatch(authorization)
        if match is None:
            raise TokenRefused(400, "Authorization is not a bearer token")
        token = match.group(1)
        claims = verify_token(token, self.public_key)
        self._seen.add(token)
        if token in self._expired or float(claims.get("iat", 0)) < self._expired_before:
            raise TokenRefused(401, "validation failed, token is expired (exp) (scripted)", token)
        return token, claims

    def upload_ready(self, namespace: str, name: str) -> str:
        """``uploadReady``: "" when the claim's PVC takes an upload, else why not (the proxy answers 503 with it)."""
        path = f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}"
        deadline = time.monotonic() + self.ready_timeout
        while True:
            status, pvc = self.cp.request("GET", path, timeout=5)
            if status == 404:
                return f"rejecting Upload Request for PVC {name} that doesn't exist"
            if status != 200:
                return f"the server answered {status} for PVC {name}"
            annotations = (pvc or {}).get("metadata", {}).get("annotations") or {}
            if UPLOAD_TARGET not in annotations:
                return f"PVC {name} is not an upload target"
            if annotations.get(POD_PHASE) == "Succeeded":
                return f"rejecting Upload Request for PVC {name} that already finished uploading"
            if _parse_bool(annotations.get(POD_READY, "")):
                return ""
            if time.monotonic() > deadline or self._stop.wait(1.0):
                return "context deadline exceeded"

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
                if self.command != "HEAD":
                    self.wfile.write(body)

            @staticmethod
            def _refusal(record: dict[str, Any]) -> str:
                """The body CDI's proxy sends with a refusal: none for 400/401 (a bare WriteHeader), the reason,
                escaped as Go's html.EscapeString does, for 503."""
                if record["status"] != 503:
                    return ""
                text = record["refused"]
                for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&#39;"), ('"', "&#34;")):
                    text = text.replace(raw, escaped)
                return text

            def _admit(self, record: dict[str, Any]) -> tuple[str, str] | None:
                """CDI's proxy's checks of the token and the PVC; the (namespace, pvc) to upload to, or None once
                it has answered."""
                try:
                    token, claims = double.check(self.headers.get("Authorization"))
                except TokenRefused as refused:
                    record.update(status=refused.status, refused=str(refused))
                    if refused.token:
                        record["token"] = fingerprint(refused.token)
                    return None
                record.update(token=fingerprint(token), claims=claims)
                why = double.upload_ready(claims["namespace"], claims["name"])
                if why:
                    record.update(status=503, refused=why)
                    return None
                return claims["namespace"], claims["name"]

            def do_HEAD(self) -> None:
                path = self.path.split("?")[0]
                record: dict[str, Any] = {"path": path, "status": 0, "token": None, "refused": ""}
                double.heads.append(record)
                if path not in UPLOAD_PATHS:
                    record["status"] = 404
                elif self._admit(record) is not None:
                    # the upload server answers HEAD on its async path only (pkg/uploadserver uploadHandlerAsync)
                    record["status"] = 200 if path == ASYNC_PATH and double.async_supported else 404
                self._answer(record["status"], self._refusal(record) if record["status"] != 200 else "")

            def do_POST(self) -> None:
                path = self.path.split("?")[0]
                length = int(self.headers.get("Content-Length") or -1)
                record: dict[str, Any] = {
                    "path": path,
                    "length": length,
                    "received": 0,
                    "status": 0,
                    "token": None,
                    "claims": None,
                    "refused": "",
                }
                double.posts.append(record)
                if path not in UPLOAD_PATHS or length < 0:
                    record["status"] = 400
                    self._answer(400, "bad request")
                    self.close_connection = True
                    return
                if double.hang:
                    double._stop.wait(double.hang_limit)
                    self.close_connection = True
                    return
                target = self._admit(record)
                if target is not None and double.reject_all:
                    record.update(status=401, refused="scripted: every token refused")
                    target = None
                if target is None:
                    self._drain(length)
                    self._answer(record["status"], self._refusal(record))
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
