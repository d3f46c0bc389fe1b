"""The size matrix: instance type series (rows) by size (columns), each cell ``vCPU/memory``.

Names are read with common-instancetypes' parse rule (split at the first dot: ``<series>.<size>``). The
``*1gi`` sizes of cx1 and m1 (1Gi hugepages instead of 2Mi) get rows of their own (``cx1.*1gi``) so the
columns stay the ten sizes; series are ordered as the catalog's README presents them (u1, o1, cx1, m1,
n1, rt1, d1), other series after them by name; sizes outside the ten come after ``8xlarge`` (smallest
first), and a name without a dot is a row of its own with the size ``-``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..golang.quantity import QuantityError, canonical_quantity, parse_quantity

SERIES_ORDER = ("u1", "o1", "cx1", "m1", "n1", "rt1", "d1")
SIZE_ORDER = ("nano", "micro", "small", "medium", "2xmedium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge")
HUGEPAGES_1GI_SUFFIX = "1gi"
NO_SIZE = "-"
EMPTY = ""


def split_name(name: str) -> tuple[str, str]:
    """(row, column) of an instance type name: ``cx1.large1gi`` -> (``cx1.*1gi``, ``large``)."""
    series, dot, size = name.partition(".")
    if not dot:
        return name, NO_SIZE
    if size.endswith(HUGEPAGES_1GI_SUFFIX) and size[: -len(HUGEPAGES_1GI_SUFFIX)] in SIZE_ORDER:
        return f"{series}.*{HUGEPAGES_1GI_SUFFIX}", size[: -len(HUGEPAGES_1GI_SUFFIX)]
    return series, size


def cell_text(spec: Mapping[str, Any]) -> str:
    """``vCPU/memory`` of an instance type spec (memory as apimachinery prints it)."""
    cpu = (spec.get("cpu") or {}).get("guest", "?")
    memory = (spec.get("memory") or {}).get("guest", "?")
    try:
        memory = canonical_quantity(str(memory))
    except (QuantityError, ValueError):
        memory = str(memory)
    return f"{cpu}/{memory}"


def _resources(spec: Mapping[str, Any]) -> tuple[int, Fraction]:
    try:
        cpu = int((spec.get("cpu") or {}).get("guest") or 0)
    except (TypeError, ValueError):
        cpu = 0
    try:
        memory = parse_quantity(str((spec.get("memory") or {}).get("guest") or "0"))
    except QuantityError:
        memory = Fraction(0)
    return cpu, memory


@dataclass
class Matrix:
    """Header row (``SERIES`` then sizes) and one row per series, cells ``vCPU/memory`` or empty."""

    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)


def _series_key(row: str) -> tuple[int, str, str]:
    base = row.split(".", 1)[0]
    rank = SERIES_ORDER.index(base) if base in SERIES_ORDER else len(SERIES_ORDER)
    return (rank, base if rank == len(SERIES_ORDER) else "", row)


def build_matrix(instancetypes: Iterable[tuple[str, Mapping[str, Any]]]) -> Matrix:
    """The matrix of ``(name, spec)`` pairs. Columns without any type are left out; one name seen with
    different resources (the same name in two scopes) shows every distinct value, comma-separated."""
    cells: dict[tuple[str, str], list[str]] = {}
    extra_sizes: dict[str, tuple[int, Fraction]] = {}
    for name, spec in instancetypes:
        row, column = split_name(name)
        text = cell_text(spec)
        values = cells.setdefault((row, column), [])
        if text not in values:
            values.append(text)
        if column not in SIZE_ORDER:
            extra_sizes[column] = min(extra_sizes.get(column, _resources(spec)), _resources(spec))
    used = {column for _, column in cells}
    columns = [size for size in SIZE_ORDER if size in used]
    columns += sorted(extra_sizes, key=lambda size: (size == NO_SIZE, extra_sizes[size], size))
    rows = sorted({row for row, _ in cells}, key=_series_key)
    matrix = Matrix(["SERIES"] + columns)
    for row in rows:
        matrix.rows.append([row] + [", ".join(cells.get((row, column), [])) or EMPTY for column in columns])
    return matrix
