"""A list response decoded item by item as its bytes arrive from the socket.

:class:`ListStream` reads the pieces of a list's body (``Transport.request(..., stream=True)``) into a small
rolling text buffer and hands out each object of ``items`` as soon as the bytes after it show that it ended
(:func:`.jsonscan.raw_decode`, ``json.JSONDecoder().raw_decode`` without ``json``, on the buffer; before, a whole page
was read, then decoded item by item). The items that a piece holds whole are decoded in one call of the C scanner
(:func:`leading_items`). What it holds at any time is one socket buffer (64 kB), what is not yet decoded of the
current object, and the objects of one piece (16 kB of JSON): never a page. The list's ``metadata`` (its ``continue`` token and ``resourceVersion``) is kept wherever it
comes: before ``items`` (built-in lists, encoded by apimachinery's typed JSON serializer) or after them (custom
resources' ``UnstructuredList``, and the streaming list encoder of KEP-5116, which writes the list's fields around
``items``).

Failures read as :func:`.errors.decode_object` words them for the same body: JSON that is not an object, not JSON
(with the body's whole size: the rest is read and counted, within the connection's bound), nested too deeply, a
number of too many digits; one value larger than :data:`MAX_VALUE` characters stops the read. The objects before a
fault have been handed out.
"""

from __future__ import annotations

import codecs

from .errors import ResponseError, decode_object, undecodable
from .http import human_size
from .jsonscan import raw_decode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

# One object of a list (etcd keeps objects under 1.5 MiB by default; their JSON may be somewhat larger): the same
# bound as one watch event (transport.MAX_STREAM_LINE).
MAX_VALUE = 16 << 20
_SPACE = " \t\n\r"  # JSON's whitespace
_DECODE = raw_decode  # json.JSONDecoder().raw_decode, as decode_object's json.loads (NaN and Infinity included)
_HEAD_MAX = 512  # how far into an item its "metadata" key is looked for (a batch's cut: leading_items)
_READ_AHEAD = 16384
_NOT_AN_ITEM_START = frozenset(" \t\r\n]")  # after a comma: whitespace or a misplaced end
_NUMBER_CHARACTERS = "0123456789.eE+-"  # what is read after a number could still be part of it


