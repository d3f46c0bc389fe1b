"""Integer quantities in a given apimachinery format, for the values the expansion computes.

``instancetype/quantity.py`` parses and canonicalizes text; KubeVirt also builds new quantities with
``resource.NewQuantity(value, format)`` (memory requests from overcommit), printed in the guest's format.
This module is that one missing piece: an integer value printed as ``Quantity.String()`` prints it.
"""

from __future__ import annotations

import math

from ..quantity import parse_quantity

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY_SUFFIXES = {0: "", 10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}
_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}


def quantity_format(text: str) -> str:
    """The format Go's ``ParseQuantity`` gives ``text``: BinarySI (``Ki``...), DecimalExponent (``1e3``), or DecimalSI."""
    stripped = text.strip().rstrip("0123456789+-")
    if stripped.endswith("i"):
        return BINARY_SI
    if stripped[-1:] in ("e", "E"):
        return DECIMAL_EXPONENT
    return DECIMAL_SI


def quantity_value(text: str) -> int:
    """``Quantity.Value()``: the value rounded up to an integer."""
    return math.ceil(parse_quantity(text))


def format_integer(value: int, fmt: str) -> str:
    """``resource.NewQuantity(value, fmt).String()``."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI and -1024 < value < 1024:
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        mantissa, exponent = value, 0
        while mantissa % 1024 == 0 and exponent < 60:
            mantissa //= 1024
            exponent += 10
        return f"{mantissa}{_BINARY_SUFFIXES[exponent]}"
    mantissa, exponent = value, 0
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    while exponent % 3:
        mantissa *= 10
        exponent -= 1
    if fmt == DECIMAL_EXPONENT:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    if exponent in _DECIMAL_SUFFIXES:
        return f"{mantissa}{_DECIMAL_SUFFIXES[exponent]}"
    return str(value)
