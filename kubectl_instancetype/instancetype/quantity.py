"""Kubernetes resource quantities (``resource.Quantity``), parsed exactly.

Values are held as :class:`fractions.Fraction` so that ``16Gi`` equals ``16384Mi`` and ``1.5Gi`` stays exact.
Error texts are apimachinery's, because users see them wrapped in virtctl-style flag errors.
"""

from __future__ import annotations

import re
from fractions import Fraction

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"
NUMERIC_ERROR = "unable to parse numeric part of quantity"

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_SHAPE = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$")
_EXPONENT = re.compile(r"^[eE]([-+]?[0-9]+)$")


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity; ``str()`` is apimachinery's message."""


def parse_quantity(text: str) -> Fraction:
    """Parse ``text`` (``512Mi``, ``1.5Gi``, ``100m``, ``1e3``) to its exact value."""
    text = text.strip()
    match = _SHAPE.match(text)
    if not text or not match:
        raise QuantityError(FORMAT_ERROR)
    number, suffix = match.groups()
    if not _NUMBER.match(number):
        raise QuantityError(NUMERIC_ERROR)
    value = Fraction(number)
    if suffix in _BINARY:
        return value * _BINARY[suffix]
    if suffix in _DECIMAL:
        return value * _DECIMAL[suffix]
    exponent = _EXPONENT.match(suffix)
    if exponent:
        return value * Fraction(10) ** int(exponent.group(1))
    raise QuantityError(SUFFIX_ERROR)


def is_quantity(text: str) -> bool:
    """True when ``text`` parses as a quantity."""
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def format_bytes(value: Fraction | int) -> str:
    """Render a byte count in the largest binary unit that divides it exactly (``16Gi``, ``1536Mi``).

    Values that are not a whole number of KiB fall back to a plain integer, as Kubernetes prints them.
    """
    value = Fraction(value)
    if value.denominator != 1:
        return str(float(value))
    whole = int(value)
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _BINARY[suffix]
        if whole and whole % unit == 0:
            return f"{whole // unit}{suffix}"
    return str(whole)


# --- apimachinery's ParseQuantity + Quantity.String(), for manifests that must print quantities as Go does ---

_GO_DECIMAL_SUFFIX_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_GO_BINARY_SUFFIX_EXPONENTS = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_GO_DECIMAL_SUFFIXES = {exponent: suffix for suffix, exponent in _GO_DECIMAL_SUFFIX_EXPONENTS.items()}
_GO_BINARY_SUFFIXES = {exponent: suffix for suffix, exponent in _GO_BINARY_SUFFIX_EXPONENTS.items()}
_GO_DIGITS = "0123456789"
_GO_SUFFIX_LETTERS = "eEinumkKMGTP"
_INT64_MAX = 2**63 - 1
_NANO = 10**9
_MAX_EXPONENT = 100_000
_DECIMAL_SI, _BINARY_SI, _DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"


def _scan_go_quantity(text: str) -> tuple[bool, str, str, str, str]:
    """Split ``text`` like apimachinery's scanner: (positive, number text, integer digits, fraction digits, suffix).

    The scanner is deliberately lenient in the same places as Go's (``1.`` and ``.5`` parse, ``-`` is zero),
    because the canonical form printed later depends on exactly what it kept.
    """
    end = len(text)
    positive, pos = True, 0
    if end and text[0] in "+-":
        positive, pos = text[0] == "+", 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _GO_DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    whole = text[start:pos] or "0"
    fraction = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _GO_DIGITS:
            pos += 1
        fraction = text[start:pos]
        if pos >= end:
            return positive, text, whole, fraction, ""
    number = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _GO_SUFFIX_LETTERS:
        pos += 1
    if pos >= end:
        return positive, number, whole, fraction, text[suffix_start:]
    if text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _GO_DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_ERROR)
    return positive, number, whole, fraction, text[suffix_start:]


