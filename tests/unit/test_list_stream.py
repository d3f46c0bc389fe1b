"""A list response decoded item by item as its bytes arrive (kube.liststream.ListStream, what Client.list_items and so
list and every fleet read use): cut anywhere, the same items, metadata and continue token as json.loads of the whole
body; the same one-line failures as kube.errors.decode_object; a bounded buffer; and the HTTP layer's streamed bodies
(Content-Length, chunked, to the end of the connection) within their bounds."""

from __future__ import annotations

import json
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.kube.errors import decode_object
from kubectl_instancetype.kube.http import BodyReadError, BodyTooLarge, Connection
from kubectl_instancetype.kube.liststream import ListStream, leading_items, without_managed_fields

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


def _decoded(pieces: list[bytes], content_type: str = "") -> tuple[list, dict, str | None]:
    stream = ListStream(pieces, content_type)
    items = list(stream)
    return items, stream.metadata, stream.continue_token


def _splits(body: bytes) -> list[list[bytes]]:
    """The body whole, cut once at every byte, and in pieces of 1, 2, 3 and 7 bytes."""
    cuts = [[body], *([body[:i], body[i:]] for i in range(1, len(body)))]
    return cuts + [[body[i : i + n] for i in range(0, len(body), n)] for n in (1, 2, 3, 7)]


@pytest.mark.parametrize("body", PAGES)
def test_cut_anywhere_the_items_are_the_pages_items(body: bytes) -> None:
    whole = decode_object(body)
    for pieces in _splits(body):
        items, metadata, _ = _decoded(pieces)
        assert items == (whole.get("items") or [])
        assert metadata == (whole.get("metadata") if isinstance(whole.get("metadata"), dict) else {})


@pytest.mark.parametrize("body", FAULTS)
def test_cut_anywhere_a_body_that_is_not_a_list_fails_as_decode_object_says(body: bytes) -> None:
    with pytest.raises(PluginError) as whole:
        decode_object(body, "text/html")
        raise AssertionError("decoded whole")
    for pieces in _splits(body)[:: max(1, len(body) // 40)]:
        with pytest.raises(PluginError) as streamed:
            _decoded(pieces, "text/html")
        assert str(streamed.value) == str(whole.value)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(
    items=st.lists(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3) | JSON_VALUES, max_size=4),
    token=st.none() | st.text(max_size=12),
    metadata_first=st.booleans(),
    indent=st.none() | st.integers(0, 2),
    compact=st.booleans(),  # as the API server writes: no whitespace (ListStream's fast path)
    other=st.dictionaries(st.sampled_from(["kind", "apiVersion", "x"]), JSON_VALUES, max_size=2),
)
def test_generated_lists_cut_at_every_byte_give_what_json_loads_gives(
    items: list, token: str | None, metadata_first: bool, indent: int | None, compact: bool, other: dict
) -> None:
    metadata = {"resourceVersion": "12", **({"continue": token} if token is not None else {})}
    document = (
        {**other, "metadata": metadata, "items": items}
        if metadata_first
        else {**other, "items": items, "metadata": metadata}
    )
    separators = (",", ":") if compact else None
    body = json.dumps(document, indent=None if compact else indent, separators=separators, ensure_ascii=False).encode()
    whole = json.loads(body)
    for pieces in _splits(body):
        got, got_metadata, got_token = _decoded(pieces)
        assert got == whole["items"]
        assert got_metadata == whole["metadata"]
        assert got_token == (whole["metadata"].get("continue") or None)


def _custom_resource(name: str, spec: object) -> dict:
    """An item as the API server writes one of a custom resource list (keys sorted: apiVersion, kind, metadata)."""
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"managedFields": [{"apiVersion": "instancetype.kubevirt.io/v1beta1"}], "name": name},
        "spec": spec,
    }


# an item whose spec holds an object that starts as an item does (a guessed cut inside it must not be taken)
LOOKALIKE = _custom_resource("b", {"embedded": [_custom_resource("inner", {"x": [1, {"y": "]},"}]})]})


