"""YAML exactly as ``sigs.k8s.io/yaml`` prints a JSON-shaped object (what ``virtctl create`` and kubectl print).

``sigs.k8s.io/yaml.Marshal`` encodes to JSON, reads that back with go-yaml v2 and emits it with go-yaml v2's
libyaml port. So the output has: map keys in go-yaml's order (alphabetical, digit runs compared as numbers,
non-letters before letters); two-space indentation with sequence items at their key's column; ``{}`` and
``[]`` for empty collections; a line width of 80 for folding plain and quoted scalars; and this choice of
string style:

* a string with a newline is a literal block (``|``, ``|-``, ``|+``), unless the emitter cannot write it as one;
* a string that a YAML 1.1 reader would take for another type (``"true"``, ``"y"``, ``"1"``, ``"1e3"``, ``"0x1f"``,
  ``"null"``, ``"~"``, ``""``, ``"2001-12-14"``, ``"1:20"``) is double-quoted;
* any other string is plain when the emitter allows it (else single-quoted, e.g. ``'a: b'``, ``'- x'``, ``'*x'``).

PyYAML's emitter is the same libyaml algorithm, so this module only decides the styles and the key order
and lets PyYAML's safe dumper (the C one when available) write the text. PyYAML is imported on first use.
Known differences, none of which occur in the manifests this project prints: strings holding a Unicode
line separator (U+0085, U+2028, U+2029) or a byte-order mark are quoted differently (go-yaml's own output
for them is odd: ``"\\uFEFF\\x62..."``).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from typing import Any, ClassVar

from .strconv import go_parse_int_or_uint

_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"

# ---- go-yaml v2's resolve.go: how a plain scalar is read -------------------------------------------------------
# The one port, for both directions: yamltojson reads -f with it, and the printer quotes a string that would read
# back as another type (go-yaml's encoder asks resolve too: encode.go stringv).

# resolveMapList: the words that read as bool, null or float ("<<" is never looked up there)
RESOLVE_MAP: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
# resolveTable: the first characters worth a closer look (others are always strings)
_HINTED = frozenset("yYnNtTfFoO~+-.0123456789")
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")  # yamlStyleFloat
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_TIMESTAMP = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{1,2})-(?P<d>[0-9]{1,2})"
    r"(?:(?P<sep>[Tt ])(?P<h>[0-9]{1,2}):(?P<mi>[0-9]{1,2}):(?P<s>[0-9]{1,2})(?:\.[0-9]+)?(?P<tz>Z|[+-][0-9]{2}:[0-9]{2})?)?"
)


def resolve(text: str) -> Any:
    """go-yaml v2's ``resolve("", text)`` (resolve.go) for an untagged plain scalar: bool, None, int, float, or
    ``text`` itself when it stays a string. A timestamp is returned as its text too: go-yaml decodes one into an
    ``interface{}`` as the string it was written as (decode.go), and :func:`is_timestamp` says when resolve.go
    tags it ``!!timestamp``."""
    if text in RESOLVE_MAP:
        return RESOLVE_MAP[text]
    if text[0] not in _HINTED:
        return text
    if text[0] == ".":
        value = _parse_float(text) if _YAML_STYLE_FLOAT.fullmatch(text) else None
        return text if value is None else value
    plain = text.replace("_", "")
    number = go_parse_int_or_uint(plain)
    if number is not None:
        return number
    value = _parse_float(plain) if _YAML_STYLE_FLOAT.fullmatch(plain) else None
    return text if value is None else value


def _parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for a text :data:`_YAML_STYLE_FLOAT` matched (Python reads those the same),
    or None where Go's answer is an error: a finite text past the largest float64 is ErrRange, and resolve then
    keeps the scalar a string (resolve.go: ``if err == nil``), so ``1e400`` or a 5,000-digit integer stays the
    string it was written as, never +Inf."""
    value = float(text)
    return None if math.isinf(value) else value


