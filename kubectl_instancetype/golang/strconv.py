"""Go's ``strconv``: ``ParseUint``/``ParseInt``/``ParseBool`` and ``Quote``, with Go's exact error texts.

pflag passes these errors through (``invalid argument "x" for "--cpu" flag: strconv.ParseUint: parsing "x":
invalid syntax``), and Go accepts only ASCII digits: ``int("４")`` is 4 in Python, a syntax error in Go.
"""

from __future__ import annotations

_SYNTAX = "invalid syntax"
_RANGE = "value out of range"
_QUOTE_ESCAPES = {
    "\a": r"\a",
    "\b": r"\b",
    "\f": r"\f",
    "\n": r"\n",
    "\r": r"\r",
    "\t": r"\t",
    "\v": r"\v",
    "\\": r"\\",
    '"': r"\"",
}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote`` (``%q``): double quotes, Go escapes, printable Unicode kept.

    Undecodable command-line bytes (which Python carries as ``surrogateescape`` code points) are written
    as the ``\\xNN`` Go writes for the invalid byte.
    """
    out = []
    for char in text:
        code = ord(char)
        if char in _QUOTE_ESCAPES:
            out.append(_QUOTE_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


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
