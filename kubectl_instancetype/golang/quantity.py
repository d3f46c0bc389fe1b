"""Kubernetes resource quantities, with apimachinery's ``resource.Quantity`` semantics.

One parser for everything: flag values (``--memory``, ``size:``), list filters (``--min-memory``) and the
quantities read from the server. It follows ``resource.ParseQuantity`` exactly (what it accepts, the value it
keeps, including Go's rounding up to whole nano units, and its error texts) and prints values as
``Quantity.String()`` does (``1024Mi`` -> ``1Gi``, ``1.5`` -> ``1500m``, ``1G`` -> ``1G``).

Values are held exactly as ``coefficient * 10**exponent``; :attr:`Quantity.value` gives a
:class:`fractions.Fraction` so that ``16Gi`` equals ``16384Mi``.

Two bounds that Go does not have keep every input cheap: a decimal exponent beyond +-1000
(``1e999999999``) is refused as a bad suffix, and a quantity with more than 1000 digits is refused; Go
accepts both (and then computes for minutes on the first). Nothing else differs.
"""

from __future__ import annotations

from fractions import Fraction

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"
NUMERIC_ERROR = "unable to parse numeric part of quantity"

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"
FORMATS = (DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT)

MAX_EXPONENT = 1000
"""Largest decimal exponent accepted in an ``e<n>`` suffix (Go: any int64, wrapped to int32)."""
MAX_DIGITS = 1000
"""Most digits a quantity may have (Go: no limit; Python's int/str conversions stop at 4300)."""

_DECIMAL_SUFFIX_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIX_EXPONENTS = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIXES = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIX_EXPONENTS.items()}
_BINARY_SUFFIXES = {exponent: suffix for suffix, exponent in _BINARY_SUFFIX_EXPONENTS.items()}
_BINARY = {suffix: 2**exponent for suffix, exponent in _BINARY_SUFFIX_EXPONENTS.items()}
_DIGITS = frozenset("0123456789")
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
_INT64_MAX = 2**63 - 1
_NANO_EXPONENT = -9
_MAX_PRINTED_BITS = 13_000  # about 3900 decimal digits: under the 4300 of str(); parse() never makes more


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity; ``str()`` is apimachinery's message (or names our bound)."""


