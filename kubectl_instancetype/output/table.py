"""kubectl's table cells laid out (Go ``text/tabwriter``, see :mod:`kubectl_instancetype.golang.tabwriter`) and AGE.

cli-runtime's printer builds ``tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)``: each cell but the last of a
row is padded to ``max(6, widest cell + 3)``, and the last cell is written as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


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


def age_since(created: float | None, now: float) -> str:
    """The AGE cell: ``<unknown>`` without a creation time, else :func:`human_duration` of the difference."""
    if created is None:
        return "<unknown>"
    from ..golang.duration import human_duration

    return human_duration(now - created)