@settings(max_examples=40, deadline=None)
@given(
    items=st.lists(
        st.builds(_custom_resource, st.text(max_size=6), JSON_VALUES) | st.just(LOOKALIKE) | JSON_VALUES, max_size=6
    ),
    piece=st.integers(1, 400),
)
def test_custom_resource_lists_decoded_a_piece_at_a_time_give_what_json_loads_gives(items: list, piece: int) -> None:
    body = json.dumps({"apiVersion": "v", "items": items, "metadata": {"continue": "c"}}, separators=(",", ":"))
    data = body.encode()
    got, metadata, token = _decoded([data[i : i + piece] for i in range(0, len(data), piece)])
    assert got == items
    assert (metadata, token) == ({"continue": "c"}, "c")


def test_the_items_of_a_piece_are_decoded_in_one_call_when_the_cut_is_between_items() -> None:
    items = [_custom_resource(f"n{i}", {"cpu": {"guest": i}}) for i in range(4)]
    # then the start of a fifth item, as a piece of the body ends
    started = '{"apiVersion":"instancetype.kubevirt.io/v1beta1","kind":"VirtualMachineInstancetype","metadata":{"ma'
    text = json.dumps(items, separators=(",", ":"))[1:-1] + "," + started
    values, position = leading_items(text, 0)
    assert values == items
    assert text[position:] == started
    # a guessed cut inside an item (an embedded look-alike, then the text ends): no batch, the careful path decides
    inside = json.dumps(LOOKALIKE, separators=(",", ":"))
    assert leading_items(inside[: inside.index("inner") + 30], 0) is None
    # no "metadata" key near the start of the item: nothing to guess a cut from
    assert leading_items('{"a":1},{"a":2},{"a":3}', 0) is None


def test_the_items_before_a_fault_in_a_batch_come_first() -> None:
    first, second = (json.dumps(_custom_resource(n, {}), separators=(",", ":")) for n in "ab")
    broken = first.replace('"a"}', '"c",}')  # a comma before the end of an object
    body = ('{"items":[' + ",".join([first, second, broken, first]) + "]}").encode()
    items = iter(ListStream([body]))
    assert next(items)["metadata"]["name"] == "a"
    assert next(items)["metadata"]["name"] == "b"
    with pytest.raises(PluginError, match="not JSON"):
        next(items)


def _without_any_managed_fields(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_any_managed_fields(v) for k, v in value.items() if k != "managedFields"}
    if isinstance(value, list):
        return [_without_any_managed_fields(v) for v in value]
    return value


