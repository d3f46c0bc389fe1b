"""Helpers over JSON-shaped objects with Go's notion of "unset", and the provenance record.

KubeVirt works on typed structs; this engine works on the decoded JSON. A pointer or map is unset when the
key is absent or null; a string, number or bool is unset when absent, null or its zero value. Setting a
non-pointer field to its zero value removes the key, because Go's ``omitempty`` would not print it.
"""

from __future__ import annotations

from typing import Any

from ..jsoncopy import clone as json_clone

Json = dict[str, Any]

INSTANCETYPE = "instancetype"
PREFERENCE = "preference"
DEFAULT = "default"


def child(parent: Json, key: str) -> Json:
    """``parent[key]`` as an object, created empty when unset (Go's ``if x == nil { x = &T{} }``)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value


def is_set(parent: Json, key: str) -> bool:
    """True when a pointer, map or slice field is non-nil (present and not null)."""
    return parent.get(key) is not None


def set_scalar(parent: Json, key: str, value: Any) -> None:
    """Set a non-pointer field; its zero value removes the key (``omitempty``)."""
    if value is None or value == "" or value is False or value == 0:
        parent.pop(key, None)
        return
    parent[key] = value


def clone(value: Any) -> Any:
    """A deep copy (Go's ``DeepCopy``) so the source objects are never shared with the result."""
    return json_clone(value)


class Provenance:
    """Which stage set each field of the expanded template: ``instancetype``, ``preference`` or ``default``.

    Paths are KubeVirt-style field paths (``spec.template.spec.domain.cpu.sockets``, list items by index).
    The first stage to set a field keeps it: later stages only fill unset fields.
    """

    def __init__(self) -> None:
        self.sources: dict[str, str] = {}

    def record(self, path: str, source: str) -> None:
        """Note that ``source`` set ``path``."""
        self.sources.setdefault(path, source)
