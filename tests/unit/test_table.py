"""kubectl's table layout and AGE rendering."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype.golang.duration import human_duration
from kubectl_instancetype.output.table import age_since, render_table


def test_columns_are_padded_like_go_tabwriter() -> None:
    text = render_table(["NAME", "CPU", "AGE"], [["u1.medium", "1", "5s"], ["a", "32", "400d"]])
    assert text == ("NAME        CPU   AGE\nu1.medium   1     5s\na           32    400d\n")


def test_minimum_width_is_six_including_padding_and_last_column_is_not_padded() -> None:
    assert render_table(["A", "B"], [["x", "y"]]) == "A     B\nx     y\n"


def test_no_headers_and_empty() -> None:
    assert render_table(None, [["a", "b"]]) == "a     b\n"
    assert render_table(None, []) == ""


@pytest.mark.parametrize(
    "seconds,expected",
    [
        (-5, "<invalid>"),
        (-1.5, "0s"),
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (125, "2m5s"),
        (599, "9m59s"),
        (600, "10m"),
        (10799, "179m"),
        (10800, "3h"),
        (3 * 3600 + 60, "3h1m"),
        (8 * 3600, "8h"),
        (47 * 3600, "47h"),
        (48 * 3600, "2d"),
        (50 * 3600, "2d2h"),
        (8 * 86400, "8d"),
        (729 * 86400, "729d"),
        (730 * 86400, "2y"),
        (731 * 86400, "2y1d"),
        (8 * 365 * 86400, "8y"),
    ],
)
def test_human_duration_matches_apimachinery(seconds: float, expected: str) -> None:
    assert human_duration(seconds) == expected


def test_age_without_timestamp() -> None:
    assert age_since(None, 100.0) == "<unknown>"
    assert age_since(40.0, 100.0) == "60s"


@pytest.mark.parametrize(
    "headers,groups",
    [
        (("CONTEXT", "NAME", "CPU"), [("prod-eu", [["u1.medium", "1"], ["u1.2xlarge", "8"]]), ("dev", [["a", "32"]])]),
        (("CONTEXT", "NAME"), []),  # no rows: the header line alone
        (None, [("a", [["x", "y"]]), ("a-much-longer-context", [])]),
        (None, []),
        # cluster data with control characters: escaped first, widths counted on the escaped text
        (("CONTEXT", "NAME", "AGE"), [("c\x1bx", [["bad\tname", "1s"]]), ("d", [["n\n", "2d"]])]),
        # rows of unequal length: Go's tabwriter lines up runs of lines (render_table's general path)
        (("CONTEXT", "NAME", "CPU"), [("a", [["x", "1"], ["only"]]), ("b", [["y", "2", "extra"]])]),
        (("CONTEXT",), [("a", [[]]), ("bb", [[]])]),
    ],
)
def test_fleet_table_written_in_pieces_is_render_tables_text(headers, groups) -> None:
    from kubectl_instancetype.output.table import write_table_groups

    pieces: list[str] = []
    write_table_groups(pieces.append, headers, groups)
    assert "".join(pieces) == render_table(headers, [[first, *row] for first, rows in groups for row in rows])


def test_fleet_table_is_written_a_thousand_lines_at_a_time() -> None:
    # the header, then each context's rows a thousand at a time
    from kubectl_instancetype.output.table import write_table_groups

    pieces: list[str] = []
    rows = [[f"n{index}", str(index)] for index in range(2500)]
    write_table_groups(pieces.append, ("CONTEXT", "NAME", "CPU"), [("a", rows), ("b", rows)])
    assert [piece.count("\n") for piece in pieces] == [1, 1000, 1000, 500, 1000, 1000, 500]
    assert "".join(pieces) == render_table(("CONTEXT", "NAME", "CPU"), [[c, *row] for c in "ab" for row in rows])


_CELL = st.text(
    alphabet=st.sampled_from(["a", "Z", "-", ".", " ", "é", "界", "\x1b", "\t", "\n", "\x9b", "{", "}", "%"])
)


@given(
    width=st.integers(min_value=0, max_value=4),
    headed=st.booleans(),
    data=st.data(),
)
@settings(max_examples=200, deadline=None)
def test_fleet_table_agrees_with_render_table_on_generated_groups(width: int, headed: bool, data) -> None:
    # printable and control characters, wide runes and format braces, in groups of rows of one length
    from kubectl_instancetype.output.table import write_table_groups

    row = st.lists(_CELL, min_size=width, max_size=width)
    groups = data.draw(st.lists(st.tuples(_CELL, st.lists(row, max_size=4)), max_size=4))
    # headers are the plugin's own words, never cluster data: printable
    header = st.text(alphabet=st.sampled_from(["A", "Z", "-", " ", "é", "界", "{", "%"]))
    headers = data.draw(st.lists(header, min_size=width + 1, max_size=width + 1)) if headed else None
    pieces: list[str] = []
    write_table_groups(pieces.append, headers, groups)
    assert "".join(pieces) == render_table(headers, [[first, *cells] for first, rows in groups for cells in rows])
    # each group measured beforehand (a fleet context's own thread: Capture.table), its rows tuples (a list's)
    from kubectl_instancetype.output.table import measure_rows

    measured: list[str] = []
    tuples = [(first, [tuple(row) for row in rows]) for first, rows in groups]
    write_table_groups(measured.append, headers, [(first, rows, measure_rows(rows)) for first, rows in tuples])
    assert measured == pieces