def is_timestamp(text: str) -> bool:
    """go-yaml v2's timestamp check (parseTimestamp: the layouts it tries with ``time.Parse``)."""
    match = _TIMESTAMP.fullmatch(text)
    if not match:
        return False
    if match["h"] is not None and match["sep"] != " " and match["tz"] is None:
        return False  # the T / t layouts need a zone, the space layout has none
    if match["sep"] == " " and match["tz"] is not None:
        return False
    year, month, day = int(match["y"]), int(match["mo"]), int(match["d"])
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= day <= days:
        return False
    if match["h"] is not None:
        return int(match["h"]) < 24 and int(match["mi"]) < 60 and int(match["s"]) < 60
    return True


def resolves_to_non_string(text: str) -> bool:
    """True when go-yaml v2 would read ``text``, written plain, as something other than a string."""
    # resolve.go tries a timestamp only on a scalar its table hints as a number (a timestamp starts with a digit)
    return not isinstance(resolve(text), str) or ("0" <= text[0] <= "9" and is_timestamp(text))


def string_style(text: str) -> str | None:
    """The scalar style go-yaml v2 asks for: ``"|"`` (literal), ``'"'`` (double-quoted) or None (plain)."""
    if "\n" in text:
        return "|"
    if resolves_to_non_string(text) or _BASE60_FLOAT.fullmatch(text):
        return '"'
    return None


@functools.total_ordering
class _GoKey:
    """A map key compared as go-yaml v2 compares them (letters by code point; digit runs as numbers, first)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _GoKey) and self.text == other.text

    def __lt__(self, other: _GoKey) -> bool:
        a, b = self.text, other.text
        for i in range(min(len(a), len(b))):
            if a[i] == b[i]:
                continue
            a_letter, b_letter = a[i].isalpha(), b[i].isalpha()
            if a_letter and b_letter:
                return a[i] < b[i]
            if a_letter or b_letter:
                return b_letter
            a_number = b_number = 0
            if a[i] == "0" or b[i] == "0":
                j = i - 1
                while j >= 0 and a[j].isdecimal():
                    if a[j] != "0":
                        a_number = b_number = 1
                        break
                    j -= 1
            a_end = i
            while a_end < len(a) and a[a_end].isdecimal():
                a_number = a_number * 10 + int(a[a_end])
                a_end += 1
            b_end = i
            while b_end < len(b) and b[b_end].isdecimal():
                b_number = b_number * 10 + int(b[b_end])
                b_end += 1
            if a_number != b_number:
                return a_number < b_number
            if a_end != b_end:
                return a_end < b_end
            return a[i] < b[i]
        return len(a) < len(b)


def _format_float(value: float) -> str:
    """go-yaml v2's float text (``strconv.FormatFloat(f, 'g', -1, 64)`` plus YAML's inf/nan words)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value.is_integer() and abs(value) < 1e21:
        # JSON carries 3.0 as 3, which go-yaml reads back as an int; -0.0 stays "-0"
        return "-0" if math.copysign(1.0, value) < 0 and value == 0 else str(int(value))
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if exponent:
        sign = "-" if exponent.startswith("-") else "+"
        return f"{mantissa}e{sign}{int(exponent.lstrip('+-')):02d}"
    return text


