"""``-o yaml|json|name`` and table printing for lists of API objects, as kubectl prints them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..env import Environment
from ..errors import UsageError

TABLE_FORMATS = ("", "wide")
OBJECT_FORMATS = ("yaml", "json", "name")


def check_output_format(output: str, allowed: Sequence[str]) -> str:
    """Validate ``-o``; kubectl's message for an unknown format."""
    if output not in allowed:
        choices = ",".join(sorted(value for value in allowed if value))
        raise UsageError(
            f'unable to match a printer suitable for the output format "{output}", allowed formats are: {choices}'
        )
    return output


def without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """kubectl hides ``metadata.managedFields`` in yaml/json output (``--show-managed-fields=false``)."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or "managedFields" not in metadata:
        return obj
    return {**obj, "metadata": {key: value for key, value in metadata.items() if key != "managedFields"}}


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    """kubectl's ``kind: List`` wrapper for several objects."""
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def print_objects(
    env: Environment, output: str, objects: list[dict[str, Any]], names: list[str], *, single: bool = False
) -> None:
    """Print ``objects`` as yaml/json (one object, or a List) or their ``names`` for ``-o name``."""
    if output == "name":
        env.stdout.write("".join(f"{name}\n" for name in names))
        return
    objects = [without_managed_fields(obj) for obj in objects]
    document = objects[0] if single and len(objects) == 1 else as_list(objects)
    if output == "json":
        env.stdout.write(json.dumps(document, indent=4, sort_keys=True, ensure_ascii=False) + "\n")
    else:
        from .goyaml import dump

        env.stdout.write(dump(document))
