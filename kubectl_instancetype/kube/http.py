"""A minimal HTTP/1.1 client connection over a (TLS) socket: keep-alive, Content-Length and chunked bodies.

``http.client`` imports the ``email`` package to parse headers, which costs more start-up time than a
whole list request to a local API server takes; the API server speaks plain HTTP/1.1, so this small
reader is all the plugin needs. Only what the plugin uses is implemented: one request at a time,
no ``Expect: 100-continue``, no compression, CONNECT tunnels through an HTTP proxy.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any

MAX_LINE = 65536
MAX_HEADERS = 200


class ProtocolError(Exception):
    """The peer did not speak HTTP/1.1 as expected."""


class ServerClosed(ProtocolError):
    """The connection was closed before a response started (a kept-alive connection the server dropped)."""


@dataclass
class Response:
    """A complete response: status, reason, lower-cased headers and the whole body."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


class Connection:
    """One client connection; :meth:`request` may be called repeatedly while the server keeps it open."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        timeout: float | None,
        connect_timeout: float | None = None,
        tls_context: Any = None,
        server_hostname: str | None = None,
        tunnel: tuple[str, int] | None = None,
    ):
        self.host, self.port = host, port
        self.timeout = timeout  # per socket operation once connected; None waits as long as the server takes
        self.connect_timeout = connect_timeout if connect_timeout is not None else timeout
        self.tls_context = tls_context
        self.server_hostname = server_hostname
        self.tunnel = tunnel
        self._sock: socket.socket | None = None
        self._reader: Any = None
        self.reusable = False

    @property
    def target_host(self) -> str:
        """The host the requests are for (the tunnel's far end when proxied)."""
        return self.tunnel[0] if self.tunnel else self.host

    def connect(self) -> None:
        """Open TCP (through the proxy tunnel when configured) and run the TLS handshake."""
        sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.tunnel:
                self._open_tunnel(sock)
            if self.tls_context is not None:
                sock = self.tls_context.wrap_socket(sock, server_hostname=self.server_hostname or self.target_host)
        except BaseException:
            sock.close()
            raise
        sock.settimeout(self.timeout)
        self._sock = sock
        self._reader = sock.makefile("rb")
        self.reusable = True

    def _open_tunnel(self, sock: socket.socket) -> None:
        host, port = self.tunnel
        authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        sock.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode("latin-1"))
        reader = sock.makefile("rb")
        try:
            status, reason = _status_line(reader.readline(MAX_LINE))
            _headers(reader)
        finally:
            reader.close()
        if status != 200:
            raise ProtocolError(f"proxy refused the tunnel to {authority}: {status} {reason}")

    def close(self) -> None:
        """Close the socket."""
        if self._reader is not None:
            self._reader.close()
        if self._sock is not None:
            self._sock.close()
        self._sock = self._reader = None
        self.reusable = False

    def request(self, method: str, target: str, headers: dict[str, str], body: bytes | None = None) -> Response:
        """Send one request and read the whole response."""
        if self._sock is None:
            self.connect()
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.target_host_header()}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body or b'')}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self._sock.sendall(head + body if body else head)
        first = self._reader.readline(MAX_LINE)
        if not first:
            raise ServerClosed("the server closed the connection")
        status, reason = _status_line(first)
        response_headers = _headers(self._reader)
        body_bytes = self._body(method, status, response_headers)
        if response_headers.get("connection", "").lower() == "close":
            self.close()
        return Response(status, reason, response_headers, body_bytes)

    def target_host_header(self) -> str:
        """The Host header value."""
        host = self.target_host
        port = self.tunnel[1] if self.tunnel else self.port
        host = f"[{host}]" if ":" in host else host
        default = 443 if self.tls_context is not None else 80
        return host if port == default else f"{host}:{port}"

    def _body(self, method: str, status: int, headers: dict[str, str]) -> bytes:
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return b""
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._chunked()
        length = headers.get("content-length")
        if length is not None:
            try:
                size = int(length)
            except ValueError as exc:
                raise ProtocolError(f"bad Content-Length {length!r}") from exc
            data = self._reader.read(size)
            if len(data) != size:
                raise ProtocolError(f"the response ended after {len(data)} of {size} bytes")
            return data
        data = self._reader.read()  # no length: the body ends when the server closes
        self.close()
        return data

    def _chunked(self) -> bytes:
        parts = []
        while True:
            line = self._reader.readline(MAX_LINE)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError as exc:
                raise ProtocolError(f"bad chunk size line {line[:40]!r}") from exc
            if size == 0:
                _headers(self._reader)  # trailers
                return b"".join(parts)
            chunk = self._reader.read(size)
            if len(chunk) != size or self._reader.read(2) != b"\r\n":
                raise ProtocolError("the response ended inside a chunk")
            parts.append(chunk)


def _status_line(line: bytes) -> tuple[int, str]:
    if not line:
        raise ServerClosed("the server closed the connection")
    parts = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ProtocolError(f"the server did not answer with HTTP: {line[:60]!r}")
    return int(parts[1]), parts[2] if len(parts) > 2 else ""


def _headers(reader: Any) -> dict[str, str]:
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        line = reader.readline(MAX_LINE)
        if line in (b"\r\n", b"\n", b""):
            return headers
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    raise ProtocolError("too many response headers")
