"""Label selectors read locally (instancetype/selectors.py): KubeVirt's and kubectl's grammar, matching as
apimachinery matches, and the same accept/reject decisions as ``labels.Parse`` (goref's selector mode)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.instancetype.selectors import SelectorError, parse_selector
from tests.unit.test_properties_parsers import GO, goref  # noqa: F401

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
def test_accepts_exactly_what_labels_parse_accepts(goref, texts: list[str]) -> None:  # noqa: F811
    for text, want in zip(texts, goref("selector", texts)):
        try:
            parse_selector(text)
        except SelectorError as exc:
            assert want["error"] is not None, (text, str(exc))
        else:
            assert want["error"] is None, (text, want["error"])
