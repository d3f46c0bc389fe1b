"""The result of a conversion and the per-object context that collects its warnings; the metadata every
converted object keeps."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..jsoncopy import clone
from .schema import INSTANCETYPE_API, LAST_APPLIED

_KEPT_METADATA = ("name", "generateName", "namespace", "labels", "annotations")
_SERVER_METADATA = frozenset(
    {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp"}
)


@dataclass
class Preset:
    """A preset as the ``--vms`` report needs it: its selector, its domain, and what it was converted to."""

    kind: str
    name: str
    namespace: str | None
    selector: dict[str, Any]
    domain: dict[str, Any]
    preference: str | None
    instancetype: str | None


@dataclass
class Conversion:
    """The converted objects (input order), the warnings about fields left behind, the presets seen, and the
    VirtualMachines and VirtualMachineInstances of the input as read (what the presets are matched against when
    no other VMs are given)."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    presets: list[Preset] = field(default_factory=list)
    vms: list[dict[str, Any]] = field(default_factory=list)


class Context:
    """Warnings about one input object, prefixed with its kind and name."""

    def __init__(self, conversion: Conversion, kind: str, name: str):
        self.conversion = conversion
        self.prefix = f"{kind} {name}" if name else kind

    def warn(self, message: str) -> None:
        self.conversion.warnings.append(f"{self.prefix}: {message}")

    def no_home(self, path: str, value: Any) -> None:
        self.warn(f"{path}: {render(value)} has no field in {INSTANCETYPE_API}; not converted")


def converted_metadata(obj: Mapping[str, Any], ctx: Context, name: str | None = None) -> dict[str, Any]:
    """The metadata a converted object keeps (``name`` renames it); the rest described the old object."""
    source = dict(obj.get("metadata") or {})
    metadata: dict[str, Any] = {}
    for key in _KEPT_METADATA:
        if source.get(key) not in (None, "", {}):
            metadata[key] = clone(source[key])
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict) and LAST_APPLIED in annotations:
        # It describes the old object; kubectl apply would compute wrong patches from it.
        annotations = {key: value for key, value in annotations.items() if key != LAST_APPLIED}
        if annotations:
            metadata["annotations"] = annotations
        else:
            del metadata["annotations"]
    if name is not None:
        metadata.pop("generateName", None)
        metadata["name"] = name
    for key, value in source.items():
        if key not in _KEPT_METADATA and key not in _SERVER_METADATA and value not in (None, "", [], {}):
            ctx.warn(f"metadata.{key} refers to the old object; not converted")
    return metadata


def new_object(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """A v1beta1 instance type or preference."""
    return {"apiVersion": INSTANCETYPE_API, "kind": kind, "metadata": metadata, "spec": spec}


def render(value: Any) -> str:
    """A value in messages: compact JSON with sorted keys (strings unquoted at the top level)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
