"""What Go's ``encoding/json`` writes for a typed object: ``json.Unmarshal`` into the Go type, then ``json.Marshal``.

KubeVirt answers with typed objects: ``expand-vm-spec`` decodes the VM into ``v1.VirtualMachine``, expands it and
encodes it again. The bytes that come back follow the Go types' JSON tags, not the input: a field without
``omitempty`` is always written (an input device's ``"type": ""``, a ``null`` slice), a zero value with
``omitempty`` is never written (``apic: {endOfInterrupt: false}`` becomes ``apic: {}``), a struct is written even
when empty (Go's ``omitempty`` never omits a struct; ``omitzero`` does, when it is zero), unknown fields are
dropped, and quantities come back canonical (``1024Mi`` -> ``1Gi``).

:func:`roundtrip` applies a field table generated from the Go types by ``hack/kubevirtref/gotypes`` (reflection,
as ``encoding/json``'s ``typeFields`` reads them; ``hack/gen_gotypes.py`` writes it to ``data/``) to a decoded
JSON value. Go's rules, from ``encoding/json`` (encode.go ``isEmptyValue``, ``typeFields``; decode.go):

- ``omitempty`` drops ``false``, ``0``, ``""``, a nil pointer, map, slice or interface, and an empty map or slice;
  never a struct (quantities, times and int-or-strings are structs).
- ``omitzero`` drops a value equal to its type's zero value (``metav1.Time``: ``IsZero``).
- Decoding ``null`` leaves the zero value; a field absent from the input is its zero value too, which a field
  without ``omitempty`` then writes (``""``, ``false``, ``0``, ``null`` for a nil pointer, slice or map, ``{}``
  and its own fields for a struct, ``"0"`` for a quantity).

Values of the wrong JSON type are kept as they are: refusing them is strict validation's business (Go's
Unmarshal would fail on them).
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
VIRTUAL_MACHINE_TABLE = "kubevirt-v1.9.0-virtualmachine"

OMITEMPTY = 1
OMITZERO = 2

Field = tuple[str, int, str]


class Table:
    """A field table: struct name -> its fields (JSON name, omitempty/omitzero flags, shape), and the root type."""

    def __init__(self, root: str, types: dict[str, list[Field]]) -> None:
        self.root = root
        self.types = types
        self._zero: dict[str, dict[str, Any]] = {}
        self._plans: dict[str, tuple[dict[str, tuple[int, str]], list[tuple[str, Any]]]] = {}

    def zero(self, name: str) -> dict[str, Any]:
        """What Go writes for the zero value of struct ``name`` (a fresh copy)."""
        if name not in self._zero:
            self._zero[name] = _struct(self, name, {})
        copy: dict[str, Any] = json_clone(self._zero[name])
        return copy

    def plan(self, name: str) -> tuple[dict[str, tuple[int, str]], list[tuple[str, Any]]]:
        """Struct ``name``'s fields by JSON name, and what the fields an input leaves out are written as (only
        those Go writes when zero): a walk then visits the input's keys, not every field of every struct."""
        found = self._plans.get(name)
        if found is None:
            fields = {key: (flags, shape) for key, flags, shape in self.types[name]}
            self._plans[name] = found = (fields, [])  # before the walk: a struct may contain itself
            for key, flags, shape in self.types[name]:
                encoded = _value(self, shape, None)
                if not (flags & OMITEMPTY and _empty(shape, encoded)) and not (
                    flags & OMITZERO and _zero(self, shape, encoded)
                ):
                    found[1].append((key, encoded))
        return found


