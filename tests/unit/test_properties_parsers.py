"""Property tests for every parser that reads user or server text: it parses or raises the project's error, fast.

Each parser gets arbitrary text (and text shaped like its language, so that the interesting paths are hit):
the only acceptable outcomes are a value or the parser's own error type, within hypothesis' deadline (no
hang on ``1e999999999``, no ``ValueError`` from Python's 4300-digit int limit, no ``TypeError``). Where a Go
reference exists, hypothesis' inputs are also sent to it (``hack/virtctl/goref``, batched per example) and
the answers must agree.
"""

from __future__ import annotations

import re
from datetime import timedelta
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.golang.duration import DurationError, parse_duration, parse_timeout, request_timeout_seconds
from kubectl_instancetype.golang.encoding_base64 import std_decodes
from kubectl_instancetype.golang.encoding_csv import CSVError, go_read_csv_record
from kubectl_instancetype.golang.quantity import QuantityError, format_quantity, parse
from kubectl_instancetype.golang.strconv import GoNumError, go_parse_bool, go_parse_int, go_parse_uint, go_quote
from kubectl_instancetype.golang.tabwriter import render_table, tabwriter
from kubectl_instancetype.instancetype import listing
from kubectl_instancetype.instancetype.params import (
    PARAM_LIST,
    PARAM_QUANTITY,
    PARAM_UINT,
    Param,
    ParamError,
    parse_params,
    split_params,
    split_prefixed_name,
)
from tests.conftest import GO

# A deadline well above the slowest input (~50 ms) yet far below a hang, with room for a loaded machine.
FAST = settings(max_examples=150, deadline=timedelta(seconds=1))

# Any character Python's Unicode tables know. Go's tables are newer (Unicode 15 in Go 1.21+; Python 3.11 has 14),
# so a character assigned since (CJK Extension H, Kawi, ...) is printable for Go's strconv.Quote but unassigned
# here: the messages that quote the input would differ on it for a reason that is not ours.
ANY_ASSIGNED = st.characters(blacklist_categories=("Cs", "Cn"))
DIGITS = st.text("0123456789", max_size=30)


def _huge_digits() -> st.SearchStrategy[str]:
    return st.integers(min_value=900, max_value=6000).map(lambda n: "1" * n)


QUANTITY_TEXT = st.one_of(
    st.text(ANY_ASSIGNED, max_size=30),
    st.text("0123456789.+-eEinumkKMGTP ", max_size=30),
    st.builds(
        lambda sign, whole, dot, fraction, suffix: sign + whole + dot + fraction + suffix,
        st.sampled_from(["", "+", "-"]),
        st.one_of(DIGITS, _huge_digits()),
        st.sampled_from(["", "."]),
        DIGITS,
        st.one_of(
            st.sampled_from(["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"]),
            st.builds(
                lambda e, sign, n: e + sign + str(n),
                st.sampled_from(["e", "E"]),
                st.sampled_from(["", "+", "-"]),
                st.integers(min_value=0, max_value=10**30),
            ),
        ),
    ),
)


@FAST
@given(QUANTITY_TEXT)
def test_quantities_parse_or_raise_quantity_error(text: str) -> None:
    try:
        quantity = parse(text)
    except QuantityError:
        return
    assert isinstance(quantity.value, Fraction)
    printed = str(quantity)
    if quantity.text is None:
        # what Go prints for a recomputed value is what format_quantity prints for that value and format
        assert printed == format_quantity(quantity.value, quantity.format)
    else:
        assert printed == text


def _go_answers_quickly(text: str) -> bool:
    """False for the inputs beyond our bounds: Go computes for minutes on huge exponents (int32-wrapped)."""
    if sum(c.isdigit() and c.isascii() for c in text) > 1000:
        return False
    match = re.search(r"[eE][+-]?([0-9]+)$", text)
    return not match or len(match.group(1).lstrip("0")) <= 3


@GO
@given(st.lists(QUANTITY_TEXT.filter(lambda t: "\0" not in t and _go_answers_quickly(t)), min_size=1, max_size=30))
def test_quantities_match_apimachinery(goref, texts: list[str]) -> None:
    for text, want in zip(texts, goref("quantity-detail", texts)):
        try:
            quantity = parse(text)
        except QuantityError as exc:
            assert str(exc) == want["error"], text
            continue
        assert want["error"] is None, text
        assert (str(quantity), quantity.format, quantity.value) == (
            want["value"],
            want["format"],
            Fraction(want["exact"]),
        ), text


# --- virtctl's compound parameters and prefixed names ---

PARAMS_TEXT = st.one_of(
    st.text(ANY_ASSIGNED, max_size=40),
    st.text("abcsizeheadrotyp:,;/0123456789GiMe.-", max_size=40),
    st.lists(
        st.tuples(
            st.sampled_from(["size", "headers", "bootorder", "type", "name", "x", ""]),
            st.sampled_from([":", "", "::"]),
            st.text("0123456789aGiM;.-+:x ", max_size=8),
        ).map("".join),
        max_size=5,
    ).map(",".join),
)
TYPED = (Param("size", PARAM_QUANTITY), Param("headers", PARAM_LIST), Param("bootorder", PARAM_UINT), Param("type"))


