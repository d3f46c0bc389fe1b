"""Go's ``text/tabwriter`` as kubectl's table printer uses it (``NewWriter(out, 6, 4, 3, ' ', 0)``).

kubectl writes each row as its cells joined by ``\\t`` and ended by ``\\n``. The writer lines up a column
over each run of consecutive lines that have a tab-terminated cell in it: every such cell is padded with
spaces to ``max(minwidth, widest cell + padding)``, widths counted in runes; a line's last cell is not
part of a column and is written as it is. A line with a single cell (no tab) ends the runs above it, as
``\\f`` does. Only ``flags == 0`` with a space pad character is reproduced (what kubectl uses); Go's escape
byte 0xff never occurs in a Python string.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

MIN_WIDTH = 6
PADDING = 3
_SEPARATORS = "\t\v\n\f"  # the cell and line separators a tabwriter reads


def _write_lines(lines: list[list[str]], widths: list[int], line0: int, line1: int, total: int, out: list[str]) -> None:
    for index in range(line0, line1):
        for column, cell in enumerate(lines[index]):
            out.append(cell)
            if column < len(widths):
                out.append(" " * (widths[column] - len(cell)))
        if index + 1 != total:
            out.append("\n")


def _format(
    lines: list[list[str]],
    widths: list[int],
    line0: int,
    line1: int,
    total: int,
    out: list[str],
    minwidth: int,
    padding: int,
) -> None:
    """Go's ``Writer.format``: find the blocks of the next column, recursively, and write the lines."""
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        _write_lines(lines, widths, line0, this, total, out)
        line0 = this
        width = minwidth
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        widths.append(width)
        _format(lines, widths, line0, this, total, out, minwidth, padding)
        widths.pop()
        line0 = this
        this += 1
    _write_lines(lines, widths, line0, line1, total, out)


def tabwriter(text: str, *, minwidth: int = MIN_WIDTH, padding: int = PADDING) -> str:
    """``text`` written through a Go tabwriter (pad character ``' '``, no flags) and flushed."""
    out: list[str] = []
    lines: list[list[str]] = [[]]
    cell = ""

    def flush() -> None:
        _format(lines, [], 0, len(lines), len(lines), out, minwidth, padding)
        lines[:] = [[]]

    import re  # here: kubectl's tables take render_table's column-wise path

    parts = re.split(f"([{_SEPARATORS}])", text)
    for index in range(0, len(parts) - 1, 2):
        lines[-1].append(cell + parts[index])
        cell = ""
        separator = parts[index + 1]
        if separator in "\n\f":
            cells = len(lines[-1])
            lines.append([])
            if separator == "\f" or cells == 1:
                flush()
    cell = parts[-1]
    if cell:
        lines[-1].append(cell)
    flush()
    return "".join(out)


def render_table(rows: Iterable[Sequence[str]], *, minwidth: int = MIN_WIDTH, padding: int = PADDING) -> str:
    """The text kubectl prints for ``rows`` (cells joined by tabs, each row ended by a newline).

    Rows of equal length whose cells hold no tab, newline, vertical tab or form feed (every kubectl table)
    take a column-wise path with the same result; anything else goes through :func:`tabwriter`.
    """
    lines = rows if isinstance(rows, list) else list(rows)
    if not lines:
        return ""
    columns = len(lines[0])
    if columns and all(len(line) == columns for line in lines):
        text_columns = list(zip(*lines))
        cells = "".join(["".join(column) for column in text_columns])
        if not any(separator in cells for separator in _SEPARATORS):
            # widths of every column but the last (which is written as it is), computed column-wise
            widths = [max(minwidth, max(map(len, column)) + padding) for column in text_columns[:-1]]
            return "".join(
                "".join([cell.ljust(width) for cell, width in zip(line, widths)]) + line[-1] + "\n" for line in lines
            )
    return tabwriter("".join("\t".join(line) + "\n" for line in lines), minwidth=minwidth, padding=padding)
