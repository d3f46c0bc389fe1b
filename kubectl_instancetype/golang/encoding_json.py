"""Go's ``encoding/json`` syntax errors: the sentence its scanner gives for the first byte that cannot continue a
JSON value (``encoding/json/scanner.go``: ``invalid character 'g' looking for beginning of value``), so that a
message about a corrupt answer or watch line says what kubectl would say, never Python's ``Expecting value``; and
``json.Marshal`` / ``json.MarshalIndent`` of a decoded JSON value (:func:`marshal`, :func:`marshal_indent`: sorted
keys, Go's float format, HTML characters escaped), which the JSONPath and KYAML printers use.

Only the verdict is computed here: the text is checked byte by byte with the scanner's states (``stateBeginValue``,
``stateInString``, ``stateEndValue`` and the rest), which is all that decides the words.
"""

from __future__ import annotations

import json
from typing import Any

_SPACE = b" \t\r\n"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"
_ESCAPES = b'bfnrt\\/"'
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}
UNEXPECTED_END = "unexpected end of JSON input"  # json.Unmarshal's sentence for input that stops mid-value
UNEXPECTED_EOF = "unexpected EOF"  # io.ErrUnexpectedEOF: a json.Decoder's stream that stops mid-value


class _Invalid(Exception):
    def __init__(self, byte: int, context: str):
        super().__init__(f"invalid character {quote_char(byte)} {context}")


def quote_char(byte: int) -> str:
    """encoding/json's ``quoteChar``: the byte as a Go character literal (``'g'``, ``'\\x00'``, ``'\\''``)."""
    if byte == ord("'"):
        return "'\\''"
    if byte == ord('"'):
        return "'\"'"
    from .strconv import go_quote

    quoted = go_quote(chr(byte))  # Go's string(c) of a byte is the rune U+00XX
    return "'" + quoted[1:-1] + "'"


def syntax_error(data: bytes, *, stream: bool = False) -> str | None:
    """Go's error for ``data`` as one JSON value, or None when its syntax is valid.

    ``json.Unmarshal`` (``stream`` false) feeds its scanner one space after the input (``scanner.eof``), so input
    that stops inside a literal or a number reads ``invalid character ' ' in literal true (expecting 'e')``, and
    inside anything else :data:`UNEXPECTED_END`. A ``json.Decoder`` (``stream``: client-go's watch framing) reads
    values one after the other and says :data:`UNEXPECTED_EOF` for input that stops inside one.
    """
    if not stream:
        data += b" "
    try:
        end = _skip(data, 0)
        while True:
            end = _skip(data, _value(data, end))
            if end >= len(data):
                return None
            if not stream:
                raise _Invalid(data[end], "after top-level value")
    except _Invalid as exc:
        return str(exc)
    except IndexError:
        return UNEXPECTED_EOF if stream else UNEXPECTED_END


def _skip(data: bytes, index: int) -> int:
    while index < len(data) and data[index] in _SPACE:
        index += 1
    return index


def _value(data: bytes, index: int) -> int:
    """stateBeginValue: the index after the value that starts at ``index``."""
    byte = data[index]
    if byte == ord("{"):
        return _object(data, index + 1)
    if byte == ord("["):
        return _array(data, index + 1)
    if byte == ord('"'):
        return _string(data, index + 1)
    if byte == ord("-") or byte in _DIGITS:
        return _number(data, index)
    literal = _LITERALS.get(byte)
    if literal is not None:
        for offset in range(1, len(literal)):
            got = data[index + offset]
            if got != literal[offset]:
                raise _Invalid(got, f"in literal {literal.decode()} (expecting {quote_char(literal[offset])})")
        return index + len(literal)
    raise _Invalid(byte, "looking for beginning of value")


def _object(data: bytes, index: int) -> int:
    index = _skip(data, index)
    if data[index] == ord("}"):
        return index + 1
    while True:
        if data[index] != ord('"'):  # stateBeginString
            raise _Invalid(data[index], "looking for beginning of object key string")
        index = _skip(data, _string(data, index + 1))
        if data[index] != ord(":"):
            raise _Invalid(data[index], "after object key")
        index = _skip(data, _value(data, _skip(data, index + 1)))
        if data[index] == ord("}"):
            return index + 1
        if data[index] != ord(","):
            raise _Invalid(data[index], "after object key:value pair")
        index = _skip(data, index + 1)


def _array(data: bytes, index: int) -> int:
    index = _skip(data, index)
    if data[index] == ord("]"):
        return index + 1
    while True:
        index = _skip(data, _value(data, index))
        if data[index] == ord("]"):
            return index + 1
        if data[index] != ord(","):
            raise _Invalid(data[index], "after array element")
        index = _skip(data, index + 1)


