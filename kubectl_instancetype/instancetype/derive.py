"""Derived custom instance types: a copy of an existing type with new vCPUs and/or memory, checked.

The copy keeps the source's spec (dedicated CPUs, hugepages, NUMA, overcommit ...) and its descriptive
labels and annotations, and is labelled as common-instancetypes labels its own types, so ``list --cpu``
and ``list --memory`` find it: ``instancetype.kubevirt.io/cpu`` and ``memory`` follow the new spec, and
``instancetype.kubevirt.io/derived-from`` names the source. Labels that would be false of the copy are
dropped: the vendor and release labels (the copy is not the vendor's), ``size`` (it no longer names the
size), ``deprecated``, and the deployment labels of virt-operator (``app.kubernetes.io/*``), which would
let the operator claim it.

Checks run before anything is sent, with the rule KubeVirt applies when a VM uses the type:
hugepages need guest memory that is at least one page and a whole number of pages (VMI admission,
``validateHugepagesMemoryRequests``); ``cpu.maxSockets`` bounds the sockets of the default topology
(``validateCPUHotplug``), so a source whose ``maxSockets`` tracked its vCPUs (cx1's dedicated-CPU types)
gets it scaled, and a fixed one smaller than ``--cpu`` is refused; ``memory.maxGuest`` bounds the guest
memory.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from ..golang.quantity import QuantityError, canonical_quantity, parse_quantity
from . import kinds

API_VERSION = kinds.API_VERSION
CLUSTER_KIND = kinds.CLUSTER_INSTANCETYPE.kind
NAMESPACED_KIND = kinds.INSTANCETYPE.kind
PREFIX = "instancetype.kubevirt.io/"
LABEL_CPU = PREFIX + "cpu"
LABEL_MEMORY = PREFIX + "memory"
LABEL_DERIVED_FROM = PREFIX + "derived-from"
DROPPED_LABELS = (
    PREFIX + "vendor",
    PREFIX + "common-instancetypes-version",
    PREFIX + "size",
    PREFIX + "deprecated",
)
DROPPED_LABEL_PREFIXES = ("app.kubernetes.io/",)
DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration", "kubevirt.io/generation")
DROPPED_ANNOTATION_PREFIXES = ("kubevirt.io/install-strategy-",)
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
LABEL_VALUE_MAX = 63


class DeriveError(ValueError):
    """An override the derived type cannot take (the CLI reports it as one ``error:`` line)."""


def _is_label_value(text: str) -> bool:
    return len(text) <= LABEL_VALUE_MAX and bool(_LABEL_VALUE.match(text))


def check_memory(memory: str, spec: Mapping[str, Any], source: str) -> str:
    """The canonical form of ``memory`` after checking it against the source spec's hugepages and maxGuest."""
    try:
        value = parse_quantity(memory)
        text = canonical_quantity(memory)
    except (QuantityError, ValueError) as exc:
        from ..errors import sentence

        raise DeriveError(
            f'invalid --memory "{memory}": {exc if isinstance(exc, QuantityError) else sentence(exc)}'
        ) from None
    if value <= 0:
        raise DeriveError(f'--memory must be more than 0 (got "{memory}")')
    page_size = ((spec.get("memory") or {}).get("hugepages") or {}).get("pageSize")
    if page_size:
        page = parse_quantity(str(page_size))
        if value < page:
            raise DeriveError(
                f"--memory {text} is smaller than the hugepages page size {page_size} of {source}: "
                f"KubeVirt requires guest memory of at least one page"
            )
        if value % page:
            raise DeriveError(
                f"--memory {text} is not a multiple of the hugepages page size {page_size} of {source}: "
                f"KubeVirt rejects the VM (memory must be a whole number of pages)"
            )
    max_guest = (spec.get("memory") or {}).get("maxGuest")
    if max_guest is not None and value > parse_quantity(str(max_guest)):
        raise DeriveError(f"--memory {text} is more than memory.maxGuest {max_guest} of {source}")
    return text


def check_cpu(cpu: int, spec: Mapping[str, Any], source: str) -> int | None:
    """Check ``cpu`` against the source spec; returns the ``maxSockets`` the copy needs (None: unchanged)."""
    if cpu < 1:
        raise DeriveError(f"--cpu must be at least 1 (got {cpu})")
    cpu_spec = spec.get("cpu") or {}
    max_sockets = cpu_spec.get("maxSockets")
    if max_sockets is None:
        return None
    if int(max_sockets) == int(cpu_spec.get("guest") or 0):
        # common-instancetypes sets maxSockets to the vCPUs (cx1): keep that relation
        return cpu
    if cpu > int(max_sockets):
        raise DeriveError(
            f"--cpu {cpu} is more than cpu.maxSockets {max_sockets} of {source}: with the default (sockets) "
            "topology KubeVirt rejects the VM (Number of sockets in CPU topology is greater than the maximum "
            "sockets allowed)"
        )
    return None


def derive(
    source: Mapping[str, Any],
    *,
    name: str,
    memory: str | None = None,
    cpu: int | None = None,
    namespace: str | None = None,
) -> dict[str, Any]:
    """The derived instance type (cluster-scoped, or namespaced in ``namespace``) from the source object."""
    source_name = str((source.get("metadata") or {}).get("name", ""))
    spec: dict[str, Any] = copy.deepcopy(dict(source.get("spec") or {}))
    if cpu is not None:
        max_sockets = check_cpu(cpu, spec, source_name)
        spec.setdefault("cpu", {})["guest"] = cpu
        if max_sockets is not None:
            spec["cpu"]["maxSockets"] = max_sockets
    if memory is not None:
        spec.setdefault("memory", {})["guest"] = check_memory(memory, spec, source_name)
    metadata = source.get("metadata") or {}
    labels = {
        key: str(value)
        for key, value in (metadata.get("labels") or {}).items()
        if key not in DROPPED_LABELS and not key.startswith(DROPPED_LABEL_PREFIXES)
    }
    annotations = {
        key: str(value)
        for key, value in (metadata.get("annotations") or {}).items()
        if key not in DROPPED_ANNOTATIONS and not key.startswith(DROPPED_ANNOTATION_PREFIXES)
    }
    guest_cpu = (spec.get("cpu") or {}).get("guest")
    guest_memory = (spec.get("memory") or {}).get("guest")
    if guest_cpu is not None:
        labels[LABEL_CPU] = str(guest_cpu)
    if guest_memory is not None:
        labels[LABEL_MEMORY] = str(guest_memory)
    if _is_label_value(source_name):
        labels[LABEL_DERIVED_FROM] = source_name
    else:
        # a name longer than a label value allows (or with other characters) is kept as an annotation
        annotations[LABEL_DERIVED_FROM] = source_name
    new_metadata: dict[str, Any] = {"name": name}
    if namespace:
        new_metadata["namespace"] = namespace
    new_metadata["labels"] = dict(sorted(labels.items()))
    if annotations:
        new_metadata["annotations"] = dict(sorted(annotations.items()))
    return {
        "apiVersion": API_VERSION,
        "kind": NAMESPACED_KIND if namespace else CLUSTER_KIND,
        "metadata": new_metadata,
        "spec": spec,
    }