@functools.lru_cache(maxsize=1)
def yaml_dumpers() -> tuple[Any, Any]:
    """PyYAML and the Dumper class that emits as go-yaml v2 does (built once; cleared by tests that swap the
    libyaml Dumper for the pure-Python one)."""
    import yaml

    base = getattr(yaml, "CSafeDumper", None) or yaml.SafeDumper

    class GoYAMLDumper(base):  # type: ignore[misc, valid-type]
        """PyYAML's safe dumper with go-yaml v2's key order and string styles and no implicit typing."""

        # Every scalar is emitted as a string: the styles chosen here already keep its type readable.
        yaml_implicit_resolvers: ClassVar[dict[str, Any]] = {}

        def ignore_aliases(self, data: Any) -> bool:
            # go-yaml writes a shared object out again each time; it never writes anchors and aliases
            return True

    def scalar(text: str, style: str | None = None) -> Any:
        return yaml.ScalarNode(_STR_TAG, text, style=style)

    def represent_str(dumper: Any, data: str) -> Any:
        return scalar(data, string_style(data))

    def represent_bool(dumper: Any, data: bool) -> Any:
        return scalar("true" if data else "false")

    def represent_int(dumper: Any, data: int) -> Any:
        return scalar(str(data))

    def represent_float(dumper: Any, data: float) -> Any:
        return scalar(_format_float(data))

    def represent_none(dumper: Any, data: None) -> Any:
        return scalar("null")

    def represent_map(dumper: Any, data: dict[Any, Any]) -> Any:
        items = []
        for key in sorted((str(k) for k in data), key=_GoKey):
            value = data[key] if key in data else data[_original_key(data, key)]
            items.append((dumper.represent_data(key), dumper.represent_data(value)))
        return yaml.MappingNode(_MAP_TAG, items, flow_style=False)

    def represent_list(dumper: Any, data: Iterable[Any]) -> Any:
        return yaml.SequenceNode(_SEQ_TAG, [dumper.represent_data(item) for item in data], flow_style=False)

    for kind, representer in (
        (str, represent_str),
        (bool, represent_bool),
        (int, represent_int),
        (float, represent_float),
        (type(None), represent_none),
        (dict, represent_map),
        (list, represent_list),
        (tuple, represent_list),
    ):
        GoYAMLDumper.add_representer(kind, representer)
    return yaml, GoYAMLDumper


def _original_key(data: dict[Any, Any], text: str) -> Any:
    """The non-string key of ``data`` whose text is ``text`` (JSON turns every key into a string)."""
    return next(key for key in data if str(key) == text)


# Strings the fast writer prints plain: no spaces (nothing to fold at the line width), no indicator characters
# (a ":" only inside, where no space follows it), starting with a letter or digit; the rest goes through PyYAML's
# emitter.
_SIMPLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/=+@:-]*(?<!:)")  # a ":" inside, never last (libyaml's rule)


class _NotSimple(Exception):
    pass


@functools.lru_cache(maxsize=1 << 16)
def _plain_ok(text: str) -> bool:
    """True when ``text`` is written plain by the direct writer (cached: names and values repeat across objects)."""
    return len(text) < 70 and _SIMPLE.fullmatch(text) is not None and string_style(text) is None


@functools.lru_cache(maxsize=1 << 16)
def _quoted_ok(text: str) -> bool:
    """True when ``text`` is written double-quoted and as it is (``"true"``, ``"1"``): a simple text that would
    read back as something else, with no character to escape and no space to fold at."""
    return len(text) < 70 and _SIMPLE.fullmatch(text) is not None and string_style(text) == '"'


# A multi-line text the direct writer puts in a literal block (``|``) as the emitter does: printable ASCII lines,
# the first not indented (that needs an indentation indicator), no space before a line break (the emitter then
# double-quotes it), at most one final line break (more ends the block "|+", open-ended).
_LITERAL = re.compile(r"[!-~][ -~]*(?:\n[ -~]*)+")


def _literal(text: str, indent: int) -> str:
    """``text`` as a literal block scalar whose lines are indented ``indent`` spaces (the header, ``|`` or ``|-``,
    then the lines; no final line break)."""
    if _LITERAL.fullmatch(text) is None or " \n" in text or text.endswith((" ", "\n\n")):
        raise _NotSimple
    pad = " " * indent
    body = text[:-1] if text.endswith("\n") else text
    lines = "\n".join(pad + line if line else "" for line in body.split("\n"))
    return ("|\n" if body is not text else "|-\n") + lines


