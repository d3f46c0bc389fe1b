"""What the API server's strict decoding and structural-schema validation say about a custom resource.

kube-apiserver decodes a custom resource with ``fieldValidation=Strict`` (kubectl's default, ``--validate=strict``)
in ``apiextensions-apiserver/pkg/apiserver/customresource_handler.go`` (``schemaCoercingDecoder.Decode``,
``unstructuredSchemaCoercer.apply``): the unknown fields of ``metadata`` (a strict decode into ``ObjectMeta``),
then every field the structural schema prunes (``schema/pruning/algorithm.go`` ``PruneWithOptions``: a field
neither in ``properties`` nor under ``additionalProperties``; ``x-kubernetes-preserve-unknown-fields`` keeps the
unknown ones; ``apiVersion``, ``kind`` and ``metadata`` are kept at the root and in embedded resources), sorted,
each as ``unknown field "<path>"``, all in one ``strict decoding error: ...`` joined with ``, ``
(apimachinery ``runtime.strictDecodingError``). The request then fails with BadRequest:
``<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: ...`` (apiserver
``handlers/rest.go`` ``transformDecodeError``).

What is left is validated against the schema (``apiserver/validation/validation.go``, kube-openapi's validator):
types (``<path> in body must be of type integer: "string"``), ``required``, ``enum``, ``pattern``, bounds, each a
``field.Error`` (apimachinery ``field/errors.go`` ``ErrorBody``) of an ``Invalid`` answer. CEL rules
(``x-kubernetes-validations``), formats and list-type uniqueness are not checked here (the server's verdict
has them).

The schemas are KubeVirt's own, embedded (``data/kubevirt-<version>-schemas.json``, written by
``hack/gen_schemas.py`` from the CRDs virt-operator installs) with only what this module reads.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from .gojson import DATA_DIR

SCHEMAS = "kubevirt-v1.9.0-schemas"
Schema = dict[str, Any]

# the keywords kept in the embedded schemas (hack/gen_schemas.py strips the others)
KEYWORDS = (
    "type",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "x-kubernetes-int-or-string",
    "pattern",
    "nullable",
    "enum",
    "maxItems",
    "maxLength",
    "minimum",
    "maximum",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
)
_META_FIELDS = ("apiVersion", "kind", "metadata")
# metav1.ObjectMeta's JSON names (k8s.io/apimachinery/pkg/apis/meta/v1/types.go)
OBJECT_META_FIELDS = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)


@cache
def _data(name: str) -> dict[str, Any]:
    with open(os.path.join(DATA_DIR, f"{name}.json"), encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def load_schemas(name: str = SCHEMAS) -> dict[str, Schema]:
    """Kind -> the ``openAPIV3Schema`` of its served version (read once, on first use)."""
    data = _data(name)
    schemas: dict[str, Schema] = data["schemas"]
    return {kind: schemas[key] for kind, key in data["kinds"].items()}


def has_rules(kind: str, name: str = SCHEMAS) -> bool:
    """True when ``kind``'s schema has CEL rules (``x-kubernetes-validations``; the rules themselves are not
    embedded)."""
    return kind in _data(name).get("cel", ())


# apiextensions-apiserver registry/customresource/strategy.go hasBlockingErr: with CEL rules in the schema, one of
# these errors stops them from being checked, and one more cause says so
_BLOCKING = ("Required value", "Unsupported value", "Too long", "Too many")
RULES_NOT_CHECKED = (
    "<nil>",
    "Invalid value: null: some validation rules were not checked because the object was invalid; correct the "
    "existing errors to complete validation",
)


@dataclass(frozen=True)
class UnknownField:
    """A field the schema prunes: its path (``spec.devices.preferedDiskBus``) and the names its parent knows."""

    path: str
    known: tuple[str, ...]

    @property
    def name(self) -> str:
        """The field's own name (the last part of its path)."""
        return re.split(r"[.\]]", self.path)[-1]

    def error(self) -> str:
        return f'unknown field "{self.path}"'


@dataclass(frozen=True)
class FieldError:
    """One ``field.Error``: its path and ``ErrorBody()`` (``Required value``, ``Invalid value: ...``)."""

    path: str
    body: str

    def error(self) -> str:
        return f"{self.path}: {self.body}"


def unknown_fields(obj: dict[str, Any], schema: Schema) -> list[UnknownField]:
    """The unknown fields strict decoding reports for ``obj``, in its order: ``metadata``'s (document order),
    then the pruned ones (sorted, as ``PruneWithOptions`` sorts them)."""
    found: list[UnknownField] = []
    metadata = obj.get("metadata")
    if isinstance(metadata, dict):
        found += [
            UnknownField(f"metadata.{key}", OBJECT_META_FIELDS) for key in metadata if key not in OBJECT_META_FIELDS
        ]
    pruned: list[UnknownField] = []
    _prune(obj, {**schema, "x-kubernetes-embedded-resource": True}, "", pruned, root=True)
    return found + sorted(pruned, key=lambda item: item.path)


