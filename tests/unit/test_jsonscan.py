"""kube/jsonscan.py decodes what json decodes, to the same values, and fails where json fails."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.kube import jsonscan

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _same(left: Any, right: Any) -> bool:
    """Equal values, NaN equal to NaN, and the same types (1 is not 1.0)."""
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    if type(left) is not type(right):
        return False
    if isinstance(left, list | tuple):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    return left == right


def _outcome(decode: Any, data: Any) -> tuple[str, object]:
    try:
        return "value", decode(data)
    except RecursionError:
        return "error", RecursionError
    except UnicodeDecodeError:
        return "error", UnicodeDecodeError
    except ValueError:
        return "error", ValueError


@given(_VALUES, st.sampled_from(["", " ", "\n", " \t\r\n "]), st.booleans())
def test_documents_decode_as_json_loads_them(value: object, space: str, as_bytes: bool) -> None:
    text = space + json.dumps(value, separators=(",", ":"), ensure_ascii=False) + space
    data: str | bytes = text.encode("utf-8", "surrogatepass") if as_bytes else text
    ours, theirs = _outcome(jsonscan.loads, data), _outcome(json.loads, data)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])


@given(st.one_of(st.text(alphabet='{}[]",:0123456789.eE+-tfnul aNIy\\\n', max_size=24), st.binary(max_size=24)))
def test_any_text_fails_or_decodes_as_json_loads(data: str | bytes) -> None:
    ours, theirs = _outcome(jsonscan.loads, data), _outcome(json.loads, data)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])


@given(_VALUES, st.text(alphabet=' ,]}x0"', max_size=4), st.integers(min_value=0, max_value=3))
def test_raw_decode_is_json_raw_decode(value: object, after: str, before: int) -> None:
    text = "x" * before + json.dumps(value, separators=(",", ":")) + after
    decoder = json.JSONDecoder()
    ours = _outcome(lambda t: jsonscan.raw_decode(t, before), text)
    theirs = _outcome(lambda t: decoder.raw_decode(t, before), text)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf{}",  # UTF-8 with its byte-order mark: json.loads accepts it from bytes
        '{"a": 1}'.encode("utf-16"),
        '{"a": 1}'.encode("utf-32-le"),
        "\ufeff{}",  # ...and refuses it in a str
        b"\xff\xfe",
        b"[" * 100_000 + b"]" * 100_000,  # nesting: RecursionError from both
        b'{"n": ' + b"9" * 5000 + b"}",  # int's digit limit, word for word
    ],
    ids=["utf8-bom", "utf16", "utf32", "str-bom", "bom-only", "deep", "digits"],
)
def test_encodings_and_limits_as_json(data: str | bytes) -> None:
    ours, theirs = _outcome(jsonscan.loads, data), _outcome(json.loads, data)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])
    if data.startswith(b'{"n"') if isinstance(data, bytes) else False:
        with pytest.raises(ValueError, match="integer string conversion"):
            jsonscan.loads(data)


def test_failures_are_value_errors_without_json_loaded() -> None:
    # the C scanner raises JSONDecodeError only with json.decoder loaded (Modules/_json.c raise_errmsg): a list
    # run has not loaded it, and a syntax error must still be a ValueError there, with json still not loaded
    code = (
        "import sys\n"
        "from kubectl_instancetype.kube import jsonscan\n"
        "for text in ('{\"a\" 1}', '{\"a\":', '', '[1,]', '{}x'):\n"
        "    try:\n"
        "        jsonscan.loads(text)\n"
        "    except ValueError as exc:\n"
        "        print(type(exc).__name__)\n"
        "print(jsonscan.loads(b'{\"a\": [1, 2.5, NaN]}'), 'json' in sys.modules, 're' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.stdout.split("\n") == ["ValueError"] * 5 + ["{'a': [1, 2.5, nan]} False False", ""], result.stderr
