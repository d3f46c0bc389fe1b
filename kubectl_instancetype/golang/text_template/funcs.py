"""Go 1.26's text/template/funcs.go: the builtin functions (``builtins()``), their argument kinds, and the
comparisons; kubectl's two additions (cli-runtime printers/template.go); and the forked comparisons client-go's
JSONPath filters call (k8s.io/client-go/third_party/forked/golang/template/funcs.go).

A function raises :class:`CallError` with the text Go's function returns; exec.go wraps it as ``error calling
NAME: ...``. Arguments are what exec.go passes: a ``reflect.Value``, an ``interface {}`` or a string.

Values: decoded JSON stands for ``map[string]interface {}`` and friends (see :mod:`..fmt`); what a map or list
yields is boxed in :class:`Box` (a Go ``interface {}``) until a pipeline ends, because Go's messages and nil rules
differ for the two (``can't evaluate field x in type interface {}``). The helpers exec.go defines for that and
funcs.go shares are here, first: ``zero`` (:data:`INVALID`), ``indirectInterface``, ``isTrue``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import fmt
from ..fmt import GoByte, GoInt, go_type_name

__all__ = [
    "BAD_COMPARISON",
    "BAD_COMPARISON_TYPE",
    "FUNCS",
    "GO_TYPES",
    "INVALID",
    "Box",
    "CallError",
    "basic_kind",
    "eq",
    "equal",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "iface",
    "indirect_interface",
    "is_true",
    "le",
    "less",
    "less_equal",
    "lt",
    "ne",
    "not_equal",
    "truth",
    "type_name",
]


# ---- values (exec.go) ------------------------------------------------------------------------------


class _Invalid:
    """Go's zero ``reflect.Value`` (exec.go's ``zero``; ``reflect.ValueOf(nil)``)."""

    def __repr__(self) -> str:
        return "<invalid>"


INVALID: Any = _Invalid()


class Box:
    """A value held in an ``interface {}`` (what a map lookup or list element is); ``value`` None is nil."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def type_name(value: Any) -> str:
    """``v.Type().String()``: ``interface {}`` for a boxed value, else :func:`..fmt.go_type_name`."""
    return "interface {}" if isinstance(value, Box) else go_type_name(value)


def indirect_interface(value: Any) -> Any:
    """exec.go's ``indirectInterface``: the value in an interface; a nil interface is the zero Value."""
    if isinstance(value, Box):
        return INVALID if value.value is None else value.value
    return value


def iface(value: Any) -> Any:
    """What a Go ``any`` parameter receives (``v.Interface()`` of an interface's content; the zero Value is nil)."""
    value = value.value if isinstance(value, Box) else value
    return None if value is INVALID else value


def is_true(value: Any) -> tuple[bool, bool]:
    """exec.go's ``isTrue``: (truth, ok); not ok for a value with no truth (Go: a struct)."""
    if value is INVALID:
        return False, True
    if isinstance(value, Box):
        return value.value is not None, True
    if isinstance(value, (dict, list, str)):
        return len(value) > 0, True
    if isinstance(value, (bool, int, float, complex)):
        return bool(value), True
    return False, False


# ---- funcs.go ---------------------------------------------------------------------------------------


class CallError(Exception):
    """The error a function returns (or the panic ``safeCall`` recovers)."""


def truth(value: Any) -> bool:
    """funcs.go's ``truth``: isTrue of the value in an interface."""
    return is_true(indirect_interface(value))[0]


# ---- comparisons ------------------------------------------------------------------------------------

BAD_COMPARISON_TYPE = "invalid type for comparison"  # errBadComparisonType
BAD_COMPARISON = "incompatible types for comparison"  # the fork's errBadComparison; Go 1.26 adds the types
NO_COMPARISON = "missing argument for comparison"  # errNoComparison


# reflect.Kind of each type a template value can have (:func:`..fmt.go_type_name`), as basicKind groups them
_KINDS = {
    "bool": "bool",
    "int": "int",
    "int64": "int",
    "uint8": "uint",
    "float64": "float",
    "complex128": "complex",
    "string": "string",
}


def basic_kind(value: Any) -> str:
    """basicKind: ``bool``, ``int``, ``uint``, ``float``, ``complex``, ``string``, else ``invalid`` (where Go also
    returns errBadComparisonType)."""
    return _KINDS.get(go_type_name(value), "invalid")


