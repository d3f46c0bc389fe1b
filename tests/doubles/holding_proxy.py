"""HoldingProxy: a reverse proxy double on loopback in front of the real API server, that forwards every request and
holds back the answer to one of them.

The plugin talks plain HTTP to the proxy (a kubeconfig whose server is ``http://127.0.0.1:PORT``); the proxy sends
each request on to the local control plane over TLS, as the admin, and relays the answer. The ``hold``-th request
whose method and path match and that the API server applies (a 2xx answer: a write refused with 409 because
virt-controller wrote the object first is relayed, and the client retries it) is held: its answer is not relayed, ``held``
is set, and the client waits until the test interrupts it, or sets ``release`` (the answer is relayed then, late).
That makes "the server applied the write, the answer did not arrive before Ctrl-C" and "another writer changed
the object between the server's answer and the client's next look" deterministic. With ``hold=0`` every matching
answer is held: a server that accepts connections and never answers (the fleet's slow context). Every wait is bounded
(``IDLE_LIMIT``)."""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import threading

IDLE_LIMIT = 60.0


class HoldingProxy:
    def __init__(
        self,
        upstream_port: int,
        ca_file: str,
        token: str,
        *,
        method: str,
        path: str,
        hold: int,
    ) -> None:
        self.upstream_port, self.ca_file, self.token = upstream_port, ca_file, token
        self.method, self.path_pattern, self.hold = method, re.compile(path), hold
        self.matched = 0
        self.held = threading.Event()
        self.held_path = ""
        self.release = threading.Event()  # set: the held answer is relayed after all (late, as a slow server's)
        self.closed = False
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.server.settimeout(IDLE_LIMIT)
        self.port = self.server.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.closed = True
        self.release.set()
        self.server.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            conn.settimeout(IDLE_LIMIT)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        try:
            while True:
                request_line = reader.readline(65536)
                if not request_line:
                    return
                method, target, _ = request_line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    line = reader.readline(65536).decode("latin-1")
                    if line in ("\r\n", "\n", ""):
                        break
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = reader.read(int(headers.get("content-length") or 0))
                status, reason, answer_headers, answer = self._forward(method, target, headers, body)
                applied = 200 <= status < 300 or self.hold == 0  # with hold=0 every matching answer is held
                if method == self.method and self.path_pattern.search(target) and applied:
                    self.matched += 1
                    if self.hold in (0, self.matched):  # 0: every matching request (a server that never answers)
                        self.held_path = target
                        self.held.set()  # applied by the server; its answer stays here until released
                        if not self.release.wait(IDLE_LIMIT) or self.closed:
                            return
                head = f"HTTP/1.1 {status} {reason}\r\n"
                for name, value in answer_headers:
                    if name.lower() not in (
                        "transfer-encoding",
                        "content-length",
                        "connection",
                    ):
                        head += f"{name}: {value}\r\n"
                head += f"Content-Length: {len(answer)}\r\n\r\n"
                conn.sendall(head.encode("latin-1") + answer)
        except (OSError, ValueError):
            return
        finally:
            conn.close()

    def _forward(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, list[tuple[str, str]], bytes]:
        context = ssl.create_default_context(cafile=self.ca_file)
        upstream = http.client.HTTPSConnection("127.0.0.1", self.upstream_port, context=context, timeout=IDLE_LIMIT)
        try:
            sent = {
                "Authorization": f"Bearer {self.token}",
                "Accept": headers.get("accept", "application/json"),
            }
            if "content-type" in headers:
                sent["Content-Type"] = headers["content-type"]
            upstream.request(method, target, body=body or None, headers=sent)
            response = upstream.getresponse()
            return (
                response.status,
                response.reason,
                response.getheaders(),
                response.read(),
            )
        finally:
            upstream.close()