def _join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def _prune(value: Any, schema: Schema | None, path: str, out: list[UnknownField], *, root: bool = False) -> None:
    """``prune`` (and ``skipPrune`` under x-kubernetes-preserve-unknown-fields) of pruning/algorithm.go."""
    if schema is not None and schema.get("x-kubernetes-preserve-unknown-fields"):
        _skip_prune(value, schema, path, out)
        return
    if isinstance(value, dict):
        if schema is None:
            out += [UnknownField(_join(path, key), ()) for key in value]
            return
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        embedded = schema.get("x-kubernetes-embedded-resource")
        for key, item in value.items():
            if embedded and key in _META_FIELDS:
                continue
            if key in properties:
                _prune(item, properties[key], _join(path, key), out)
            elif isinstance(additional, dict):
                _prune(item, additional, _join(path, key), out)
            elif additional is True:
                continue
            elif key not in _META_FIELDS or path:
                out.append(UnknownField(_join(path, key), tuple(properties)))
    elif isinstance(value, list):
        items = schema.get("items") if schema is not None else None
        for index, item in enumerate(value):
            _prune(item, items, f"{path}[{index}]", out)


def _skip_prune(value: Any, schema: Schema, path: str, out: list[UnknownField]) -> None:
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        embedded = schema.get("x-kubernetes-embedded-resource")
        for key, item in value.items():
            if embedded and key in _META_FIELDS:
                continue
            if key in properties:
                _prune(item, properties[key], _join(path, key), out)
            elif isinstance(additional, dict):
                _prune(item, additional, _join(path, key), out)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                _skip_prune(item, items, f"{path}[{index}]", out)


def strict_decoding_message(kind: str, version: str, unknown: list[UnknownField]) -> str:
    """The BadRequest message of a create with unknown fields (transformDecodeError over strictDecodingError)."""
    errors = ", ".join(item.error() for item in unknown)
    return f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: {errors}'


def validate(obj: dict[str, Any], schema: Schema, *, rules: bool = False) -> list[FieldError]:
    """The schema's field errors for ``obj`` (unknown fields pruned first, as the server validates the pruned
    object; null values of fields that are not nullable are dropped, ``PruneNonNullableNullsWithoutDefaults``).
    ``rules``: the schema has CEL rules (:func:`has_rules`), which a blocking error leaves unchecked, saying so."""
    errors = _schema_errors(obj, schema)
    if rules and any(error.body.startswith(_BLOCKING) or " must be of type " in error.body for error in errors):
        errors.append(FieldError(*RULES_NOT_CHECKED))
    return errors


def _schema_errors(obj: dict[str, Any], schema: Schema) -> list[FieldError]:
    errors: list[FieldError] = []
    properties = schema.get("properties") or {}
    for key in ("spec", "status"):
        if key in obj and key in properties:
            _validate(obj[key], properties[key], key, errors)
    for key in schema.get("required") or ():
        if key not in obj:
            errors.append(FieldError(key, "Required value"))
    return errors


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _go_value(value: Any) -> str:
    """``ErrorBody``'s rendering of a bad value: simple types with %v / %q, anything else as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        from .strconv import go_quote

        return go_quote(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _validate(value: Any, schema: Schema, path: str, errors: list[FieldError]) -> None:
    kind = _json_type(value)
    if value is None:
        return  # a null the server drops (or a nullable field)
    if schema.get("x-kubernetes-int-or-string"):
        if kind not in ("integer", "string"):
            errors.append(_type_error(path, "integer,string", kind))
            return
    elif "type" in schema:
        wanted = schema["type"]
        if not (kind == wanted or (wanted == "number" and kind == "integer")):
            errors.append(_type_error(path, wanted, kind))
            return
    if "enum" in schema and value not in schema["enum"]:
        supported = ", ".join(_go_value(item) if not isinstance(item, str) else f'"{item}"' for item in schema["enum"])
        errors.append(FieldError(path, f"Unsupported value: {_go_value(value)}: supported values: {supported}"))
    if isinstance(value, str):
        pattern = schema.get("pattern")
        if pattern and re.search(pattern, value) is None:
            errors.append(
                FieldError(path, f"Invalid value: {_go_value(value)}: {path} in body should match '{pattern}'")
            )
        limit = schema.get("maxLength")
        if limit is not None and len(value) > limit:
            errors.append(FieldError(path, f"Too long: may not be more than {limit} bytes"))
    if kind in ("integer", "number"):
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(
                FieldError(
                    path,
                    f"Invalid value: {_go_value(value)}: {path} in body should be less than or equal to {schema['maximum']}",
                )
            )
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(
                FieldError(
                    path,
                    f"Invalid value: {_go_value(value)}: {path} in body should be greater than or equal to {schema['minimum']}",
                )
            )
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        for key in sorted(value):
            if key in properties:
                _validate(value[key], properties[key], f"{path}.{key}", errors)
            elif isinstance(additional, dict):
                _validate(value[key], additional, f"{path}.{key}", errors)
        for key in schema.get("required") or ():
            if value.get(key) is None:
                errors.append(FieldError(f"{path}.{key}", "Required value"))
    elif isinstance(value, list):
        limit = schema.get("maxItems")
        if limit is not None and len(value) > limit:
            errors.append(FieldError(path, f"Too many: {len(value)}: must have at most {limit} items"))
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                _validate(item, items, f"{path}[{index}]", errors)


def _type_error(path: str, wanted: str, kind: str) -> FieldError:
    return FieldError(path, f'Invalid value: "{kind}": {path} in body must be of type {wanted}: "{kind}"')
