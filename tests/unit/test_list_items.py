"""A list's items through Client.list_items, paged, when a page is not JSON (tests/unit/test_list_stream.py: the
decoding itself). And one SSL context per CA and client pair across a fleet's contexts."""

from __future__ import annotations

import pytest

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.kube.kubeconfig.model import ClusterConfig
from kubectl_instancetype.kube.tls import SharedContexts


def test_one_ssl_context_per_ca_and_client_pair() -> None:
    shared = SharedContexts()
    a = ClusterConfig(server="https://a:6443", insecure=True, context="a")
    b = ClusterConfig(server="https://b:6443", insecure=True, context="b")
    c = ClusterConfig(server="https://c:6443", context="c")  # the system roots: another trust
    assert shared.get(a) is shared.get(b)
    assert shared.get(c) is not shared.get(a)
    assert shared.get(c) is shared.get(ClusterConfig(server="https://d:6443"))
    assert shared.built == 2


def test_a_list_answer_that_is_not_json_names_its_content_type() -> None:
    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.resources import INSTANCETYPES
    from tests.doubles.http_server import ScriptedServer, respond, serve_each

    page = b'{"items":[{"metadata":{"name":"a"}}],"kind":"L","metadata":{"continue":"next"}}'

    def answer(request: bytes, index: int) -> bytes:
        if index == 0:
            return respond("200 OK", page, {"Content-Type": "application/json"})
        return respond("200 OK", b"<html></html>", {"Content-Type": "text/html"})

    server = ScriptedServer(serve_each(answer))
    try:
        items = Client(ClusterConfig(server=server.url, token="t"), {}).list_items(INSTANCETYPES, "ns")
        assert next(items) == {"metadata": {"name": "a"}}
        with pytest.raises(PluginError) as failure:
            next(items)
        assert str(failure.value) == "the server sent a response that is not JSON (13 bytes, text/html)"
        assert b"continue=next" in server.requests[1]
    finally:
        server.close()