def _incompatible(arg1: Any, arg2: Any) -> str:
    return f"incompatible types for comparison: {type_name(arg1)} and {type_name(arg2)}"


def _less(arg1: Any, arg2: Any, incompatible: Callable[[Any, Any], str]) -> bool:
    """``lt`` after indirectInterface, the same in Go 1.26 and in the fork but for the ``incompatible`` text."""
    k1, k2 = basic_kind(arg1), basic_kind(arg2)
    if k1 == "invalid" or k2 == "invalid":
        raise CallError(BAD_COMPARISON_TYPE)
    if k1 != k2:
        # Special case: Can compare integer values regardless of type's sign.
        if {k1, k2} == {"int", "uint"}:
            return bool(int(arg1) < int(arg2))
        raise CallError(incompatible(arg1, arg2))
    if k1 in ("bool", "complex"):
        raise CallError(BAD_COMPARISON_TYPE)
    return bool(arg1 < arg2)


def eq(arg1: Any, *rest: Any) -> bool:
    """funcs.go's ``eq``: ``arg1 == rest[0] || arg1 == rest[1] || ...``; nil equals only nil, maps and slices
    are not comparable."""
    arg1 = indirect_interface(arg1)
    if not rest:
        raise CallError(NO_COMPARISON)
    k1 = basic_kind(arg1)
    for arg in rest:
        arg = indirect_interface(arg)
        k2 = basic_kind(arg)
        if k1 != k2:
            if {k1, k2} == {"int", "uint"}:
                same = int(arg1) == int(arg)
            elif arg1 is not INVALID and arg is not INVALID:
                raise CallError(_incompatible(arg1, arg))
            else:
                same = False
        elif k1 == "invalid":
            if arg1 is INVALID or arg is INVALID:
                same = arg1 is INVALID and arg is INVALID
            elif type(arg1) is not type(arg):
                # canCompare: two kinds (a map and a slice)
                raise CallError(
                    f"non-comparable types {fmt.sprintf('%s', [arg1])}: {type_name(arg1)}, "
                    f"{type_name(arg)}: {fmt.sprintf('%v', [arg])}"
                )
            else:
                raise CallError(f"non-comparable type {fmt.sprintf('%s', [arg])}: {type_name(arg)}")
        else:
            same = arg1 == arg
        if same:
            return True
    return False


def ne(arg1: Any, arg2: Any) -> bool:
    """funcs.go's ``ne``: not ``eq``."""
    return not eq(arg1, arg2)


def lt(arg1: Any, arg2: Any) -> bool:
    """funcs.go's ``lt``: ``arg1 < arg2`` for basic kinds (integers of either sign compare by value)."""
    return _less(indirect_interface(arg1), indirect_interface(arg2), _incompatible)


def le(arg1: Any, arg2: Any) -> bool:
    """funcs.go's ``le``: ``lt`` or ``eq``."""
    return lt(arg1, arg2) or eq(arg1, arg2)


def gt(arg1: Any, arg2: Any) -> bool:
    """funcs.go's ``gt``: not ``le``."""
    return not le(arg1, arg2)


def ge(arg1: Any, arg2: Any) -> bool:
    """funcs.go's ``ge``: not ``lt``."""
    return not lt(arg1, arg2)


# client-go's fork (third_party/forked/golang/template/funcs.go), what its JSONPath filters call on values taken
# out of their interfaces: every kind basicKind does not know is errBadComparisonType, even nil, and mixed kinds are
# errBadComparison without the types.


def equal(arg1: Any, arg2: Any) -> bool:
    """The fork's ``Equal`` (of two values)."""
    k1, k2 = basic_kind(arg1), basic_kind(arg2)
    if k1 == "invalid" or k2 == "invalid":
        raise CallError(BAD_COMPARISON_TYPE)
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return bool(int(arg1) == int(arg2))
        raise CallError(BAD_COMPARISON)
    return bool(arg1 == arg2)


def not_equal(arg1: Any, arg2: Any) -> bool:
    """The fork's ``NotEqual``."""
    return not equal(arg1, arg2)


