"""429/503 with Retry-After are retried as client-go's withRetry does (ScriptedServer doubles; the clock is faked)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.errors import APIError
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import Transport
from tests.doubles.http_server import ScriptedServer, respond, serve_each

OK = respond("200 OK", b'{"kind":"Thing"}', {"Content-Type": "application/json"})
STATUS_429 = (
    b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try '
    b'again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}'
)


@pytest.fixture
def double():
    servers = []

    def start(answer):
        server = ScriptedServer(serve_each(answer))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def transport_for(server, timeout=None) -> tuple[Transport, list[float], list[str]]:
    lines: list[str] = []
    transport = Transport(ClusterConfig(server=server.url, request_timeout=timeout), environ={}, log=lines.append)
    waits: list[float] = []
    transport.sleep = waits.append  # the fake clock: record the waits instead of sleeping
    return transport, waits, lines


def test_429_twice_then_200(double) -> None:
    def answer(request, index):
        if index < 2:
            return respond("429 Too Many Requests", b"slow down", {"Retry-After": "1"})
        return OK

    server = double(answer)
    transport, waits, lines = transport_for(server)
    assert transport.request("GET", "/apis/x") == {"kind": "Thing"}
    assert len(server.requests) == 3 and waits == [1, 1]
    assert transport.requests_sent == 3
    # -v 6: every attempt's request line, and client-go's retry line once it has waited
    assert [line.split(" in ")[0] for line in lines] == [
        f"GET {server.url}/apis/x 429 Too Many Requests",
        f'"Got a Retry-After response" delay="1s" attempt=1 url="{server.url}/apis/x"',
        f"GET {server.url}/apis/x 429 Too Many Requests",
        f'"Got a Retry-After response" delay="1s" attempt=2 url="{server.url}/apis/x"',
        f"GET {server.url}/apis/x 200 OK",
    ]


@pytest.mark.parametrize(
    "body,content_type,rendered",
    [
        (
            b"slow",
            "text/plain",
            "Error from server (TooManyRequests): the server has received too many requests and has asked us to "
            "try again later",
        ),
        (
            STATUS_429,
            "application/json",
            "Error from server (TooManyRequests): Too many requests, please try again later.",
        ),
    ],
)
def test_always_429_ends_after_10_retries(double, body: bytes, content_type: str, rendered: str) -> None:
    """kubectl v1.36.3 sends 11 requests (1 + 10 retries) and prints these lines (checked with the same double)."""
    server = double(
        lambda request, index: respond(
            "429 Too Many Requests", body, {"Retry-After": "0", "Content-Type": content_type}
        )
    )
    transport, waits, _ = transport_for(server)
    with pytest.raises(APIError) as caught:
        transport.request("GET", "/version")
    assert caught.value.render() == rendered
    assert len(server.requests) == 11 and waits == [0] * 10


def test_503_with_retry_after_is_retried_and_without_it_is_not(double) -> None:
    def answer(request, index):
        if index == 0:
            return respond("503 Service Unavailable", b"", {"Retry-After": "2"})
        return respond("503 Service Unavailable", b"down")

    server = double(answer)
    transport, waits, _ = transport_for(server)
    with pytest.raises(APIError, match="the server is currently unable to handle the request"):
        transport.request("GET", "/x")
    assert len(server.requests) == 2 and waits == [2]


@pytest.mark.parametrize("value", ["Fri, 31 Dec 1999 23:59:59 GMT", "1.5", ""])
def test_retry_after_that_is_not_whole_seconds_is_not_retried(double, value: str) -> None:
    server = double(lambda request, index: respond("429 Too Many Requests", b"", {"Retry-After": value}))
    transport, waits, _ = transport_for(server)
    with pytest.raises(APIError):
        transport.request("GET", "/x")
    assert len(server.requests) == 1 and waits == []


def test_the_wait_is_bounded_by_the_request_deadline(double) -> None:
    server = double(lambda request, index: respond("429 Too Many Requests", b"", {"Retry-After": "3600"}))
    transport, waits, _ = transport_for(server, timeout=5)
    with pytest.raises(Exception) as caught:
        transport.request("GET", "/x")
    assert "Client.Timeout exceeded" in caught.value.render()
    assert len(server.requests) == 1 and len(waits) == 1 and 0 <= waits[0] <= 5


def test_a_streamed_body_is_not_retried(double) -> None:
    """client-go does not retry a request whose body is an opaque reader: it could not send it again."""
    server = double(lambda request, index: respond("429 Too Many Requests", b"", {"Retry-After": "0"}))
    transport, waits, _ = transport_for(server)
    with pytest.raises(APIError):
        transport.request("PUT", "/upload", iter([b"abc"]), content_length=3)
    assert len(server.requests) == 1 and server.requests[0].endswith(b"\r\n\r\nabc") and waits == []


def closing_then(answers_after: int):
    """A handler that closes the first ``answers_after`` connections without answering, then answers OK."""
    from tests.doubles.http_server import read_request

    counter = [0]

    def handler(conn, seen):
        seen.append(read_request(conn))
        counter[0] += 1
        if counter[0] > answers_after:
            conn.sendall(OK)

    return handler


def test_a_get_cut_off_by_eof_is_retried_as_client_go_does() -> None:
    """kubectl v1.36.3 (kubectl version) reconnects 10 times, 1 s apart, to a server that closes at once."""
    server = ScriptedServer(closing_then(2))
    try:
        transport, waits, lines = transport_for(server)
        assert transport.request("GET", "/version") == {"kind": "Thing"}
    finally:
        server.close()
    assert server.connections == 3 and waits == [1, 1]
    assert lines[0] == f'"Got a Retry-After response" delay="1s" attempt=1 url="{server.url}/version"'


def test_a_post_cut_off_by_eof_is_not_retried() -> None:
    server = ScriptedServer(closing_then(5))
    try:
        transport, waits, _ = transport_for(server)
        with pytest.raises(Exception) as caught:
            transport.request("POST", "/x", {"a": 1})
    finally:
        server.close()
    assert caught.value.render() == "error: Unable to connect to the server: EOF"
    assert server.connections == 1 and waits == []
