"""ScriptedServer: an HTTP/1.1 server double on loopback whose answers a test scripts per connection."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

IDLE_LIMIT = 60.0  # seconds without a connection after which the double stops by itself


class ScriptedServer:
    """Accepts connections on 127.0.0.1; ``handler(conn, requests_seen)`` answers each one in its own thread."""

    def __init__(self, handler: Callable[[socket.socket, list[bytes]], None]):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(IDLE_LIMIT)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: list[bytes] = []
        self.connections = 0
        self.handler = handler
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed, or idle for IDLE_LIMIT
                return
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(IDLE_LIMIT)
        with conn:
            try:
                self.handler(conn, self.requests)
            except OSError:
                pass  # the client went away: nothing to answer

    def close(self) -> None:
        """Stop accepting; connections in progress end with their handler."""
        self.closed.set()
        self.sock.close()


@contextmanager
def scripted_servers() -> Iterator[Callable[[Callable[[socket.socket, list[bytes]], None]], ScriptedServer]]:
    """``start(handler)`` starts a ScriptedServer; every one started is closed when the block ends (a test
    fixture's body: ``with scripted_servers() as start: yield start``)."""
    servers: list[ScriptedServer] = []

    def start(handler: Callable[[socket.socket, list[bytes]], None]) -> ScriptedServer:
        server = ScriptedServer(handler)
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for server in servers:
            server.close()


def read_request(conn: socket.socket) -> bytes:
    """One request's head and Content-Length body (b"" when the client closed the connection)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest


def respond(status: str, body: bytes = b"", headers: dict[str, str] | None = None) -> bytes:
    """A complete HTTP/1.1 response with Content-Length."""
    lines = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in (headers or {}).items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def trickle(conn: socket.socket, data: bytes, interval: float = 1.0, limit: float = 30.0) -> None:
    """Send ``data`` one byte per ``interval`` seconds, for at most ``limit`` seconds (a slow server)."""
    ends = time.monotonic() + limit
    for byte in data:
        if time.monotonic() > ends:
            return
        conn.sendall(bytes([byte]))
        time.sleep(interval)


def serve_each(
    answer: Callable[[bytes, int], bytes], limit: int = 1000
) -> Callable[[socket.socket, list[bytes]], None]:
    """A handler answering every request on a kept-alive connection with ``answer(request, index)``.

    ``index`` counts requests across connections; at most ``limit`` requests are answered per connection.
    """
    counter = [0]
    lock = threading.Lock()

    def handler(conn: socket.socket, seen: list[bytes]) -> None:
        for _ in range(limit):
            request = read_request(conn)
            if not request:
                return
            with lock:
                seen.append(request)
                index = counter[0]
                counter[0] += 1
            conn.sendall(answer(request, index))

    return handler
