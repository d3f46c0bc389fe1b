"""Compressed answers: golang/gzip.py (Go's gzip.Reader) and kube/http.py asking for and inflating gzip as Go's
http.Transport does, against ScriptedServer (tests/doubles), a loopback double of the wire only. Go itself holds the
reader in tests/unit/test_golang_differential.py; the real API server gzipping a list in
tests/integration/test_compression.py."""

from __future__ import annotations

import gzip
import json
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.golang.gzip import GzipError, InflatedTooLarge, gunzip
from kubectl_instancetype.kube.http import BodyTooLarge, Connection
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import Transport
from tests.doubles.http_server import ScriptedServer, read_request, scripted_servers

READ_PREFIX = "error: unexpected error when reading response body. Please retry. Original error: "


def _member(data: bytes, flags: int = 0, extra: bytes = b"", name: bytes = b"", header_crc: int | None = None) -> bytes:
    """One gzip member written by hand, so that every header field can be set."""
    head = bytearray(b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff")
    if flags & 4:
        head += struct.pack("<H", len(extra)) + extra
    if flags & 8:
        head += name + b"\0"
    if flags & 2:
        head += struct.pack("<H", (zlib.crc32(head) & 0xFFFF) if header_crc is None else header_crc)
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    return bytes(head) + deflate.compress(data) + deflate.flush() + struct.pack("<II", zlib.crc32(data), len(data))


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[start : start + size] for start in range(0, len(data), size)]


def _read(data: bytes, size: int = 7, limit: int = 1 << 30) -> bytes:
    return b"".join(gunzip(_pieces(data, size), limit))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=3), st.integers(1, 5000))
def test_members_in_any_pieces_read_as_python_writes_them(members: list[bytes], size: int) -> None:
    body = b"".join(gzip.compress(member, mtime=0) for member in members)
    assert _read(body, size) == b"".join(members)


def test_inflated_pieces_are_bounded_and_a_long_run_ends_within_the_last_piece() -> None:
    # 1 MiB of one byte: a few hundred compressed bytes that inflate past one 64 kB piece after the input is all in
    data = b"x" * (1 << 20)
    pieces = list(gunzip([gzip.compress(data)], 1 << 30))
    assert b"".join(pieces) == data and max(map(len, pieces)) <= 65536


def test_the_inflated_size_is_bounded() -> None:
    body = gzip.compress(b"x" * 100_001)
    assert _read(body, limit=100_001) == b"x" * 100_001
    with pytest.raises(InflatedTooLarge):
        _read(body, limit=100_000)


@pytest.mark.parametrize(
    "body,message",
    [
        (b"", None),  # io.EOF before a member: empty
        (b"\x1f\x8b", "unexpected EOF"),
        (b"\x1f\x8b\x09" + b"\0" * 20, "gzip: invalid header"),  # not deflate
        (b"PK\x03\x04" + b"\0" * 20, "gzip: invalid header"),
        (_member(b"abc", flags=8, name=b"n" * 511), None),  # the name and its NUL fill Go's 512-byte buffer
        (_member(b"abc", flags=8, name=b"n" * 512), "gzip: invalid header"),
        (_member(b"abc", flags=2, header_crc=7), "gzip: invalid header"),
        (_member(b"abc", flags=2 | 4 | 8, extra=b"xy", name=b"caf\xe9"), None),
        (_member(b"abc", flags=0x20), None),  # Go does not look at the reserved flags
        (_member(b"abc")[:-3], "unexpected EOF"),  # inside the trailer
        (_member(b"abc")[:12], "unexpected EOF"),  # inside the deflate data
        (_member(b"abc")[:-8] + struct.pack("<II", 0, 3), "gzip: invalid checksum"),
        (_member(b"abc")[:-8] + struct.pack("<II", zlib.crc32(b"abc"), 4), "gzip: invalid checksum"),
        (_member(b"abc") + b"\x1f", "unexpected EOF"),  # a second member cut in its header
        (_member(b"abc") + b"trailing garbage", "gzip: invalid header"),
        (b"\x1f\x8b\x08\0\0\0\0\0\0\xff\xff", "flate: corrupt input before offset 1"),  # block type 3
    ],
)
def test_go_s_errors(body: bytes, message: str | None) -> None:
    try:
        data = _read(body)
    except GzipError as exc:
        assert str(exc) == message
    else:
        assert message is None and data == b"abc" * bool(body)


def test_a_corrupt_stream_names_the_byte_go_names() -> None:
    # the third deflate byte of a stored block's length complement flipped: found at the fourth byte read
    body = bytearray(_member(b"hello" * 20, flags=0))
    body[10] = 0x01  # a final stored block: 3 header bits, then the aligned LEN and NLEN
    body[11:15] = struct.pack("<HH", 100, 0x1234)
    with pytest.raises(GzipError) as caught:
        _read(bytes(body), size=1)
    assert str(caught.value) == "flate: corrupt input before offset 5"


# --- kube/http.py: asked for and inflated as Go's http.Transport does -------------------------------------------


@pytest.fixture
def server():
    with scripted_servers() as start:
        yield start