@functools.lru_cache(maxsize=1 << 12)
def _key_order(keys: tuple[str, ...]) -> list[tuple[str, str]]:
    """go-yaml's order of a map's keys, each with its text as written before the ``:`` (cached: objects of one
    kind share their key sets). :class:`_NotSimple` for a key that is not a simple string."""
    if any(type(key) is not str for key in keys):
        raise _NotSimple
    return [(key, _simple_scalar(key)) for key in (sorted(keys, key=_GoKey) if len(keys) > 1 else keys)]


def _simple_scalar(value: Any, indent: int = -1) -> str:
    """``value`` as the direct writer writes it after ``key: `` or ``- `` (``indent``: where a literal block's lines
    go; -1 where none may be written, for keys)."""
    kind = type(value)
    if kind is str:
        if _plain_ok(value):
            return str(value)
        if _quoted_ok(value):
            return f'"{value}"'
        if indent >= 0 and "\n" in value:
            return _literal(value, indent)
        raise _NotSimple
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    raise _NotSimple


def _fast_map(data: dict[str, Any], indent: int, out: list[str], first_prefix: str = "") -> None:
    pad = " " * indent
    prefix = first_prefix
    append = out.append
    for key, text in _key_order(tuple(data)):
        value = data[key]
        head = f"{prefix or pad}{text}:"
        prefix = ""
        kind = type(value)
        if kind is str and _plain_ok(value):
            append(f"{head} {value}\n")
        elif kind is dict:
            if value:
                append(head + "\n")
                _fast_map(value, indent + 2, out)
            else:
                append(head + " {}\n")
        elif kind is list:
            if value:
                append(head + "\n")
                _fast_list(value, indent, out)
            else:
                append(head + " []\n")
        else:
            append(f"{head} {_simple_scalar(value, indent + 2)}\n")


def _fast_list(items: list[Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for item in items:
        kind = type(item)
        if kind is dict:
            if item:
                _fast_map(item, indent + 2, out, first_prefix=pad + "- ")
            else:
                out.append(pad + "- {}\n")
        elif kind is list:
            raise _NotSimple  # a list in a list: rare, left to the emitter
        else:
            out.append(f"{pad}- {_simple_scalar(item, indent + 2)}\n")


def direct_dump(obj: Any) -> str | None:
    """What :func:`dump` writes, for a document of maps, lists and simple scalars (what VMs and instance types are
    made of), written directly: ten times faster than PyYAML's representer and emitter. None when the document
    holds anything else (a string that needs quoting or may fold, a float, a list in a list)."""
    if type(obj) is not dict or not obj:
        return None
    out: list[str] = []
    try:
        _fast_map(obj, 0, out)
    except _NotSimple:
        return None
    return "".join(out)


def dump(obj: Any) -> str:
    """``obj`` (dicts, lists, strings, numbers, booleans, None) as ``sigs.k8s.io/yaml.Marshal`` writes it."""
    fast = direct_dump(obj)
    if fast is not None:
        return fast
    return emitter_dump(obj)


def emitter_dump(obj: Any) -> str:
    """:func:`dump` through PyYAML's emitter (the libyaml algorithm go-yaml ports)."""
    yaml, dumper = yaml_dumpers()
    text: str = yaml.dump(
        obj, Dumper=dumper, default_flow_style=False, sort_keys=False, allow_unicode=True, indent=2, width=80
    )
    # libyaml closes a document that ends in an open-ended scalar (``|+``, a plain root) with "...";
    # go-yaml's older port never writes that marker.
    if text.endswith("\n...\n"):
        text = text[: -len("...\n")]
    elif text == "...\n":
        text = ""
    return text


def dump_all(objs: Iterable[Any]) -> str:
    """Several documents, each as :func:`dump` writes it, separated by ``---`` lines."""
    return "---\n".join(dump(obj) for obj in objs)
