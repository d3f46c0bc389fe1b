"""Selecting instance types and preferences: label selectors, range filters, deprecation, rows.

Exact filters become a label selector the server evaluates (``instancetype.kubevirt.io/cpu=4``); range
filters (``--min-cpu 4``, ``--max-memory 16Gi``) are evaluated here on the spec, quantity-aware, so they
also work on objects without the common-instancetypes labels.
"""

from __future__ import annotations

from ..golang.validation import label_value_errors
from ..records import dataclass

# typing is not imported at run time: no class here needs it, and a list run imports nothing else that does
TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any


LABEL_PREFIX = "instancetype.kubevirt.io/"
DEPRECATED_LABEL = LABEL_PREFIX + "deprecated"
LEGACY_NAME_PREFIXES = ("server.", "highperformance.")

INSTANCETYPES = "instancetypes"
PREFERENCES = "preferences"


class FilterError(ValueError):
    """A filter value that cannot be used (the CLI reports it as a usage error)."""


# Flags that apply to one kind only, and their spelling in messages.
_INSTANCETYPE_ONLY = (
    "klass",
    "size",
    "hugepages",
    "dedicated_cpu",
    "isolate_emulator_thread",
    "numa",
    "realtime",
    "gpus",
)
_PREFERENCE_ONLY = ("os_type", "arch")
_FLAG_NAMES = {
    "klass": "--class",
    "size": "--size",
    "hugepages": "--hugepages",
    "dedicated_cpu": "--dedicated-cpu",
    "isolate_emulator_thread": "--isolate-emulator-thread",
    "numa": "--numa",
    "realtime": "--realtime",
    "gpus": "--gpus",
    "os_type": "--os-type",
    "arch": "--arch",
}


@dataclass(frozen=True)
class Filters:
    """What the user asked to see. ``None`` means "not given".

    A record (:func:`..records.dataclass`), not a ``typing.NamedTuple``: with this module's string annotations,
    NamedTuple compiles each of the 19 field types as a ``ForwardRef`` when the class is made (15M instructions,
    7% of a ``list`` run), and ``dataclasses.dataclass`` generates and compiles its methods (~3 ms).
    """

    cpu: int | None = None
    memory: str | None = None
    klass: str | None = None
    size: str | None = None
    hugepages: str | None = None  # "" = has hugepages of any size
    dedicated_cpu: bool = False
    isolate_emulator_thread: bool = False
    numa: bool = False
    realtime: bool = False
    gpus: bool = False
    vendor: str | None = None
    os_type: str | None = None
    arch: str | None = None
    selector: str | None = None
    min_cpu: int | None = None
    max_cpu: int | None = None
    min_memory: str | None = None
    max_memory: str | None = None
    hide_deprecated: bool = False

    def check_for(self, what: str) -> None:
        """Reject filters that do not apply to ``what`` (instancetypes or preferences)."""
        for name in ("cpu", "min_cpu", "max_cpu"):
            if (getattr(self, name) or 0) < 0:
                raise FilterError(f"--{name.replace('_', '-')} must not be negative")
        for name in ("memory", "min_memory", "max_memory"):
            value = getattr(self, name)
            if value is not None and memory_value(value) < 0:
                raise FilterError(f"--{name.replace('_', '-')} must not be negative")
        for name in ("klass", "size", "vendor", "os_type", "arch", "hugepages"):
            # Values become label selector terms: "x,foo=bar" must not add a term of its own.
            value = getattr(self, name)
            problems = label_value_errors(value) if value else []
            if problems:
                flag = _FLAG_NAMES.get(name, "--" + name.replace("_", "-"))
                raise FilterError(f'invalid value "{value}" for {flag}: {"; ".join(problems)}')
        wrong = _INSTANCETYPE_ONLY if what == PREFERENCES else _PREFERENCE_ONLY
        given = [_FLAG_NAMES[name] for name in wrong if getattr(self, name) not in (None, False)]
        if given:
            other = "instance types" if what == PREFERENCES else "preferences"
            raise FilterError(f"{', '.join(given)} only applies to {other}")
        for low, high, label in (("min_cpu", "max_cpu", "cpu"), ("min_memory", "max_memory", "memory")):
            lo, hi = getattr(self, low), getattr(self, high)
            if lo is not None and hi is not None and _amount(lo, label) > _amount(hi, label):
                raise FilterError(f"--min-{label} {lo} is greater than --max-{label} {hi}")


def _amount(value: int | str, what: str) -> int | Fraction:
    return int(value) if what == "cpu" else memory_value(str(value))


