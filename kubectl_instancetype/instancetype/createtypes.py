"""``create instancetype`` and ``create preference``: the manifests ``virtctl create instancetype|preference`` prints.

Pure builders over parsed flag values, with virtctl's (KubeVirt v1.8/v1.9) defaults, generated names and
exact error texts. Both commands emit the cluster-scoped kind unless ``--namespaced`` is set; an explicit
``-n/--namespace`` also selects the namespaced kind and is written to ``metadata.namespace``.

What differs from virtctl on purpose is listed once, for every ``create`` command, in
:mod:`kubectl_instancetype.instancetype.differences`. This module does not import the ``create vm`` builder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..golang.quantity import QuantityError, canonical_quantity, parse_quantity
from .differences import DIFFERENCES_FROM_VIRTCTL as DIFFERENCES_FROM_VIRTCTL
from .params import (
    FLAG_BOOL,
    FLAG_STRING,
    FLAG_STRING_ARRAY,
    FLAG_UINT32,
    FlagOptions,
    FlagSpec,
    Param,
    flag_error,
    parse_params,
    random_string,
)

API_VERSION = "instancetype.kubevirt.io/v1beta1"
IOTHREADS_POLICIES = ("auto", "shared")
CPU_TOPOLOGIES = (
    "preferSockets",
    "preferCores",
    "preferThreads",
    "preferSpread",
    "preferAny",
    "sockets",
    "cores",
    "threads",
    "spread",
    "any",
)
DEVICE_PARAMS = (Param("name"), Param("devicename"))

INSTANCETYPE_FLAGS: tuple[FlagSpec, ...] = (
    FlagSpec("name", FLAG_STRING, "", "Specify the name of the Instancetype."),
    FlagSpec("cpu", FLAG_UINT32, 0, "Specify the count of CPUs of the Instancetype.", required=True),
    FlagSpec("memory", FLAG_STRING, "", "Specify the amount of memory of the Instancetype.", required=True),
    FlagSpec(
        "iothreadspolicy",
        FLAG_STRING,
        "",
        'Specify IOThreadsPolicy to be used. Only valid values are "auto" and "shared".',
    ),
    FlagSpec(
        "namespaced",
        FLAG_BOOL,
        False,
        "Specify if VirtualMachineInstancetype should be created. By default VirtualMachineClusterInstancetype "
        "is created.",
    ),
    FlagSpec("gpu", FLAG_STRING_ARRAY, (), "Specify the list of vGPUs to passthrough. Can be provided multiple times."),
    FlagSpec(
        "hostdevice",
        FLAG_STRING_ARRAY,
        (),
        "Specify list of HostDevices to passthrough. Can be provided multiple times.",
    ),
)
INSTANCETYPE_FLAGS_BY_NAME: dict[str, FlagSpec] = {spec.name: spec for spec in INSTANCETYPE_FLAGS}

PREFERENCE_FLAGS: tuple[FlagSpec, ...] = (
    FlagSpec(
        "namespaced",
        FLAG_BOOL,
        False,
        "Specify if VirtualMachinePreference should be created. By default VirtualMachineClusterPreference is created.",
    ),
    FlagSpec("name", FLAG_STRING, "", "Specify the name of the Preference."),
    FlagSpec("volume-storage-class", FLAG_STRING, "", "Defines the preferred storage class"),
    FlagSpec("machine-type", FLAG_STRING, "", "Defines the preferred machine type to use."),
    FlagSpec("cpu-topology", FLAG_STRING, "", "Defines the preferred guest visible CPU topology."),
)
PREFERENCE_FLAGS_BY_NAME: dict[str, FlagSpec] = {spec.name: spec for spec in PREFERENCE_FLAGS}

INSTANCETYPE_SHORT_HELP = "Create VirtualMachineInstancetype or VirtualMachineClusterInstancetype manifest."
PREFERENCE_SHORT_HELP = "Create a VirtualMachinePreference or VirtualMachineClusterPreference manifest."
# Help examples; ``.format(prog="kubectl instancetype")`` fills in the command prefix.
INSTANCETYPE_EXAMPLES = """\
  # Create a manifest for a ClusterInstancetype with a random name:
  {prog} create instancetype --cpu 2 --memory 256Mi

  # Create a manifest for a ClusterInstancetype with a specified name:
  {prog} create instancetype --name my-instancetype --cpu 2 --memory 256Mi

  # Create a manifest for a ClusterInstancetype with a specified gpu:
  {prog} create instancetype --cpu 2 --memory 256Mi --gpu name:gpu1,devicename:nvidia

  # Create a manifest for a Instancetype with a specified name and cpu:
  {prog} create instancetype --namespaced --name my-instancetype --cpu 2 --memory 256Mi

  # Create a manifest for a ClusterInstancetype and use it to create a resource with kubectl
  {prog} create instancetype --cpu 2 --memory 256Mi | kubectl create -f -"""
PREFERENCE_EXAMPLES = """\
  # Create a manifest for a ClusterPreference with a random name:
  {prog} create preference

  # Create a manifest for a ClusterPreference with a specified CPU topology:
  {prog} create preference --cpu-topology sockets

  # Create a manifest for a Preference with a specified CPU topology:
  {prog} create preference --cpu-topology sockets --namespaced

  # Create a manifest for a ClusterPreference and use it to create a resource with kubectl
  {prog} create preference --volume-storage-class hostpath-provisioner | kubectl create -f -"""


@dataclass(frozen=True)
class InstancetypeOptions(FlagOptions):
    """Every ``create instancetype`` flag value, the flags given on the command line, and ``-n`` when given."""

    name: str = ""
    cpu: int = 0
    memory: str = ""
    iothreadspolicy: str = ""
    namespaced: bool = False
    gpu: tuple[str, ...] = ()
    hostdevice: tuple[str, ...] = ()
    namespace: str | None = None
    changed: frozenset[str] = field(default_factory=frozenset)

    flag_specs = INSTANCETYPE_FLAGS_BY_NAME


@dataclass(frozen=True)
class PreferenceOptions(FlagOptions):
    """Every ``create preference`` flag value, the flags given on the command line, and ``-n`` when given."""

    namespaced: bool = False
    name: str = ""
    volume_storage_class: str = ""
    machine_type: str = ""
    cpu_topology: str = ""
    namespace: str | None = None
    changed: frozenset[str] = field(default_factory=frozenset)

    flag_specs = PREFERENCE_FLAGS_BY_NAME


def required_flags_error(specs: tuple[FlagSpec, ...], changed: frozenset[str]) -> UsageError | None:
    """cobra's ``required flag(s) "a", "b" not set`` for required flags that were not given (sorted by name)."""
    missing = sorted(spec.name for spec in specs if spec.required and spec.name not in changed)
    if not missing:
        return None
    return UsageError("required flag(s) " + ", ".join(f'"{name}"' for name in missing) + " not set")


