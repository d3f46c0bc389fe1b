"""The one quantity parser: apimachinery's values, formats and strings, its error texts, and our two bounds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubectl_instancetype.golang import quantity
from kubectl_instancetype.golang.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    FORMAT_ERROR,
    NUMERIC_ERROR,
    SUFFIX_ERROR,
    QuantityError,
    canonical_quantity,
    format_quantity,
    is_quantity,
    parse,
    parse_quantity,
    quantity_value,
)
from kubectl_instancetype.instancetype.listing import format_bytes

GI = 2**30


VALUES = [
    ("512Mi", 512 * 2**20, BINARY_SI, "512Mi"),
    ("1024Mi", GI, BINARY_SI, "1Gi"),
    ("16384Mi", 16 * GI, BINARY_SI, "16Gi"),
    ("1.5Gi", Fraction(3, 2) * GI, BINARY_SI, "1536Mi"),
    ("0.5Ki", 512, BINARY_SI, "512"),
    ("1.5", Fraction(3, 2), DECIMAL_SI, "1500m"),
    ("100m", Fraction(1, 10), DECIMAL_SI, "100m"),
    ("1000M", 10**9, DECIMAL_SI, "1G"),
    ("1e3", 1000, DECIMAL_EXPONENT, "1e3"),
    ("2e4", 20000, DECIMAL_EXPONENT, "20e3"),
    ("1000E", 10**21, DECIMAL_SI, "1"),  # Go has no suffix for 10^21 and prints none
    ("1e-10", Fraction(1, 10**9), DECIMAL_EXPONENT, "1e-9"),  # rounded up to nano
    ("0.0000000015", Fraction(2, 10**9), DECIMAL_SI, "2n"),
    ("-0.0000000015", Fraction(-2, 10**9), DECIMAL_SI, "-2n"),  # away from zero
    ("-", 0, DECIMAL_SI, "0"),
    (".", 0, DECIMAL_SI, "0"),
    ("+Ki", 0, BINARY_SI, "0"),
    ("1.", 1, DECIMAL_SI, "1."),
    ("-.5Ki", -512, BINARY_SI, "-512"),
    ("99999999999999999999Ki", 2**63 - 1, BINARY_SI, "9223372036854775807"),  # Go's cap
    ("1e1000", 10**1000, DECIMAL_EXPONENT, "10e999"),
    ("1" * 996 + "e1000", int("1" * 996) * 10**1000, DECIMAL_EXPONENT, "1" * 996 + "0e999"),
    ("1e-1000", Fraction(1, 10**9), DECIMAL_EXPONENT, "1e-9"),
    ("0" * 900 + "1", 1, DECIMAL_SI, "0" * 900 + "1"),  # canonical enough for Go: kept verbatim
]


@pytest.mark.parametrize("text,value,fmt,string", VALUES, ids=[row[0][:24] for row in VALUES])
def test_values_formats_and_strings_are_apimachinerys(text: str, value: Fraction | int, fmt: str, string: str) -> None:
    parsed = parse(text)
    assert (parsed.value, parsed.format, str(parsed)) == (value, fmt, string)
    assert parse_quantity(text) == value
    assert canonical_quantity(text) == string
    assert is_quantity(text)


ERRORS = [
    ("", FORMAT_ERROR),
    (" 1Gi", FORMAT_ERROR),
    ("1Gi ", FORMAT_ERROR),
    ("1.2.3", FORMAT_ERROR),
    ("1Gb", FORMAT_ERROR),
    ("1GG", SUFFIX_ERROR),
    ("1e", SUFFIX_ERROR),
    ("1e+", SUFFIX_ERROR),
    ("x", FORMAT_ERROR),
    (".e-10", NUMERIC_ERROR),
    ("４Gi", FORMAT_ERROR),  # full-width digits are not digits to Go
    # our bounds (Go accepts these and then computes for minutes, or forever)
    ("1e999999999", SUFFIX_ERROR),
    ("1e-2147483648", SUFFIX_ERROR),
    ("1e1001", SUFFIX_ERROR),
    ("1e-1001", SUFFIX_ERROR),
    ("1e" + "9" * 40, SUFFIX_ERROR),
    ("1" * 5000, "quantity has more than 1000 digits"),
    ("0." + "0" * 4999 + "1", "quantity has more than 1000 digits"),
    ("1e" + "0" * 5000 + "1", "quantity has more than 1000 digits"),
]


@pytest.mark.parametrize("text,message", ERRORS, ids=[row[0][:24] for row in ERRORS])
def test_errors(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as info:
        parse(text)
    assert str(info.value) == message
    assert not is_quantity(text)


def test_the_digit_bound_is_inclusive() -> None:
    assert parse("1" * quantity.MAX_DIGITS).value == int("1" * quantity.MAX_DIGITS)


@pytest.mark.parametrize(
    "value,fmt,string",
    [
        # memory overcommit requests (KubeVirt's overcommit: float32 products, printed in the guest's format)
        (2 * GI, BINARY_SI, "2Gi"),
        (3 * GI, BINARY_SI, "3Gi"),
        (3865470464, BINARY_SI, "3865470464"),
        (966367616, BINARY_SI, "966367616"),
        (912680576, BINARY_SI, "912680576"),
        (456340288, BINARY_SI, "456340288"),
        (107374176, BINARY_SI, "107374176"),
        (26843544, BINARY_SI, "26843544"),
        (7730940928, BINARY_SI, "7549747Ki"),
        (1536 * 2**20, BINARY_SI, "1536Mi"),
        (0, BINARY_SI, "0"),
        (900000000, DECIMAL_SI, "900M"),
        (199999984, DECIMAL_SI, "199999984"),
        (1023, BINARY_SI, "1023"),
        (-2048, BINARY_SI, "-2Ki"),
        (Fraction(3, 2), BINARY_SI, "1500m"),
        (1500, DECIMAL_EXPONENT, "1500"),
        (15000, DECIMAL_EXPONENT, "15e3"),
    ],
)
def test_format_quantity_is_quantity_string(value: Fraction | int, fmt: str, string: str) -> None:
    assert format_quantity(value, fmt) == string


def test_format_quantity_refuses_what_no_quantity_is() -> None:
    with pytest.raises(ValueError, match="not a decimal number"):
        format_quantity(Fraction(1, 3), DECIMAL_SI)
    with pytest.raises(ValueError, match="unknown quantity format"):
        format_quantity(1, "Binary")
    with pytest.raises(ValueError, match="too large"):
        format_quantity(3**20000, DECIMAL_SI)


@pytest.mark.parametrize(
    "value,text",
    [(16 * GI, "16Gi"), (1536 * 2**20, "1536Mi"), (1000, "1000"), (Fraction(1, 2), "0.5"), (10**30, "1e30")],
)
def test_format_bytes(value: Fraction | int, text: str) -> None:
    assert format_bytes(value) == text


def test_huge_values_format_without_huge_strings() -> None:
    assert format_bytes(parse_quantity("1e1000")) == "10e999"
    assert format_bytes(parse_quantity("1.5e999")) == "1500e996"
    assert format_bytes(parse_quantity("9" * 996 + "e1000")) == "9" * 996 + "0e999"


@pytest.mark.parametrize(
    "value,expected",
    [("4Gi", Fraction(4 << 30)), (2, Fraction(2)), (1.5, Fraction(3, 2)), ("100m", Fraction(1, 10))]
    + [(None, None), (True, None), ("4 Gi", None), ("", None), ({}, None)],
)
def test_quantity_value_reads_what_a_manifest_holds(value, expected) -> None:
    assert quantity_value(value) == expected