def memory_value(text: str) -> Fraction:
    """Parse a memory filter value, reporting a usable message."""
    # quantity (and fractions) are imported only when memory is compared: start-up time matters.
    from ..golang.quantity import QuantityError, parse_quantity

    try:
        return parse_quantity(text)
    except QuantityError as exc:
        shown = text if len(text) <= 64 else text[:61] + "..."
        raise FilterError(f"invalid memory quantity {shown!r}: {exc}") from exc


def label_selector(filters: Filters, what: str) -> str:
    """The ``labelSelector`` the server evaluates for the exact filters (empty when there are none).

    For preferences, ``--cpu``/``--memory`` match the ``required-cpu``/``required-memory`` labels.
    Memory values are written the way common-instancetypes writes them (``16384Mi`` is sent as ``16Gi``),
    because label selectors compare strings.
    """
    terms: list[str] = []
    cpu_key, memory_key = ("cpu", "memory") if what == INSTANCETYPES else ("required-cpu", "required-memory")
    if filters.cpu is not None:
        terms.append(f"{LABEL_PREFIX}{cpu_key}={filters.cpu}")
    if filters.memory is not None:
        terms.append(f"{LABEL_PREFIX}{memory_key}={format_bytes(memory_value(filters.memory))}")
    if filters.klass:
        terms.append(f"{LABEL_PREFIX}class={filters.klass}")
    if filters.size:
        terms.append(f"{LABEL_PREFIX}size={filters.size}")
    if filters.hugepages is not None:
        terms.append(f"{LABEL_PREFIX}hugepages" + (f"={filters.hugepages}" if filters.hugepages else ""))
    for enabled, key in (
        (filters.dedicated_cpu, "dedicatedCPUPlacement"),
        (filters.isolate_emulator_thread, "isolateEmulatorThread"),
        (filters.numa, "numa"),
        (filters.realtime, "realtime"),
        (filters.gpus, "gpus"),
    ):
        if enabled:
            terms.append(f"{LABEL_PREFIX}{key}=true")
    if filters.vendor:
        terms.append(f"{LABEL_PREFIX}vendor={filters.vendor}")
    if filters.os_type:
        terms.append(f"{LABEL_PREFIX}os-type={filters.os_type}")
    if filters.arch:
        terms.append(f"{LABEL_PREFIX}arch={filters.arch}")
    if filters.hide_deprecated:
        terms.append(f"{DEPRECATED_LABEL}!=true")
    if filters.selector:
        terms.append(filters.selector)
    return ",".join(terms)


def is_deprecated(obj: dict[str, Any]) -> bool:
    """Deprecated: labelled so, or one of the legacy ``server.*``/``highperformance.*`` types."""
    metadata = obj.get("metadata") or {}
    if (metadata.get("labels") or {}).get(DEPRECATED_LABEL) == "true":
        return True
    return str(metadata.get("name", "")).startswith(LEGACY_NAME_PREFIXES)


def cpu_of(obj: dict[str, Any], what: str) -> int | None:
    """vCPUs of an instance type, or the vCPUs a preference requires."""
    spec = obj.get("spec") or {}
    source = spec if what == INSTANCETYPES else spec.get("requirements") or {}
    value = (source.get("cpu") or {}).get("guest")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None  # absent, or not a count: an odd object never stops a listing
    try:
        return int(value)
    except ValueError:
        return None


def memory_of(obj: dict[str, Any], what: str) -> Fraction | None:
    """Guest memory of an instance type, or the memory a preference requires, in bytes."""
    return _bytes(_memory_text(obj, what))


def _memory_text(obj: dict[str, Any], what: str) -> str | None:
    spec = obj.get("spec") or {}
    source = spec if what == INSTANCETYPES else spec.get("requirements") or {}
    value = (source.get("memory") or {}).get("guest")
    return None if value is None else str(value)


def _bytes(text: str | None) -> Fraction | None:
    """``text`` as a quantity, or None when absent or unreadable."""
    if text is None:
        return None
    from ..golang.quantity import QuantityError, parse_quantity

    try:
        return parse_quantity(text)
    except QuantityError:
        return None


