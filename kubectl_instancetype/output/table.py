"""kubectl's table cells laid out (Go ``text/tabwriter``, see :mod:`kubectl_instancetype.golang.tabwriter`) and AGE.

cli-runtime's printer builds ``tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)``: each cell but the last of a
row is padded to ``max(6, widest cell + 3)``, and the last cell is written as it is.
"""

from __future__ import annotations

from .terminal import escape  # a few lines, no imports of its own: every table escapes its cells

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence


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


def write_table_groups(
    write: Callable[[str], object],
    headers: Sequence[str] | None,
    groups: Sequence[tuple[str, Sequence[Sequence[str]]]],
) -> None:
    """Write what ``render_table(headers, [[first, *row] for first, rows in groups for row in rows])`` returns,
    without that merged copy of every row nor the whole text at once: a fleet's table (each context's rows, its
    name first) is measured column by column, then written a thousand lines at a time. Rows of unequal length
    take :func:`render_table` itself (Go's tabwriter then lines up runs of lines, not the whole table)."""

    columns = len(headers) if headers is not None else None
    widths: list[int] = [len(cell) for cell in headers] if headers is not None else []
    # Column by column and group by group, so that the loops run in C (zip, map, max, str.format): cell by cell
    # in Python this was most of the fleet list's own CPU (20,000 rows: py-spy, 2026-11-27). A group whose text
    # is all printable (the common case) needs no escaping, and its cells are measured and written as they are.
    plain: dict[int, bool] = {}
    for number, (first, rows) in enumerate(groups):
        if not rows:
            continue
        if columns is None:
            columns, widths = len(rows[0]) + 1, [0] * (len(rows[0]) + 1)
        if any(len(row) + 1 != columns for row in rows):
            break
        plain[number] = "".join(map("".join, rows)).isprintable()
        measured = [[escape(first)], *zip(*rows)] if plain[number] else [[escape(first)], *zip(*map(_escaped, rows))]
        for index, column in enumerate(measured):
            size = max(map(len, column))
            if size > widths[index]:
                widths[index] = size
    else:
        if columns is None:  # no rows
            if headers is not None:
                write(render_table(headers, []))
            return
        if columns:
            _write_measured(write, headers, groups, widths, plain)
            return
    # rows of unequal length (or none but empty ones): render_table's general path
    write(render_table(headers, [[first, *row] for first, rows in groups for row in rows]))


def _escaped(row: Sequence[str]) -> list[str]:
    return [escape(cell) for cell in row]


def _write_measured(
    write: Callable[[str], object],
    headers: Sequence[str] | None,
    groups: Sequence[tuple[str, Sequence[Sequence[str]]]],
    widths: list[int],
    plain: dict[int, bool],
) -> None:
    """The second pass of :func:`write_table_groups`: every row padded to the measured widths, 1,000 lines a write."""
    from ..golang.tabwriter import MIN_WIDTH, PADDING

    pads = [max(MIN_WIDTH, width + PADDING) for width in widths[:-1]]
    lines: list[str] = []
    if headers is not None:
        lines.append("".join([cell.ljust(pad) for cell, pad in zip(headers, pads)]) + headers[-1] + "\n")
    # one format for a whole row: the padded cells (``{:<N}`` pads by code points, as str.ljust), the last as is
    line = "".join(f"{{:<{pad}}}" for pad in pads[1:]) + "{}\n"
    for number, (first, rows) in enumerate(groups):
        if not rows:
            continue
        head = escape(first).ljust(pads[0]) if pads else escape(first)
        for row in rows if plain[number] else map(_escaped, rows):
            lines.append(head + line.format(*row) if pads else head + "\n")
            if len(lines) >= 1000:
                write("".join(lines))
                lines.clear()
    if lines:
        write("".join(lines))


def age_since(created: float | None, now: float) -> str:
    """The AGE cell: ``<unknown>`` without a creation time, else :func:`human_duration` of the difference."""
    if created is None:
        return "<unknown>"
    from ..golang.duration import human_duration

    return human_duration(now - created)