def _string(data: bytes, index: int) -> int:
    """stateInString from just after the opening quote; the index after the closing one."""
    while True:
        byte = data[index]
        if byte == ord('"'):
            return index + 1
        if byte == ord("\\"):
            escape = data[index + 1]
            if escape == ord("u"):
                for offset in range(2, 6):
                    if data[index + offset] not in _HEX:
                        raise _Invalid(data[index + offset], "in \\u hexadecimal character escape")
                index += 6
                continue
            if escape not in _ESCAPES:
                raise _Invalid(escape, "in string escape code")
            index += 2
            continue
        if byte < 0x20:
            raise _Invalid(byte, "in string literal")
        index += 1


def _number(data: bytes, index: int) -> int:
    """stateNeg, state0/state1, stateDot, stateE: the index after the number. A number may end the input."""
    size = len(data)
    if data[index] == ord("-"):
        index += 1
        if data[index] not in _DIGITS:
            raise _Invalid(data[index], "in numeric literal")
    if data[index] == ord("0"):
        index += 1
    else:
        while index < size and data[index] in _DIGITS:
            index += 1
    if index < size and data[index] == ord("."):
        index += 1
        if data[index] not in _DIGITS:
            raise _Invalid(data[index], "after decimal point in numeric literal")
        while index < size and data[index] in _DIGITS:
            index += 1
    if index < size and data[index] in b"eE":
        index += 1
        if data[index] in b"+-":
            index += 1
        if data[index] not in _DIGITS:
            raise _Invalid(data[index], "in exponent of numeric literal")
        while index < size and data[index] in _DIGITS:
            index += 1
    return index


_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _marshal_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    if any(char in encoded for char in _HTML_ESCAPES):
        encoded = "".join(_HTML_ESCAPES.get(char, char) for char in encoded)
    return encoded


def _marshal_float(value: float) -> str:
    """encoding/json's float64: ``'f'`` form, ``'e'`` (with a 1-digit exponent kept) outside [1e-6, 1e21)."""
    magnitude = abs(value)
    if 1e-4 <= magnitude < 1e16:
        # where Python's repr is positional too, it is Go's shortest 'f' form, less a trailing ".0"
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    from .fmt import format_float  # strconv.FormatFloat, for what repr does not write as Go does

    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"json: unsupported value: {format_float(value, 'g', -1)}")
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = format_float(value, "e", -1)
        # Go cleans e-07 to e-7
        mantissa, _, exp = text.partition("e")
        if len(exp) == 3 and exp[1] == "0":
            exp = exp[0] + exp[2]
        return f"{mantissa}e{exp}"
    return format_float(value, "f", -1)


def marshal(value: Any, *, indent: str | None = None, _level: int = 0) -> str:
    """``json.Marshal`` (or ``json.MarshalIndent(v, "", indent)``): sorted keys, HTML characters escaped."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _marshal_float(value)
    if isinstance(value, str):
        return _marshal_string(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        separator = ":" if indent is None else ": "
        items = [
            f"{_marshal_string(key)}{separator}{marshal(value[key], indent=indent, _level=_level + 1)}"
            for key in sorted(value)
        ]
        if indent is None:
            return "{" + ",".join(items) + "}"
        inner = "\n" + indent * (_level + 1)
        return "{" + inner + ("," + inner).join(items) + "\n" + indent * _level + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        parts = [marshal(item, indent=indent, _level=_level + 1) for item in value]
        if indent is None:
            return "[" + ",".join(parts) + "]"
        inner = "\n" + indent * (_level + 1)
        return "[" + inner + ("," + inner).join(parts) + "\n" + indent * _level + "]"
    raise TypeError(f"json: unsupported type: {type(value).__name__}")


def json_round_trip(value: Any) -> Any:
    """``value`` after ``json.Marshal`` and apimachinery's ``json.Unmarshal`` (cli-runtime's go-template printer
    passes the object through both): a whole float that Go writes without a point or exponent and that fits an
    int64 comes back as an int64 (``2.0`` is ``2``; ``1e21`` stays a float)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21 and -(2**63) <= value < 2**63:
            return int(value)
        return value
    if isinstance(value, dict):
        return {key: json_round_trip(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_round_trip(item) for item in value]
    return value


def marshal_indent(value: Any, indent: str = "    ") -> str:
    """``json.MarshalIndent(value, "", indent)`` as :func:`marshal` writes it, through the standard library's
    encoder (its indented form is the same walk, with Go's float format put in), then Go's HTML escapes."""
    try:
        from json.encoder import _make_iterencode, encode_basestring  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - a Python without the pure encoder
        return marshal(value, indent=indent)
    chunks = _make_iterencode(
        {}, _unsupported, encode_basestring, indent, _marshal_float, ": ", ",", True, False, False
    )(value, 0)
    text = "".join(chunks)
    if any(char in text for char in _HTML_ESCAPES):
        # <, >, & and U+2028/U+2029 only stand inside strings in JSON text
        text = text.translate({ord(char): escape for char, escape in _HTML_ESCAPES.items()})
    return text


def _unsupported(value: Any) -> Any:
    raise TypeError(f"json: unsupported type: {type(value).__name__}")
