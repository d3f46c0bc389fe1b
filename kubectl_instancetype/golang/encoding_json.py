"""Go's ``encoding/json`` syntax errors: the sentence its scanner gives for the first byte that cannot continue a
JSON value (``encoding/json/scanner.go``: ``invalid character 'g' looking for beginning of value``), so that a
message about a corrupt answer or watch line says what kubectl would say, never Python's ``Expecting value``.

Only the verdict is computed here: the text is checked byte by byte with the scanner's states (``stateBeginValue``,
``stateInString``, ``stateEndValue`` and the rest), which is all that decides the words.
"""

from __future__ import annotations

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