def less(arg1: Any, arg2: Any) -> bool:
    """The fork's ``Less``."""
    return _less(arg1, arg2, lambda _a, _b: BAD_COMPARISON)


def less_equal(arg1: Any, arg2: Any) -> bool:
    """The fork's ``LessEqual``."""
    return less(arg1, arg2) or equal(arg1, arg2)


def greater(arg1: Any, arg2: Any) -> bool:
    """The fork's ``Greater``."""
    return not less_equal(arg1, arg2)


def greater_equal(arg1: Any, arg2: Any) -> bool:
    """The fork's ``GreaterEqual``."""
    return not less(arg1, arg2)


# ---- len, index, slice ------------------------------------------------------------------------------


def length(item: Any) -> GoInt:
    """funcs.go's ``length``."""
    value = item.value if isinstance(item, Box) else item
    if value is None or value is INVALID:
        # a missing key: length() asks a zero reflect.Value for its type, and safeCall reports the panic
        raise CallError("len of nil pointer" if value is None else "reflect: call of reflect.Value.Type on zero Value")
    if isinstance(value, str):
        return GoInt(len(value.encode("utf-8", "surrogateescape")))
    if isinstance(value, (dict, list)):
        return GoInt(len(value))
    raise CallError(f"len of type {type_name(value)}")


def _index_arg(index: Any, cap: int) -> int:
    """indexArg."""
    index = indirect_interface(index)
    if isinstance(index, bool) or not isinstance(index, int):
        if index is INVALID:
            raise CallError("cannot index slice/array with nil")
        raise CallError(f"cannot index slice/array with type {type_name(index)}")
    if index < 0 or index >= cap:
        raise CallError(f"index out of range: {int(index)}")
    return int(index)


def index(item: Any, *indexes: Any) -> Any:
    """funcs.go's ``index``: ``item[i][j]...`` of lists, strings (a byte) and maps."""
    item = indirect_interface(item)
    if item is INVALID:
        raise CallError("index of untyped nil")
    for key in indexes:
        item = indirect_interface(item)
        if item is INVALID or item is None:
            raise CallError("index of nil pointer")
        if isinstance(item, list):
            item = Box(item[_index_arg(key, len(item))])
        elif isinstance(item, str):
            data = item.encode("utf-8", "surrogateescape")
            item = GoByte(data[_index_arg(key, len(data))])
        elif isinstance(item, dict):
            key = indirect_interface(key)
            if key is INVALID:
                raise CallError("value is nil; should be of type string")
            if not isinstance(key, str):
                raise CallError(f"value has type {type_name(key)}; should be string")
            item = Box(item.get(key))
        else:
            raise CallError(f"can't index item of type {type_name(item)}")
    return item


def slice_(item: Any, *indexes: Any) -> Any:
    """funcs.go's ``slice``: ``item[i:j]`` or ``item[i:j:k]`` of a list, ``item[i:j]`` of a string's bytes."""
    item = indirect_interface(item)
    if item is INVALID:
        raise CallError("slice of untyped nil")
    if len(indexes) > 3:
        raise CallError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise CallError("cannot 3-index slice a string")
        cap = len(item.encode("utf-8", "surrogateescape"))
    elif isinstance(item, list):
        cap = len(item)
    else:
        raise CallError(f"can't slice item of type {type_name(item)}")
    bounds = [0, len(item) if isinstance(item, list) else cap]
    for i, key in enumerate(indexes):
        bound = _index_arg(key, cap + 1)
        if i < 2:
            bounds[i] = bound
        else:
            bounds.append(bound)
    if bounds[0] > bounds[1]:
        raise CallError(f"invalid slice index: {bounds[0]} > {bounds[1]}")
    if len(bounds) == 3 and bounds[1] > bounds[2]:
        raise CallError(f"invalid slice index: {bounds[1]} > {bounds[2]}")
    if isinstance(item, str):
        return item.encode("utf-8", "surrogateescape")[bounds[0] : bounds[1]].decode("utf-8", "surrogateescape")
    return item[bounds[0] : bounds[1]]


# ---- escapers ---------------------------------------------------------------------------------------

_HTML_ESCAPES = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
_JS_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}


def html_escape_string(text: str) -> str:
    """HTMLEscapeString."""
    return "".join(_HTML_ESCAPES.get(char, char) for char in text)


