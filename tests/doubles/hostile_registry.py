"""HostileRegistry: a named test double of an OCI distribution registry (plain HTTP on loopback, or HTTPS with a
certificate for 127.0.0.1 from :func:`loopback_certificate`, then plain HTTP too on the same port for a client that
sends no TLS handshake) whose answers a test scripts per path, including the hostile ones: bodies without end,
bodies that trickle, wrong digests, configs whose digest would split a request line, token realms over plain HTTP,
redirects from HTTPS to plain HTTP, replies that are not UTF-8 or nest too deep. Every answer is bounded in time
by the double itself (``limit`` seconds), so a test cannot hang."""

from __future__ import annotations

import hashlib
import json
import socket
import ssl
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .http_server import ScriptedServer, read_request, respond

Answer = Callable[[socket.socket], None]
# net/http's (*conn).serve answer to a request line it cannot parse
GO_BAD_REQUEST = (
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"
)


def send(status: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Answer:
    return lambda conn: conn.sendall(respond(status, body, headers))


def endless(limit: float = 20.0, chunked: bool = False) -> Answer:
    """A 200 whose body never ends (until ``limit`` seconds or the client goes)."""

    def answer(conn: socket.socket) -> None:
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else "Connection: close\r\n\r\n"
        conn.sendall(head.encode())
        block = b"[" * 65536
        ends = time.monotonic() + limit
        while time.monotonic() < ends:
            conn.sendall(b"10000\r\n" + block + b"\r\n" if chunked else block)

    return answer


def trickling(limit: float = 30.0) -> Answer:
    """A 200 whose body comes one byte every half second (never faster than any per-read timeout)."""

    def answer(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        ends = time.monotonic() + limit
        while time.monotonic() < ends:
            conn.sendall(b"{")
            time.sleep(0.5)

    return answer


def loopback_certificate(workdir: Path) -> tuple[Path, Path]:
    """A self-signed certificate (and its key) for ``127.0.0.1``, from the ``openssl`` command line; the
    certificate is its own CA (a client trusts it with ``SSL_CERT_FILE``)."""
    cert, key = workdir / "registry-cert.pem", workdir / "registry-key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def digest(data: bytes, algorithm: str = "sha256") -> str:
    return f"{algorithm}:" + hashlib.new(algorithm, data).hexdigest()


class HostileRegistry:
    """``routes`` maps a request path (``/v2/...``, or any path for a token realm) to an answer."""

    def __init__(self, tls: tuple[Path, Path] | None = None) -> None:
        """``tls``: a certificate and key (:func:`loopback_certificate`) to serve HTTPS with."""
        self.routes: dict[str, Answer] = {}
        self.tls: ssl.SSLContext | None = None
        if tls is not None:
            self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls.load_cert_chain(str(tls[0]), str(tls[1]))
        self.handshakes = 0  # TLS handshakes refused (or failed, over HTTPS)
        self.token_realm = ""  # when set, /v2/ answers 401 with a Bearer challenge to requests without the token
        self.token = ""
        self.basic = False  # when set, /v2/ answers 401 with a Basic challenge to requests without credentials
        self.server = ScriptedServer(self._handle)

    @property
    def requests(self) -> list[bytes]:
        """Every request received, head and body, in order."""
        return self.server.requests

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def image(self, repository: str, config: dict[str, Any], *, config_digest: str | None = None) -> bytes:
        """Serve a manifest (tag ``t``) naming ``config``; returns the manifest's bytes."""
        config_bytes = json.dumps(config).encode()
        named = config_digest or digest(config_bytes)
        manifest = json.dumps(
            {
                "schemaVersion": 2,
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": named, "size": 1},
                "layers": [],
            }
        ).encode()
        self.routes[f"/v2/{repository}/manifests/t"] = send(
            "200 OK", manifest, {"Docker-Content-Digest": "sha256:" + "0" * 64}
        )
        self.routes[f"/v2/{repository}/manifests/{digest(manifest)}"] = send("200 OK", manifest)
        self.routes[f"/v2/{repository}/manifests/{digest(manifest, 'sha512')}"] = send("200 OK", manifest)
        self.routes[f"/v2/{repository}/blobs/{named}"] = send("200 OK", config_bytes)
        return manifest

    def _handle(self, conn: socket.socket, seen: list[bytes]) -> None:
        handshake = conn.recv(1, socket.MSG_PEEK) == b"\x16"
        if self.tls is not None and handshake:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                self.handshakes += 1  # a client that does not trust the certificate
                return
        elif handshake:
            # A TLS handshake (an insecure registry's client tries HTTPS first): answer as Go's net/http answers
            # the ClientHello it cannot parse as a request line, and close.
            self.handshakes += 1
            conn.sendall(GO_BAD_REQUEST)
            return
        while True:
            request = read_request(conn)
            if not request:
                return
            seen.append(request)
            path = request.split(b" ", 2)[1].decode("latin-1").partition("?")[0]
            if self.basic and path.startswith("/v2/") and b"authorization: basic " not in request.lower():
                challenge = 'Basic realm="hostile"'
                send("401 Unauthorized", b'{"errors":[{"code":"UNAUTHORIZED"}]}', {"WWW-Authenticate": challenge})(conn)
                continue
            if self.token_realm and path.startswith("/v2/") and f"bearer {self.token}".encode() not in request.lower():
                challenge = f'Bearer realm="{self.token_realm}",service="hostile",scope="repository:r:pull"'
                send("401 Unauthorized", b'{"errors":[{"code":"UNAUTHORIZED"}]}', {"WWW-Authenticate": challenge})(conn)
                continue
            answer = self.routes.get(path) or send("404 Not Found", b'{"errors":[{"code":"NOT_FOUND","message":"no"}]}')
            answer(conn)

    def require_token(self, realm: str, token: str = "t0ken") -> None:
        """Answer ``/v2/`` requests without ``Authorization: Bearer TOKEN`` with a challenge naming ``realm``."""
        self.token_realm, self.token = realm, token.lower()

    def close(self) -> None:
        self.server.close()