# strings that hold the marks the stripper looks for, escaped as JSON writes them inside a string
MARKS = st.sampled_from([',"managedFields":[', '],"name":"', "]", "[", '"', "\\", "name", "{}"])
MARKED_TEXT = st.lists(MARKS | st.text(max_size=3), max_size=4).map("".join)
MARKED_VALUES = st.recursive(
    st.none() | st.integers() | MARKED_TEXT,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(MARKED_TEXT | st.just("managedFields"), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(
        st.builds(
            lambda name, managed, spec, extra: {
                "apiVersion": "g/v",
                "kind": "K",
                "metadata": {"managedFields": managed, "name": name, **extra},
                "spec": spec,
            },
            MARKED_TEXT,
            st.lists(st.dictionaries(MARKED_TEXT, MARKED_VALUES, max_size=3), max_size=2) | MARKED_VALUES,
            MARKED_VALUES,
            st.dictionaries(MARKED_TEXT, MARKED_VALUES, max_size=2),
        ),
        max_size=4,
    )
)
def test_leaving_out_managed_fields_changes_nothing_else(items: list) -> None:
    # any JSON, its keys sorted as the API server's unstructured encoder writes them: what is left decodes, and it
    # is the items, some managedFields left out, nothing else changed
    text = json.dumps(items, separators=(",", ":"), sort_keys=True)
    left = json.loads(without_managed_fields(text))
    assert _without_any_managed_fields(left) == _without_any_managed_fields(items)


def test_managed_fields_as_the_api_server_writes_them_are_left_out_and_others_kept() -> None:
    entry = {"apiVersion": "v", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {'k:{"a":1}': {}}}, "time": "t"}
    metadata = {"creationTimestamp": "t", "managedFields": [entry, entry], "name": "a"}  # sorted, as written
    server = {"apiVersion": "g/v", "kind": "K", "metadata": metadata}
    text = json.dumps([server, server], separators=(",", ":"))
    assert json.loads(without_managed_fields(text)) == [_without_any_managed_fields(server)] * 2
    # a typed object's metadata (managedFields last) and an array inside the entries: written otherwise, kept whole
    for kept in (
        {"metadata": {"name": "a", "managedFields": [entry]}},
        {"metadata": {"creationTimestamp": "t", "managedFields": [{"fieldsV1": {"x": [1]}}], "name": "a"}},
        {"metadata": {"creationTimestamp": "t", "managedFields": [{"a": [1], "name": "x"}], "name": "a"}},
    ):
        kept_text = json.dumps(kept, separators=(",", ":"))
        assert without_managed_fields(kept_text) == kept_text


def test_a_list_read_without_managed_fields_gives_the_same_items_but_them() -> None:
    entry = {"apiVersion": "v", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {}}}, "time": "t"}
    items = [
        {"apiVersion": "g/v", "kind": "K", "metadata": {"generation": 1, "managedFields": [entry], "name": f"n{i}"}}
        for i in range(300)
    ]
    body = json.dumps({"apiVersion": "g/v", "items": items, "metadata": {}}, separators=(",", ":")).encode()
    pieces = [body[i : i + 16384] for i in range(0, len(body), 16384)]
    read = list(ListStream(pieces, managed_fields=False))
    assert _without_any_managed_fields(read) == _without_any_managed_fields(items)
    assert sum("managedFields" not in item["metadata"] for item in read) > 250  # the batches came without them
    assert list(ListStream(pieces)) == items


def test_a_truncated_body_is_one_line_after_the_items_before_the_cut() -> None:
    body = b'{"items":[{"a":1},{"b":2},{"c":3}],"metadata":{"continue":"t"}}'
    stream = iter(ListStream([body[:30]], "application/json"))
    assert next(stream) == {"a": 1}
    assert next(stream) == {"b": 2}
    with pytest.raises(PluginError) as failure:
        next(stream)
    assert str(failure.value) == "the server sent a response that is not JSON (30 bytes, application/json)"


def test_the_size_in_a_fault_is_the_whole_bodys() -> None:
    body = b'{"items":[1 2]' + b" " * 100_000 + b"}"
    with pytest.raises(PluginError, match=r"not JSON \(100015 bytes"):
        _decoded([body[i : i + 4096] for i in range(0, len(body), 4096)])


def test_one_value_larger_than_the_bound_stops_the_read() -> None:
    sent = []

    def pieces():
        yield b'{"items":[{"a":"'
        for _ in range(1000):
            sent.append(1)
            yield b"x" * 1024
        yield b'"}]}'

    with pytest.raises(PluginError) as failure:
        list(ListStream(pieces(), max_value=64 * 1024))
    assert str(failure.value) == "an object in the server's list is larger than 64 KiB; stopped reading it"
    assert len(sent) < 200  # stopped soon after the bound, not at the end of the body


def test_the_buffer_holds_one_object_not_the_page() -> None:
    item = json.dumps({"metadata": {"name": "n" * 100}, "spec": {"cpu": {"guest": 1}}})
    body = ('{"items":[' + ",".join([item] * 5000) + '],"metadata":{"continue":"next"}}').encode()
    stream = ListStream(body[i : i + 16384] for i in range(0, len(body), 16384))
    largest = 0
    for _ in stream:
        largest = max(largest, stream.held)
    assert stream.continue_token == "next"
    assert largest < 3 * 16384 and len(body) > 15 * 3 * 16384