@FAST
@given(PARAMS_TEXT)
def test_compound_parameters_parse_or_raise(text: str) -> None:
    try:
        split_params(text)
    except ParamError:
        pass
    try:
        parse_params("volume-import", text, TYPED)
    except UsageError as exc:
        assert exc.message.startswith('failed to parse "--volume-import" flag: ')
    try:
        split_prefixed_name(text)
    except ParamError:
        pass


def _unknown_params_normalised(message: str | None) -> object:
    """Go lists unknown params in random map order: compare them as a set."""
    head = 'failed to parse "--volume-import" flag: unknown param(s): '
    if message and message.startswith(head):
        return (head, frozenset(message[len(head) :].split(",")))
    return message


@GO
@given(st.lists(PARAMS_TEXT, min_size=1, max_size=30))
def test_compound_parameters_match_virtctl(goref, texts: list[str]) -> None:
    for text, want in zip(texts, goref("params", texts)):
        try:
            values = parse_params("volume-import", text, TYPED)
        except UsageError as exc:
            assert _unknown_params_normalised(exc.message) == _unknown_params_normalised(want["error"]), text
            continue
        assert want["error"] is None, text
        assert {k: v for k, v in values.items() if v != ""} == want["values"], text
    for text, want in zip(texts, goref("prefixed-name", texts)):
        try:
            prefix, name = split_prefixed_name(text)
        except ParamError as exc:
            assert str(exc) == want["error"], text
            continue
        assert (prefix, name, None) == (want["prefix"], want["name"], want["error"]), text


# --- Go's strconv and encoding/csv (pflag's flag values) ---

NUMBER_TEXT = st.one_of(
    st.text(ANY_ASSIGNED, max_size=25),
    st.text("0123456789_+-xXbBoOaAfFzZ４\u212a", max_size=25),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)


@FAST
@given(NUMBER_TEXT, st.sampled_from([0, 10]), st.sampled_from([32, 64]))
def test_strconv_parses_or_raises_num_error(text: str, base: int, bits: int) -> None:
    for parse_number in (go_parse_uint, go_parse_int):
        try:
            value = parse_number(text, base=base, bits=bits)
        except GoNumError as exc:
            assert str(exc).startswith("strconv.Parse")
            continue
        assert isinstance(value, int)
        if base == 10:
            # Go reads ASCII digits only: whatever parses is what int() reads, never a full-width digit
            assert text.isascii() and value == int(text)
    try:
        assert isinstance(go_parse_bool(text), bool)
    except GoNumError:
        pass
    assert go_quote(text).startswith('"')


@GO
@given(st.lists(NUMBER_TEXT, min_size=1, max_size=30))
def test_strconv_matches_go(goref, texts: list[str]) -> None:
    cases = [
        {"func": func, "text": text, "base": base, "bits": 32 if func == "ParseUint" else 64}
        for text in texts
        for func in ("ParseUint", "ParseInt")
        for base in (0, 10)
    ]
    for case, want in zip(cases, goref("strconv", cases)):
        parse_number = go_parse_uint if case["func"] == "ParseUint" else go_parse_int
        try:
            got = {"value": str(parse_number(case["text"], base=case["base"], bits=case["bits"])), "error": None}
        except GoNumError as exc:
            got = {"value": None, "error": str(exc)}
        assert got == want, case


CSV_TEXT = st.one_of(st.text(ANY_ASSIGNED, max_size=30), st.text('ab,"\n\r é', max_size=30))


@FAST
@given(CSV_TEXT)
def test_csv_record_parses_or_raises_csv_error(text: str) -> None:
    try:
        fields = go_read_csv_record(text)
    except CSVError:
        return
    assert all(isinstance(field, str) for field in fields)


@GO
@given(st.lists(CSV_TEXT.filter(lambda t: "\0" not in t), min_size=1, max_size=30))
def test_csv_record_matches_go(goref, texts: list[str]) -> None:
    for text, want in zip(texts, goref("csv", texts)):
        try:
            got = {"fields": go_read_csv_record(text), "error": None}
        except CSVError as exc:
            got = {"fields": None, "error": str(exc)}
        assert got == want, text


# --- durations (kubectl's --request-timeout) ---

DURATION_TEXT = st.one_of(
    st.text(ANY_ASSIGNED, max_size=25),
    st.text("0123456789.+-hmsnuµμ", max_size=25),
    st.lists(
        st.tuples(
            st.one_of(DIGITS, st.integers(min_value=0, max_value=2**70).map(str)),
            st.sampled_from(["", "."]),
            DIGITS,
            st.sampled_from(["h", "m", "s", "ms", "us", "µs", "μs", "ns", "d", ""]),
        ).map("".join),
        min_size=1,
        max_size=4,
    ).map("".join),
)


