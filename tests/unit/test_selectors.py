"""Label selectors read locally (instancetype/selectors.py): KubeVirt's and kubectl's grammar, matching as
apimachinery matches, and the same accept/reject decisions as ``labels.Parse`` (goref's selector mode)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.errors import InputError
from kubectl_instancetype.golang import labels
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


NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    "text,message",
    [  # labels.Parse's own words (apimachinery v0.34.2, as goref prints them)
        ("=x", "found '=', expected: !, identifier, or 'end of string'"),
        ("tier=gold,", "found '', expected: identifier after ','"),
        ("a=b,,c", "found ',', expected: identifier after ','"),
        ("tier in gold", "unable to parse requirement: found 'gold' expected: '('"),
        (
            "tier>x",
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        ("bad key=1", "unable to parse requirement: found 'key', expected: in, notin, =, ==, !=, gt, lt"),
        ("tier=a b", "found 'b', expected: ',' or 'end of string'"),
        ("-bad=1", f'unable to parse requirement: <nil>: Invalid value: "-bad": {NAME_PART}'),
        ("tier (x)", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
        ("tier=a@b", f'unable to parse requirement: values[0][tier]: Invalid value: "a@b": {LABEL_VALUE}'),
        (
            "a>-x",
            "unable to parse requirement: [values[0]: Invalid value: \"-x\": for 'Gt', 'Lt' operators, the value "
            f'must be an integer, values[0][a]: Invalid value: "-x": {LABEL_VALUE}]',
        ),
        ("x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"),
        ("tier in (", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
        ("a=(", "unable to parse requirement: found '(', expected: identifier"),
        ("a=b)", "found ')', expected: ',' or 'end of string'"),
    ],
)
def test_refused_with_go_messages(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as refused:
        parse_selector(text)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    "text,written",
    [  # what Go accepts, as its Selector.String() writes it back
        ("tier in ()", "tier in ()"),  # the set of the empty value
        ("tier in (gold,)", "tier in (,gold)"),
        ("a in (b,,c)", "a in (,b,c)"),
        ("b=1, !a,  c", "!a,b=1,c"),  # sorted by key
        ("in in (in)", "in in (in)"),
        ("x>1,x<5", "x>1,x<5"),
        ("a=b \x00c=d", "a=b"),  # Go's lexer reads a NUL where a token begins as the end of the input
        ("\x00a", ""),
    ],
)
def test_accepted_as_go_writes_them(text: str, written: str) -> None:
    assert labels.string(list(parse_selector(text).requirements)) == written


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
@given(
    st.lists(
        SELECTOR_TEXT | st.sampled_from(["tier in ()", "a in (,)", "a>-x", "p/q/r", "A/b=c"]), min_size=1, max_size=40
    )
)
def test_parses_exactly_as_labels_parse(goref, texts: list[str]) -> None:
    """The same selectors accepted, written back alike by Selector.String(), and the same messages for the rest."""
    for text, want in zip(texts, goref("selector", texts)):
        try:
            got = {"value": labels.string(list(parse_selector(text).requirements)), "error": None}
        except SelectorError as exc:
            got = {"value": None, "error": str(exc)}
        assert got == {"value": want["value"], "error": want["error"]}, text


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