def _interpret_go_suffix(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a quantity suffix, or :class:`QuantityError` with apimachinery's text."""
    if suffix in _GO_DECIMAL_SUFFIX_EXPONENTS:
        return 10, _GO_DECIMAL_SUFFIX_EXPONENTS[suffix], _DECIMAL_SI
    if suffix in _GO_BINARY_SUFFIX_EXPONENTS:
        return 2, _GO_BINARY_SUFFIX_EXPONENTS[suffix], _BINARY_SI
    digits = suffix[1:]
    unsigned = digits[1:] if digits[:1] in ("+", "-") else digits
    if len(suffix) > 1 and suffix[0] in "eE" and unsigned and all(c in _GO_DIGITS for c in unsigned):
        exponent = int(digits)
        # Go accepts any int64 exponent (wrapped to int32) but then spends minutes on 1e-2147483648; we
        # refuse exponents no real quantity needs instead of hanging.
        if -_MAX_EXPONENT <= exponent <= _MAX_EXPONENT:
            return 10, exponent, _DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_ERROR)


def _go_quantity_value(text: str) -> tuple[Fraction, str, str | None]:
    """Parse like ``resource.ParseQuantity``: (exact value, format, the text itself when Go keeps it verbatim)."""
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return Fraction(0), _DECIMAL_SI, text
    positive, number, whole, fraction, suffix = _scan_go_quantity(text)
    base, exponent, fmt = _interpret_go_suffix(suffix)
    sign = 1 if positive else -1

    scale, mantissa = 0, 1
    if fmt == _BINARY_SI:
        if exponent >= 0 and not fraction:
            mantissa = 1 << exponent
            precision = 15 - len(whole) - int(exponent * 3 / 10) - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(whole) + len(fraction))
    if precision >= 0:
        scale -= len(fraction)
        if scale >= -9:
            shifted = whole + fraction
            digits_value = int(shifted)
            product = digits_value * mantissa
            if product <= _INT64_MAX:
                value = sign * product * Fraction(10) ** scale
                if fmt == _BINARY_SI:
                    verbatim = exponent % 10 == 0 and digits_value & 0x07 != 0
                else:
                    verbatim = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return value, fmt, text if verbatim else None

    if not any(c in _GO_DIGITS for c in number):
        raise QuantityError(NUMERIC_ERROR)
    unsigned_number = number.lstrip("+-")
    amount = Fraction(unsigned_number if unsigned_number[0] != "." else "0" + unsigned_number)
    amount *= Fraction(10) ** exponent if base == 10 else 2**exponent
    if amount:
        # Go rounds non-zero values up (away from zero) to whole nano units.
        amount = Fraction(-((-amount.numerator * _NANO) // amount.denominator), _NANO)
    if fmt == _BINARY_SI and amount > _INT64_MAX:
        amount = Fraction(_INT64_MAX)
    if fmt == _BINARY_SI and 0 < amount < 1:
        fmt = _DECIMAL_SI
    return sign * amount, fmt, None


def _go_canonical_text(value: Fraction, fmt: str) -> str:
    """``Quantity.String()`` for a value that has no verbatim text."""
    if value == 0:
        return "0"
    if fmt == _BINARY_SI and (-1024 < value < 1024 or value.denominator != 1):
        fmt = _DECIMAL_SI
    if fmt == _BINARY_SI:
        mantissa, exponent = int(value), 0
        while mantissa % 1024 == 0:
            mantissa //= 1024
            exponent += 10
        return f"{mantissa}{_GO_BINARY_SUFFIXES.get(exponent, '')}"
    # value = numerator * 10**exponent with no factor of ten left in the numerator
    exponent = 0
    while value.denominator != 1:
        value *= 10
        exponent -= 1
    numerator = value.numerator
    while numerator % 10 == 0:
        numerator //= 10
        exponent += 1
    while exponent % 3:
        numerator *= 10
        exponent -= 1
    if fmt == _DECIMAL_EXPONENT:
        return f"{numerator}e{exponent}" if exponent else str(numerator)
    # A DecimalSI exponent outside the suffix table prints no suffix at all; that is Go's behaviour.
    return f"{numerator}{_GO_DECIMAL_SUFFIXES.get(exponent, '')}"


def canonical_quantity(text: str) -> str:
    """The string apimachinery prints for ``resource.MustParse(text)`` (``1024Mi`` -> ``1Gi``, ``1.5`` -> ``1500m``).

    Unlike :func:`parse_quantity` this follows Go exactly, surrounding blanks included (they are an error),
    and raises :class:`QuantityError` with apimachinery's message for text Go rejects.
    """
    value, fmt, verbatim = _go_quantity_value(text)
    return verbatim if verbatim is not None else _go_canonical_text(value, fmt)
