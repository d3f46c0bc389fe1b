"""Go's encoding/json syntax errors, on vectors printed by Go 1.26's json.Unmarshal (and a json.Decoder for the
stream cases), so that a corrupt answer or watch line is named in Go's words."""

from __future__ import annotations

import pytest

from kubectl_instancetype.golang.encoding_json import syntax_error

# (input, json.Unmarshal's error as Go 1.26 printed it; None: valid)
UNMARSHAL = [
    (b"garbage", "invalid character 'g' looking for beginning of value"),
    (b"", "unexpected end of JSON input"),
    (b"{", "unexpected end of JSON input"),
    (b'{"a"', "unexpected end of JSON input"),
    (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
    (b'{"a" 1}', "invalid character '1' after object key"),
    (b"{1:2}", "invalid character '1' looking for beginning of object key string"),
    (b"[1 2]", "invalid character '2' after array element"),
    (b"tru", "invalid character ' ' in literal true (expecting 'e')"),
    (b"trux", "invalid character 'x' in literal true (expecting 'e')"),
    (b"nul!", "invalid character '!' in literal null (expecting 'l')"),
    (b"-x", "invalid character 'x' in numeric literal"),
    (b"1.x", "invalid character 'x' after decimal point in numeric literal"),
    (b"1e+", "invalid character ' ' in exponent of numeric literal"),
    (b'"a\\qb"', "invalid character 'q' in string escape code"),
    (b'"\\u12G4"', "invalid character 'G' in \\u hexadecimal character escape"),
    (b'"a\x01"', "invalid character '\\x01' in string literal"),
    (b"{} x", "invalid character 'x' after top-level value"),
    (b"\xff", "invalid character '\xff' looking for beginning of value"),
    (b"'", "invalid character '\\'' looking for beginning of value"),
    (b'"', "unexpected end of JSON input"),
    (b"\x00", "invalid character '\\x00' looking for beginning of value"),
    (b"[1,]", "invalid character ']' looking for beginning of value"),
    (b'{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
    (b"01", "invalid character '1' after top-level value"),
    (b'{"type":"ADDED","object":{}}', None),
]


@pytest.mark.parametrize(("data", "expected"), UNMARSHAL, ids=[repr(case[0]) for case in UNMARSHAL])
def test_unmarshal_errors_are_gos(data: bytes, expected: str | None) -> None:
    assert syntax_error(data) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"type":"ADD', "unexpected EOF"),  # io.ErrUnexpectedEOF
        (b"tru", "unexpected EOF"),
        (b"12", None),  # a number may end the stream
        (b"{} {}", None),  # values one after the other
        (b"{} x", "invalid character 'x' looking for beginning of value"),
    ],
)
def test_decoder_errors_are_gos(data: bytes, expected: str | None) -> None:
    assert syntax_error(data, stream=True) == expected
