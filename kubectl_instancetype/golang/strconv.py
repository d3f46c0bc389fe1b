"""Go's ``strconv``: ``ParseUint``/``ParseInt``/``ParseBool`` and ``Quote``, with Go's exact error texts.

pflag passes these errors through (``invalid argument "x" for "--cpu" flag: strconv.ParseUint: parsing "x":
invalid syntax``), and Go accepts only ASCII digits: ``int("４")`` is 4 in Python, a syntax error in Go.
"""

from __future__ import annotations

_SYNTAX = "invalid syntax"
_RANGE = "value out of range"
_CONTROL_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t", "\v": r"\v"}


def go_quote(text: str, *, ascii_only: bool = False, quote: str = '"') -> str:
    """Go's ``strconv.Quote`` (``%q``): double quotes, Go escapes, printable Unicode kept; with ``ascii_only``
    ``QuoteToASCII`` (``%+q``: ``\\u00e9``), with ``quote="'"`` ``QuoteRune`` of a one-character text (``%c`` as
    ``%q``: ``'x'``). strconv/quote.go ``appendQuotedWith`` and ``appendEscapedRune``.

    Undecodable command-line bytes (which Python carries as ``surrogateescape`` code points) are written
    as the ``\\xNN`` Go writes for the invalid byte.
    """
    out = []
    for char in text:
        code = ord(char)
        if char == quote or char == "\\":
            out.append("\\" + char)
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif (code < 0x80 or not ascii_only) and char.isprintable():
            out.append(char)
        elif char in _CONTROL_ESCAPES:
            out.append(_CONTROL_ESCAPES[char])
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return quote + "".join(out) + quote


class GoNumError(ValueError):
    """Go's ``*strconv.NumError``: ``strconv.<Func>: parsing "<num>": <invalid syntax|value out of range>``."""

    def __init__(self, func: str, number: str, reason: str):
        super().__init__(f"strconv.{func}: parsing {go_quote(number)}: {reason}")
        self.out_of_range = reason == _RANGE


def _underscores_ok(text: str) -> bool:
    """Go's rule for ``_`` in base-prefixed literals: only between digits (or after the base prefix)."""
    if text[:1] in ("+", "-"):
        text = text[1:]
    seen, index, hexadecimal = "^", 0, False
    if len(text) >= 2 and text[0] == "0" and text[1].lower() in "box":
        index, seen, hexadecimal = 2, "0", text[1].lower() == "x"
    for char in text[index:]:
        if "0" <= char <= "9" or (hexadecimal and "a" <= char.lower() <= "f" and char.isascii()):
            seen = "0"
        elif char == "_":
            if seen != "0":
                return False
            seen = "_"
        elif seen == "_":
            return False
        else:
            seen = "!"
    return seen != "_"


def go_parse_uint(text: str, *, base: int = 0, bits: int = 64, func: str = "ParseUint") -> int:
    """Go's ``strconv.ParseUint(text, base, bits)`` with its errors (base 0 reads 0x/0o/0b/0 prefixes)."""
    if text == "":
        raise GoNumError(func, text, _SYNTAX)
    digits, base0 = text, base == 0
    if base0:
        base = 10
        if text[0] == "0":
            if len(text) >= 3 and text[1] in "bBoOxX":
                base = {"b": 2, "o": 8, "x": 16}[text[1].lower()]
                digits = text[2:]
            else:
                base, digits = 8, text[1:]
    maximum = (1 << bits) - 1
    if base == 10 and len(digits) <= 40 and digits.isascii() and digits.isdigit():
        value = int(digits)  # the common case at once: ASCII decimal digits only (the loop below reads the rest)
        if value > maximum:
            raise GoNumError(func, text, _RANGE)
        return value
    value, underscores = 0, False
    for char in digits:
        if char == "_" and base0:
            underscores = True
            continue
        # Go reads bytes: only ASCII digits and letters are digits (not "４", not the Kelvin sign)
        if "0" <= char <= "9":
            digit = ord(char) - ord("0")
        elif "a" <= char <= "z" or "A" <= char <= "Z":
            digit = ord(char.lower()) - ord("a") + 10
        else:
            raise GoNumError(func, text, _SYNTAX)
        if digit >= base:
            raise GoNumError(func, text, _SYNTAX)
        value = value * base + digit
        if value > maximum:
            raise GoNumError(func, text, _RANGE)
    if underscores and not _underscores_ok(text):
        raise GoNumError(func, text, _SYNTAX)
    return value


def go_parse_int(text: str, *, base: int = 0, bits: int = 64) -> int:
    """Go's ``strconv.ParseInt(text, base, bits)`` with its errors."""
    if text == "":
        raise GoNumError("ParseInt", text, _SYNTAX)
    negative = text[0] == "-"
    unsigned = text[1:] if text[0] in "+-" else text
    try:
        magnitude = go_parse_uint(unsigned, base=base, bits=bits, func="ParseInt")
    except GoNumError as exc:
        raise GoNumError("ParseInt", text, _RANGE if exc.out_of_range else _SYNTAX) from None
    cutoff = 1 << (bits - 1)
    if (not negative and magnitude >= cutoff) or (negative and magnitude > cutoff):
        raise GoNumError("ParseInt", text, _RANGE)
    return -magnitude if negative else magnitude


