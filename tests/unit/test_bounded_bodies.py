"""The API server's answers are read within a bound (kube/http.MAX_BODY_BYTES), checked as the body streams in:
an endless body, chunked or not, or an announced Content-Length past the bound, ends in one sentence naming the
limit. The bound is lowered here so that the test reads a few megabytes, not 512."""

from __future__ import annotations

import pytest

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.kube import http
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import Transport
from tests.doubles.hostile_registry import endless
from tests.doubles.http_server import ScriptedServer, read_request


@pytest.mark.parametrize("kind", ["until-close", "chunked", "content-length"])
def test_an_endless_api_answer_is_cut_at_the_bound(monkeypatch, kind) -> None:
    monkeypatch.setattr(http, "MAX_BODY_BYTES", 2 << 20)
    stream = endless(chunked=kind == "chunked")

    def handler(conn, seen) -> None:
        seen.append(read_request(conn))
        if kind == "content-length":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999\r\n\r\n{")
        else:
            stream(conn)

    server = ScriptedServer(handler)
    try:
        transport = Transport(ClusterConfig(server=server.url, token="t"), environ={})
        with pytest.raises(PluginError) as raised:
            transport.request("GET", "/api/v1/namespaces")
        assert raised.value.render() == "error: the server's answer is larger than 2 MiB; stopped reading it"
    finally:
        server.close()


@pytest.mark.parametrize(
    ("limit", "shown"),
    [
        (512 << 20, "512 MiB"),
        (64 << 10, "64 KiB"),  # once "larger than 0 MiB"
        (1536 << 10, "1536 KiB"),  # 1.5 MiB, exactly
        (1000, "1000 bytes"),
        (2 << 30, "2 GiB"),
    ],
)
def test_the_answer_too_large_names_its_bound_exactly(limit: int, shown: str) -> None:
    from kubectl_instancetype.kube.errors import transport_error

    error = transport_error(http.BodyTooLarge(limit), "h", "h:443")
    assert error.render() == f"error: the server's answer is larger than {shown}; stopped reading it"
