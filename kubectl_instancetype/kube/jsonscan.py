"""The API server's JSON decoded by the C scanner of CPython's ``json``, without importing ``json``.

``import json`` imports ``re`` and compiles json's patterns, and ``re`` brings ``enum``, ``functools`` and
``collections``: 28M instructions on CPython 3.11 (callgrind), more than a ``list`` of ten rows decodes, parses and
prints. The decoding itself is ``_json.make_scanner``, the scanner ``json.JSONDecoder`` makes (``Lib/json/scanner.py``
``c_make_scanner``), here with ``JSONDecoder()``'s settings: ``float`` and ``int`` for numbers, ``NaN`` and the
infinities accepted, strict strings, no hooks. So every value decodes to what ``json.loads`` and
``JSONDecoder().raw_decode`` give.

Failures are ``ValueError`` (or ``RecursionError``, nesting too deep), as from ``json``, and callers read no more of
them than that and the one message of int's digit limit ("Exceeds the limit (4300 digits) for integer string
conversion", which the scanner raises as it is). The words of the others differ: the C scanner raises
``json.JSONDecodeError`` only when ``json.decoder`` is loaded (``Modules/_json.c`` ``raise_errmsg`` looks it up in
``sys.modules``; without it the call fails with a ``SystemError``), so the failure is reported here with the
position the scanner stopped at. Without the C scanner (an interpreter built without ``_json``), ``json`` decodes.
tests/unit/test_jsonscan.py holds both functions to ``json`` on generated documents and texts.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}  # json.decoder's
_WHITESPACE = " \t\n\r"  # JSON's (json.decoder.WHITESPACE)


class _Settings:
    """What the scanner reads from the decoder it is made for (``scanner_new``): ``JSONDecoder()``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _scanner() -> Any:
    try:
        from _json import make_scanner
    except ImportError:  # pragma: no cover - CPython builds _json; json.scanner's own fallback
        import json

        return json.JSONDecoder().scan_once  # type: ignore[attr-defined]
    return make_scanner(_Settings())  # type: ignore[arg-type]  # typeshed: the decoder; the scanner reads 6 attributes


_SCAN = _scanner()


def raw_decode(text: str, index: int = 0) -> tuple[Any, int]:
    """``json.JSONDecoder().raw_decode(text, index)``: the JSON value that starts at ``index`` (no whitespace before
    it) and the index after it."""
    try:
        return _SCAN(text, index)
    except StopIteration as stop:  # no value starts there (raw_decode: "Expecting value")
        raise ValueError(f"Expecting value: char {stop.value}") from None
    except (ValueError, RecursionError):
        raise  # json.JSONDecodeError when json.decoder is loaded; int's digit limit; nesting
    except SystemError:  # a syntax error while json.decoder is not loaded (module docstring)
        raise ValueError(f"invalid JSON in the value that starts at char {index}") from None


def loads(data: bytes | str) -> Any:
    """``json.loads(data)``: the one JSON value of ``data``, whitespace around it allowed. Bytes are UTF-8 here; other
    encodings ``json.loads`` detects (a byte-order mark, the zero bytes of UTF-16 or UTF-32) are left to it."""
    if not isinstance(data, str):
        if data[:1] in (b"\xef", b"\xfe", b"\xff", b"\x00") or data[1:2] == b"\x00":  # json.detect_encoding
            import json

            return json.loads(data)
        text = data.decode("utf-8", "surrogatepass")  # json.loads: s.decode(detect_encoding(s), 'surrogatepass')
    else:
        text = data
        if text.startswith("\ufeff"):
            raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
    start = len(text) - len(text.lstrip(_WHITESPACE))
    value, end = raw_decode(text, start)
    if end != len(text) and text[end:].strip(_WHITESPACE):
        raise ValueError(f"Extra data: char {end}")
    return value
