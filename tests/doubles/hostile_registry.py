"""HostileRegistry: a named test double of an OCI distribution registry (plain HTTP on loopback) whose answers a
test scripts per path, including the hostile ones: bodies without end, bodies that trickle, wrong digests,
configs whose digest would split a request line, token realms over plain HTTP, replies that are not UTF-8 or nest
too deep. Every answer is bounded in time by the double itself (``limit`` seconds), so a test cannot hang."""

from __future__ import annotations

import hashlib
import json
import socket
import time
from collections.abc import Callable
from typing import Any

from .http_server import ScriptedServer, read_request, respond

Answer = Callable[[socket.socket], None]


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


def digest(data: bytes, algorithm: str = "sha256") -> str:
    return f"{algorithm}:" + hashlib.new(algorithm, data).hexdigest()


class HostileRegistry:
    """``routes`` maps a request path (``/v2/...``, or any path for a token realm) to an answer."""

    def __init__(self) -> None:
        self.routes: dict[str, Answer] = {}
        self.requests: list[bytes] = []
        self.server = ScriptedServer(self._handle)

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
        while True:
            request = read_request(conn)
            if not request:
                return
            seen.append(request)
            path = request.split(b" ", 2)[1].decode("latin-1").partition("?")[0]
            answer = self.routes.get(path) or send("404 Not Found", b'{"errors":[{"code":"NOT_FOUND","message":"no"}]}')
            answer(conn)

    def close(self) -> None:
        self.server.close()