def go_parse_int_or_uint(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``, else ``strconv.ParseUint(text, 0, 64)``, None when both fail: how
    go-yaml v2's ``resolve`` reads a plain scalar as an integer (go.yaml.in/yaml/v2 resolve.go), for reading
    (:mod:`.yamltojson`) and for writing (:mod:`.goyaml`: a string that would read back as a number is quoted)."""
    try:
        return go_parse_int(text)
    except GoNumError:
        pass
    try:
        return go_parse_uint(text)
    except GoNumError:
        return None


_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_GO_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def go_parse_bool(text: str) -> bool:
    """Go's ``strconv.ParseBool``."""
    if text in _GO_TRUE:
        return True
    if text in _GO_FALSE:
        return False
    raise GoNumError("ParseBool", text, _SYNTAX)


class FlagValueError(ValueError):
    """pflag's error for a flag value its type cannot parse: ``invalid argument "x" for "--cpu" flag: ...``."""


def pflag_int(flag: str, text: str, *, bits: int = 64, unsigned: bool = False) -> int:
    """An ``int``/``int64`` (or ``uint``/``uint32`` with ``unsigned``) flag value as pflag reads it.

    pflag calls ``strconv.ParseInt(text, 0, bits)`` (``ParseUint`` for unsigned types): base prefixes and
    ``_`` separators are read, anything but ASCII digits is refused (Python's ``int()`` reads ``"４"`` as 4).
    ``flag`` is the flag's name without dashes. Raises :class:`FlagValueError` with pflag's message.
    """
    try:
        return go_parse_uint(text, base=0, bits=bits) if unsigned else go_parse_int(text, base=0, bits=bits)
    except GoNumError as exc:
        raise FlagValueError(f"invalid argument {go_quote(text)} for {go_quote('--' + flag)} flag: {exc}") from None


def go_parse_float(text: str) -> float:
    """Go's ``strconv.ParseFloat(text, 64)`` (atof.go: ``special``, then ``readFloat``) with its errors: a signed
    ``Inf``/``Infinity`` (any case), an unsigned ``NaN``, decimal digits with an optional point and exponent, or a
    hexadecimal mantissa with its ``p`` exponent; ``_`` only where Go allows it (:func:`_underscores_ok`); a value
    beyond float64 is ``value out of range``."""
    import re

    negative = text[:1] == "-"
    body = text[1:] if text[:1] in ("+", "-") else text
    lower = body.lower()
    if lower in ("inf", "infinity"):
        return float("-inf") if negative else float("inf")
    if lower == "nan" and body is text:
        return float("nan")
    if "_" in body and not _underscores_ok(text):
        raise GoNumError("ParseFloat", text, _SYNTAX)
    clean = body.replace("_", "")
    try:
        if re.fullmatch(r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+", clean):
            value = float.fromhex(clean)
        elif re.fullmatch(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", clean):
            value = float(clean)
        else:
            raise GoNumError("ParseFloat", text, _SYNTAX)
    except OverflowError:
        value = float("inf")
    if value == float("inf"):
        raise GoNumError("ParseFloat", text, _RANGE)
    return -value if negative else value


class GoSyntaxError(ValueError):
    """``strconv.ErrSyntax`` as Unquote returns it: ``invalid syntax``."""

    def __init__(self) -> None:
        super().__init__(_SYNTAX)


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def go_unquote(text: str, *, single_quoted: bool = False) -> str:
    """``strconv.Unquote`` of a double-quoted string (text/template's string constants; a character constant
    reads as one), or with ``single_quoted`` client-go's ``UnquoteExtend`` (util/jsonpath), which also reads a
    single-quoted string as a string. :class:`GoSyntaxError` where Go returns ``ErrSyntax``."""
    if len(text) < 2 or text[0] != text[-1] or text[0] not in ("\"'" if single_quoted else '"'):
        raise GoSyntaxError
    quote, body = text[0], text[1:-1]
    if "\\" not in body and quote not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == quote:
            raise GoSyntaxError
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(body):
            raise GoSyntaxError
        escape = body[i + 1]
        i += 2
        if escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
        elif escape in "'\"":
            if escape != quote:
                raise GoSyntaxError
            out.append(escape)
        elif escape in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[escape]
            digits = body[i : i + size]
            if len(digits) != size or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise GoSyntaxError
            value = int(digits, 16)
            i += size
            if escape == "x":
                # a byte, not a code point: \xff is the byte 0xff (carried as a surrogate escape, written raw)
                out.append(chr(value) if value < 0x80 else chr(0xDC00 + value))
            elif value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                raise GoSyntaxError
            else:
                out.append(chr(value))
        elif escape in "01234567":
            digits = body[i - 1 : i + 2]
            if len(digits) != 3 or not all(d in "01234567" for d in digits) or int(digits, 8) > 255:
                raise GoSyntaxError
            byte = int(digits, 8)
            out.append(chr(byte) if byte < 0x80 else chr(0xDC00 + byte))
            i += 2
        else:
            raise GoSyntaxError
    return "".join(out)
