"""The minimal HTTP/1.1 client against ScriptedServer (tests/doubles), a loopback double of the wire only."""

from __future__ import annotations

import pytest

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.kube.http import Connection, ProtocolError, ServerClosed
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import Transport, split_url
from tests.doubles.http_server import read_request, scripted_servers


@pytest.fixture
def server():
    with scripted_servers() as start:
        yield start


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
        conn.sendall(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"a":1}')

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    assert transport.request("GET", "/") == {"a": 1}
    assert transport.connection is not None and not transport.connection.reusable


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


CONNECT_PREFIX = "error: Unable to connect to the server: "
READ_PREFIX = "error: unexpected error when reading response body. Please retry. Original error: "


@pytest.mark.parametrize(
    "reply,rendered",
    [
        (
            b"SSH-2.0-OpenSSH\r\n",
            CONNECT_PREFIX
            + 'net/http: HTTP/1.x transport connection broken: malformed HTTP response "SSH-2.0-OpenSSH"',
        ),
        (
            b"HTTP/1.1 2000 OK\r\n\r\n",
            CONNECT_PREFIX + 'net/http: HTTP/1.x transport connection broken: malformed HTTP status code "2000"',
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", READ_PREFIX + "unexpected EOF"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", READ_PREFIX + "malformed chunked encoding"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{}", READ_PREFIX + "unexpected EOF"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x1\r\n\r\n", CONNECT_PREFIX + 'bad Content-Length "x1"'),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnope",
            "error: the server sent a response that is not JSON (4 bytes, no Content-Type)",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html></html>",
            "error: the server sent a response that is not JSON (13 bytes, text/html)",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]",
            "error: the server sent JSON that is not an object (an array)",
        ),
        (
            b'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"x"',
            "error: the server sent JSON that is not an object (a string)",
        ),
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnull",
            "error: the server sent JSON that is not an object (null)",
        ),
        (b"", CONNECT_PREFIX + "EOF"),  # after client-go's 10 retries of a GET (the clock is faked)
    ],
)
def test_protocol_failures_become_one_message(server, reply: bytes, rendered: str) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(reply)

    scripted = server(handler)
    transport = Transport(ClusterConfig(server=f"http://127.0.0.1:{scripted.port}"), environ={})
    transport.sleep = lambda seconds: None
    with pytest.raises(PluginError) as caught:
        transport.request("GET", "/")
    assert caught.value.render() == rendered


def test_connect_tunnel_through_an_http_proxy(server) -> None:
    def proxy(conn, seen):
        seen.append(read_request(conn))  # the CONNECT
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        seen.append(read_request(conn))  # the tunnelled request
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    scripted = server(proxy)
    connection = Connection("127.0.0.1", scripted.port, tunnel=("api.internal.example", 6443))
    assert connection.request("GET", "/version", {}).body == b"{}"
    connect, tunnelled = scripted.requests
    assert connect.startswith(b"CONNECT api.internal.example:6443 HTTP/1.1\r\n")
    assert b"Proxy-Authorization" not in connect
    assert tunnelled.startswith(b"GET /version HTTP/1.1\r\nHost: api.internal.example:6443\r\n")


def test_proxy_refusing_the_tunnel(server) -> None:
    def proxy(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    scripted = server(proxy)
    connection = Connection("127.0.0.1", scripted.port, tunnel=("api.example", 6443))
    with pytest.raises(ProtocolError) as caught:
        connection.request("GET", "/", {})
    # Go's transport returns the proxy's reason phrase as the error; kubectl prints it after its prefix.
    assert str(caught.value) == "Forbidden" and caught.value.status == 403


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


@pytest.mark.parametrize("request_timeout", [None, 2.0])
def test_only_connecting_is_bounded_without_a_request_timeout(server, request_timeout) -> None:
    """kubectl's rule: --request-timeout bounds each request; without it a slow list may take as long as it takes."""

    def handler(conn, seen):
        seen.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    scripted = server(handler)
    transport = Transport(
        ClusterConfig(server=f"http://127.0.0.1:{scripted.port}", request_timeout=request_timeout), environ={}
    )
    assert transport.request("GET", "/") == {}
    connection = transport.connection
    assert connection is not None and connection.connect_timeout == 30.0
    if request_timeout is None:
        assert connection.deadline is None and connection.socket_timeout is None
    else:
        assert connection.deadline is not None and 0 < (connection.socket_timeout or 0) <= request_timeout


def test_warning_headers_are_read_as_client_go_reads_them() -> None:
    from kubectl_instancetype.kube.transport import parse_warnings

    header = '299 - "first, with a comma", 299 - "a \\"quoted\\" word" "Tue, 24 Nov 2026 15:00:00 GMT", 199 - "other"'
    assert parse_warnings(header) == ["first, with a comma", 'a "quoted" word']
    assert parse_warnings("garbage") == []