class Quantity:
    """A parsed quantity: ``coefficient * 10**exponent`` in ``format`` (``DecimalSI``, ``BinarySI``,
    ``DecimalExponent``), and the text Go keeps verbatim as its string form (None when it recomputes it)."""

    # A plain class: importing dataclasses costs more start-up time than the whole parser.
    __slots__ = ("coefficient", "exponent", "format", "text")

    def __init__(self, coefficient: int, exponent: int, format: str, text: str | None = None) -> None:
        self.coefficient = coefficient
        self.exponent = exponent
        self.format = format
        self.text = text

    def __repr__(self) -> str:
        return f"Quantity({self.coefficient!r}, {self.exponent!r}, {self.format!r}, {self.text!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return (self.value, self.format, str(self)) == (other.value, other.format, str(other))

    __hash__ = None  # type: ignore[assignment]

    @property
    def value(self) -> Fraction:
        """The exact value (Go's, i.e. after its rounding up to whole nano units)."""
        if self.exponent >= 0:
            return Fraction(self.coefficient * 10**self.exponent)
        return Fraction(self.coefficient, 10**-self.exponent)

    def __str__(self) -> str:
        """``Quantity.String()``: the verbatim text when Go keeps it, else the canonical form."""
        if self.text is not None:
            return self.text
        return _canonical(self.coefficient, self.exponent, self.format)


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """Split ``text`` like apimachinery's ``parseQuantityString``: (positive, number, whole, fraction, suffix).

    ``number`` is the sign and digits Go hands to ``inf.Dec`` on its slow path; ``whole`` has its leading
    zeros stripped (``"0"`` when none are left). The scanner is lenient in the same places as Go's
    (``1.`` and ``.5`` parse, ``-`` is zero), because the value and the printed form depend on what it kept.
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
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    whole = text[start:pos] or "0"
    fraction = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        fraction = text[start:pos]
        if pos >= end:
            return positive, text, whole, fraction, ""
    number = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos >= end:
        return positive, number, whole, fraction, text[suffix_start:]
    if text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_ERROR)
    return positive, number, whole, fraction, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a quantity suffix, or :class:`QuantityError` with apimachinery's text."""
    if suffix in _DECIMAL_SUFFIX_EXPONENTS:
        return 10, _DECIMAL_SUFFIX_EXPONENTS[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIX_EXPONENTS:
        return 2, _BINARY_SUFFIX_EXPONENTS[suffix], BINARY_SI
    digits = suffix[1:]
    unsigned = digits[1:] if digits[:1] in ("+", "-") else digits
    if len(suffix) > 1 and suffix[0] in "eE" and unsigned and all(c in _DIGITS for c in unsigned):
        # Go accepts any int64 exponent (wrapped to int32) but then spends minutes on 1e-2147483648; we
        # refuse exponents no real quantity needs instead. Leading zeros are stripped before int(): the
        # digit bound of parse() already caps the length.
        significant = unsigned.lstrip("0")
        if len(significant) <= len(str(MAX_EXPONENT)):
            exponent = int(significant or "0") * (-1 if digits[:1] == "-" else 1)
            if -MAX_EXPONENT <= exponent <= MAX_EXPONENT:
                return 10, exponent, DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_ERROR)


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def parse(text: str) -> Quantity:
    """``resource.ParseQuantity(text)``: the value, its format and the verbatim text Go keeps.

    Raises :class:`QuantityError` with apimachinery's message for what Go rejects (blanks included), and
    for the two bounds in the module docstring.
    """
    if not text:
        raise QuantityError(FORMAT_ERROR)
    if text == "0":
        return Quantity(0, 0, DECIMAL_SI, text)
    if sum(1 for char in text if char in _DIGITS) > MAX_DIGITS:
        # Checked before any conversion: Python refuses int <-> str beyond 4300 digits, Go would crawl.
        raise QuantityError(f"quantity has more than {MAX_DIGITS} digits")
    positive, number, whole, fraction, suffix = _scan(text)
    base, exponent, fmt = _interpret_suffix(suffix)
    sign = 1 if positive else -1

    # Go's fast path: an int64 mantissa and a scale of at least nano; the text is kept when canonical.
    scale, multiplier = 0, 1
    if fmt == BINARY_SI:
        if exponent >= 0 and not fraction:
            multiplier = 1 << exponent
            precision = 15 - len(whole) - exponent * 3 // 10 - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(whole) + len(fraction))
    if precision >= 0:
        scale -= len(fraction)
        if scale >= _NANO_EXPONENT:
            shifted = whole + fraction
            digits_value = int(shifted)
            product = digits_value * multiplier
            if product <= _INT64_MAX:
                if fmt == BINARY_SI:
                    verbatim = exponent % 10 == 0 and digits_value & 0x07 != 0
                else:
                    verbatim = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(sign * product, scale, fmt, text if verbatim else None)

    # Go's slow path (inf.Dec): exact arithmetic, then non-zero values rounded up (away from zero) to nano.
    unsigned_number = number.lstrip("+-")
    if not any(c in _DIGITS for c in unsigned_number):
        raise QuantityError(NUMERIC_ERROR)
    integer_part, _, fraction_part = unsigned_number.partition(".")
    coefficient = int((integer_part + fraction_part).lstrip("0") or "0")
    scale = -len(fraction_part)
    if base == 10:
        scale += exponent
    else:
        coefficient <<= exponent
    if coefficient and scale < _NANO_EXPONENT:
        coefficient = _ceil_div(coefficient, 10 ** (_NANO_EXPONENT - scale))
        scale = _NANO_EXPONENT
    if fmt == BINARY_SI:
        magnitude = Fraction(coefficient) * Fraction(10) ** scale
        if magnitude > _INT64_MAX:  # Go caps binary quantities at the int64 maximum
            coefficient, scale = _INT64_MAX, 0
        elif 0 < magnitude < 1:
            fmt = DECIMAL_SI
    return Quantity(sign * coefficient, scale, fmt, None)


def _strip_tens(coefficient: int, exponent: int) -> tuple[int, int]:
    """Move the factors of ten of ``coefficient`` into ``exponent``, in O(log) big-integer steps."""
    if coefficient == 0:
        return 0, 0
    step = 1
    while True:
        power = 10**step
        if coefficient % power:
            if step == 1:
                return coefficient, exponent
            step = 1  # overshot: start again with single zeros
            continue
        coefficient //= power
        exponent += step
        step *= 2


