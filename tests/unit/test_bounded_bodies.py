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
