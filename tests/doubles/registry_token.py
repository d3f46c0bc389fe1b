"""A named test double: the token service of the Docker registry token authentication protocol, on loopback.

The real CNCF distribution registry (hack/registry) is configured with ``auth.token`` pointing at this service;
it answers ``GET /token?service=...&scope=repository:NAME:pull`` with an RS256 JWT whose ``x5c`` header carries
a self-signed certificate that the registry trusts (``rootcertbundle``). Repositories under ``private/`` need
HTTP Basic credentials (``USER``/``PASSWORD``); the others are anonymous, as on public registries. Keys and
signatures come from the ``openssl`` command line. Serves on 127.0.0.1 only and shuts itself down after
``lifetime`` seconds.
"""

from __future__ import annotations

import base64
import json
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

USER, PASSWORD = "puller", "s3cret"
ISSUER = "kubectl-instancetype-test-token-issuer"
SERVICE = "kubectl-instancetype-test-registry"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TokenService:
    """Start with :meth:`start`; ``realm`` is the URL to configure; ``requests`` records (scope, user) of the
    requests that passed the credential check, ``heard`` every request."""

    def __init__(self, workdir: Path, lifetime: float = 600.0):
        self.workdir = workdir
        self.key = workdir / "token-key.pem"
        self.cert = workdir / "token-cert.pem"
        self.lifetime = lifetime
        self.requests: list[tuple[str, str]] = []
        self.heard: list[str] = []  # every request's target and Authorization header, before any check
        self._server: ThreadingHTTPServer | None = None

    @property
    def realm(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/token"

    def start(self) -> TokenService:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(self.key), "-out",
             str(self.cert), "-days", "2", "-subj", "/CN=kubectl-instancetype test token signer"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        der = subprocess.run(
            ["openssl", "x509", "-in", str(self.cert), "-outform", "DER"], check=True, capture_output=True, timeout=30
        ).stdout
        x5c = base64.b64encode(der).decode()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                service.heard.append(f"{self.path} {self.headers.get('Authorization', '')}".strip())
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                scope = (query.get("scope") or [""])[0]
                user = ""
                header = self.headers.get("Authorization", "")
                if header.startswith("Basic "):
                    user, _, password = base64.b64decode(header[6:]).decode().partition(":")
                    if (user, password) != (USER, PASSWORD):
                        return self._answer(401, {"details": "wrong credentials"})
                service.requests.append((scope, user))
                parts = scope.split(":")
                if url.path != "/token" or len(parts) != 3 or parts[0] != "repository":
                    return self._answer(400, {"details": f"bad request {self.path}"})
                if parts[1].startswith("private/") and not user:
                    return self._answer(401, {"details": "credentials required"})
                now = int(time.time())
                claims = {
                    "iss": ISSUER, "sub": user, "aud": SERVICE, "exp": now + 300, "nbf": now - 10, "iat": now,
                    "jti": f"{now}-{len(service.requests)}",
                    "access": [{"type": "repository", "name": parts[1], "actions": ["pull"]}],
                }  # fmt: skip
                head = _b64(json.dumps({"alg": "RS256", "typ": "JWT", "x5c": [x5c]}).encode())
                body = _b64(json.dumps(claims).encode())
                signature = subprocess.run(
                    ["openssl", "dgst", "-sha256", "-sign", str(service.key)],
                    input=f"{head}.{body}".encode(), check=True, capture_output=True, timeout=30,
                ).stdout  # fmt: skip
                self._answer(200, {"token": f"{head}.{body}.{_b64(signature)}", "expires_in": 300})

            def _answer(self, status: int, document: dict) -> None:
                data = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        timer = threading.Timer(self.lifetime, self.stop)
        timer.daemon = True  # never keeps the test process alive
        timer.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