@FAST
@given(DURATION_TEXT)
def test_durations_parse_or_raise_duration_error(text: str) -> None:
    try:
        nanoseconds = parse_duration(text)
    except DurationError as exc:
        assert str(exc).startswith("time: ")
    else:
        assert -(2**63) <= nanoseconds < 2**63
    try:
        seconds = request_timeout_seconds(text)
    except DurationError as exc:
        assert str(exc).startswith("Invalid timeout value")
    else:
        assert seconds is None or 0 < seconds < 2**62 / 1e9


@GO
@given(st.lists(DURATION_TEXT.filter(lambda t: "\0" not in t), min_size=1, max_size=30))
def test_durations_match_go(goref, texts: list[str]) -> None:
    for text, want in zip(texts, goref("duration", texts)):
        try:
            got = {"value": str(parse_duration(text)), "error": None}
        except DurationError as exc:
            got = {"value": None, "error": str(exc)}
        assert got == {"value": want["value"], "error": want["error"]}, text
        try:
            timeout = parse_timeout(text)
        except DurationError as exc:
            assert str(exc) == want["timeout_error"], text
        else:
            # Go wraps around past int64 nanoseconds (we keep the true value and refuse it later)
            assert str((timeout + 2**63) % 2**64 - 2**63) == want["timeout"], text


# --- base64 (cloud-init data, as KubeVirt's webhook decodes it) ---

BASE64_TEXT = st.one_of(st.text(ANY_ASSIGNED, max_size=20), st.text("eAB+/=\n\r é", max_size=20))


@GO
@given(st.lists(BASE64_TEXT.filter(lambda t: "\0" not in t), min_size=1, max_size=30))
def test_base64_acceptance_matches_go(goref, texts: list[str]) -> None:
    for text, want in zip(texts, goref("base64", texts)):
        assert std_decodes(text) == (want["error"] is None), text


# --- tables ---

CELL = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)


@FAST
@given(st.lists(st.lists(CELL, min_size=1, max_size=5), max_size=6))
def test_tables_lay_out_any_cells(rows: list[list[str]]) -> None:
    text = render_table(rows)
    assert text == tabwriter("".join("\t".join(row) + "\n" for row in rows))


# --- the label selector the list command sends ---

LABEL_VALUE = st.from_regex(r"\A(([A-Za-z0-9][-A-Za-z0-9_.]{0,20})?[A-Za-z0-9])?\Z")
MEMORY_TEXT = st.one_of(QUANTITY_TEXT, st.sampled_from(["1Gi", "16384Mi", "1.5Gi", "512Mi", "1e3"]))


@FAST
@given(
    st.builds(
        listing.Filters,
        cpu=st.none() | st.integers(min_value=-5, max_value=10**6),
        memory=st.none() | MEMORY_TEXT,
        klass=st.none() | st.text(ANY_ASSIGNED, max_size=15),
        size=st.none() | st.text(ANY_ASSIGNED, max_size=15),
        hugepages=st.none() | st.text(ANY_ASSIGNED, max_size=8),
        vendor=st.none() | st.text(ANY_ASSIGNED, max_size=15),
        selector=st.none() | st.text(ANY_ASSIGNED, max_size=20),
        hide_deprecated=st.booleans(),
    ),
    st.sampled_from([listing.INSTANCETYPES, listing.PREFERENCES]),
)
def test_label_selector_builds_or_raises_filter_error(filters: listing.Filters, what: str) -> None:
    try:
        selector = listing.label_selector(filters, what)
    except listing.FilterError:
        return
    assert isinstance(selector, str)


def _filters(**given: object) -> listing.Filters:
    """Filters with only the given fields set (st.builds(Filters) would also invent the others)."""
    return listing.Filters(**given)  # type: ignore[arg-type]


@settings(GO, max_examples=10)
@given(
    st.lists(
        st.builds(
            _filters,
            cpu=st.none() | st.integers(min_value=0, max_value=10**6),
            memory=st.none() | st.sampled_from(["1Gi", "16384Mi", "1.5Gi", "512Mi", "1000", "2048Ki"]),
            klass=st.none() | LABEL_VALUE,
            size=st.none() | LABEL_VALUE,
            hugepages=st.none() | LABEL_VALUE,
            dedicated_cpu=st.booleans(),
            gpus=st.booleans(),
            vendor=st.none() | LABEL_VALUE,
            hide_deprecated=st.booleans(),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_label_selectors_from_label_values_are_what_kubernetes_parses(goref, filters: list[listing.Filters]) -> None:
    selectors = [listing.label_selector(f, listing.INSTANCETYPES) for f in filters]
    for selector, want in zip(selectors, goref("selector", selectors)):
        assert want["error"] is None, selector
        # labels.Parse sorts the requirements by key; every term we wrote comes back unchanged
        assert sorted(want["value"].split(",")) == sorted(selector.split(",")) if selector else want["value"] == ""
