"""kubectl's table cells laid out (Go ``text/tabwriter``, see :mod:`kubectl_instancetype.golang.tabwriter`) and AGE.

cli-runtime's printer builds ``tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)``: each cell but the last of a
row is padded to ``max(6, widest cell + 3)``, and the last cell is written as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def render_table(headers: Sequence[str] | None, rows: Iterable[Sequence[str]]) -> str:
    """Lay out ``rows`` (and ``headers`` unless None) as kubectl does; returns text with a final newline."""
    from ..golang.tabwriter import render_table as tabwriter_table
    from .terminal import escape

    lines: list[Sequence[str]] = [list(headers)] if headers is not None else []
    # cells come from the cluster: control characters are shown, never sent to the terminal (terminal.py)
    lines.extend([escape(cell) for cell in row] for row in rows)
    return tabwriter_table(lines)


def human_duration(seconds: float) -> str:
    """apimachinery's ``HumanDuration``: ``45s``, ``5m3s``, ``3h``, ``2d4h``, ``400d``, ``3y20d``."""
    seconds = int(seconds)  # truncates toward zero, like Go's int(d.Seconds())
    if seconds < -1:
        return "<invalid>"
    seconds = max(0, seconds)
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 192:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y{rest}d" if rest else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"


def age_since(created: float | None, now: float) -> str:
    """The AGE cell: ``<unknown>`` without a creation time, else :func:`human_duration` of the difference."""
    if created is None:
        return "<unknown>"
    return human_duration(now - created)
