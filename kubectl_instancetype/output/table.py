"""kubectl's table cells laid out (Go ``text/tabwriter``, see :mod:`kubectl_instancetype.golang.tabwriter`) and AGE.

cli-runtime's printer builds ``tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)``: each cell but the last of a
row is padded to ``max(6, widest cell + 3)``, and the last cell is written as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


def render_table(headers: Sequence[str] | None, rows: Iterable[Sequence[str]]) -> str:
    """Lay out ``rows`` (and ``headers`` unless None) as kubectl does; returns text with a final newline. While a
    command runs for one context of several (:mod:`.fleet`), the table goes to that context's capture instead."""
    from .capture import capture

    if (target := capture()) is not None:
        target.table(headers, list(rows))
        return ""
    from ..golang.tabwriter import render_table as tabwriter_table
    from .terminal import escape

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
    from ..golang.tabwriter import MIN_WIDTH, PADDING
    from .terminal import escape

    columns = len(headers) if headers is not None else None
    widths: list[int] = [len(cell) for cell in headers] if headers is not None else []
    uniform = True
    for first, rows in groups:
        for row in rows:
            if columns is None:
                columns, widths = len(row) + 1, [0] * (len(row) + 1)
            if len(row) + 1 != columns:
                uniform = False
                break
            for index, cell in enumerate((first, *row)):
                size = len(escape(cell))
                if size > widths[index]:
                    widths[index] = size
        if not uniform:
            break
    if columns is None:  # no rows
        if headers is not None:
            write(render_table(headers, []))
        return
    if not uniform or not columns:
        write(render_table(headers, [[first, *row] for first, rows in groups for row in rows]))
        return
    pads = [max(MIN_WIDTH, width + PADDING) for width in widths[:-1]]
    lines: list[str] = []
    if headers is not None:
        lines.append("".join([cell.ljust(pad) for cell, pad in zip(headers, pads)]) + headers[-1] + "\n")
    for first, rows in groups:
        head = escape(first).ljust(pads[0]) if pads else ""
        for row in rows:
            cells = [escape(cell) for cell in row]
            if pads:
                lines.append(head + "".join([cell.ljust(pad) for cell, pad in zip(cells, pads[1:])]) + cells[-1] + "\n")
            else:
                lines.append(escape(first) + "\n")
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