def _metadata(
    options: InstancetypeOptions | PreferenceOptions, namespaced: bool, prefix: str, random_suffix: Callable[[int], str]
) -> dict[str, Any]:
    """``metadata`` with the given or a generated name (``<prefix>-XXXXX`` or ``cluster<prefix>-XXXXX``)."""
    if "name" in options.changed:
        name = options.name
    else:
        name = f"{prefix}-{random_suffix(5)}" if namespaced else f"cluster{prefix}-{random_suffix(5)}"
    metadata = {}
    if name:
        metadata["name"] = name
    if namespaced and options.namespace:
        metadata["namespace"] = options.namespace
    return metadata


def _devices(flag: str, values: tuple[str, ...]) -> list[dict[str, Any]]:
    devices = []
    for value in values:
        params = parse_params(flag, value, DEVICE_PARAMS)
        if not params.get("name"):
            raise flag_error(flag, "name must be specified")
        if not params.get("devicename"):
            raise flag_error(flag, "deviceName must be specified")
        devices.append({"name": params["name"], "deviceName": params["devicename"]})
    return devices


def build_instancetype(
    options: InstancetypeOptions, *, random_suffix: Callable[[int], str] | None = None
) -> dict[str, Any]:
    """The VirtualMachine(Cluster)Instancetype manifest virtctl prints for ``options``.

    Raises :class:`UsageError` with virtctl's message (missing required flags, bad memory quantity,
    zero CPUs, bad ``--gpu`` / ``--hostdevice`` params, unsupported ``--iothreadspolicy``).
    """
    error = required_flags_error(INSTANCETYPE_FLAGS, options.changed)
    if error:
        raise error
    namespaced = options.namespaced or bool(options.namespace)
    metadata = _metadata(options, namespaced, "instancetype", random_suffix or random_string)
    try:
        memory = canonical_quantity(options.memory)
    except QuantityError as exc:
        raise UsageError(str(exc)) from None
    if options.cpu <= 0:
        raise UsageError("cpu value must be greater than zero")
    spec: dict[str, Any] = {"cpu": {"guest": options.cpu}, "memory": {"guest": memory}}
    if "gpu" in options.changed:
        gpus = _devices("gpu", options.gpu)
        if gpus:
            spec["gpus"] = gpus
    if "hostdevice" in options.changed:
        host_devices = _devices("hostdevice", options.hostdevice)
        if host_devices:
            spec["hostDevices"] = host_devices
    if "iothreadspolicy" in options.changed:
        if options.iothreadspolicy not in IOTHREADS_POLICIES:
            raise flag_error("iothreadspolicy", "IOThread must be of value auto or shared")
        spec["ioThreadsPolicy"] = options.iothreadspolicy
    # Beyond virtctl (which writes it into the manifest): a negative size cannot be meant; refused last so that
    # every error virtctl reports comes first.
    if parse_quantity(memory) < 0:
        raise UsageError(f"memory must not be negative: {options.memory}")
    kind = "VirtualMachineInstancetype" if namespaced else "VirtualMachineClusterInstancetype"
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def build_preference(
    options: PreferenceOptions, *, random_suffix: Callable[[int], str] | None = None
) -> dict[str, Any]:
    """The VirtualMachine(Cluster)Preference manifest virtctl prints for ``options``.

    Raises :class:`UsageError` for an unsupported ``--cpu-topology`` (the only flag virtctl validates).
    """
    namespaced = options.namespaced or bool(options.namespace)
    metadata = _metadata(options, namespaced, "preference", random_suffix or random_string)
    spec: dict[str, Any] = {}
    if "volume-storage-class" in options.changed:
        spec["volumes"] = (
            {"preferredStorageClassName": options.volume_storage_class} if options.volume_storage_class else {}
        )
    if "machine-type" in options.changed:
        spec["machine"] = {"preferredMachineType": options.machine_type} if options.machine_type else {}
    if "cpu-topology" in options.changed:
        if options.cpu_topology not in CPU_TOPOLOGIES:
            raise flag_error("cpu-topology", "CPU topology must have a value of sockets, cores, threads or spread")
        spec["cpu"] = {"preferredCPUTopology": options.cpu_topology}
    kind = "VirtualMachinePreference" if namespaced else "VirtualMachineClusterPreference"
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}
