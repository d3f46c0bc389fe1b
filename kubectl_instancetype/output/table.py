"""kubectl's table cells laid out (Go ``text/tabwriter``, see :mod:`kubectl_instancetype.golang.tabwriter`) and AGE.

cli-runtime's printer builds ``tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)``: each cell but the last of a
row is padded to ``max(6, widest cell + 3)``, and the last cell is written as it is.
"""

from __future__ import annotations

from .terminal import escape  # a few lines, no imports of its own: every table escapes its cells

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any


def render_table(headers: Sequence[str] | None, rows: Iterable[Sequence[str]]) -> str:
    """Lay out ``rows`` (and ``headers`` unless None) as kubectl does; returns text with a final newline. While a
    command runs for one context of several (:mod:`.fleet`), the table goes to that context's capture instead."""
    from . import active_capture

    if (target := active_capture()) is not None:
        target.table(headers, list(rows))
        return ""
    from ..golang.tabwriter import render_table as tabwriter_table

    lines: list[Sequence[str]] = [list(headers)] if headers is not None else []
    # cells come from the cluster: control characters are shown, never sent to the terminal (terminal.py)
    lines.extend([escape(cell) for cell in row] for row in rows)
    return tabwriter_table(lines)


def measure_rows(rows: Sequence[Sequence[str]]) -> tuple[int, bool, list[int]] | None:
    """(the length of every row, whether every cell is printable, the width of each column's widest cell as it is
    printed, escaped) of ``rows`` of one length; None for no rows or rows of unequal length. A fleet's context
    measures its own table in its own thread (:meth:`.capture.Capture.table`), so that the table written after the
    last context only pads (:func:`write_table_groups`)."""
    if not rows or len(set(map(len, rows))) != 1:
        return None
    # column by column, so that the loops run in C (zip, map, max): cell by cell in Python this was most of the
    # fleet list's own CPU (20,000 rows: py-spy, 2026-11-27). Text that is all printable (the common case) needs
    # no escaping, and its cells are measured and written as they are.
    plain = "".join(map("".join, rows)).isprintable()
    columns = zip(*rows) if plain else zip(*map(_escaped, rows))
    return len(rows[0]), plain, [max(map(len, column)) for column in columns]


def write_table_groups(
    write: Callable[[str], object],
    headers: Sequence[str] | None,
    groups: Sequence[tuple[Any, ...]],
) -> None:
    """Write what ``render_table(headers, [[first, *row] for first, rows in groups for row in rows])`` returns,
    without that merged copy of every row nor the whole text at once: a fleet's table (each context's rows, its
    name first) is measured column by column, then written a thousand lines at a time. A group is ``(first,
    rows)`` or ``(first, rows, measure_rows(rows))`` when its rows were measured already. Rows of unequal length
    take :func:`render_table` itself (Go's tabwriter then lines up runs of lines, not the whole table)."""

    columns = len(headers) if headers is not None else None
    widths: list[int] = [len(cell) for cell in headers] if headers is not None else []
    kept: list[tuple[str, Sequence[Sequence[str]], bool]] = []
    for first, rows, *known in groups:
        if not rows:
            continue
        measured = known[0] if known else measure_rows(rows)
        if measured is None:
            break
        length, plain, sizes = measured
        if columns is None:
            columns, widths = length + 1, [0] * (length + 1)
        if length + 1 != columns:
            break
        head = escape(first)
        for index, size in enumerate((len(head), *sizes)):
            if size > widths[index]:
                widths[index] = size
        kept.append((head, rows, plain))
    else:
        if columns is None:  # no rows
            if headers is not None:
                write(render_table(headers, []))
            return
        if columns:
            _write_measured(write, headers, kept, widths)
            return
    # rows of unequal length (or none but empty ones): render_table's general path
    write(render_table(headers, [[first, *row] for first, rows, *_ in groups for row in rows]))


def _escaped(row: Sequence[str]) -> tuple[str, ...]:
    return tuple([escape(cell) for cell in row])


LINES_A_WRITE = 1000


def _write_measured(
    write: Callable[[str], object],
    headers: Sequence[str] | None,
    groups: list[tuple[str, Sequence[Sequence[str]], bool]],
    widths: list[int],
) -> None:
    """The second pass of :func:`write_table_groups`: every row padded to the measured widths (its first cell
    escaped), 1,000 lines a write."""
    from ..golang.tabwriter import MIN_WIDTH, PADDING

    pads = [max(MIN_WIDTH, width + PADDING) for width in widths[:-1]]
    if headers is not None:
        write("".join([cell.ljust(pad) for cell, pad in zip(headers, pads)]) + headers[-1] + "\n")
    # one format for a whole row of a group, its first cell in it: the padded cells (``%-Ns`` pads by code
    # points, as str.ljust), the last as is; the rows formatted in C (``map`` of ``%``, a quarter faster than
    # str.format's ``{:<N}``), a thousand a write
    line = "".join(f"%-{pad}s" for pad in pads[1:]) + "%s\n"
    for head, rows, plain in groups:
        if not pads:  # the first cell alone
            text = head + "\n"
            for start in range(0, len(rows), LINES_A_WRITE):
                write(text * len(rows[start : start + LINES_A_WRITE]))
            continue
        row_format = head.ljust(pads[0]).replace("%", "%%") + line
        for start in range(0, len(rows), LINES_A_WRITE):
            part = rows[start : start + LINES_A_WRITE]
            # % takes a tuple's items as its values: a row that is a list (or a cell that needs escaping) is one
            tuples = part if plain and set(map(type, part)) == {tuple} else map(_escaped, part)
            write("".join(map(row_format.__mod__, tuples)))


def age_since(created: float | None, now: float) -> str:
    """The AGE cell: ``<unknown>`` without a creation time, else :func:`human_duration` of the difference."""
    if created is None:
        return "<unknown>"
    from ..golang.duration import human_duration

    return human_duration(now - created)
