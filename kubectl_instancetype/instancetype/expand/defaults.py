"""What KubeVirt adds around the application: default disks and the default pod network before it
(``util.SetDefaultVolumeDisk``, ``vmispec.SetDefaultNetworkInterface``), and VMI-spec defaults after it
(``defaults.SetDefaultVirtualMachineInstanceSpec``), with the cluster-dependent values configurable."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ...golang.quantity import QuantityError, canonical_quantity, integer_value, parse_quantity
from ...records import dataclass, field
from ._tree import DEFAULT, Json, Provenance, child, is_set

DEFAULT_MACHINE_TYPES: Mapping[str, str] = {"amd64": "q35", "arm64": "virt", "s390x": "s390-ccw-virtio"}
DEFAULT_CPU_REQUEST = "100m"


@dataclass(frozen=True)
class ClusterDefaults:
    """The cluster configuration the defaults depend on (KubeVirt CR ``spec.configuration``), KubeVirt's defaults.

    ``architecture`` None leaves an unset architecture unset (the cluster's is unknown).
    """

    architecture: str | None = "amd64"
    machine_type: str = ""  # spec.configuration.machineType (deprecated cluster-wide override)
    machine_types: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_MACHINE_TYPES))
    cpu_request: str = DEFAULT_CPU_REQUEST
    eviction_strategy: str | None = "None"
    network_interface: str = "bridge"
    permit_bridge_interface_on_pod_network: bool = True

    def machine_type_for(self, architecture: str) -> str:
        """``ClusterConfig.GetMachineType``: the cluster-wide override, else the one of the architecture."""
        if self.machine_type:
            return self.machine_type
        if architecture in ("arm64", "s390x"):
            return self.machine_types.get(architecture, "")
        return self.machine_types.get("amd64", "")


class DefaultsError(Exception):
    """A default that KubeVirt refuses to apply (``bridge interface is not enabled in kubevirt-config``)."""


def _at(base: str, path: str) -> str:
    return f"{base}.{path}"


def default_volume_disks(base: str, spec: Json, provenance: Provenance) -> None:
    """Append ``{name}`` to the disks for every volume that has neither a disk nor a filesystem."""
    devices = child(child(spec, "domain"), "devices")
    taken = {disk.get("name") for disk in devices.get("disks") or []}
    taken |= {fs.get("name") for fs in devices.get("filesystems") or []}
    for volume in spec.get("volumes") or []:
        if volume.get("name") not in taken:
            disks = devices["disks"] = [*(devices.get("disks") or []), {"name": volume.get("name")}]
            provenance.record(_at(base, f"domain.devices.disks[{len(disks) - 1}]"), DEFAULT)


def default_network_interface(base: str, spec: Json, defaults: ClusterDefaults, provenance: Provenance) -> None:
    """The default pod network and its interface, only when the VM has neither networks nor interfaces."""
    devices = child(child(spec, "domain"), "devices")
    if devices.get("autoattachPodInterface") is False:
        return
    if spec.get("networks") or devices.get("interfaces"):
        return
    if defaults.network_interface == "bridge":
        if not defaults.permit_bridge_interface_on_pod_network:
            raise DefaultsError("bridge interface is not enabled in kubevirt-config")
        devices["interfaces"] = [{"name": "default", "bridge": {}}]
        provenance.record(_at(base, "domain.devices.interfaces[0]"), DEFAULT)
    elif defaults.network_interface == "masquerade":
        devices["interfaces"] = [{"name": "default", "masquerade": {}}]
        provenance.record(_at(base, "domain.devices.interfaces[0]"), DEFAULT)
    elif defaults.network_interface == "slirp":
        raise DefaultsError("slirp interface is deprecated as of v1.3")
    spec["networks"] = [{"name": "default", "pod": {}}]
    provenance.record(_at(base, "networks[0]"), DEFAULT)


def _is_zero(resources: Json, kind: str, name: str) -> bool:
    value = (resources.get(kind) or {}).get(name)
    try:
        return value is None or parse_quantity(str(value)) == 0
    except QuantityError:
        return True


def _resource_requests(base: str, spec: Json, defaults: ClusterDefaults, provenance: Provenance) -> None:
    domain = child(spec, "domain")
    resources = domain.get("resources") or {}
    if not _is_zero(resources, "limits", "cpu") and _is_zero(resources, "requests", "cpu"):
        child(child(domain, "resources"), "requests")["cpu"] = canonical_quantity(str(resources["limits"]["cpu"]))
        provenance.record(_at(base, "domain.resources.requests.cpu"), DEFAULT)
    if parse_quantity(defaults.cpu_request) != Fraction(1, 10) and "cpu" not in (resources.get("requests") or {}):
        if (domain.get("cpu") or {}).get("dedicatedCpuPlacement"):
            return
        child(child(domain, "resources"), "requests")["cpu"] = canonical_quantity(defaults.cpu_request)
        provenance.record(_at(base, "domain.resources.requests.cpu"), DEFAULT)


def _guest_memory(base: str, spec: Json, provenance: Provenance) -> None:
    domain = child(spec, "domain")
    memory = child(domain, "memory")
    if is_set(memory, "guest"):
        return
    resources = domain.get("resources") or {}
    guest = None
    if not _is_zero(resources, "requests", "memory"):
        guest = canonical_quantity(str(resources["requests"]["memory"]))
    elif not _is_zero(resources, "limits", "memory"):
        guest = canonical_quantity(str(resources["limits"]["memory"]))
    elif is_set(memory, "hugepages"):
        try:
            guest = canonical_quantity(str(memory["hugepages"].get("pageSize") or ""))
        except QuantityError:
            guest = None
    if guest is not None:
        memory["guest"] = guest
        provenance.record(_at(base, "domain.memory.guest"), DEFAULT)


def _guest_topology(base: str, spec: Json, provenance: Provenance) -> None:
    domain = child(spec, "domain")
    cpu = domain.get("cpu")
    if cpu is not None and (cpu.get("cores") or cpu.get("sockets") or cpu.get("threads")):
        return
    cpu = child(domain, "cpu")
    resources = domain.get("resources") or {}
    sockets = 1
    # The socket count comes from a CPU limit, else a CPU request, wrapped to uint32 as Go converts it.
    for kind in ("limits", "requests"):
        if "cpu" in (resources.get(kind) or {}):
            sockets = integer_value(str(resources[kind]["cpu"])) & 0xFFFFFFFF
            break
    for name, value in (("sockets", sockets), ("cores", 1), ("threads", 1)):
        if value:
            cpu[name] = value
        else:
            cpu.pop(name, None)
        provenance.record(_at(base, f"domain.cpu.{name}"), DEFAULT)


def _pull_policies(base: str, spec: Json, provenance: Provenance) -> None:
    for index, volume in enumerate(spec.get("volumes") or []):
        disk = volume.get("containerDisk")
        if disk is None or disk.get("imagePullPolicy"):
            continue
        image = str(disk.get("image") or "")
        untagged = ":" not in image and "@" not in image
        disk["imagePullPolicy"] = "Always" if image.endswith(":latest") or untagged else "IfNotPresent"
        provenance.record(_at(base, f"volumes[{index}].containerDisk.imagePullPolicy"), DEFAULT)


def vmi_spec_defaults(base: str, spec: Json, defaults: ClusterDefaults, provenance: Provenance) -> None:
    """``SetDefaultVirtualMachineInstanceSpec`` on the template spec, in KubeVirt's order."""
    if not spec.get("architecture") and defaults.architecture:
        spec["architecture"] = defaults.architecture
        provenance.record(_at(base, "architecture"), DEFAULT)
    machine = child(child(spec, "domain"), "machine")
    if not machine.get("type"):
        machine["type"] = defaults.machine_type_for(str(spec.get("architecture") or ""))
        provenance.record(_at(base, "domain.machine.type"), DEFAULT)
    _resource_requests(base, spec, defaults, provenance)
    _guest_memory(base, spec, provenance)
    _guest_topology(base, spec, provenance)
    _pull_policies(base, spec, provenance)
    if not is_set(spec, "evictionStrategy") and defaults.eviction_strategy is not None:
        spec["evictionStrategy"] = defaults.eviction_strategy
        provenance.record(_at(base, "evictionStrategy"), DEFAULT)
    default_network_interface(base, spec, defaults, provenance)
    default_volume_disks(base, spec, provenance)
