"""Label selectors read locally (instancetype/selectors.py): KubeVirt's and kubectl's grammar, matching as
apimachinery matches, and the same accept/reject decisions as ``labels.Parse`` (goref's selector mode)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.errors import InputError
from kubectl_instancetype.instancetype.selectors import SelectorError, parse_selector, selector_matches
from tests.conftest import GO

LABELS = {"instancetype.kubevirt.io/cpu": "4", "instancetype.kubevirt.io/class": "general.purpose", "tier": "gold"}


@pytest.mark.parametrize(
    "text,matches",
    [
        ("", True),
        ("tier", True),
        ("!tier", False),
        ("!missing", True),
        ("tier=gold", True),
        ("tier==gold", True),
        ("tier!=gold", False),
        ("missing!=x", True),  # != matches objects without the key
        ("tier in (gold, silver)", True),
        ("tier notin (gold)", False),
        ("missing notin (gold)", True),
        ("instancetype.kubevirt.io/cpu>3", True),
        ("instancetype.kubevirt.io/cpu<4", False),
        ("tier>3", False),  # not an integer value
        ("instancetype.kubevirt.io/cpu=4, tier = gold", True),
        ("instancetype.kubevirt.io/cpu=4,tier=silver", False),
        ("tier=", False),  # the empty value
        ("tier in (gold,)", True),
    ],
)
def test_matching(text: str, matches: bool) -> None:
    assert parse_selector(text).matches(LABELS) is matches


@pytest.mark.parametrize(
    "text",
    [
        "=x",
        "tier=gold,",
        "tier in gold",
        "tier in ()",
        "tier>x",
        "bad key=1",
        "tier=a b",
        "-bad=1",
        "tier (x)",
    ],
)
def test_refused(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_selector(text)


SELECTOR_TEXT = st.text(alphabet="ab/.-_=!,() <>in01", max_size=24)


@settings(deadline=1000)
@given(SELECTOR_TEXT | st.text(max_size=40))
def test_any_text_parses_or_raises_selector_error(text: str) -> None:
    try:
        selector = parse_selector(text)
    except SelectorError:
        return
    assert isinstance(selector.matches(LABELS), bool)


@GO
@given(st.lists(SELECTOR_TEXT, min_size=1, max_size=40))
def test_accepts_exactly_what_labels_parse_accepts(goref, texts: list[str]) -> None:
    for text, want in zip(texts, goref("selector", texts)):
        try:
            parse_selector(text)
        except SelectorError as exc:
            assert want["error"] is not None, (text, str(exc))
        else:
            assert want["error"] is None, (text, want["error"])


# ---------------------------------------------------------------------------------------------- metav1.LabelSelector objects


@pytest.mark.parametrize(
    "selector,labels,matches",
    [
        ({}, {}, True),
        ({}, {"a": "b"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "b", "c": "d"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "c"}, False),
        ({"matchLabels": {"a": "b"}}, {}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]}, {"a": "y"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]}]}, {}, False),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["x"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["x"]}]}, {"a": "x"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": ""}, False),
        (
            {"matchLabels": {"a": "1"}, "matchExpressions": [{"key": "b", "operator": "Exists"}]},
            {"a": "1"},
            False,
        ),
    ],
)
def test_label_selector_semantics(selector: dict, labels: dict, matches: bool) -> None:
    assert selector_matches(selector, labels) is matches


@pytest.mark.parametrize(
    "expression,message",
    [
        ({"key": "a", "operator": "Near", "values": ["x"]}, '"Near" is not a valid label selector operator'),
        (
            {"key": "a", "operator": "In"},
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"key": "a", "operator": "Exists", "values": ["x"]},
            'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
        ),
    ],
)
def test_invalid_selectors(expression: dict, message: str) -> None:
    with pytest.raises(InputError) as info:
        selector_matches({"matchExpressions": [expression]}, {"a": "x"})
    assert info.value.message == message
