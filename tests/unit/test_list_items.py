"""A list page's items decoded one at a time (kube.liststream.ListStream, what Client.list_items and so list and every
fleet read use; tests/unit/test_list_stream.py cuts the same bodies at every byte): the same objects as decoding the page whole, the same one-line failures, and the items before a
fault handed over first. And one SSL context per CA and client pair across a fleet's contexts."""

from __future__ import annotations

import pytest

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.kube.errors import decode_object
from kubectl_instancetype.kube.kubeconfig.model import ClusterConfig
from kubectl_instancetype.kube.liststream import ListStream
from kubectl_instancetype.kube.tls import SharedContexts

PAGES = [
    # a custom resource list as the API server writes it (keys sorted: items before metadata)
    b'{"apiVersion":"instancetype.kubevirt.io/v1beta1","items":[{"metadata":{"name":"a"}},{"spec":{"cpu":'
    b'{"guest":2}}}],"kind":"VirtualMachineInstancetypeList","metadata":{"continue":"x","resourceVersion":"9"}}',
    # a built-in list (items last), whitespace everywhere JSON allows it, an empty and a null items
    b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[ {"a":1} ,\n{"b":"\\u00e9"} ]}',
    b' { "items" : [ ] , "kind" : "List" } \n',
    b'{"items":null}',
    b"{}",
    '{"items":[{"name":"caf\u00e9 \u65e5\u672c"}]}'.encode(),
    b'{"items":[{"bad":"\xff"}]}',  # not UTF-8: U+FFFD, as decode_object and Go's encoding/json
]


@pytest.mark.parametrize("body", PAGES)
def test_the_items_are_the_pages_items(body: bytes) -> None:
    assert list(ListStream([body])) == (decode_object(body).get("items") or [])


FAULTS = [
    b"",
    b"<html>",
    b"[1]",
    b'"text"',
    b'{"items":[1,]}',
    b'{"items":[1]',
    b'{"items":[1]}x',
    b'{"items":[1] "kind":"L"}',
    b'{"items":[1 2]}',
    b'{"items" [1]}',
    b'{"items":[' + b"[" * 5000 + b"]" * 5000 + b"]}",
    b'{"items":[1' + b"0" * 5000 + b"]}",
]


@pytest.mark.parametrize("body", FAULTS)
def test_a_body_that_is_not_a_list_fails_as_decode_object_says(body: bytes) -> None:
    with pytest.raises(PluginError) as whole:
        decode_object(body, "text/html")
        raise AssertionError("decoded whole")
    with pytest.raises(PluginError) as one_by_one:
        list(ListStream([body], "text/html"))
    assert str(one_by_one.value) == str(whole.value)


def test_the_items_before_a_fault_come_first() -> None:
    items = iter(ListStream([b'{"items":[{"a":1},{"b":2},{"c":]}']))
    assert next(items) == {"a": 1}
    assert next(items) == {"b": 2}
    with pytest.raises(PluginError, match="not JSON"):
        next(items)


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