class ListStream:
    """Iterate it once for the objects of ``items``; then :attr:`metadata` is the list's metadata and
    :attr:`continue_token` its ``continue``. ``received``: the bytes of the body read so far."""

    def __init__(
        self, pieces: Iterable[bytes], content_type: str = "", max_value: int = MAX_VALUE, managed_fields: bool = True
    ):
        self.metadata: dict[str, Any] = {}
        self._managed_fields = managed_fields  # False: items decoded in a batch may come without them (leading_items)
        self.received = 0
        self._pieces = iter(pieces)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")  # invalid UTF-8 reads as U+FFFD, as Go's
        self._text = ""
        self._pos = 0
        self._eof = False
        self._content_type = content_type
        self._max = max_value
        self._kept: list[bytes] | None = []  # the bytes read before the body showed it is an object

    @property
    def continue_token(self) -> str | None:
        """The list's ``metadata.continue`` (None when there is no next page)."""
        token = self.metadata.get("continue")
        return str(token) if token else None

    @property
    def held(self) -> int:
        """How many characters of the body are held now (read, and the current object's not yet decoded)."""
        return len(self._text)

    def __iter__(self) -> Iterator[Any]:
        try:
            yield from self._items()
        except (RecursionError, ValueError) as exc:
            if isinstance(exc, ValueError) and "integer string conversion" not in str(exc):
                for piece in self._pieces:  # the message gives the body's size, as for a body read whole
                    self.received += len(piece)
            raise undecodable(exc, self.received, self._content_type) from None

    def _items(self) -> Iterator[Any]:
        if self._peek() != "{":
            yield from self._whole()
            return
        self._kept = None
        self._pos += 1
        char = self._char()
        while char != "}":
            if char != '"':
                raise ValueError("expected a key")
            self._pos -= 1
            key = self._value()
            if self._char() != ":":
                raise ValueError("expected a colon")
            if key == "items" and self._peek() == "[":
                self._pos += 1
                char = self._char()
                while char != "]":
                    self._pos -= 1
                    yield from self._run()
                    yield self._value()
                    char = self._char()
                    if char == ",":
                        char = self._char()
                        if char == "]":
                            raise ValueError("a comma before the end of the array")
                    elif char != "]":
                        raise ValueError("expected a comma")
            elif key == "metadata":
                metadata = self._value()
                self.metadata = metadata if isinstance(metadata, dict) else {}
            else:
                self._value()
            char = self._char()
            if char == ",":
                char = self._char()
                if char == "}":
                    raise ValueError("a comma before the end of the object")
            elif char != "}":
                raise ValueError("expected a comma")
        if self._peek() != "":
            raise ValueError("extra data")

    def _run(self) -> Iterator[Any]:
        """The items from the position on that are each followed, within what was read, by a comma and the next
        item (the API server writes lists without whitespace): decoded without the careful path's checks, a piece
        at a time (:func:`leading_items`, reading on) or else one at a time. The last one of the list, one cut by
        the end of what was read when no batch could be cut, or anything unusual is left to :meth:`_value`
        (decoded again there)."""
        batched = False
        while (batch := leading_items(self._text, self._pos, self._managed_fields)) is not None:
            values, self._pos = batch
            batched = True
            yield from values
            # the item after the batch is the last one begun in what was read, most likely cut: read the next
            # piece, and it starts the next batch (one call of the scanner a piece, none for an item alone)
            self._fill(len(self._text) - self._pos + _READ_AHEAD)
        if batched:
            return  # no other item begins in what was read (the last of the page, or a large one): the careful path
        text, pos, last = self._text, self._pos, len(self._text) - 1
        decode = _DECODE
        while True:
            try:
                value, end = decode(text, pos)
            except ValueError:  # incomplete, or not JSON: the careful path tells which
                break
            if end >= last or text[end] != "," or text[end + 1] in _NOT_AN_ITEM_START:
                break
            pos = self._pos = end + 1
            yield value

    def _whole(self) -> Iterator[Any]:
        """A body that does not start as an object: read whole (within the connection's bound) for the message
        decode_object gives it (an array, a string, ..., or not JSON)."""
        kept = self._kept or []
        for piece in self._pieces:
            self.received += len(piece)
            kept.append(piece)
        document = decode_object(b"".join(kept), self._content_type)
        metadata = document.get("metadata")
        self.metadata = metadata if isinstance(metadata, dict) else {}
        yield from document.get("items") or ()

    def _fill(self, want: int) -> bool:
        """Drop what was read, then read pieces until ``want`` characters are held past the position (or the body
        ended); False when nothing more came."""
        held = self._text[self._pos :]
        parts, size = [held], len(held)
        while size < want and not self._eof:
            piece = next(self._pieces, None)
            if piece is None:
                self._eof = True
                text = self._utf8.decode(b"", final=True)
            else:
                self.received += len(piece)
                if self._kept is not None:
                    self._kept.append(piece)
                text = self._utf8.decode(piece)
            parts.append(text)
            size += len(text)
        self._text, self._pos = "".join(parts), 0
        return size > len(held)

    def _peek(self) -> str:
        """The next character that is not whitespace, not consumed ('' at the end of the body)."""
        while True:
            text, pos = self._text, self._pos
            while pos < len(text) and text[pos] in _SPACE:
                pos += 1
            self._pos = pos
            if pos < len(text):
                return text[pos]
            if not self._fill(1):
                return ""

    def _char(self) -> str:
        """The next character that is not whitespace, consumed."""
        char = self._peek()
        self._pos += 1 if char else 0
        return char

    def _value(self) -> Any:
        """The JSON value at the position, once the characters after it show that it ended (a number or a
        literal at the end of what was read may go on in the next piece); the position moves past it."""
        if not self._peek():
            raise ValueError("the body ended before a value")
        while True:
            text, pos = self._text, self._pos
            try:
                value, end = _DECODE(text, pos)
            except ValueError as exc:
                if self._eof or "integer string conversion" in str(exc):
                    raise
            else:
                # a number is complete only once a character that cannot continue it follows ("0." may be "0.5")
                if self._eof or (
                    end < len(text) and (type(value) not in (int, float) or text[end:].lstrip(_NUMBER_CHARACTERS))
                ):
                    self._pos = end
                    return value
            held = len(text) - pos
            if held > self._max:
                raise ResponseError(
                    f"an object in the server's list is larger than {human_size(self._max)}; stopped reading it"
                )
            # at least twice what is held of the value: a large object is decoded a few times, not once a piece
            self._fill(max(2 * held, held + _READ_AHEAD))