# -- the HTTP layer: a 2xx body streamed in pieces, within its bounds ------------------------------------------------


def _connection_to(answer: bytes, max_body: int | None = None) -> Connection:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    import threading

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(answer)
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    return Connection("127.0.0.1", server.getsockname()[1], timeout=10, max_body=max_body)


BODY = b'{"items":[{"a":1}],"metadata":{}}'


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY),
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n" + BODY[:5] + b"\r\n"
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY) - 5, BODY[5:]),
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + BODY,
    ],
    ids=["content-length", "chunked", "until-close"],
)
def test_a_streamed_body_is_the_body(answer: bytes) -> None:
    connection = _connection_to(answer)
    response = connection.request("GET", "/", {}, stream=True)
    assert response.status == 200 and response.body == b"" and connection.body_pending
    assert b"".join(connection.body_pieces(piece=4)) == BODY
    assert not connection.body_pending


@pytest.mark.parametrize(
    "answer, error",
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + BODY, BodyReadError),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", BodyTooLarge),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + b"x" * 1024 + b"\r\n", BodyTooLarge),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * 1024, BodyTooLarge),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", BodyReadError),
    ],
    ids=["short", "announced-too-large", "chunks-too-large", "too-large-until-close", "cut-chunk"],
)
def test_a_streamed_body_is_bounded_and_whole(answer: bytes, error: type) -> None:
    connection = _connection_to(answer, max_body=512)
    connection.request("GET", "/", {}, stream=True)
    with pytest.raises(error):
        b"".join(connection.body_pieces())
    assert not connection.reusable  # a body not read to its end closes the connection


def test_an_error_answer_is_read_whole_even_when_streaming() -> None:
    status = b'{"kind":"Status","code":403}'
    connection = _connection_to(b"HTTP/1.1 403 Forbidden\r\nContent-Length: %d\r\n\r\n%s" % (len(status), status))
    response = connection.request("GET", "/", {}, stream=True)
    assert response.status == 403 and response.body == status and not connection.body_pending


def test_small_chunks_come_as_pieces_of_the_asked_size() -> None:
    # the API server writes chunks of at most 2 kB: a piece per chunk would cost the reader more than the bytes
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(BODY[i : i + 2]), BODY[i : i + 2]) for i in range(0, len(BODY), 2))
    connection = _connection_to(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n")
    connection.request("GET", "/", {}, stream=True)
    pieces = list(connection.body_pieces(piece=8))
    assert b"".join(pieces) == BODY
    assert [len(piece) for piece in pieces[:-1]] == [8] * (len(pieces) - 1) and 0 < len(pieces[-1]) <= 8


# -- through the command: a body cut off is one line on stderr ------------------------------------------------------

PAGE = b'{"apiVersion":"instancetype.kubevirt.io/v1beta1","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}'


def _cut_off(head: bytes):
    from tests.doubles.http_server import read_request

    def handler(conn: socket.socket, seen: list[bytes]) -> None:
        seen.append(read_request(conn))
        conn.sendall(head + PAGE)  # and the connection closes before the rest

    return handler


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n",
    ],
    ids=["content-length", "chunked"],
)
def test_a_list_cut_off_is_one_error_line(head: bytes, tmp_path) -> None:
    from tests.conftest import run_cli, write_kubeconfig
    from tests.doubles.http_server import ScriptedServer

    server = ScriptedServer(_cut_off(head))
    try:
        path = write_kubeconfig(tmp_path, server=server.url, namespace="ns")
        result = run_cli(["list", "--scope=cluster", "--kubeconfig", str(path)], environ={"HOME": str(tmp_path)})
    finally:
        server.close()
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    assert "unexpected EOF" in lines[0]
