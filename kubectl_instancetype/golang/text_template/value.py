"""The ``reflect.Value`` side of text/template for decoded JSON: the helpers exec.go defines and funcs.go shares.

Decoded JSON stands for ``map[string]interface {}`` and friends (see :mod:`..fmt`); what a map or list yields is
boxed in :class:`Box` (a Go ``interface {}``) until a pipeline ends, because Go's messages and nil rules differ for
the two (``can't evaluate field x in type interface {}``). Ported from Go 1.26's text/template/exec.go: ``zero``
(:data:`INVALID`), ``missingVal`` (:data:`MISSING`), ``indirectInterface``, ``isTrue``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["INVALID", "MISSING", "Box", "iface", "indirect_interface", "is_true", "type_name"]


class _Invalid:
    """Go's zero ``reflect.Value`` (exec.go's ``zero``; ``reflect.ValueOf(nil)``)."""

    def __repr__(self) -> str:
        return "<invalid>"


INVALID: Any = _Invalid()
MISSING: Any = object()  # exec.go's missingVal: no final value passed down a pipeline


class Box:
    """A value held in an ``interface {}`` (what a map lookup or list element is); ``value`` None is nil."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def type_name(value: Any) -> str:
    """``v.Type().String()``: ``interface {}`` for a boxed value, else :func:`..fmt.go_type_name` (imported here:
    :mod:`..jsonpath` takes :data:`INVALID` from this module without the cost of fmt)."""
    from ..fmt import go_type_name

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
