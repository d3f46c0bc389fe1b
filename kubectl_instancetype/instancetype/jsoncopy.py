"""A deep copy of a JSON value (Go's ``DeepCopy`` of an unstructured object), several times faster than
``copy.deepcopy``: dicts, lists and scalars are copied directly; anything else goes to ``copy.deepcopy``."""

from __future__ import annotations

from typing import Any


def clone(value: Any) -> Any:
    """A copy of ``value`` that shares no dict or list with it."""
    kind = type(value)
    if kind is dict:
        return {key: clone(item) for key, item in value.items()}
    if kind is list:
        return [clone(item) for item in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    import copy

    return copy.deepcopy(value)
