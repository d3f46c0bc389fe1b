"""Preference requirements, checked as KubeVirt's VM admission checks them (``pkg/instancetype/preference/requirements``).

KubeVirt runs the check on a copy of the VM with the instance type applied and VMI defaults set; this
module takes the parts that matter (the template's CPU, memory and architecture) and returns KubeVirt's own
message for the first unmet requirement, in KubeVirt's order: CPU, memory, architecture.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DENIAL_PREFIX = "failure checking preference requirements: "


def _preferred_topology(preference: Mapping[str, Any]) -> str:
    topology = ((preference.get("cpu") or {}).get("preferredCPUTopology")) or "sockets"
    # the deprecated long names (preferSockets ...) mean the same
    return topology[len("prefer") :].lower() if topology.startswith("prefer") else topology


def _spread_across(preference: Mapping[str, Any]) -> str:
    return (((preference.get("cpu") or {}).get("spreadOptions") or {}).get("across")) or "SocketsCores"


def _check_cpu(
    instancetype: Mapping[str, Any] | None, preference: Mapping[str, Any], template: Mapping[str, Any]
) -> str | None:
    required = int(preference["requirements"]["cpu"]["guest"])
    if instancetype is not None:
        provided = int((instancetype.get("cpu") or {}).get("guest") or 0)
        if provided < required:
            return (
                f"insufficient CPU resources of {provided} vCPU provided by instance type, "
                f"preference requires {required} vCPU"
            )
        return None
    cpu = (template.get("domain") or {}).get("cpu")
    # VMI defaulting gives a VM without any topology one socket, one core and one thread.
    sockets, cores, threads = (int((cpu or {}).get(key) or 0) for key in ("sockets", "cores", "threads"))
    if not (sockets or cores or threads):
        sockets = cores = threads = 1
    topology = _preferred_topology(preference)
    if topology in ("sockets", "cores", "threads"):
        provided = {"sockets": sockets, "cores": cores, "threads": threads}[topology]
        described = topology
    elif topology == "any":
        provided, described = cores * sockets * threads, "cores, sockets and threads"
    elif topology == "spread":
        described = _spread_across(preference)
        provided = {
            "SocketsCores": sockets * cores,
            "CoresThreads": cores * threads,
            "SocketsCoresThreads": sockets * cores * threads,
        }.get(described, 0)
    else:
        return None
    if provided < required:
        return (
            f"insufficient CPU resources of {provided} vCPU provided by VirtualMachine, "
            f"preference requires {required} vCPU provided as {described}"
        )
    return None


def _check_memory(
    instancetype: Mapping[str, Any] | None, preference: Mapping[str, Any], template: Mapping[str, Any]
) -> str | None:
    from ..golang.quantity import canonical_quantity, parse_quantity

    required = str(preference["requirements"]["memory"]["guest"])
    provided, source = "0", "VirtualMachine"
    if instancetype is not None:
        provided, source = str((instancetype.get("memory") or {}).get("guest") or "0"), "instance type"
    vm_guest = (((template.get("domain") or {}).get("memory")) or {}).get("guest")
    if vm_guest is not None:
        provided = str(vm_guest)
    if parse_quantity(provided) < parse_quantity(required):
        return (
            f"insufficient Memory resources of {canonical_quantity(provided)} provided by {source}, "
            f"preference requires {canonical_quantity(required)}"
        )
    return None


def _check_architecture(preference: Mapping[str, Any], template: Mapping[str, Any]) -> str | None:
    required = preference["requirements"]["architecture"]
    # KubeVirt's mutating webhook fills an empty architecture from preferredArchitecture first; without
    # either, the cluster's default decides, which a client cannot see, so nothing is reported then.
    requested = template.get("architecture") or preference.get("preferredArchitecture")
    if requested and requested != required:
        return f"preference requires architecture {required} but {requested} is being requested"
    return None


def unmet_requirement(
    instancetype: Mapping[str, Any] | None, preference: Mapping[str, Any] | None, template: Mapping[str, Any]
) -> str | None:
    """KubeVirt's message for the first requirement of ``preference`` (a spec) that the VM does not meet.

    ``instancetype`` is the instance type's spec (None without one); ``template`` is the VM's
    ``spec.template.spec``. Returns None when every requirement is met.
    """
    found = unmet_requirement_of(instancetype, preference, template)
    return found[1] if found is not None else None


def unmet_requirement_of(
    instancetype: Mapping[str, Any] | None, preference: Mapping[str, Any] | None, template: Mapping[str, Any]
) -> tuple[str, str] | None:
    """:func:`unmet_requirement` with which requirement it is: ``("cpu" | "memory" | "architecture", message)``."""
    if not preference:
        return None
    requirements = preference.get("requirements")
    if not requirements:
        return None
    if requirements.get("cpu"):
        problem = _check_cpu(instancetype, preference, template)
        if problem:
            return "cpu", problem
    if requirements.get("memory"):
        problem = _check_memory(instancetype, preference, template)
        if problem:
            return "memory", problem
    if requirements.get("architecture"):
        problem = _check_architecture(preference, template)
        if problem:
            return "architecture", problem
    return None
