"""The two float conversions of Go that the launcher pod's numbers go through: ``fmt.Sprintf("%g", f)`` (the CPU
request of ``WithoutDedicatedCPU``) and ``strconv.ParseFloat(s, 64)`` (the memory limit ratio label and
``additionalGuestMemoryOverheadRatio``)."""

from __future__ import annotations

import re
from decimal import Decimal

# strconv.ParseFloat's decimal and hexadecimal forms, with Go's underscore rule (only after a base prefix),
# plus inf/infinity/nan in any case (strconv/atof.go special, readFloat).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+)[pP][+-]?[0-9_]+\Z")
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity|nan)\Z", re.IGNORECASE)


def parse_float(text: str) -> float:
    """``strconv.ParseFloat(text, 64)``; ValueError where Go returns an error (out of range included)."""
    if _SPECIAL.match(text):
        return float(text)
    if _DECIMAL.match(text):
        value = float(text)
    elif _HEX.match(text) and "__" not in text and not text.rstrip("0123456789_").endswith("_"):
        mantissa, _, exponent = text.replace("_", "").lower().partition("p")
        value = float.fromhex(mantissa + "p" + exponent)
    else:
        raise ValueError(f'strconv.ParseFloat: parsing "{text}": invalid syntax')
    if value in (float("inf"), float("-inf")):
        raise ValueError(f'strconv.ParseFloat: parsing "{text}": value out of range')
    return value


def format_g(value: float) -> str:
    """``fmt.Sprintf("%g", value)``: the shortest digits that read back as ``value`` (Python's repr finds the
    same ones), written as %e when the decimal exponent is below -4 or at least 6 (strconv/ftoa.go: ``if
    shortest { eprec = 6 }``), else as a plain decimal."""
    if value != value or value in (float("inf"), float("-inf")):
        return {True: "+Inf", False: "-Inf"}[value > 0] if value == value else "NaN"
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    text = "".join(str(d) for d in digits).rstrip("0") or "0"
    # repr's digits: value = 0.text * 10**(len(digits) + exponent) before stripping zeros
    point = len(digits) + int(exponent)  # position of the decimal point in text (digs.dp)
    x = point - 1
    prefix = "-" if sign else ""
    if x < -4 or x >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{prefix}{text}{'0' * (point - len(text))}"
    return f"{prefix}{text[:point]}.{text[point:]}"