def js_escape_string(text: str) -> str:
    """JSEscapeString: quotes, backslash, < > & = escaped, control characters as \\u00XX, runes Go does not print
    as \\uXXXX (a byte that is not UTF-8 is written as it is)."""
    out = []
    for char in text:
        code = ord(char)
        if char in _JS_ESCAPES:
            out.append(_JS_ESCAPES[char])
        elif code < 0x20:
            out.append(f"\\u00{code:02X}")
        elif code < 0x80 or 0xDC80 <= code <= 0xDCFF or char.isprintable():
            out.append(char)
        else:
            out.append(f"\\u{code:04X}")
    return "".join(out)


def eval_args(args: tuple[Any, ...]) -> str:
    """evalArgs of html/js/urlquery: one string argument as is, else fmt.Sprint of them."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    # printableValue: a nil argument (a missing key, a JSON null) prints as "<no value>"
    return fmt.sprint(["<no value>" if arg is None else arg for arg in args])


def _url_query_escaper(*args: Any) -> str:
    """URLQueryEscaper: url.QueryEscape of evalArgs."""
    from urllib.parse import quote_plus

    return quote_plus(eval_args(args))


# ---- kubectl's FuncMap (cli-runtime printers/template.go) -------------------------------------------


def exists(item: Any, *indices: Any) -> bool:
    """kubectl's ``exists`` (cli-runtime printers/jsonpath.go)."""
    value = item
    for key in indices:
        if value is None:
            return False
        if isinstance(value, (list, str)):
            if isinstance(key, bool) or not isinstance(key, int):
                return False
            seq = value if isinstance(value, list) else value.encode("utf-8", "surrogateescape")
            if key < 0 or key >= len(seq):
                return False
            value = seq[key]
        elif isinstance(value, dict):
            if key is None:
                key = ""
            if not isinstance(key, str):
                return False
            value = value.get(key)
        else:
            return False
    return value is not None


def base64decode(text: str) -> str:
    """kubectl's ``base64decode``: base64.StdEncoding.DecodeString, ``base64 decode failed: ...`` on an error."""
    from ..encoding_base64 import CorruptInputError, std_decode

    try:
        return std_decode(text).decode("utf-8", "surrogateescape")
    except CorruptInputError as exc:
        raise CallError(f"base64 decode failed: {exc}") from None


# ---- the table --------------------------------------------------------------------------------------

# name -> (parameter kinds, variadic kind or None, implementation); kinds: "value" (reflect.Value),
# "any" (interface {}), "string"; ``call`` has no implementation (exec.go handles it: templates on JSON hold no
# functions)
FUNCS: dict[str, tuple[tuple[str, ...], str | None, Callable[..., Any] | None]] = {
    "and": (("value",), "value", None),  # exec.go evaluates and/or lazily
    "call": (("value",), "value", None),
    "html": ((), "any", lambda *a: html_escape_string(eval_args(a))),
    "index": (("value",), "value", index),
    "slice": (("value",), "value", slice_),
    "js": ((), "any", lambda *a: js_escape_string(eval_args(a))),
    "len": (("value",), None, length),
    "not": (("value",), None, lambda a: not truth(a)),
    "or": (("value",), "value", None),
    "print": ((), "any", lambda *a: fmt.sprint(list(a))),
    "printf": (("string",), "any", lambda f, *a: fmt.sprintf(f, list(a))),
    "println": ((), "any", lambda *a: fmt.sprintln(list(a))),
    "urlquery": ((), "any", _url_query_escaper),
    "eq": (("value",), "value", eq),
    "ge": (("value", "value"), None, ge),
    "gt": (("value", "value"), None, gt),
    "le": (("value", "value"), None, le),
    "lt": (("value", "value"), None, lt),
    "ne": (("value", "value"), None, ne),
    "exists": (("any",), "any", exists),
    "base64decode": (("string",), None, base64decode),
}
GO_TYPES = {"value": "reflect.Value", "any": "interface {}", "string": "string"}


def as_param(value: Any, kind: str | None) -> Any:
    """What a parameter of ``kind`` receives of an evaluated argument: an ``interface {}`` its content."""
    if kind == "any":
        return iface(value)
    if kind == "string":
        return value.value if isinstance(value, Box) else value
    return value
