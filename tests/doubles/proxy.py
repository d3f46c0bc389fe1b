"""TunnellingProxy: an HTTP CONNECT proxy double on loopback that relays bytes, optionally requiring credentials."""

from __future__ import annotations

import socket
import threading

IDLE_LIMIT = 60.0


class TunnellingProxy:
    """A minimal CONNECT proxy. With ``credentials`` ("user:password") it answers 407 unless
    ``Proxy-Authorization: Basic ...`` carries exactly them, as Squid does with basic auth."""

    def __init__(self, credentials: str | None = None, hosts: dict[str, str] | None = None) -> None:
        self.credentials = credentials
        # Names the proxy resolves itself (the client never looks them up), like a proxy's own DNS.
        self.hosts = {"127.0.0.1": "127.0.0.1"} | (hosts or {})
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.server.settimeout(IDLE_LIMIT)
        self.port = self.server.getsockname()[1]
        self.tunnels: list[str] = []
        self.refused: list[str] = []
        self.authorizations: list[str | None] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(client,), daemon=True).start()

    def _authorized(self, header: str | None) -> bool:
        if self.credentials is None:
            return True
        import base64

        if not header or not header.startswith("Basic "):
            return False
        try:
            return base64.b64decode(header[6:]).decode() == self.credentials
        except ValueError:
            return False

    def _tunnel(self, client: socket.socket) -> None:
        client.settimeout(IDLE_LIMIT)
        head = b""
        try:
            while b"\r\n\r\n" not in head and len(head) < 65536:
                data = client.recv(4096)
                if not data:
                    client.close()
                    return
                head += data
        except OSError:
            client.close()
            return
        lines = head.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        method, target = lines[0].split(" ")[:2]
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        authorization = headers.get("proxy-authorization")
        self.authorizations.append(authorization)
        if method != "CONNECT":
            client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        if not self._authorized(authorization):
            self.refused.append(target)
            client.sendall(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'Proxy-Authenticate: Basic realm="double"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'
            )
            client.close()
            return
        self.tunnels.append(target)
        host, port = target.rsplit(":", 1)
        if host not in self.hosts:  # a loopback double: it never reaches out
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        upstream = socket.create_connection((self.hosts[host], int(port)), timeout=IDLE_LIMIT)
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            sink.close()

    def close(self) -> None:
        """Stop accepting new tunnels (open ones end when either side closes)."""
        self.server.close()
