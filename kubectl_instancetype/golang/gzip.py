"""Go's ``compress/gzip`` ``Reader`` as net/http's transport reads an answer it asked to be gzipped.

Go's ``http.Transport`` asks for ``Accept-Encoding: gzip`` on its own (unless ``DisableCompression``, which
client-go sets from the kubeconfig's ``disable-compression``) and reads a gzipped answer through ``gzipReader``:
``gzip.NewReader`` on the first read, members read one after another (multistream, the default), each member's
header read as ``Reader.readHeader`` reads it, its CRC-32 and size checked after it, and these errors:

- ``gzip: invalid header`` (``ErrHeader``): not ``1f 8b 08``, a name or comment of 512 bytes without its NUL, a
  header CRC that does not match;
- ``gzip: invalid checksum`` (``ErrChecksum``): the trailer's CRC-32 or size is not the data's;
- ``unexpected EOF``: the body ends inside a header, the deflate data or a trailer;
- ``flate: corrupt input before offset N`` (``flate.CorruptInputError``): N counts the member's deflate bytes read
  up to the fault.

An empty body reads as empty (``readHeader``'s ``io.EOF`` before any member), as does the end after a whole member.
The deflate data itself is inflated by zlib (``wbits=-15``, raw deflate, the format Go's ``compress/flate`` reads).
zlib and Go find a fault at the same byte when zlib is given one byte at a time
(tests/unit/test_golang_differential.py holds it to Go on corrupted streams), so the byte is found by replaying, from
a copy of the inflater's state, only the input of the call that failed.

Go reads without a bound; here the inflated bytes are bounded (:class:`InflatedTooLarge` past ``limit``), as every
body the plugin reads is (kube/http.py).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

ERR_HEADER = "gzip: invalid header"
ERR_CHECKSUM = "gzip: invalid checksum"
UNEXPECTED_EOF = "unexpected EOF"  # io.ErrUnexpectedEOF

_FLAG_EXTRA, _FLAG_NAME, _FLAG_COMMENT, _FLAG_HEADER_CRC = 1 << 2, 1 << 3, 1 << 4, 1 << 1
_STRING_MAX = 512  # Reader.buf: a name or comment and its NUL must fit (readString)
_PIECE = 65536  # the most inflated bytes handed on at a time


class GzipError(ValueError):
    """A gzipped body Go's reader refuses; the message is Go's error text."""


class InflatedTooLarge(ValueError):
    """The inflated body grew past ``limit`` bytes."""

    def __init__(self, limit: int):
        super().__init__(f"the inflated body is larger than {limit} bytes")
        self.limit = limit


class _Input:
    """The compressed pieces, read on demand into a buffer."""

    def __init__(self, pieces: Iterable[bytes]):
        self._pieces = iter(pieces)
        self.buffer = bytearray()
        self.ended = False

    def fill(self, size: int) -> bool:
        """Read until ``size`` bytes are held; False if the body ended first."""
        while len(self.buffer) < size:
            if not self.more():
                return False
        return True

    def more(self) -> bool:
        """Read one more piece into the buffer; False at the end of the body."""
        if self.ended:
            return False
        piece = next(self._pieces, None)
        if piece is None:
            self.ended = True
            return False
        self.buffer += piece
        return True

    def take(self, size: int) -> bytes:
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data


def gunzip(pieces: Iterable[bytes], limit: int) -> Iterator[bytes]:
    """The inflated data of the gzip members in ``pieces`` (a body's bytes as they arrive), in pieces of at most
    64 kB as Go's ``gzipReader`` would read them; :class:`GzipError` with Go's text for a body Go refuses,
    :class:`InflatedTooLarge` once more than ``limit`` bytes come out."""
    import zlib

    source = _Input(pieces)
    total = 0
    while True:
        if not source.fill(10):
            if not source.buffer:
                return  # io.EOF before a member: the end (or an empty body)
            raise GzipError(UNEXPECTED_EOF)
        _read_header(source)
        inflater = zlib.decompressobj(-15)
        digest = size = 0
        consumed = 0  # the member's deflate bytes given to zlib (Go's CorruptInputError offset)
        data = source.take(len(source.buffer))
        while True:
            cap = min(_PIECE, limit - total + 1)
            before = inflater.copy()
            try:
                out = inflater.decompress(data, cap)
            except zlib.error:
                raise GzipError(f"flate: corrupt input before offset {consumed + _fault(before, data)}") from None
            rest = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            consumed += len(data) - len(rest)
            if out:
                total += len(out)
                if total > limit:
                    raise InflatedTooLarge(limit)
                digest = zlib.crc32(out, digest)
                size += len(out)
                yield out
            if inflater.eof:
                source.buffer[:0] = rest  # the trailer and whatever follows it
                break
            if rest or len(out) == cap:
                data = rest  # input left, or output held back by the cap: go on with what is held
                continue
            if not source.more():
                raise GzipError(UNEXPECTED_EOF)
            data = source.take(len(source.buffer))
        if not source.fill(8):
            raise GzipError(UNEXPECTED_EOF)
        trailer = source.take(8)
        if (
            int.from_bytes(trailer[:4], "little") != digest
            or int.from_bytes(trailer[4:], "little") != size & 0xFFFFFFFF
        ):
            raise GzipError(ERR_CHECKSUM)


def _read_header(source: _Input) -> None:
    """``Reader.readHeader`` after its first 10 bytes were read: the magic, then the optional fields the flags name
    (extra, name, comment, header CRC), leaving the buffer at the deflate data."""
    import zlib

    head = source.take(10)
    if head[0] != 0x1F or head[1] != 0x8B or head[2] != 8:
        raise GzipError(ERR_HEADER)
    flags = head[3]
    digest = zlib.crc32(head)
    if flags & _FLAG_EXTRA:
        if not source.fill(2):
            raise GzipError(UNEXPECTED_EOF)
        length = source.take(2)
        digest = zlib.crc32(length, digest)
        if not source.fill(int.from_bytes(length, "little")):
            raise GzipError(UNEXPECTED_EOF)
        digest = zlib.crc32(source.take(int.from_bytes(length, "little")), digest)
    for flag in (_FLAG_NAME, _FLAG_COMMENT):
        if flags & flag:
            while (end := source.buffer.find(0, 0, _STRING_MAX)) < 0:
                if len(source.buffer) >= _STRING_MAX:
                    raise GzipError(ERR_HEADER)
                if not source.more():
                    raise GzipError(UNEXPECTED_EOF)
            digest = zlib.crc32(source.take(end + 1), digest)
    if flags & _FLAG_HEADER_CRC:
        if not source.fill(2):
            raise GzipError(UNEXPECTED_EOF)
        if int.from_bytes(source.take(2), "little") != digest & 0xFFFF:
            raise GzipError(ERR_HEADER)


def _fault(inflater: Any, data: bytes) -> int:
    """How many bytes of ``data`` zlib reads before it finds the fault, given them one at a time from ``inflater``
    (a copy of the state before the call that failed)."""
    import zlib

    for index in range(len(data)):
        try:
            inflater.decompress(data[index : index + 1])
        except zlib.error:
            return index + 1
    return len(data)
