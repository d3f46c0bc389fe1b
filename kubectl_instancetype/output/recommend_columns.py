"""The columns of ``recommend``'s table: the instance type columns that matter for sizing, and REASON.

REASON is not a cell of the object alone (it is the verdict against the preference), so it is appended
by :func:`recommend_row`; the other cells come from :mod:`.columns`.
"""

from __future__ import annotations

from typing import Any

from ..env import Environment
from .columns import INSTANCETYPE_COLUMNS, CellContext, Column, cells

_SHOWN = ("NAME", "KIND", "CPU", "MEMORY", "CLASS")
_WIDE = ("SIZE", "HUGEPAGES", "DEDICATED-CPU", "OVERCOMMIT")
REASON = "REASON"


def recommend_columns(*, wide: bool, all_namespaces: bool = False) -> list[Column]:
    """NAME, KIND, CPU, MEMORY, CLASS; ``-o wide`` adds SIZE, HUGEPAGES, DEDICATED-CPU and OVERCOMMIT; ``-A``
    puts NAMESPACE first, as kubectl does."""
    from .columns import NAMESPACE_COLUMN

    by_header = {column.header: column for column in INSTANCETYPE_COLUMNS}
    shown = [by_header[header] for header in _SHOWN + (_WIDE if wide else ())]
    return [NAMESPACE_COLUMN, *shown] if all_namespaces else shown


def recommend_headers(columns: list[Column], *, reason: bool) -> list[str]:
    """The header row, with REASON last when it is shown."""
    return [column.header for column in columns] + ([REASON] if reason else [])


def recommend_row(
    columns: list[Column], obj: dict[str, Any], namespace: str | None, context: CellContext, reason: str | None
) -> list[str]:
    """One row: the object's cells, then the reason when it is shown (None: no REASON column)."""
    row = cells(columns, obj, namespace, context)
    return row + [reason] if reason is not None else row


def print_recommendations(
    env: Environment,
    result: Any,
    preference: str | None,
    *,
    output: str,
    no_headers: bool,
    show_rejected: bool,
    namespace_column: bool = False,
) -> None:
    """``recommend``'s result (a ``usecases.ranking`` result): the fitting types best first as a table (REASON
    with -o wide or --show-rejected, the near misses after them with --show-rejected), or as objects."""
    from . import messages

    for warning in result.warnings:
        messages.warn(env, warning)
    from .printers import prints_objects

    if prints_objects(output):
        from .printers import print_objects

        objects = [candidate.obj for candidate in result.fitting]
        print_objects(env, output, objects)
        if not objects:
            messages.info(env, "No instance type fits " + _wanted(preference))
        return
    from .table import render_table

    with_reason = output == "wide" or show_rejected
    columns = recommend_columns(wide=output == "wide", all_namespaces=namespace_column)
    context = CellContext(env.clock())
    from ..instancetype.recommend import rank_reason

    rows = []
    previous = None
    for c in result.fitting:
        reason = None
        if with_reason:
            why = rank_reason(c.obj.get("spec") or {}, c.key, previous)
            reason = f"{c.verdict.reason}; {why}" if c.verdict.reason else why
        rows.append(recommend_row(columns, c.obj, c.namespace, context, reason))
        previous = c.key
    if show_rejected:
        rows += [
            recommend_row(columns, c.obj, c.namespace, context, "rejected: " + c.verdict.reason)
            for c in result.near_misses
        ]
    if not result.fitting:
        messages.info(env, f"No instance type fits {_wanted(preference)} ({result.considered} considered)")
    if rows:
        env.stdout.write(render_table(None if no_headers else recommend_headers(columns, reason=with_reason), rows))


def _wanted(preference: str | None) -> str:
    return f'preference "{preference}"' if preference is not None else "the minimums"
