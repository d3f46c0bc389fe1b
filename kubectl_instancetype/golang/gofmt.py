"""Go's ``fmt`` verbs and ``encoding/json`` output for JSON-shaped values, as kubectl's printers show them.

Values are what ``json.loads`` returns for an API object; they stand for what apimachinery decodes
(``map[string]interface {}``, ``[]interface {}``, ``string``, ``int64``, ``float64``, ``bool``, nil).
``%v`` (``fmt.Sprint``) is what custom-columns cells and go-templates print; :func:`marshal` is
``json.Marshal``, which the JSONPath printer uses for maps and lists.
"""

from __future__ import annotations

import json
from typing import Any


def go_type(value: Any, unknown: str | None = None) -> str:
    """The Go type name of a decoded JSON value, as ``%T`` and error messages spell it; a value of no JSON shape
    gives ``unknown`` (its Python type name when None)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, (list, tuple)):
        return "[]interface {}"
    if value is None:
        return "interface {}"
    return type(value).__name__ if unknown is None else unknown


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-trip decimal digits of ``abs(value)`` and the decimal point position (Go's ``digs``)."""
    text = repr(abs(value))
    mantissa, _, exponent = text.partition("e")
    exp = int(exponent) if exponent else 0
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) + exp
    if not digits:
        return "0", 1
    # leading zeros removed from the digit string move the point left
    point -= len(whole + fraction) - len((whole + fraction).lstrip("0"))
    return digits.rstrip("0") or "0", point


def format_float(value: float, fmt: str = "g") -> str:
    """``strconv.FormatFloat(value, fmt, -1, 64)`` for ``fmt`` ``g`` (what ``%v`` prints), ``e`` or ``f``."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if value < 0 or (value == 0 and str(value).startswith("-")) else ""
    if value == 0:
        return sign + ("0" if fmt != "e" else "0e+00")
    digits, point = _shortest_digits(value)
    exp = point - 1
    if fmt == "g":
        # strconv's formatDigits: %e when exp < -4 || exp >= eprec, and eprec is 6 for the shortest form
        fmt = "e" if exp < -4 or exp >= 6 else "f"
    if fmt == "e":
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def sprint(value: Any) -> str:
    """``fmt.Sprint(value)`` (the ``%v`` verb) of a decoded JSON value: ``map[a:1 b:[x y]]``, ``<nil>``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, complex):
        # fmtComplex: "(" real, the imaginary part always with its sign, "i)"
        imag = format_float(value.imag)
        return f"({format_float(value.real)}{'' if imag[0] in '+-' else '+'}{imag}i)"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{sprint(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(sprint(item) for item in value) + "]"
    return str(value)


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
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"json: unsupported value: {format_float(value)}")
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = format_float(value, "e")
        # Go cleans e-07 to e-7
        mantissa, _, exp = text.partition("e")
        if len(exp) == 3 and exp[1] == "0":
            exp = exp[0] + exp[2]
        return f"{mantissa}e{exp}"
    return format_float(value, "f")


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


def go_quote_template(text: str) -> str:
    """``%q`` of a template in kubectl's messages."""
    from .strconv import go_quote

    return go_quote(text)
