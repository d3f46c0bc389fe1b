"""golang/k8sproto.py: Kubernetes' protobuf answers read for a schema's fields. The messages here are written with
the wire format's rules (a varint tag of field number and wire type, then the value), as Go's generated marshalers
write them; tests/integration/test_pods_protobuf_live.py holds the reader to the real kube-apiserver."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.golang import k8sproto


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, payload: bytes | str | int, wire: int | None = None) -> bytes:
    if isinstance(payload, int):
        return varint(number << 3 | 0) + varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return varint(number << 3 | 2) + varint(len(data)) + data


def quantities(number: int, entries: dict[str, str]) -> bytes:
    return b"".join(field(number, field(1, key) + field(2, field(1, value))) for key, value in entries.items())


def envelope(raw: bytes, kind: str = "PodList") -> bytes:
    return k8sproto.MAGIC + field(1, field(1, "v1") + field(2, kind)) + field(2, raw) + field(3, "") + field(4, "")


def container(name: str, requests: dict[str, str], restart_policy: str = "") -> bytes:
    resources = quantities(1, {"cpu": "9"}) + quantities(2, requests)
    # name, image, command, env (skipped), resources, the restart policy, a bool (varint) and an int64 skipped
    out = field(1, name) + field(2, "quay.io/app:1") + field(3, "run") + field(7, field(1, "A") + field(2, "b"))
    out += field(8, resources) + field(16, 1) + field(24, restart_policy)
    return out


POD = (
    field(1, field(1, "vm-1") + field(3, "prod") + field(11, field(1, "app") + field(2, "x")) + field(7, 4))
    + field(
        2,
        field(1, field(1, "disk"))
        + field(2, container("compute", {"cpu": "100m", "memory": "2Gi"}))
        + field(2, container("sidecar", {"cpu": "10m"}))
        + field(10, "node-3")
        + field(20, container("init", {"memory": "40M"}, "Always"))
        + quantities(32, {"memory": "160Mi"})
        + field(25, 1000),
    )
    + field(
        3,
        field(1, "Running")
        + field(2, field(1, "PodResizePending") + field(2, "True") + field(5, "Infeasible") + field(6, "x"))
        + field(8, field(1, "compute") + quantities(10, {"cpu": "200m"}) + field(11, quantities(2, {"cpu": "150m"})))
        + field(9, "Burstable"),
    )
)


def test_a_list_page_keeps_the_schemas_fields_in_jsons_shape() -> None:
    raw = field(1, field(2, "1234") + field(3, "next-token") + field(4, 7)) + field(2, POD) + field(2, b"")
    page = k8sproto.list_page(envelope(raw), k8sproto.BOUND_POD)
    assert page["apiVersion"] == "v1" and page["kind"] == "PodList"
    assert page["metadata"] == {"resourceVersion": "1234", "continue": "next-token", "remainingItemCount": 7}
    first, empty = page["items"]
    assert empty == {}
    assert first == {
        "metadata": {"name": "vm-1", "namespace": "prod"},
        "spec": {
            "containers": [
                {
                    "name": "compute",
                    "resources": {"limits": {"cpu": "9"}, "requests": {"cpu": "100m", "memory": "2Gi"}},
                    "restartPolicy": "",
                },
                {
                    "name": "sidecar",
                    "resources": {"limits": {"cpu": "9"}, "requests": {"cpu": "10m"}},
                    "restartPolicy": "",
                },
            ],
            "nodeName": "node-3",
            "initContainers": [
                {
                    "name": "init",
                    "resources": {"limits": {"cpu": "9"}, "requests": {"memory": "40M"}},
                    "restartPolicy": "Always",
                }
            ],
            "overhead": {"memory": "160Mi"},
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "PodResizePending", "reason": "Infeasible"}],
            "containerStatuses": [
                {"name": "compute", "allocatedResources": {"cpu": "200m"}, "resources": {"requests": {"cpu": "150m"}}}
            ],
        },
    }
    assert k8sproto.list_continue(envelope(raw)) == "next-token"
    assert k8sproto.list_continue(envelope(field(2, POD))) is None


def test_every_wire_type_is_stepped_over_and_ints_are_signed() -> None:
    fixed64, fixed32 = varint(5 << 3 | 1) + b"\x00" * 8, varint(6 << 3 | 5) + b"\x00" * 4
    schema: k8sproto.Schema = {1: ("a", k8sproto.INT, None), 2: ("b", k8sproto.STRING, None)}
    item = fixed64 + field(1, -3) + fixed32 + field(9, 2**40) + field(2, b"\xff ok") + field(7, "skip")
    page = k8sproto.list_page(envelope(field(2, item), "X"), schema)
    assert page["kind"] == "X"
    assert page["items"] == [{"a": -3, "b": "\ufffd ok"}]


def test_a_missing_quantity_is_go_zero() -> None:
    schema: k8sproto.Schema = {32: ("overhead", k8sproto.QUANTITIES, None)}
    page = k8sproto.list_page(envelope(field(2, field(32, field(1, "cpu")))), schema)
    assert page["items"] == [{"overhead": {"cpu": "0"}}]


@pytest.mark.parametrize(
    "raw, why",
    [
        (b"\x0a\x05abc", "runs past"),  # a length past the end
        (b"\x08\x80\x80", "varint runs past"),  # a varint cut
        (b"\x0b", "wire type 3"),  # a group start
        (b"\x09\x00\x00", "runs past"),  # a fixed 64-bit value cut
        (b"\x08" + b"\xff" * 11, "varint runs past"),  # a varint over 10 bytes
    ],
)
def test_malformed_messages_raise_protobuf_error(raw: bytes, why: str) -> None:
    with pytest.raises(k8sproto.ProtobufError, match=why):
        k8sproto.list_page(envelope(field(2, raw)), k8sproto.BOUND_POD)


def test_a_field_of_the_wrong_kind_is_refused() -> None:
    with pytest.raises(k8sproto.ProtobufError, match="nodeName"):
        k8sproto.list_page(envelope(field(2, field(2, field(10, 5)))), k8sproto.BOUND_POD)
    with pytest.raises(k8sproto.ProtobufError, match="remainingItemCount"):
        k8sproto.list_page(envelope(field(1, field(4, "7"))), k8sproto.BOUND_POD)


def test_json_is_not_protobuf() -> None:
    with pytest.raises(k8sproto.ProtobufError, match="prefix"):
        k8sproto.list_page(b'{"kind": "PodList"}', k8sproto.BOUND_POD)
    assert k8sproto.status(b'{"kind": "Status"}') is None


def test_a_status_reads_as_its_json() -> None:
    details = (
        field(1, "db-1")
        + field(3, "pods")
        + field(4, field(1, "FieldValueInvalid") + field(2, "bad") + field(3, "spec"))
    )
    details += field(5, 3)
    raw = (
        field(1, b"")
        + field(2, "Failure")
        + field(3, 'pods is forbidden: User "mallory" cannot list')
        + field(4, "Forbidden")
    )
    raw += field(5, details) + field(6, 403)
    assert k8sproto.status(envelope(raw, "Status")) == {
        "apiVersion": "v1",
        "kind": "Status",
        "status": "Failure",
        "message": 'pods is forbidden: User "mallory" cannot list',
        "reason": "Forbidden",
        "details": {
            "name": "db-1",
            "kind": "pods",
            "causes": [{"reason": "FieldValueInvalid", "message": "bad", "field": "spec"}],
            "retryAfterSeconds": 3,
        },
        "code": 403,
    }
    assert k8sproto.status(envelope(field(2, "x"), "PodList")) is None
    assert k8sproto.status(k8sproto.MAGIC + b"\x0a\x09") is None


@given(st.binary(max_size=200))
def test_any_bytes_read_or_raise_protobuf_error(raw: bytes) -> None:
    for body in (envelope(raw), k8sproto.MAGIC + raw):
        try:
            k8sproto.list_page(body, k8sproto.BOUND_POD)
        except k8sproto.ProtobufError:
            pass
        try:
            k8sproto.list_continue(body)
        except k8sproto.ProtobufError:
            pass
        assert k8sproto.status(body) is None or isinstance(k8sproto.status(body), dict)


@given(
    st.text(max_size=150),
    st.one_of(st.none(), st.text(max_size=150)),
    st.sampled_from(["key first", "value first", "extra field", "key twice"]),
)
def test_a_quantity_entry_reads_alike_in_any_layout(key: str, text: str | None, layout: str) -> None:
    """Go writes key then value (read in place); any other layout protobuf allows reads the same way."""
    quantity = field(2, field(1, text) if text is not None else b"")
    if layout == "key first":
        entry = field(1, key) + quantity
    elif layout == "value first":
        entry = quantity + field(1, key)
    elif layout == "extra field":
        entry = field(1, key) + field(7, 3) + quantity
    else:
        entry = field(1, "other") + field(1, key) + quantity
    schema: k8sproto.Schema = {32: ("overhead", k8sproto.QUANTITIES, None)}
    page = k8sproto.list_page(envelope(field(2, field(32, entry))), schema)
    assert page["items"] == [{"overhead": {key: text if text is not None else "0"}}]


# -- through the client: the request, the pages, what goes wrong ----------------------------------------------


def _client(tmp_path, server):
    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
    from tests.conftest import write_kubeconfig

    path = write_kubeconfig(tmp_path, server=server.url, namespace="ns")
    return Client(load_cluster_config(ConnectionOptions(kubeconfig=str(path)), {}, str(tmp_path)), {})


def _serving(*answers: bytes):
    from tests.doubles.http_server import ScriptedServer, serve_each

    def answer(request: bytes, index: int) -> bytes:
        return answers[min(index, len(answers) - 1)]

    return ScriptedServer(serve_each(answer))


PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf"}


def test_pages_are_asked_for_in_protobuf_and_a_malformed_one_ends_in_one_error(tmp_path) -> None:
    from kubectl_instancetype.kube.client import PagingError
    from kubectl_instancetype.kube.resources import PODS
    from tests.doubles.http_server import respond

    first = envelope(field(1, field(3, "t1")) + field(2, POD))
    cut = envelope(field(1, field(3, "t2")) + field(2, POD))[:-5]  # the second page ends inside a pod
    server = _serving(respond("200 OK", first, PROTOBUF), respond("200 OK", cut, PROTOBUF))
    try:
        with _client(tmp_path, server) as client:
            pages = client.list_pages(PODS, None, field_selector="spec.nodeName!=", fields=k8sproto.BOUND_POD)
            assert next(pages)["items"][0]["spec"]["nodeName"] == "node-3"
            with pytest.raises(PagingError, match="^the server's protobuf list answer could not be read: "):
                next(pages)
    finally:
        server.close()
    assert b"accept: application/vnd.kubernetes.protobuf, application/json" in server.requests[0].lower()


def test_a_json_answer_to_a_protobuf_request_is_read_whole(tmp_path) -> None:
    from kubectl_instancetype.kube.resources import PODS
    from tests.doubles.http_server import respond

    body = b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"p"},"spec":{"nodeName":"n"}}]}'
    server = _serving(respond("200 OK", body, {"Content-Type": "application/json"}))
    try:
        with _client(tmp_path, server) as client:
            pages = list(client.list_pages(PODS, None, fields=k8sproto.BOUND_POD))
    finally:
        server.close()
    assert pages[0]["items"] == [{"metadata": {"name": "p"}, "spec": {"nodeName": "n"}}]


def test_a_protobuf_status_is_the_error_in_the_servers_words(tmp_path) -> None:
    from kubectl_instancetype.errors import ForbiddenError
    from kubectl_instancetype.kube.resources import PODS
    from tests.doubles.http_server import respond

    message = 'pods is forbidden: User "mallory" cannot list resource "pods" in API group "" at the cluster scope'
    status = envelope(field(2, "Failure") + field(3, message) + field(4, "Forbidden") + field(6, 403), "Status")
    server = _serving(respond("403 Forbidden", status, PROTOBUF))
    try:
        with _client(tmp_path, server) as client, pytest.raises(ForbiddenError) as refused:
            list(client.list_pages(PODS, None, fields=k8sproto.BOUND_POD))
    finally:
        server.close()
    assert refused.value.message == message
