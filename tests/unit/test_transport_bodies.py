"""Request bodies (bytes, files, chunk iterators), methods and headers, redirects and odd answers, against
ScriptedServer doubles (tests/doubles) speaking HTTP/1.1 on loopback."""

from __future__ import annotations

import io
import json

import pytest

from kubectl_instancetype.errors import APIError, PluginError
from kubectl_instancetype.kube.client import APPLY_PATCH, Client
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.resources import CLUSTER_INSTANCETYPES, INSTANCETYPES
from kubectl_instancetype.kube.transport import Transport
from tests.doubles.http_server import ScriptedServer, read_request, respond, serve_each

OK = respond("200 OK", b'{"kind":"Thing"}', {"Content-Type": "application/json"})


@pytest.fixture
def double():
    servers = []

    def start(answer, *, raw: bool = False):
        """``answer(request, index)`` for each request, or with ``raw`` a whole-connection handler."""
        server = ScriptedServer(answer if raw else serve_each(answer))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def echo(request: bytes, index: int) -> bytes:
    return OK


def transport(server, token: str | None = "tok", **kwargs) -> Transport:
    return Transport(ClusterConfig(server=server.url, token=token, **kwargs), environ={})


def split(request: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = request.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    return lines[0], {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}, body


def test_a_file_body_is_streamed_with_its_length_and_progress(double) -> None:
    server = double(echo)
    data = bytes(range(256)) * 12_000  # 3 MB, sent in 1 MiB reads
    sent: list[int] = []
    result = transport(server).request(
        "PUT", "/upload", io.BytesIO(data), content_length=len(data), progress=sent.append
    )
    assert result == {"kind": "Thing"}
    line, headers, body = split(server.requests[0])
    assert line == "PUT /upload HTTP/1.1"
    assert headers["content-length"] == str(len(data)) and headers["content-type"] == "application/octet-stream"
    assert body == data
    assert sent == [1 << 20, 2 << 20, len(data)]


def test_an_iterator_body_with_a_content_type_and_extra_headers(double) -> None:
    server = double(echo)
    transport(server).request(
        "PATCH",
        "/x",
        iter([b'{"a":', b"", b"1}"]),
        content_length=7,
        content_type="application/merge-patch+json",
        headers={"X-Trace": "t1"},
    )
    line, headers, body = split(server.requests[0])
    assert (line, body) == ("PATCH /x HTTP/1.1", b'{"a":1}')
    assert headers["content-type"] == "application/merge-patch+json" and headers["x-trace"] == "t1"


@pytest.mark.parametrize(
    "chunks,length,message",
    [
        ([b"abc"], 5, "error: the request body ended after 3 of 5 bytes"),
        ([b"abc", b"def"], 4, "error: the request body holds more than the 4 bytes announced"),
        ([b"abc"], None, "error: a streamed request body needs an explicit Content-Length"),
    ],
)
def test_a_stream_must_hold_what_its_length_says(double, chunks, length, message) -> None:
    server = double(echo)
    with pytest.raises(PluginError) as caught:
        transport(server).request("PUT", "/u", iter(chunks), content_length=length)
    assert caught.value.render() == message


def test_client_patch_apply_delete_send_what_the_api_server_expects(double) -> None:
    server = double(echo)
    with Client(ClusterConfig(server=server.url, token="t"), environ={}) as client:
        client.patch(INSTANCETYPES, "it", "ns", {"metadata": {"labels": {"a": "b"}}})
        client.apply(CLUSTER_INSTANCETYPES, "c", None, {"kind": "X"}, field_manager="catalog", force=True)
        client.delete(INSTANCETYPES, "it", "ns")
        client.delete(INSTANCETYPES, "it", "ns", propagation_policy="Foreground")
    (patch, apply, delete, foreground) = [split(request) for request in server.requests]
    assert patch[0] == (
        "PATCH /apis/instancetype.kubevirt.io/v1beta1/namespaces/ns/virtualmachineinstancetypes/it"
        "?fieldManager=kubectl-instancetype HTTP/1.1"
    )
    assert patch[1]["content-type"] == "application/merge-patch+json"
    assert apply[0] == (
        "PATCH /apis/instancetype.kubevirt.io/v1beta1/virtualmachineclusterinstancetypes/c"
        "?fieldManager=catalog&force=true HTTP/1.1"
    )
    assert apply[1]["content-type"] == APPLY_PATCH and apply[2] == b'{"kind":"X"}'
    assert delete[0].startswith("DELETE ") and delete[2] == b"" and "content-type" not in delete[1]
    assert json.loads(foreground[2])["propagationPolicy"] == "Foreground"


@pytest.mark.parametrize("token", ["tok\r\nX-Injected: 1", "tok\nx", "tok\x00"])
def test_a_header_value_with_controls_is_refused_before_sending(double, token: str) -> None:
    server = double(echo)
    with pytest.raises(PluginError) as caught:
        transport(server, token=token).request("GET", "/x")
    assert caught.value.render() == (
        'error: Unable to connect to the server: net/http: invalid header field value for "Authorization"'
    )
    assert server.requests == []


def test_an_extra_header_cannot_inject_either(double) -> None:
    server = double(echo)
    with pytest.raises(PluginError, match='invalid header field value for "X-Note"'):
        transport(server).request("GET", "/x", headers={"X-Note": "a\r\nHost: evil"})
    assert server.requests == []


def test_redirects_are_followed_as_go_does(double) -> None:
    def answer(request, index):
        line = request.split(b"\r\n", 1)[0]
        if line.startswith(b"POST /old"):
            return respond("302 Found", b"", {"Location": "/moved?x=1"})
        if line.startswith(b"GET /moved?x=1"):
            return respond("307 Temporary Redirect", b"", {"Location": "final"})
        return OK

    server = double(answer)
    assert transport(server).request("POST", "/old", {"a": 1}) == {"kind": "Thing"}
    lines = [split(request)[0] for request in server.requests]
    # 302 turns POST into GET without a body; 307 keeps the method; a relative Location resolves against the path
    assert lines == ["POST /old HTTP/1.1", "GET /moved?x=1 HTTP/1.1", "GET /final HTTP/1.1"]
    assert all(split(request)[1]["authorization"] == "Bearer tok" for request in server.requests)


def test_credentials_do_not_follow_a_redirect_to_another_host(double) -> None:
    other = double(echo)
    server = double(lambda request, index: respond("302 Found", b"", {"Location": f"http://localhost:{other.port}/x"}))
    assert transport(server).request("GET", "/a") == {"kind": "Thing"}
    assert "authorization" in split(server.requests[0])[1]
    assert "authorization" not in split(other.requests[0])[1]


def test_a_307_with_a_stream_is_not_replayed(double) -> None:
    server = double(lambda request, index: respond("307 Temporary Redirect", b"", {"Location": "/b"}))
    with pytest.raises(APIError) as caught:
        transport(server).request("PUT", "/a", iter([b"x"]), content_length=1)
    assert caught.value.render() == (
        "Error from server: the server responded with the status code 307 but did not return more information"
    )
    assert len(server.requests) == 1


def test_redirect_loops_stop_after_10(double) -> None:
    server = double(lambda request, index: respond("301 Moved Permanently", b"", {"Location": f"/r{index}"}))
    with pytest.raises(PluginError) as caught:
        transport(server).request("GET", "/start")
    assert caught.value.render() == "error: Unable to connect to the server: stopped after 10 redirects"
    assert len(server.requests) == 10  # kubectl v1.36.3 sends 10 too (the differential test counts them)
    assert split(server.requests[1])[1]["referer"] == f"{server.url}/start"


@pytest.mark.parametrize(
    "body,expected",
    [
        (
            b'{"minor":' + b"9" * 5000 + b"}",
            "error: the server sent a number with more than 4300 digits, which is not decoded",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "error: the server sent JSON nested too deeply to decode"),
    ],
)
def test_json_python_cannot_hold_gets_one_sentence(double, body: bytes, expected: str) -> None:
    server = double(lambda request, index: respond("200 OK", body, {"Content-Type": "application/json"}))
    with pytest.raises(PluginError) as caught:
        transport(server).request("GET", "/version")
    assert caught.value.render() == expected


def test_bytes_that_are_not_utf8_are_replaced_as_go_does(double) -> None:
    server = double(
        lambda request, index: respond("200 OK", b'{"major":"\xff1"}', {"Content-Type": "application/json"})
    )
    assert transport(server).request("GET", "/version") == {"major": "\ufffd1"}


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * (11 << 20) + b"\r\n\r\n",
        b"HTTP/1.1 200 " + b"O" * (11 << 20) + b"\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X-Many: 1\r\n" * (1 << 20) + b"\r\n",
    ],
    ids=["long-header", "long-status-line", "many-headers"],
)
def test_absurd_response_headers_are_cut_off(double, head: bytes) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        try:
            conn.sendall(head)
        except OSError:
            pass  # the client stops reading once it has seen enough

    server = double(handler, raw=True)
    with pytest.raises(PluginError) as caught:
        transport(server).request("GET", "/")
    assert caught.value.render() == (
        "error: Unable to connect to the server: net/http: server response headers exceeded 10485760 bytes; aborted"
    )


def test_an_absolute_redirect_to_the_same_origin_reuses_the_connection(double) -> None:
    def answer(request, index):
        if index == 0:
            return respond("301 Moved Permanently", b"", {"Location": f"http://127.0.0.1:{server.port}/new/place?q=1"})
        return OK

    server = double(answer)
    assert transport(server).request("GET", "/old") == {"kind": "Thing"}
    assert [split(request)[0] for request in server.requests] == ["GET /old HTTP/1.1", "GET /new/place?q=1 HTTP/1.1"]
    assert server.connections == 1