def leading_items(text: str, pos: int, managed_fields: bool = True) -> tuple[list[Any], int] | None:
    """The items from ``pos`` up to the last start of another item read so far, decoded in one call, and the
    position after them; None when there is no such start or they do not decode as one array.

    The C scanner forgets the object keys it has seen (its memo) at the end of every call: one call per item
    makes each item's keys anew; one call for the items of a piece costs about two thirds as much (2,000 instance
    types: 9.9 ms instead of 15.9 in the scanner; this whole reader, 13.3 ms instead of 15.2). Where an item ends is
    only known by parsing it, so the cut is a guess: the last ``,`` followed by the text this item starts with up to
    its ``"metadata":`` key (``{"apiVersion":"G/V","kind":"K","metadata":`` in a custom resource list, as the API
    server writes every item of one). ``[`` + the text before the cut + ``]`` decodes as a JSON array only when
    the cut falls between two items of the list: an item is one object, and no proper prefix of an object's
    text (cut before a comma inside it) is a complete value. A guess that falls inside an item (a nested
    object that starts the same way) fails, and the items are then decoded one at a time, as before.

    Without ``managed_fields`` (the caller reads none: a table's cells), the text of each item's
    ``metadata.managedFields`` is left out before decoding (:func:`without_managed_fields`): about half of an
    instance type's JSON and more than half of the cost of decoding it."""
    head_end = text.find('"metadata":', pos, pos + _HEAD_MAX)
    if head_end < 0:
        return None
    cut = text.rfind("," + text[pos : head_end + 11], pos + 1)
    if cut < 0:
        return None
    items = text[pos:cut] if managed_fields else without_managed_fields(text[pos:cut])
    try:
        values, end = _DECODE("[" + items + "]", 0)
    except (ValueError, RecursionError):  # a wrong guess, or a fault the careful path words
        return None
    if end != len(items) + 2:  # the array closed before the cut: the cut was not between items
        return None
    return values, cut + 1


_MANAGED = ',"managedFields":['
_AFTER_MANAGED = '],"name":"'


def without_managed_fields(text: str) -> str:
    """``text`` (JSON) without the ``"managedFields":[...]`` members written as the API server writes them in a custom
    resource: the array holds no ``[`` or ``]`` (managed field sets are objects of ``f:``/``k:``/``v:``/``i:`` keys,
    structured-merge-diff's fieldpath; the entries' other fields are strings) and the next key is ``name`` (the
    unstructured encoder, Go's encoding/json of a map, sorts the keys). In valid JSON both marks are structural:
    ``,"managedFields":[`` and ``],"name":"`` hold a quote that is not escaped right after a comma, which only a
    key can start; and the first ``]`` after an array's ``[``, with no ``[`` between, closes that array. A member
    written otherwise is left as it is. The text left out is not checked (it is not decoded)."""
    find = text.find
    parts = []
    start = 0
    while (member := find(_MANAGED, start)) >= 0:
        close = find("]", member)
        if close < 0 or not text.startswith(_AFTER_MANAGED, close) or find("[", member + len(_MANAGED), close) >= 0:
            break  # not as the API server writes it: the rest is decoded whole
        parts.append(text[start:member])
        start = close + 1
    if not parts:
        return text
    parts.append(text[start:])
    return "".join(parts)
