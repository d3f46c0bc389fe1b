"""output/indented_json.py: json.dumps(value, indent=4), the same text for every value json can write."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.output.indented_json import dumps

KEYS = st.one_of(
    st.text(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(KEYS, inner, max_size=5),
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_the_same_text_as_json_dumps(value) -> None:
    assert dumps(value) == json.dumps(value, indent=4)


class _Name(str):
    pass


class _Count(int):
    def __repr__(self) -> str:
        return "not this"


class _Ratio(float):
    def __repr__(self) -> str:
        return "not this"


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"items": [], "metadata": {}},
        [[[]], {"a": [{}]}],
        {"a": "\u00e9\u2028\x00\x1f\ud83d\ude00", "b": 'quote " and \\ backslash'},
        {1.5: 1, True: 2, None: 3, 7: 4, math.inf: 5},
        [math.nan, -math.inf, 1e300, -0.0, 0.1, 10**25],
        # subclasses: written as their base type, as json does (not their own repr)
        {_Name("k"): [_Name("v"), _Count(3), _Ratio(0.5), True]},
    ],
)
def test_edge_values(value) -> None:
    assert dumps(value) == json.dumps(value, indent=4)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"a": {1, 2}}, "Object of type set is not JSON serializable"),
        ({(1, 2): "tuple key"}, "keys must be str, int, float, bool or None, not tuple"),
        ([b"bytes"], "Object of type bytes is not JSON serializable"),
    ],
)
def test_what_json_refuses_is_refused_in_its_words(value, message) -> None:
    with pytest.raises(TypeError, match="^" + message + "$"):
        json.dumps(value, indent=4)
    with pytest.raises(TypeError, match="^" + message + "$"):
        dumps(value)