@dataclass
class RangeFilter:
    """The client-side part of :class:`Filters`, compiled once."""

    what: str
    min_cpu: int | None = None
    max_cpu: int | None = None
    min_memory: Fraction | None = None
    max_memory: Fraction | None = None
    hide_deprecated: bool = False

    @classmethod
    def from_filters(cls, filters: Filters, what: str) -> RangeFilter:
        """Compile the range filters of ``filters``."""
        return cls(
            what=what,
            min_cpu=filters.min_cpu,
            max_cpu=filters.max_cpu,
            min_memory=memory_value(filters.min_memory) if filters.min_memory else None,
            max_memory=memory_value(filters.max_memory) if filters.max_memory else None,
            hide_deprecated=filters.hide_deprecated,
        )

    @property
    def active(self) -> bool:
        """True when any object could be filtered out here."""
        return any(v is not None for v in (self.min_cpu, self.max_cpu, self.min_memory, self.max_memory)) or (
            self.hide_deprecated
        )

    def matches(self, obj: dict[str, Any]) -> bool:
        """True when ``obj`` is within every range (a missing value counts as 0 for preferences)."""
        if self.hide_deprecated and is_deprecated(obj):
            return False
        for low, high, value_of in (
            (self.min_cpu, self.max_cpu, cpu_of),
            (self.min_memory, self.max_memory, memory_of),
        ):
            if low is None and high is None:
                continue
            value = value_of(obj, self.what)
            if value is None:
                # an instance type without the value is no match; a preference without a requirement requires 0
                if self.what == INSTANCETYPES:
                    return False
                value = 0
            if (low is not None and value < low) or (high is not None and value > high):
                return False
        return True


SORT_KEYS = ("name", "cpu", "memory")


def label(obj: dict[str, Any], key: str) -> str | None:
    """The value of the ``instancetype.kubevirt.io/<key>`` label of ``obj``, or None."""
    value = ((obj.get("metadata") or {}).get("labels") or {}).get(LABEL_PREFIX + key)
    return None if value is None else str(value)


_NOTHING: Any = object()  # what a --sort-by path found in an object that has no such field


class SortKey:
    """What sorting needs of a listed object, kept instead of the object (large lists keep only cells): one per
    object, so a plain class with slots (no NamedTuple: see :class:`Filters`)."""

    __slots__ = ("cpu", "memory_text", "name", "namespace", "path_value")

    def __init__(self, name: str, namespace: str, cpu: int, memory_text: str | None, path_value: Any = _NOTHING):
        self.name, self.namespace, self.cpu, self.memory_text, self.path_value = (
            name,
            namespace,
            cpu,
            memory_text,
            path_value,
        )

    def __repr__(self) -> str:
        return f"SortKey({self.name!r}, {self.namespace!r}, {self.cpu!r}, {self.memory_text!r})"

    @classmethod
    def of(cls, obj: dict[str, Any], namespace: str | None, what: str, path: PathSort | None = None) -> SortKey:
        """The sort key of ``obj`` listed in ``namespace`` (None: cluster-scoped); ``path``: --sort-by's
        JSONPath, whose value is kept too."""
        return cls(
            str((obj.get("metadata") or {}).get("name", "")),
            namespace or "",
            cpu_of(obj, what) or 0,
            _memory_text(obj, what),
            path.value_of(obj) if path is not None else _NOTHING,
        )


class PathSort:
    """``--sort-by`` with kubectl's JSONPath (``.spec.cpu.guest``, ``{.metadata.labels.size}``): each object's
    first value found by the path, compared as kubectl's RuntimeSort compares them (kubectl/pkg/cmd/get)."""

    def __init__(self, expression: str):
        from ..golang.jsonpath import JSONPath, JSONPathError, relaxed_expression

        try:
            self.field = relaxed_expression(expression)
            self._template = JSONPath(self.field, allow_missing_keys=True)
        except JSONPathError as exc:
            raise FilterError(str(exc)) from None

    def value_of(self, obj: dict[str, Any]) -> Any:
        """What the path finds first in ``obj`` (:data:`_NOTHING` when nothing); the path parsed once, run on a
        fresh state (range state is per run)."""
        results = self._template.fresh().find_results(obj)
        return results[0][0] if results and results[0] else _NOTHING

    def order(self, values: list[Any], *, table: bool = False) -> list[int]:
        """Indexes of ``values`` sorted as kubectl sorts them, with its words when it cannot.

        kubectl/pkg/cmd/get/sorter.go: SortObjects (objects printed as themselves) or NewTableSorter (a table): no
        check on an empty list; an error when no object has the field; then Go's sort.Sort with RuntimeSort's
        Less, where an object without the field is less than any other (so such objects come first, in the order
        Go's unstable sort leaves them) and a pair isLess cannot compare ends the command (klog.Exitf)."""
        from ..golang.gosort import sort_order as go_sort_order
        from ..golang.strconv import go_quote

        if not values:
            return []
        if all(value is _NOTHING for value in values):
            raise FilterError(f"couldn't find any field with path {go_quote(self.field)} in the list of objects")

        def less(i: int, j: int) -> bool:
            left, right = values[i], values[j]
            if left is _NOTHING:
                return True
            if right is _NOTHING:
                return False
            try:
                return _less(left, right)
            except _Unsortable as exc:
                where = "[][][]reflect.Value" if table else "*unstructured.Unstructured"
                raise FilterError(
                    f"Field {self.field} in {where} is an unsortable type: interface, err: {exc}"
                ) from None

        return go_sort_order(len(values), less)


