"""Flag values of the ``create`` commands, parsed the way KubeVirt's ``virtctl create`` parses them.

Two layers live here, both pure:

* compound parameters (``--volume-pvc name:root,src:my-pvc,bootorder:1``): ``key:value`` pairs separated by
  ``,``, each split on its first ``:``, typed per key, unknown keys rejected; ``prefix/name`` splitting;
  the ``failed to parse "--<flag>" flag: ...`` wrapping (virtctl's ``pkg/virtctl/create/params``);
* plain flag values (booleans, integers, string slices) with pflag's exact ``invalid argument`` errors, and
  :class:`FlagSpec`, the description of one flag that the CLI declares and the builders read.

Every message is virtctl's (or Go's ``strconv`` / ``encoding/csv``'s, which pflag passes through) because
users compare them with what virtctl prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Self

from ..errors import UsageError

# The Go helpers are re-exported: the create builders and their tests read them from here.
from ..golang.encoding_csv import CSVError as CSVError
from ..golang.encoding_csv import go_read_csv_record as go_read_csv_record
from ..golang.quantity import QuantityError, canonical_quantity
from ..golang.strconv import GoNumError as GoNumError
from ..golang.strconv import go_parse_bool as go_parse_bool
from ..golang.strconv import go_parse_int as go_parse_int
from ..golang.strconv import go_parse_uint as go_parse_uint
from ..golang.strconv import go_quote as go_quote
from ..records import dataclass

# apimachinery's rand.String alphabet: no vowels (no accidental words), no 0/1/3 (no look-alikes).
RANDOM_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

PARAM_STRING = "string"
PARAM_UINT = "uint"
PARAM_QUANTITY = "resource.Quantity"
PARAM_LIST = "[]string"

_UINT32_MAX = 2**32 - 1


def random_string(length: int) -> str:
    """``length`` characters from :data:`RANDOM_ALPHABET`, as apimachinery's ``rand.String`` makes them."""
    import secrets  # only commands that generate a name pay for it

    return "".join(secrets.choice(RANDOM_ALPHABET) for _ in range(length))


class ParamError(ValueError):
    """A compound value that cannot be parsed; ``str()`` is virtctl's inner message (not yet flag-wrapped)."""


class ParamNotFound(ParamError):
    """A parameter that was looked up by name is absent (``<name> must be specified``)."""

    def __init__(self, name: str):
        super().__init__(f"{name} must be specified")
        self.name = name


def flag_error(flag: str, message: str) -> UsageError:
    """virtctl's ``FlagErr``: ``failed to parse "--<flag>" flag: <message>``."""
    return UsageError(f'failed to parse "--{flag}" flag: {message}')


@dataclass(frozen=True)
class Param:
    """One key a compound flag accepts, and how its value is typed."""

    key: str
    kind: str = PARAM_STRING


def supported(params: Sequence[Param]) -> str:
    """The ``key:type,...`` list virtctl prints in help texts (``name:string,src:string,bootorder:uint``)."""
    return ",".join(f"{param.key}:{param.kind}" for param in params)


def split_params(text: str) -> dict[str, str]:
    """Split ``key:value,key:value``; a later duplicate key wins, as in virtctl's map."""
    if text == "":
        raise ParamError("params may not be empty")
    pairs: dict[str, str] = {}
    for pair in text.split(","):
        key, colon, value = pair.partition(":")
        if not colon:
            raise ParamError(f"params need to have at least one colon: {pair}")
        pairs[key] = value
    return pairs


def get_param(name: str, text: str) -> str:
    """The raw value of parameter ``name`` in ``text``; :class:`ParamNotFound` when it is absent."""
    pairs = split_params(text)
    if name not in pairs:
        raise ParamNotFound(name)
    return pairs[name]


def parse_params(flag: str, text: str, params: Sequence[Param]) -> dict[str, object]:
    """Parse one compound flag value against ``params`` (virtctl's ``params.Map``).

    Returns the typed values of the keys that were given: ``str`` for strings, ``int`` for ``uint``,
    the canonical quantity string for quantities, ``list[str]`` for ``;``-separated lists. Typed keys
    are checked in declaration order, then leftover keys are reported, all as :class:`UsageError`.
    """
    try:
        pairs = split_params(text)
    except ParamError as exc:
        raise flag_error(flag, str(exc)) from None
    values: dict[str, object] = {}
    for param in params:
        if param.key not in pairs:
            continue
        raw = pairs.pop(param.key)
        if param.kind == PARAM_UINT:
            try:
                values[param.key] = go_parse_uint(raw, base=10, bits=32)
            except GoNumError as exc:
                raise flag_error(flag, f'failed to parse param "{param.key}": {exc}') from None
        elif param.kind == PARAM_QUANTITY:
            try:
                values[param.key] = canonical_quantity(raw)
            except QuantityError as exc:
                raise flag_error(flag, f'failed to parse param "{param.key}": {exc}') from None
        elif param.kind == PARAM_LIST:
            values[param.key] = raw.split(";")
        else:
            values[param.key] = raw
    if pairs:
        # virtctl reports them in Go map order (random); ours is the order they were written in.
        unknown = ",".join(f"{key}:{value}" for key, value in pairs.items())
        raise flag_error(flag, f"unknown param(s): {unknown}")
    return values


def split_prefixed_name(text: str) -> tuple[str, str]:
    """Split ``[prefix/]name`` into (prefix, name); ``prefix`` is empty when there is no slash."""
    parts = text.split("/")
    if len(parts) == 1:
        prefix, name = "", parts[0]
    elif len(parts) == 2:
        prefix, name = parts
    else:
        raise ParamError(f"invalid count {len(parts) - 1} of slashes in prefix/name")
    if name == "":
        raise ParamError("name cannot be empty")
    return prefix, name


