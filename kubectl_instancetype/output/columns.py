"""The column model of the plugin's tables: a header, a cell function, and whether only ``-o wide`` shows it.

``list``, and every command that prints instance types or preferences as a table, picks its columns here
and renders cells from the objects; the domain (:mod:`..instancetype.listing`) knows nothing of ``<none>``,
``(deprecated)`` or ages.
"""

from __future__ import annotations

from ..instancetype import kinds as type_kinds
from ..instancetype.listing import (
    DEPRECATED_LABEL,
    INSTANCETYPES,
    LABEL_PREFIX,
    LEGACY_NAME_PREFIXES,
    created_at,
    label,
)
from ..records import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

NONE = "<none>"
SHARED_VALUES = 256  # a column with more distinct texts in 1,000 rows is not worth sharing (CellContext.share)


class CellContext:
    """What cells need beyond the object: the time "now" for ages (memoised per creation second)."""

    __slots__ = ("_ages", "_rows", "_shared", "now")

    def __init__(self, now: float):
        self.now = now
        self._ages: dict[str, str] = {}
        self._shared: list[dict[str, str]] = []  # per column: its texts seen lately, each kept once
        self._rows = 0

    def share(self, row: list[str]) -> tuple[str, ...]:
        """``row`` as a tuple whose texts are the same objects as the equal cells of earlier rows: a column of few
        values (KIND, CPU, MEMORY, CLASS, NAMESPACE) keeps each once however many rows there are (a 20,000-row
        fleet list: about 3 MB less). A column of many values (NAME) gains nothing; its memory of texts is
        dropped every 1,000 rows, so that it stays small."""
        shared = self._shared
        if len(shared) != len(row):
            shared = self._shared = [{} for _ in row]
        self._rows += 1
        if self._rows % 1000 == 0:
            for known in shared:
                if len(known) > SHARED_VALUES:
                    known.clear()
        return tuple(map(dict.setdefault, shared, row, row))

    def age(self, stamp: str) -> str:
        """The AGE cell for a ``creationTimestamp``; objects created in the same second share one."""
        text = self._ages.get(stamp)
        if text is None:
            from .table import age_since

            text = self._ages[stamp] = age_since(created_at(stamp), self.now)
        return text


@dataclass(frozen=True)
class Column:
    """One table column: ``cell(obj, namespace, context)`` renders the cell of an object listed in
    ``namespace`` (None for a cluster-scoped object). A record, not a NamedTuple (see
    :class:`.listing.TableOptions`)."""

    header: str
    cell: Callable[[dict[str, Any], str | None, CellContext], str]
    wide: bool = False


def show(value: Any) -> str:
    """kubectl's rendering of a cell value: ``<none>`` for nothing, ``true``/``false`` for booleans."""
    if value is None or value == "":
        return NONE
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("spec") or {}


def _requirements(obj: dict[str, Any]) -> dict[str, Any]:
    return _spec(obj).get("requirements") or {}


