"""The minimal HTTP/1.1 client against a scripted local socket server (a test double of the wire only)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

import pytest

from kubectl_instancetype.errors import PluginError, TransportError
from kubectl_instancetype.kube.config import ClusterConfig
from kubectl_instancetype.kube.http import Connection, ProtocolError, ServerClosed
from kubectl_instancetype.kube.transport import Transport, split_url


class ScriptedServer:
    """Accepts connections on loopback; ``handler(conn, requests_seen)`` answers each connection."""

    def __init__(self, handler: Callable[[socket.socket, list], None]):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.requests: list[bytes] = []
        self.connections = 0
        self.handler = handler
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                self.handler(conn, self.requests)

    def close(self) -> None:
        self.sock.close()


def read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(rest) < length:
        rest += conn.recv(4096)
    return head + b"\r\n\r\n" + rest


@pytest.fixture
def server(request):
    servers = []

    def start(handler):
        scripted = ScriptedServer(handler)
        servers.append(scripted)
        return scripted

    yield start
    for scripted in servers:
        scripted.close()


def test_content_length_and_keep_alive(server) -> None:
    def handler(conn, seen):
        for _ in range(2):
            seen.append(read_request(conn))
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"a": true}')

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}", token="tok"), environ={})
    assert transport.request("GET", "/one") == {"a": True}
    assert transport.request("POST", "/two", {"x": 1}) == {"a": True}
    assert scripted.connections == 1 and transport.requests_sent == 2
    first, second = scripted.requests
    assert first.startswith(b"GET /one HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"Authorization: Bearer tok\r\n" in first and b"Accept: application/json\r\n" in first
    assert second.endswith(b'\r\n\r\n{"x":1}') and b"Content-Length: 7\r\n" in second


def test_chunked_body_with_trailers(server) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b'4\r\n{"k"\r\n6;ext=1\r\n: [1,2\r\n2\r\n]}\r\n0\r\nX-Trailer: y\r\n\r\n'
        )

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    assert transport.request("GET", "/") == {"k": [1, 2]}


def test_a_dropped_keep_alive_connection_is_retried_once(server) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        # then close: the next request on this connection finds it gone

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    assert transport.request("GET", "/a") == {}
    assert transport.request("GET", "/b") == {}
    assert scripted.connections == 2


def test_connection_close_and_body_until_eof(server) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n[1]")

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    assert transport.request("GET", "/") == [1]
    assert transport._connection is not None and not transport._connection.reusable


def test_error_statuses_carry_the_status_object(server) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        body = b'{"kind":"Status","reason":"NotFound","message":"x \\"y\\" not found","code":404}'
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    with pytest.raises(PluginError) as caught:
        transport.request("GET", "/")
    assert caught.value.render() == 'Error from server (NotFound): x "y" not found'


@pytest.mark.parametrize(
    "reply,message",
    [
        (b"SSH-2.0-OpenSSH\r\n", "the server did not answer with HTTP"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", "the response ended after 2 of 10 bytes"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnope", "the server sent a response that is not JSON (4 bytes)"),
        (b"", "the server closed the connection"),
    ],
)
def test_protocol_failures_become_one_message(server, reply: bytes, message: str) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(reply)

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    with pytest.raises(TransportError) as caught:
        transport.request("GET", "/")
    assert message in caught.value.render()
    assert caught.value.render().startswith("error: Unable to connect to the server: ")


def test_connect_tunnel_through_an_http_proxy(server) -> None:
    def proxy(conn, seen):
        seen.append(read_request(conn))  # the CONNECT
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        seen.append(read_request(conn))  # the tunnelled request
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ntrue")

    scripted = server(proxy)
    config = ClusterConfig(server="http://api.internal.example:6443", proxy_url=f"http://127.0.0.1:{scripted.port}")
    assert Transport(config, environ={}).request("GET", "/version") is True
    connect, tunnelled = scripted.requests
    assert connect.startswith(b"CONNECT api.internal.example:6443 HTTP/1.1\r\n")
    assert tunnelled.startswith(b"GET /version HTTP/1.1\r\nHost: api.internal.example:6443\r\n")


def test_proxy_refusing_the_tunnel(server) -> None:
    def proxy(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    scripted = server(proxy)
    config = ClusterConfig(server="http://api.example:6443", proxy_url=f"http://127.0.0.1:{scripted.port}")
    with pytest.raises(TransportError, match="proxy refused the tunnel to api.example:6443: 403 Forbidden"):
        Transport(config, environ={}).request("GET", "/")


@pytest.mark.parametrize(
    "url,parts",
    [
        ("https://10.0.0.1:6443", ("https", "10.0.0.1", 6443, "")),
        ("https://api.example/prefix/", ("https", "api.example", 443, "/prefix")),
        ("http://[::1]:8080/", ("http", "::1", 8080, "")),
        ("HTTPS://user@host", ("https", "host", 443, "")),
    ],
)
def test_split_url(url: str, parts: tuple) -> None:
    assert split_url(url) == parts


def test_host_header_omits_default_ports() -> None:
    assert Connection("h", 80, timeout=1).target_host_header() == "h"
    assert Connection("::1", 8080, timeout=1).target_host_header() == "[::1]:8080"
    assert ServerClosed.__mro__[1] is ProtocolError


@pytest.mark.parametrize("request_timeout,connect,per_operation", [(None, 30.0, None), (2.0, 2.0, 2.0)])
def test_only_connecting_is_bounded_without_a_request_timeout(server, request_timeout, connect, per_operation) -> None:
    """kubectl's rule: --request-timeout bounds each request; without it a slow list may take as long as it takes."""

    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    scripted = server(handler)
    transport = Transport(
        ClusterConfig(server=f"http://127.0.0.1:{scripted.port}", request_timeout=request_timeout), environ={}
    )
    assert transport.request("GET", "/") == {}
    connection = transport._connection
    assert (connection.connect_timeout, connection._sock.gettimeout()) == (connect, per_operation)