def _gzip_answer(body: bytes, *, chunked: bool = False, encoding: str = "gzip") -> bytes:
    packed = gzip.compress(body, mtime=0)
    if chunked:
        framed = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in _pieces(packed, 100)) + b"0\r\n\r\n"
        return b"HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nTransfer-Encoding: chunked\r\n\r\n%s" % (
            encoding.encode(),
            framed,
        )
    return b"HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: %d\r\n\r\n%s" % (
        encoding.encode(),
        len(packed),
        packed,
    )


def _answering(reply: bytes, times: int = 1):
    def handler(conn, seen):
        for _ in range(times):
            seen.append(read_request(conn))
            conn.sendall(reply)

    return handler


def _connection(scripted: ScriptedServer, **options) -> Connection:
    return Connection("127.0.0.1", scripted.port, **options)


def test_the_transport_asks_for_gzip_and_reads_the_answer_inflated(server) -> None:
    items = {"kind": "List", "items": [{"n": index} for index in range(2000)]}
    body = json.dumps(items).encode()
    scripted = server(_answering(_gzip_answer(body, chunked=True), times=3))
    transport = Transport(ClusterConfig(server=scripted.url), environ={})
    assert transport.request("GET", "/whole") == items
    # streamed (a list's pages): inflated as the pieces arrive, read to the end of the chunked body, so that the
    # connection serves the next request
    assert b"".join(transport.request("GET", "/streamed", stream=True)) == body
    assert transport.request("GET", "/after") == items
    assert scripted.connections == 1
    assert all(b"\r\nAccept-Encoding: gzip\r\n" in request for request in scripted.requests)


def test_disable_compression_asks_for_nothing_compressed(server) -> None:
    scripted = server(_answering(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
    transport = Transport(ClusterConfig(server=scripted.url, disable_compression=True), environ={})
    assert transport.request("GET", "/") == {}
    assert b"Accept-Encoding" not in scripted.requests[0]


@pytest.mark.parametrize(
    "method,headers",
    [("GET", {"Accept-Encoding": "identity"}), ("GET", {"range": "bytes=0-1"}), ("HEAD", {})],
)
def test_a_request_that_sets_its_own_encoding_or_range_or_is_a_head_is_left_alone(server, method, headers) -> None:
    reply = _gzip_answer(b"{}") if method != "HEAD" else b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n"
    scripted = server(_answering(reply))
    connection = _connection(scripted, compression=True)
    response = connection.request(method, "/", headers)
    assert not response.uncompressed and response.headers["content-encoding"] == "gzip"
    assert response.body == (b"" if method == "HEAD" else gzip.compress(b"{}", mtime=0))  # as it came
    assert scripted.requests[0].count(b"Accept-Encoding") == (1 if "Accept-Encoding" in headers else 0)
    connection.close()


def test_the_inflated_answer_loses_its_encoding_and_length_headers(server) -> None:
    scripted = server(_answering(_gzip_answer(b'{"a":1}', encoding="GZip")))
    connection = _connection(scripted, compression=True)
    response = connection.request("GET", "/", {})
    assert response.uncompressed and response.body == b'{"a":1}'
    assert "content-encoding" not in response.headers and "content-length" not in response.headers
    connection.close()


def test_another_encoding_is_handed_on_as_it_came(server) -> None:
    scripted = server(_answering(b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 3\r\n\r\nabc"))
    connection = _connection(scripted, compression=True)
    response = connection.request("GET", "/", {})
    assert not response.uncompressed and response.body == b"abc" and response.headers["content-encoding"] == "br"
    connection.close()


@pytest.mark.parametrize("stream", [False, True])
def test_the_body_bound_holds_for_the_inflated_size(server, stream: bool) -> None:
    scripted = server(_answering(_gzip_answer(b"[" + b"0," * 600_000 + b"0]")))  # 21 kB that inflate to 1.2 MB
    connection = _connection(scripted, compression=True, max_body=1 << 20)
    with pytest.raises(BodyTooLarge):
        connection.request("GET", "/", {}, stream=stream)
        if stream:
            b"".join(connection.body_pieces())
    assert connection.socket_timeout is None and not connection.reusable  # closed: the rest is never read


@pytest.mark.parametrize(
    "packed,message",
    [
        (b"not gzip at all", "gzip: invalid header"),
        (gzip.compress(b'{"a":1}')[:-4], "unexpected EOF"),
        (gzip.compress(b'{"a":1}')[:-8] + b"\0\0\0\0\x07\0\0\0", "gzip: invalid checksum"),
    ],
)
def test_a_body_go_s_reader_refuses_is_one_line_in_client_go_s_words(server, packed: bytes, message: str) -> None:
    reply = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (len(packed), packed)
    scripted = server(_answering(reply))
    transport = Transport(ClusterConfig(server=scripted.url), environ={})
    with pytest.raises(PluginError) as caught:
        transport.request("GET", "/")
    assert caught.value.render() == READ_PREFIX + message


def test_a_gzipped_watch_is_read_line_by_line(server) -> None:
    events = b"".join(json.dumps({"type": "ADDED", "object": {"n": n}}).encode() + b"\n" for n in range(300))
    scripted = server(_answering(_gzip_answer(events, chunked=True)))
    transport = Transport(ClusterConfig(server=scripted.url), environ={})
    assert b"".join(transport.stream_lines("/watch")) == events