def _name(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    # instancetype.listing.is_deprecated, on the metadata read once (a cell of every row of a 20,000-row list)
    metadata = obj.get("metadata") or {}
    name = str(metadata.get("name", ""))
    if (metadata.get("labels") or {}).get(DEPRECATED_LABEL) == "true" or name.startswith(LEGACY_NAME_PREFIXES):
        return f"{name} (deprecated)"
    return name


def _kind(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    return "namespaced" if namespace else "cluster"


def _namespace(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    return namespace or ""


# -A: kubectl's first column; cluster-scoped rows leave it empty (kubectl prints them in a table without it)
NAMESPACE_COLUMN = Column("NAMESPACE", _namespace)


def _name_with_kind(what: str) -> Callable[[dict[str, Any], str | None, CellContext], str]:
    def cell(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
        # --show-kind: kubectl's NAME is kind.group/name (printers.go's printRows with WithKind)
        return f"{type_kinds.of(what, bool(namespace)).qualified}/{_name(obj, namespace, context)}"

    return cell


def label_column(key: str) -> Column:
    """``-L KEY``: a column headed by the key's last path segment in upper case, the label's value or empty
    (cli-runtime's formatLabelHeaders and appendLabelCells)."""
    header = key.split("/")[-1].upper()

    def cell(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
        value = ((obj.get("metadata") or {}).get("labels") or {}).get(key)
        return "" if value is None else str(value)

    return Column(header, cell)


def _age(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    return context.age(str((obj.get("metadata") or {}).get("creationTimestamp") or ""))


def _label_cell(key: str) -> Callable[[dict[str, Any], str | None, CellContext], str]:
    full = LABEL_PREFIX + key  # instancetype.listing.label's key, joined once

    def cell(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
        value = ((obj.get("metadata") or {}).get("labels") or {}).get(full)
        return NONE if value is None or value == "" else str(value)  # show(label(obj, key))

    return cell


def _guest(part: str) -> Callable[[dict[str, Any], str | None, CellContext], str]:
    """An instance type's ``spec.<part>.guest`` as :func:`show` renders it (CPU, MEMORY)."""

    def cell(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
        return show(((obj.get("spec") or {}).get(part) or {}).get("guest"))

    return cell


def _firmware(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    firmware = _spec(obj).get("firmware") or {}
    efi = firmware.get("preferredEfi")
    if efi is None and not firmware.get("preferredUseEfi"):
        return NONE
    secure = (efi or {}).get("secureBoot", firmware.get("preferredUseSecureBoot"))
    return "efi+secureboot" if secure else "efi"


def _overcommit(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    percent = (_spec(obj).get("memory") or {}).get("overcommitPercent")
    return f"{percent}%" if percent else NONE


def _numa(obj: dict[str, Any], namespace: str | None, context: CellContext) -> str:
    cpu = _spec(obj).get("cpu") or {}
    return show("numa" in cpu and (cpu.get("numa") or {}).get("guestMappingPassthrough") is not None)


INSTANCETYPE_COLUMNS: tuple[Column, ...] = (
    Column("NAME", _name),
    Column("KIND", _kind),
    Column("CPU", _guest("cpu")),
    Column("MEMORY", _guest("memory")),
    Column("CLASS", _label_cell("class")),
    Column("AGE", _age),
    Column("SIZE", _label_cell("size"), wide=True),
    Column(
        "HUGEPAGES",
        lambda obj, ns, ctx: show(((_spec(obj).get("memory") or {}).get("hugepages") or {}).get("pageSize")),
        wide=True,
    ),
    Column(
        "DEDICATED-CPU",
        lambda obj, ns, ctx: show(bool((_spec(obj).get("cpu") or {}).get("dedicatedCPUPlacement"))),
        wide=True,
    ),
    Column("NUMA", _numa, wide=True),
    Column("OVERCOMMIT", _overcommit, wide=True),
    Column("VERSION", _label_cell("common-instancetypes-version"), wide=True),
)

PREFERENCE_COLUMNS: tuple[Column, ...] = (
    Column("NAME", _name),
    Column("KIND", _kind),
    Column("OS-TYPE", _label_cell("os-type")),
    Column("ARCH", lambda obj, ns, ctx: show(_spec(obj).get("preferredArchitecture") or label(obj, "arch"))),
    Column("REQUIRED-CPU", lambda obj, ns, ctx: show((_requirements(obj).get("cpu") or {}).get("guest"))),
    Column("REQUIRED-MEMORY", lambda obj, ns, ctx: show((_requirements(obj).get("memory") or {}).get("guest"))),
    Column("AGE", _age),
    Column(
        "CPU-TOPOLOGY",
        lambda obj, ns, ctx: show((_spec(obj).get("cpu") or {}).get("preferredCPUTopology")),
        wide=True,
    ),
    Column(
        "DISK-BUS",
        lambda obj, ns, ctx: show((_spec(obj).get("devices") or {}).get("preferredDiskBus")),
        wide=True,
    ),
    Column(
        "INTERFACE-MODEL",
        lambda obj, ns, ctx: show((_spec(obj).get("devices") or {}).get("preferredInterfaceModel")),
        wide=True,
    ),
    Column("FIRMWARE", _firmware, wide=True),
    Column("VERSION", _label_cell("common-instancetypes-version"), wide=True),
)


def labels_cell(obj: dict[str, Any], namespace: str | None = None, context: CellContext | None = None) -> str:
    """``--show-labels``: ``k=v`` sorted by key and comma-joined, or ``<none>``."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels)) or NONE


LABELS_COLUMN = Column("LABELS", labels_cell)


def columns_for(
    what: str,
    *,
    wide: bool = False,
    show_labels: bool = False,
    age: bool = True,
    all_namespaces: bool = False,
    show_kind: bool = False,
    label_columns: Sequence[str] = (),
) -> list[Column]:
    """The columns of a table of ``what`` (instancetypes or preferences); ``age=False`` for objects that were
    never created (the embedded catalog), whose AGE would only read ``<unknown>``. As kubectl lays them out:
    NAMESPACE first with ``-A``, ``-L`` columns after the others, LABELS last."""
    table = INSTANCETYPE_COLUMNS if what == INSTANCETYPES else PREFERENCE_COLUMNS
    chosen = [column for column in table if (wide or not column.wide) and (age or column.header != "AGE")]
    if show_kind:
        chosen = [Column("NAME", _name_with_kind(what)) if c.header == "NAME" else c for c in chosen]
    if all_namespaces:
        chosen.insert(0, NAMESPACE_COLUMN)
    chosen.extend(label_column(key) for key in label_columns)
    return chosen + ([LABELS_COLUMN] if show_labels else [])


def headers(columns: Sequence[Column]) -> list[str]:
    """The header row of ``columns``."""
    return [column.header for column in columns]


def cells(columns: Sequence[Column], obj: dict[str, Any], namespace: str | None, context: CellContext) -> list[str]:
    """The cells of one object's row."""
    return [column.cell(obj, namespace, context) for column in columns]


def kept_cells(
    columns: Sequence[Column], obj: dict[str, Any], namespace: str | None, context: CellContext
) -> tuple[str, ...]:
    """:func:`cells` as a row that is kept until the table is printed (``list``'s, every context's of a fleet): one
    tuple, its texts shared with the equal cells of earlier rows (:meth:`CellContext.share`)."""
    return context.share([column.cell(obj, namespace, context) for column in columns])


def row_maker(
    columns: Sequence[Column], context: CellContext
) -> Callable[[dict[str, Any], str | None], tuple[str, ...]]:
    """The function that makes each kept row of ``columns`` (:func:`kept_cells`). The default instance type table
    (NAME, KIND, CPU, MEMORY, CLASS, AGE, with or without -A's NAMESPACE first: every row of a fleet list) has one
    function that reads the metadata, labels and spec once each and shares the texts of CPU, MEMORY and CLASS as
    :meth:`CellContext.share` does (20,000 rows: 68 -> 30 ms of CPU); the same cells, held to :func:`kept_cells` by
    tests/unit/test_columns.py on generated objects."""
    chosen = list(columns)
    namespace_column = bool(chosen) and chosen[0] is NAMESPACE_COLUMN
    if namespace_column:
        del chosen[0]
    if len(chosen) == len(DEFAULT_INSTANCETYPE_COLUMNS) and all(map(_same, chosen, DEFAULT_INSTANCETYPE_COLUMNS)):
        return _instancetype_row(context, namespace_column)
    return lambda obj, namespace: kept_cells(columns, obj, namespace, context)


def _same(a: object, b: object) -> bool:
    return a is b


DEFAULT_INSTANCETYPE_COLUMNS = INSTANCETYPE_COLUMNS[:6]  # NAME, KIND, CPU, MEMORY, CLASS, AGE: columns_for(IT)


def _instancetype_row(
    context: CellContext, namespace_column: bool
) -> Callable[[dict[str, Any], str | None], tuple[str, ...]]:
    """:func:`row_maker`'s row of the default instance type columns: _name, _kind, _guest("cpu"),
    _guest("memory"), _label_cell("class") and _age in one."""
    ages: dict[str, str] = {}  # as the context's own memo: one text per creation second
    age_of = context.age
    cpus: dict[str, str] = {}
    memories: dict[str, str] = {}
    classes: dict[str, str] = {}
    class_key = LABEL_PREFIX + "class"
    deprecated = DEPRECATED_LABEL
    legacy = LEGACY_NAME_PREFIXES

    def shared(known: dict[str, str], text: str) -> str:
        # each text kept once, as CellContext.share does; a column of many texts forgets them past SHARED_VALUES
        if len(known) >= SHARED_VALUES:
            known.clear()
        known[text] = text
        return text

    def row(obj: dict[str, Any], namespace: str | None) -> tuple[str, ...]:
        metadata = obj.get("metadata") or {}
        name = str(metadata.get("name", ""))
        labels = metadata.get("labels") or {}
        if labels.get(deprecated) == "true" or name.startswith(legacy):
            name = f"{name} (deprecated)"
        spec = obj.get("spec") or {}
        cpu = show((spec.get("cpu") or {}).get("guest"))
        cpu = cpus.get(cpu) or shared(cpus, cpu)
        memory = show((spec.get("memory") or {}).get("guest"))
        memory = memories.get(memory) or shared(memories, memory)
        klass = labels.get(class_key)
        klass = NONE if klass is None or klass == "" else str(klass)
        klass = classes.get(klass) or shared(classes, klass)
        stamp = str(metadata.get("creationTimestamp") or "")
        age = ages.get(stamp) or ages.setdefault(stamp, age_of(stamp))
        if namespace_column:
            return (namespace or "", name, "namespaced" if namespace else "cluster", cpu, memory, klass, age)
        return (name, "namespaced" if namespace else "cluster", cpu, memory, klass, age)

    return row