@cache
def load_table(name: str = VIRTUAL_MACHINE_TABLE) -> Table:
    """The table ``data/<name>.json`` (read once, on first use)."""
    with open(os.path.join(DATA_DIR, f"{name}.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    types = {
        type_name: [(str(f[0]), int(f[1]), str(f[2])) for f in fields] for type_name, fields in data["types"].items()
    }
    return Table(data["root"], types)


def roundtrip(value: Any, table: Table | None = None, type_name: str | None = None) -> Any:
    """``value`` (decoded JSON) as Go writes it after decoding it into ``type_name`` (the table's root type
    unless given: ``v1.VirtualMachine``). A new value; ``value`` is not changed."""
    table = table or load_table()
    return _value(table, type_name or table.root, value)


def _value(table: Table, shape: str, value: Any) -> Any:
    """Decode ``value`` into ``shape`` and encode it again."""
    if shape.startswith("*"):
        return None if value is None else _value(table, shape[1:], value)
    if shape.startswith("[]"):
        if not isinstance(value, list):
            return value  # null stays a nil slice; another type is validation's business
        return [_value(table, shape[2:], item) for item in value]
    if shape.startswith("{}"):
        if not isinstance(value, dict):
            return value
        return {key: _value(table, shape[2:], item) for key, item in value.items()}
    if shape in _SCALAR_ZERO:
        return _SCALAR_ZERO[shape] if value is None else value
    if shape == "Quantity":
        return _quantity(value)
    if shape in ("Time", "Raw", "any", "bytes"):
        return value  # null is nil / the zero time, which both marshal as null
    if shape == "IntOrString":
        return 0 if value is None else value
    if value is None:
        return table.zero(shape)
    if not isinstance(value, dict):
        return value
    return _struct(table, shape, value)


_SCALAR_ZERO: dict[str, Any] = {"string": "", "bool": False, "int": 0, "float": 0}


def json_clone(value: Any) -> Any:
    """A deep copy of a JSON value (dicts and lists; scalars are shared)."""
    if isinstance(value, dict):
        return {key: json_clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_clone(item) for item in value]
    return value


def _quantity(value: Any) -> Any:
    """``resource.Quantity``'s UnmarshalJSON then MarshalJSON: canonical text; null is the zero quantity "0"."""
    from .quantity import QuantityError, canonical_quantity

    if value is None:
        return "0"
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return value
    try:
        return canonical_quantity(value.strip() if isinstance(value, str) else json.dumps(value))
    except (QuantityError, ValueError):
        return value


def _struct(table: Table, name: str, value: dict[str, Any]) -> dict[str, Any]:
    fields, absent = table.plan(name)
    out: dict[str, Any] = {}
    for key, item in value.items():
        field = fields.get(key)
        if field is None:
            continue  # an unknown field: Go's decoding drops it
        flags, shape = field
        encoded = _value(table, shape, item)
        if flags & OMITEMPTY and _empty(shape, encoded):
            continue
        if flags & OMITZERO and _zero(table, shape, encoded):
            continue
        out[key] = encoded
    for key, encoded in absent:
        if key not in value:
            out[key] = json_clone(encoded) if isinstance(encoded, dict | list) else encoded
    return out


def _empty(shape: str, value: Any) -> bool:
    """encoding/json's ``isEmptyValue`` for a value of ``shape`` as encoded (structs are never empty)."""
    if shape.startswith("*") or shape == "any":
        return value is None
    if shape.startswith(("[]", "{}")) or shape == "bytes":
        return value is None or (isinstance(value, list | dict | str) and len(value) == 0)
    if shape == "string":
        return bool(value == "")
    if shape == "bool":
        return value is False
    if shape in ("int", "float"):
        return isinstance(value, int | float) and not isinstance(value, bool) and value == 0
    return False


def _zero(table: Table, shape: str, value: Any) -> bool:
    """``omitzero``: ``value`` is its type's zero value (``metav1.Time.IsZero``: null)."""
    if shape.startswith(("*", "[]", "{}")) or shape in ("any", "bytes", "Time", "Raw"):
        return value is None
    if shape in _SCALAR_ZERO:
        return _empty(shape, value)
    if shape == "Quantity":
        return bool(value == "0")
    if shape == "IntOrString":
        return bool(value == 0)
    return bool(value == table.zero(shape))