class _Unsortable(Exception):
    pass


_UNSORTABLE_TYPES = {bool: "bool", dict: "map[string]interface {}", list: "[]interface {}"}


def _less(left: Any, right: Any) -> bool:
    """kubectl's isLess on two found values (each an interface {} of a decoded object): nil first, then int64 with
    int64, float64 with float64, and strings (by quantity when both parse as one: 2Gi < 16Gi); any other pair is
    unsortable, with isLess's words."""
    if left is None or right is None:
        return left is None and right is not None
    kind = type(left)
    if kind in _UNSORTABLE_TYPES:
        raise _Unsortable(f"unsortable type: {_UNSORTABLE_TYPES[kind]}")
    if type(right) is not kind:
        raise _Unsortable("unsortable interface: interface")
    if kind is str:
        from ..golang.quantity import QuantityError, parse_quantity

        try:
            return parse_quantity(left) < parse_quantity(right)
        except QuantityError:
            return bool(left < right)
    return bool(left < right)


class SortBy:
    """``--sort-by`` parsed once: one of :data:`SORT_KEYS` (``text``), or kubectl's JSONPath (``path``, a
    :class:`PathSort`); :class:`FilterError` for a path that does not parse. It travels in the query; each
    object's key is read with :meth:`key` without parsing again."""

    __slots__ = ("path", "text")

    def __init__(self, text: str):
        self.text = text
        self.path = None if text in SORT_KEYS else PathSort(text)

    def key(self, obj: dict[str, Any], namespace: str | None, what: str) -> SortKey:
        """What sorting needs of ``obj``."""
        return SortKey.of(obj, namespace, what, self.path)

    def __repr__(self) -> str:
        return f"SortBy({self.text!r})"


def sort_order(keys: list[SortKey], by: SortBy | None, *, table: bool = False) -> list[int]:
    """The indexes of ``keys`` in the order ``--sort-by`` asks for (server order when ``by`` is None)."""
    indexes = list(range(len(keys)))
    if by is None:
        return indexes
    if by.path is not None:
        return by.path.order([key.path_value for key in keys], table=table)
    if by.text == "name":
        return sorted(indexes, key=lambda i: (keys[i].name, keys[i].namespace))
    if by.text == "cpu":
        return sorted(indexes, key=lambda i: (keys[i].cpu, keys[i].name, keys[i].namespace))
    if by.text == "memory":
        memory = [_bytes(key.memory_text) or 0 for key in keys]
        return sorted(indexes, key=lambda i: (memory[i], keys[i].name, keys[i].namespace))
    return indexes


def created_at(stamp: str) -> float | None:
    """A ``metadata.creationTimestamp`` (RFC 3339, UTC as the API server writes it) as a POSIX time.

    Parsed by hand: ``datetime`` costs start-up time.
    """
    if len(stamp) != 20 or stamp[4] != "-" or stamp[10] != "T" or stamp[19] != "Z":
        return None
    try:
        year, month, day = int(stamp[0:4]), int(stamp[5:7]), int(stamp[8:10])
        hour, minute, second = int(stamp[11:13]), int(stamp[14:16]), int(stamp[17:19])
    except ValueError:
        return None
    # days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil)
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    days = era * 146097 + day_of_era - 719468
    return float(days * 86400 + hour * 3600 + minute * 60 + second)


_BINARY_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def format_bytes(value: Fraction | int) -> str:
    """Render a byte count in the largest binary unit that divides it exactly (``16Gi``, ``1536Mi``).

    This is how common-instancetypes writes memory in its labels (not Go's canonical form, which prefers
    ``1536Mi`` too but prints ``1000`` for 1000); values that are not a whole number of KiB fall back to a
    plain integer, fractional values to a decimal.
    """
    from fractions import Fraction  # here: fractions imports decimal, and a list without memory ranges needs neither

    value = Fraction(value)
    if abs(value) > 2**63 - 1:
        # not a size anyone has; printed without going through a 100000-digit integer
        from ..golang.quantity import DECIMAL_EXPONENT, format_quantity

        return format_quantity(value, DECIMAL_EXPONENT)
    if value.denominator != 1:
        return str(float(value))
    whole = int(value)
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _BINARY_UNITS[suffix]
        if whole and whole % unit == 0:
            return f"{whole // unit}{suffix}"
    return str(whole)