def _canonical(coefficient: int, exponent: int, fmt: str) -> str:
    """``Quantity.CanonicalizeBytes`` + suffix for a value without verbatim text."""
    if coefficient == 0:
        return "0"
    coefficient, exponent = _strip_tens(coefficient, exponent)
    if fmt == BINARY_SI:
        integral = exponent >= 0
        if not integral or -1024 < coefficient * 10**exponent < 1024:
            fmt = DECIMAL_SI  # small or fractional binary values print in decimal, as in Go
        else:
            mantissa, power = coefficient * 10**exponent, 0
            # Go negates before stripping factors of 1024; -2**63 stays negative there and keeps all its digits.
            while mantissa % 1024 == 0 and mantissa != -(2**63):
                mantissa //= 1024
                power += 10
            return f"{mantissa}{_BINARY_SUFFIXES.get(power, '')}"
    while exponent % 3:
        coefficient *= 10
        exponent -= 1
    if fmt == DECIMAL_EXPONENT:
        return f"{coefficient}e{exponent}" if exponent else str(coefficient)
    # A DecimalSI exponent outside the suffix table prints no suffix at all; that is Go's behaviour.
    return f"{coefficient}{_DECIMAL_SUFFIXES.get(exponent, '')}"


def format_quantity(value: Fraction | int, fmt: str) -> str:
    """``Quantity.String()`` of a computed ``value`` in format ``fmt`` (no verbatim text).

    This is what Go prints for ``resource.NewQuantity(v, format)`` or ``NewMilliQuantity``: memory overcommit
    requests (966367616 bytes, BinarySI: ``966367616``; 2147483648: ``2Gi``), copied guest sizes. ``value``
    must be a decimal number (every quantity is); :class:`ValueError` otherwise.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown quantity format {fmt!r}")
    value = Fraction(value)
    # value * 10**shift is whole for the smallest shift that cancels the denominator's factors of 2 and 5
    denominator, shift = value.denominator, 0
    for prime in (2, 5):
        count = 0
        while denominator % prime == 0:
            denominator //= prime
            count += 1
        shift = max(shift, count)
    if denominator != 1:
        raise ValueError(f"{value} is not a decimal number")
    coefficient = value.numerator * 10**shift // value.denominator
    exponent = -shift
    coefficient, exponent = _strip_tens(coefficient, exponent)
    if coefficient.bit_length() > _MAX_PRINTED_BITS:
        raise ValueError("quantity too large to print")
    return _canonical(coefficient, exponent, fmt)


def parse_quantity(text: str) -> Fraction:
    """The exact value of quantity ``text`` (``512Mi``, ``1.5Gi``, ``100m``, ``1e3``), as Go holds it.

    Raises :class:`QuantityError` with apimachinery's message for text Go rejects.
    """
    return parse(text).value


def quantity_value(value: object) -> Fraction | None:
    """The exact value of a quantity as a manifest holds it (a string such as ``4Gi``, or a bare JSON number),
    or None when it is absent, a boolean or not a quantity: for reading specs, where an unreadable value is
    KubeVirt's validation's business, not the reader's."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Fraction(value)
    try:
        return parse_quantity(str(value))
    except (QuantityError, ValueError):
        return None


def canonical_quantity(text: str) -> str:
    """The string apimachinery prints for ``resource.MustParse(text)`` (``1024Mi`` -> ``1Gi``, ``1.5`` -> ``1500m``)."""
    return str(parse(text))


def is_quantity(text: str) -> bool:
    """True when ``text`` parses as a quantity."""
    try:
        parse(text)
    except QuantityError:
        return False
    return True


def integer_value(text: str) -> int:
    """``Quantity.Value()``: the value rounded to an integer away from zero (``ScaledValue(0)``: apimachinery's
    ``negativeScaleInt64`` rounds a fraction up for positive values and down for negative ones)."""
    value = parse(text).value
    whole = value.numerator // value.denominator if value >= 0 else -(-value.numerator // value.denominator)
    if whole != value:
        whole += 1 if value > 0 else -1
    return whole
