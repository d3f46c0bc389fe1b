"""The columns of ``recommend``'s table: the instance type columns that matter for sizing, and REASON.

REASON is not a cell of the object alone (it is the verdict against the preference), so it is appended
by :func:`recommend_row`; the other cells come from :mod:`.columns`.
"""

from __future__ import annotations

from typing import Any

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
