"""``fleet diff``: the instance types and preferences of several contexts compared (missing, different fields,
another common-instancetypes release), each context read in parallel through :func:`.fleet.across_contexts`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..instancetype.fleetdiff import Finding, Key, compare

if TYPE_CHECKING:
    from ..kube.fleet import Fleet
    from ..kube.resources import Resource
    from ..kube.session import Session


@dataclass(frozen=True)
class FleetDiffRequest:
    """Which kinds (``VirtualMachineClusterInstancetype``, ...) to compare, and whether namespaced ones are read in
    every namespace (``-A``) rather than each context's namespace."""

    kinds: tuple[str, ...]
    all_namespaces: bool = False


@dataclass(frozen=True)
class FleetDiff:
    """What ``fleet diff`` found: the contexts compared (those that answered) and those that failed (context,
    error), the findings, and each context's objects as compared (for the unified diffs of ``-o diff``)."""

    compared: tuple[str, ...]
    failed: tuple[tuple[str, BaseException], ...]
    findings: tuple[Finding, ...]
    objects: Mapping[str, Mapping[Key, Mapping[str, Any]]]
    kinds: tuple[str, ...]


def _resources(kinds: Sequence[str]) -> list[Resource]:
    from ..kube import resources

    known = {
        resource.kind: resource
        for resource in (
            resources.CLUSTER_INSTANCETYPES,
            resources.INSTANCETYPES,
            resources.CLUSTER_PREFERENCES,
            resources.PREFERENCES,
        )
    }
    return [known[kind] for kind in kinds]


def read_types(session: Session, kinds: Sequence[str], all_namespaces: bool) -> dict[Key, dict[str, Any]]:
    """One context's objects of ``kinds``, as ``catalog diff`` compares them, by :class:`Key`."""
    from .catalog_install import comparable

    client = session.client()
    found: dict[Key, dict[str, Any]] = {}
    for resource in _resources(kinds):
        namespace = None if all_namespaces or not resource.namespaced else session.namespace
        for page in client.list_pages(resource, namespace):
            for item in page.get("items") or ():
                metadata = item.get("metadata") or {}
                key = Key(resource.kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
                found[key] = comparable(item)
    return found


def fleet_diff(fleet: Fleet, request: FleetDiffRequest) -> FleetDiff:
    """Read every context, then compare (only the contexts that answered)."""
    from .fleet import across_contexts

    result = across_contexts(fleet, lambda session: read_types(session, request.kinds, request.all_namespaces))
    objects = {one.context: one.value for one in result.results if one.error is None and one.value is not None}
    failed = tuple((one.context, one.error) for one in result.results if one.error is not None)
    compared = tuple(one.context for one in result.results if one.context in objects)
    return FleetDiff(compared, failed, tuple(compare(compared, objects, request.kinds)), objects, request.kinds)
