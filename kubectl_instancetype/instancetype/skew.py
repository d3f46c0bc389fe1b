"""Catalog skew: which fields of an object a cluster's CRD schema does not know, and so would drop.

The API server prunes every field a structural CRD schema does not declare
(``k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning``): an instance type or preference written by a
newer catalog to an older KubeVirt loses those fields without a word (common-instancetypes v1.7.0's
``preferredVideoType`` is only known to KubeVirt v1.9). This walks an object against the ``openAPIV3Schema`` of
the version it is written as, the way pruning does: ``properties`` name the known fields,
``additionalProperties`` describes the values of a map, ``items`` the elements of a list, and
``x-kubernetes-preserve-unknown-fields: true`` keeps everything below it. ``apiVersion``, ``kind`` and
``metadata`` at the root are the API server's own and never pruned by the schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ROOT_KEEP = frozenset({"apiVersion", "kind", "metadata"})


def version_schema(crd: Mapping[str, Any], version: str) -> dict[str, Any] | None:
    """The ``openAPIV3Schema`` a CRD serves for ``version``, None when it does not serve that version."""
    for entry in (crd.get("spec") or {}).get("versions") or []:
        if entry.get("name") == version and entry.get("served", True):
            schema = (entry.get("schema") or {}).get("openAPIV3Schema")
            return dict(schema) if isinstance(schema, Mapping) else {}
    return None


def pruned_fields(obj: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The paths (``spec.devices.preferredVideoType``) of ``obj`` that ``schema`` would prune, in object order."""
    found: list[str] = []
    properties = schema.get("properties") or {}
    for key, value in obj.items():
        if key in _ROOT_KEEP:
            continue
        if key not in properties:
            found.append(key)
            continue
        _walk(value, properties[key], key, found)
    return found


def _walk(value: Any, schema: Any, path: str, found: list[str]) -> None:
    if not isinstance(schema, Mapping) or schema.get("x-kubernetes-preserve-unknown-fields"):
        return
    if isinstance(value, Mapping):
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        for key, item in value.items():
            child = f"{path}.{key}"
            if properties and key in properties:
                _walk(item, properties[key], child, found)
            elif additional is True:
                continue
            elif isinstance(additional, Mapping):
                _walk(item, additional, f"{path}[{key}]", found)
            else:
                found.append(child)
    elif isinstance(value, list):
        items = schema.get("items")
        for index, item in enumerate(value):
            _walk(item, items, f"{path}[{index}]", found)
