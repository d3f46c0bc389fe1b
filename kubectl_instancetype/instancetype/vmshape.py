"""The shape of a VirtualMachine read from a file, checked as the API server checks it against KubeVirt's CRD schema
before anything reads its fields: a string where the schema has an integer, or ``spec: null``, is refused in the
API server's words instead of failing inside the code that reads it.

Only the fields the plugin reads from a VM manifest are described (the VirtualMachine CRD's ``openAPIV3Schema`` of
KubeVirt v1.9, types and ``required`` lists). The API server's structural schema validation
(k8s.io/apiextensions-apiserver/pkg/apiserver/validation: kube-openapi's ``InvalidType`` as ``field.TypeInvalid``)
reads ``spec.template.spec.domain.cpu.cores: Invalid value: "string": spec.template.spec.domain.cpu.cores in body
must be of type integer: "string"``; a null in a field that is not nullable is dropped first
(``PruneNonNullableNullsWithoutDefaults``), so ``spec: null`` reads ``spec: Required value``. The problems are
joined as apimachinery's ``NewInvalid`` joins them (``VirtualMachine.kubevirt.io "vm" is invalid: ...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# A node: a type name, or (type name, properties or element node, required names).
_STRINGS = ("object-of", "string")
_QUANTITIES = ("object-of", "int-or-string")
_MATCHER = ("object", {"name": "string", "kind": "string", "revisionName": "string", "inferFromVolume": "string"}, ())
_METADATA = ("object", {"name": "string", "namespace": "string", "labels": _STRINGS, "annotations": _STRINGS}, ())
_CPU = (
    "object",
    {
        "sockets": "integer",
        "cores": "integer",
        "threads": "integer",
        "maxSockets": "integer",
        "dedicatedCpuPlacement": "boolean",
        "isolateEmulatorThread": "boolean",
        "model": "string",
    },
    (),
)
_DOMAIN = (
    "object",
    {
        "cpu": _CPU,
        "memory": ("object", {"guest": "int-or-string", "hugepages": ("object", {"pageSize": "string"}, ())}, ()),
        "resources": ("object", {"requests": _QUANTITIES, "limits": _QUANTITIES}, ()),
        "devices": ("object", {}, ()),
        "features": ("object", {}, ()),
        "firmware": ("object", {}, ()),
        "machine": ("object", {"type": "string"}, ()),
        "clock": ("object", {}, ()),
    },
    (),
)
_TEMPLATE = (
    "object",
    {
        "metadata": _METADATA,
        "spec": (
            "object",
            {
                "domain": _DOMAIN,
                "volumes": ("array-of", ("object", {}, ())),
                "networks": ("array-of", ("object", {}, ())),
            },
            ("domain",),
        ),
    },
    (),
)
VIRTUAL_MACHINE = (
    "object",
    {
        "metadata": _METADATA,
        "spec": (
            "object",
            {
                "template": _TEMPLATE,
                "instancetype": _MATCHER,
                "preference": _MATCHER,
                "running": "boolean",
                "runStrategy": "string",
                "dataVolumeTemplates": ("array-of", ("object", {}, ())),
            },
            ("template",),
        ),
    },
    ("spec",),
)


def _json_type(value: Any) -> str:
    """kube-openapi's name for the type of a decoded JSON value (``integer`` for a whole number)."""
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
    return "object" if isinstance(value, Mapping) else "null"


def _fits(wanted: str, value: Any) -> bool:
    got = _json_type(value)
    if wanted == "int-or-string":
        return got in ("integer", "string")
    if wanted == "number":
        return got in ("integer", "number")
    return got == wanted


def _check(value: Any, node: Any, path: str, found: list[str]) -> None:
    kind = node if isinstance(node, str) else node[0]
    wanted = {"object-of": "object", "array-of": "array"}.get(kind, kind)
    if not _fits(wanted, value):
        got = _json_type(value)
        shown = "integer or string" if wanted == "int-or-string" else wanted
        found.append(f'{path}: Invalid value: "{got}": {path} in body must be of type {shown}: "{got}"')
        return
    if isinstance(node, str):
        return
    if kind == "object-of":
        for key, item in value.items():
            if item is not None:
                _check(item, node[1], f"{path}.{key}", found)
    elif kind == "array-of":
        for index, item in enumerate(value):
            if item is not None:
                _check(item, node[1], f"{path}[{index}]", found)
    else:
        for key, item in value.items():
            child = node[1].get(key)
            if child is not None and item is not None:
                _check(item, child, f"{path}.{key}" if path else key, found)
        for key in node[2]:
            if value.get(key) is None:  # absent, or a null the API server drops before validating
                found.append(f"{path}.{key}: Required value" if path else f"{key}: Required value")


def problems(vm: Mapping[str, Any]) -> list[str]:
    """What the API server's schema validation would say of ``vm``'s fields the plugin reads, in document order."""
    found: list[str] = []
    _check(vm, VIRTUAL_MACHINE, "", found)
    return found


def invalid(vm: Mapping[str, Any]) -> str | None:
    """apimachinery's ``NewInvalid`` sentence for ``vm`` (``VirtualMachine.kubevirt.io "name" is invalid: ...``), or
    None when its shape is what the schema allows."""
    found = problems(vm)
    if not found:
        return None
    from ..golang.strconv import go_quote

    name = str((vm.get("metadata") or {}).get("name") or "") if isinstance(vm.get("metadata"), Mapping) else ""
    joined = found[0] if len(found) == 1 else "[" + ", ".join(found) + "]"
    return f"VirtualMachine.kubevirt.io {go_quote(name)} is invalid: {joined}"
