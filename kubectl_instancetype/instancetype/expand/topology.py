"""vCPU topology from a preference's ``preferredCPUTopology`` (``pkg/instancetype/apply/cpu.go``) and the
spread divisibility rule of VM admission (``pkg/instancetype/preference/validation/cpu.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .conflicts import Conflict

SOCKETS_CORES = "SocketsCores"
CORES_THREADS = "CoresThreads"
SOCKETS_CORES_THREADS = "SocketsCoresThreads"
THREADS_PER_CORE = 2
DEFAULT_SPREAD_RATIO = 2
INSTANCETYPE_CPU_GUEST_PATH = "instancetype.spec.cpu.guest"

_SOCKETS = {"sockets", "preferSockets", "any", "preferAny"}
_CORES = {"cores", "preferCores"}
_THREADS = {"threads", "preferThreads"}
_SPREAD = {"spread", "preferSpread"}

_SPREAD_SOCKETS_CORES_ERROR = (
    "{} vCPUs provided by the instance type are not divisible by the "
    "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of {} provided by the preference"
)
_SPREAD_CORES_THREADS_ERROR = (
    "{} vCPUs provided by the instance type are not divisible by the number of threads per core {}"
)
_SPREAD_SOCKETS_CORES_THREADS_ERROR = (
    "{} vCPUs provided by the instance type are not divisible by the number of threads per core "
    "{} and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of {}"
)


def preferred_topology(preference: Mapping[str, Any] | None) -> str:
    """The preference's ``cpu.preferredCPUTopology``, ``sockets`` when the preference or the field is absent."""
    topology = ((preference or {}).get("cpu") or {}).get("preferredCPUTopology")
    return str(topology) if topology is not None else "sockets"


def spread_options(preference: Mapping[str, Any]) -> tuple[int, str]:
    """(ratio, across) of a spread topology: ``spreadOptions`` first, then ``preferSpreadSocketToCoreRatio``, then 2."""
    ratio = int(preference.get("preferSpreadSocketToCoreRatio") or 0) or DEFAULT_SPREAD_RATIO
    across = SOCKETS_CORES
    options = (preference.get("cpu") or {}).get("spreadOptions")
    if options is not None:
        if options.get("across") is not None:
            across = str(options["across"])
        if options.get("ratio") is not None:
            ratio = int(options["ratio"])
    return ratio, across


def guest_topology(vcpus: int, preference: Mapping[str, Any] | None) -> tuple[int, int, int]:
    """(sockets, cores, threads) KubeVirt gives ``vcpus`` instance type vCPUs under ``preference``.

    Spread divides with truncation, as Go's unsigned division does; the divisibility rule is only enforced
    at VM admission (:func:`check_spread`), so expansion can produce zero sockets.
    """
    sockets = cores = threads = 1
    if vcpus == 1:
        return sockets, cores, threads
    topology = preferred_topology(preference)
    if topology in _CORES:
        cores = vcpus
    elif topology in _SOCKETS:
        sockets = vcpus
    elif topology in _THREADS:
        threads = vcpus
    elif topology in _SPREAD:
        ratio, across = spread_options(preference or {})
        if across == SOCKETS_CORES:
            cores, sockets = ratio, vcpus // ratio
        elif across == CORES_THREADS:
            threads, cores = ratio, vcpus // ratio
        elif across == SOCKETS_CORES_THREADS:
            threads, cores, sockets = THREADS_PER_CORE, ratio, vcpus // THREADS_PER_CORE // ratio
    return sockets, cores, threads


def check_spread(instancetype: Mapping[str, Any] | None, preference: Mapping[str, Any] | None) -> Conflict | None:
    """VM admission's spread divisibility check: the conflict (path ``instancetype.spec.cpu.guest``) or None."""
    if instancetype is None or preferred_topology(preference) not in _SPREAD:
        return None
    ratio, across = spread_options(preference or {})
    vcpus = int((instancetype.get("cpu") or {}).get("guest") or 0)
    if ratio == 0:
        # Go divides by zero here and the webhook panics; refuse the same input with a message instead.
        return Conflict(INSTANCETYPE_CPU_GUEST_PATH, f"a spread ratio of 0 cannot divide {vcpus} vCPUs")
    if across == SOCKETS_CORES and vcpus % ratio:
        return Conflict(INSTANCETYPE_CPU_GUEST_PATH, _SPREAD_SOCKETS_CORES_ERROR.format(vcpus, ratio))
    if across == CORES_THREADS and vcpus % ratio:
        return Conflict(INSTANCETYPE_CPU_GUEST_PATH, _SPREAD_CORES_THREADS_ERROR.format(vcpus, ratio))
    if across == SOCKETS_CORES_THREADS and (vcpus % THREADS_PER_CORE or (vcpus // THREADS_PER_CORE) % ratio):
        return Conflict(
            INSTANCETYPE_CPU_GUEST_PATH, _SPREAD_SOCKETS_CORES_THREADS_ERROR.format(vcpus, THREADS_PER_CORE, ratio)
        )
    return None