# --- flag declarations ---

FLAG_STRING = "string"
FLAG_BOOL = "bool"
FLAG_INT64 = "int64"
FLAG_UINT32 = "uint32"
FLAG_STRING_ARRAY = "stringArray"
FLAG_STRING_SLICE = "stringSlice"

# pflag's type word in "--flag <type>" help lines (bool flags show none).
_VALUE_NAMES = {
    FLAG_STRING: "string",
    FLAG_BOOL: "",
    FLAG_INT64: "int",
    FLAG_UINT32: "uint32",
    FLAG_STRING_ARRAY: "stringArray",
    FLAG_STRING_SLICE: "strings",
}


@dataclass(frozen=True)
class FlagSpec:
    """One flag of a ``create`` command: what the CLI declares and how one occurrence is parsed.

    ``kind`` is the pflag type (see the ``FLAG_*`` constants). ``stringArray`` flags are repeatable and keep
    each occurrence whole; ``stringSlice`` flags are repeatable and also split each occurrence on commas
    (CSV rules). ``default`` is the Python value used when the flag is absent. ``deprecated`` is set on
    deprecated aliases (virtctl keeps them visible in help and prints its own warning when they are used).
    """

    name: str
    kind: str
    default: object
    help: str
    deprecated: bool = False
    required: bool = False

    @property
    def field(self) -> str:
        """The options-dataclass attribute holding this flag's value (``volume-pvc`` -> ``volume_pvc``)."""
        return self.name.replace("-", "_")

    @property
    def repeatable(self) -> bool:
        """True for flags that may be given several times (their values accumulate in order)."""
        return self.kind in (FLAG_STRING_ARRAY, FLAG_STRING_SLICE)

    @property
    def takes_value(self) -> bool:
        """False for boolean flags, which pflag also accepts bare (``--namespaced``) or as ``--flag=false``."""
        return self.kind != FLAG_BOOL

    @property
    def value_name(self) -> str:
        """pflag's type word for help output (``string``, ``int``, ``stringArray``, ``strings``; empty for bool)."""
        return _VALUE_NAMES[self.kind]

    @property
    def default_text(self) -> str:
        """pflag's ``(default ...)`` help suffix, or ``""`` when pflag shows none (false, empty, zero)."""
        if self.kind == FLAG_BOOL:
            return "(default true)" if self.default else ""
        if self.kind == FLAG_STRING:
            return f"(default {go_quote(self.default)})" if self.default else ""  # type: ignore[arg-type]
        if self.kind in (FLAG_STRING_ARRAY, FLAG_STRING_SLICE):
            return f"(default [{','.join(self.default)}])" if self.default else ""  # type: ignore[arg-type]
        return f"(default {self.default})" if self.default else ""

    def parse(self, raw: str) -> object:
        """Convert one command-line occurrence, raising pflag's ``invalid argument`` error as :class:`UsageError`.

        Returns ``str``/``bool``/``int`` for scalar kinds and ``list[str]`` for repeatable kinds (one item for a
        ``stringArray`` occurrence, the CSV fields for a ``stringSlice`` occurrence); see :func:`accumulate`.
        """
        try:
            if self.kind == FLAG_BOOL:
                return go_parse_bool(raw)
            if self.kind == FLAG_INT64:
                return go_parse_int(raw, base=0, bits=64)
            if self.kind == FLAG_UINT32:
                return go_parse_uint(raw, base=0, bits=32)
            if self.kind == FLAG_STRING_SLICE:
                return go_read_csv_record(raw)
        except (GoNumError, CSVError) as exc:
            raise UsageError(f"invalid argument {go_quote(raw)} for {go_quote('--' + self.name)} flag: {exc}") from None
        if self.kind == FLAG_STRING_ARRAY:
            return [raw]
        return raw


def accumulate(spec: FlagSpec, occurrences: Iterable[str]) -> object:
    """The value of flag ``spec`` after all its command-line occurrences (the last one wins for scalars)."""
    value: object = spec.default
    collected: list[str] = []
    for raw in occurrences:
        parsed = spec.parse(raw)
        if spec.repeatable:
            collected.extend(parsed)  # type: ignore[arg-type]
            value = tuple(collected)
        else:
            value = parsed
    return value


class FlagOptions:
    """Base of the options dataclasses of the ``create`` commands: building them from parsed flags.

    Subclasses are frozen dataclasses whose fields are named after their flags (see :attr:`FlagSpec.field`)
    plus ``namespace`` and ``changed``, and set :attr:`flag_specs`.
    """

    flag_specs: ClassVar[Mapping[str, FlagSpec]] = {}

    @classmethod
    def from_flags(cls, values: Mapping[str, object], *, namespace: str | None = None) -> Self:
        """Options from the flags that were given, keyed by flag name (``{"volume-pvc": ["src:a"]}``).

        Every key counts as changed; repeatable values may be any iterable of strings and are stored as tuples.
        """
        kwargs: dict[str, object] = {}
        for name, value in values.items():
            spec = cls.flag_specs.get(name)
            if spec is None:
                raise ValueError(f"unknown flag {name!r} for {cls.__name__}")
            kwargs[spec.field] = tuple(value) if spec.repeatable else value  # type: ignore[arg-type]
        return cls(**kwargs, namespace=namespace, changed=frozenset(values))  # type: ignore[call-arg]

    @classmethod
    def from_parsed(cls, fields: Mapping[str, object], changed: Iterable[str], *, namespace: str | None = None) -> Self:
        """Options from values already parsed and keyed by field name (``cli.flagtable.parse_table`` makes them
        from the table's flags in one pass): no key is converted again; ``changed`` holds the flag names."""
        return cls(**fields, namespace=namespace, changed=frozenset(changed))  # type: ignore[call-arg]
