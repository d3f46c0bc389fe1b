"""Comparing the instance types and preferences of several clusters (``fleet diff``): per object, the contexts
where it is missing, where its fields differ, or where it comes from another common-instancetypes release.

Objects are compared as ``catalog diff`` compares a cluster's copy with the catalog (what
:func:`..usecases.catalog_install.comparable` keeps: name, namespace, labels and annotations without deployment
metadata, spec), here handed in already reduced. The ``common-instancetypes-version`` label is set apart: a
different release is its own finding, and the other fields are compared without it. Each context is compared with
the *base* of the object: the first context (in the kubeconfig's order) that has it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

VERSION_LABEL = "instancetype.kubevirt.io/common-instancetypes-version"
MISSING = "missing"
DIFFERENT = "different"
VERSION = "version"


@dataclass(frozen=True)
class Key:
    """One object across clusters: its kind, namespace ("" for a cluster-scoped kind) and name."""

    kind: str
    namespace: str
    name: str


@dataclass(frozen=True)
class FieldDifference:
    """One field whose value differs: its path (``spec.memory.guest``, ``metadata.labels["a/b"]``), the base's
    value and this context's (None where the field is absent)."""

    path: str
    base: Any
    value: Any


@dataclass(frozen=True)
class Finding:
    """How ``key`` differs in ``context`` from its base (``base_context``): ``missing``; ``different`` (``fields``);
    or ``version`` (another ``common-instancetypes-version``: ``base_version`` -> ``version``)."""

    key: Key
    context: str
    state: str
    base_context: str
    fields: tuple[FieldDifference, ...] = ()
    base_version: str = ""
    version: str = ""


def version_of(obj: Mapping[str, Any]) -> str:
    """The object's ``common-instancetypes-version`` label ("" without one)."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return str(labels.get(VERSION_LABEL) or "")


def without_version(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` without its ``common-instancetypes-version`` label (compared apart)."""
    metadata = dict(obj.get("metadata") or {})
    labels = {k: v for k, v in (metadata.get("labels") or {}).items() if k != VERSION_LABEL}
    if labels:
        metadata["labels"] = labels
    else:
        metadata.pop("labels", None)
    return {**obj, "metadata": metadata}


def _segment(key: str) -> str:
    plain = key.replace("_", "").replace("-", "").isalnum()
    return f".{key}" if plain else f'["{key}"]'


def field_differences(base: Any, other: Any, path: str = "") -> list[FieldDifference]:
    """The leaves where ``base`` and ``other`` differ, by path (maps compared key by key, an absent map as an empty
    one, lists as wholes)."""
    if isinstance(base, Mapping) and other is None:
        other = {}
    elif isinstance(other, Mapping) and base is None:
        base = {}
    if isinstance(base, Mapping) and isinstance(other, Mapping):
        found: list[FieldDifference] = []
        for key in sorted(set(base) | set(other)):
            found += field_differences(base.get(key), other.get(key), f"{path}{_segment(str(key))}")
        return found
    if base == other:
        return []
    return [FieldDifference(path.lstrip("."), base, other)]


def compare(
    contexts: Sequence[str], objects: Mapping[str, Mapping[Key, Mapping[str, Any]]], kinds: Sequence[str] = ()
) -> list[Finding]:
    """Every finding for the ``objects`` of each context (``context -> key -> comparable object``), objects in
    kind (``kinds``' order, then by name), namespace and name order, contexts in ``contexts``' order."""
    order = {kind: index for index, kind in enumerate(kinds)}
    keys = sorted(
        {key for held in objects.values() for key in held},
        key=lambda k: (order.get(k.kind, len(order)), k.kind, k.namespace, k.name),
    )
    findings: list[Finding] = []
    present = [context for context in contexts if context in objects]
    for key in keys:
        holders = [context for context in present if key in objects[context]]
        base_context = holders[0]
        base = objects[base_context][key]
        base_version = version_of(base)
        reduced = without_version(base)
        for context in present:
            if context == base_context:
                continue
            obj = objects[context].get(key)
            if obj is None:
                findings.append(Finding(key, context, MISSING, base_context))
                continue
            version = version_of(obj)
            if version != base_version:
                findings.append(Finding(key, context, VERSION, base_context, (), base_version, version))
            fields = field_differences(reduced, without_version(obj))
            if fields:
                findings.append(Finding(key, context, DIFFERENT, base_context, tuple(fields)))
    return findings
