"""Every KubeVirt CR input that changes the virt-launcher pod's scheduling part, as one frozen value.

``LauncherConfig.from_kubevirt(cr)`` reads it as virt-controller's ``ClusterConfig`` does
(``pkg/virt-config/configuration.go`` ``GetConfig``: the CR's ``spec.configuration`` JSON-decoded over
``defaultClusterConfig``, ``status.defaultArchitecture`` copied in, then ``validateConfig``; a CR without
``status.phase`` is ignored, as ``GetConfigFromKubeVirtCR`` ignores it). ``LauncherConfig()`` is KubeVirt
v1.9.0's defaults on an amd64 control plane: what an offline prediction uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..jsoncopy import clone

# pkg/virt-config/featuregate: the gates whose state changes the pod, with their v1.9.0 state (Beta gates are
# on unless disabled, Alpha gates off unless enabled; featuregate.IsEnabled).
BETA = "Beta"
ALPHA = "Alpha"
FEATURE_GATES: Mapping[str, str] = {
    "ImageVolume": BETA,  # containerDisks as image volumes: init containers instead of containers
    "ExternalNetResourceInjection": BETA,  # no NetworkAttachmentDefinition resource names on the pod
    "GPUsWithDRA": BETA,
    "HostDevicesWithDRA": BETA,
    "HypervStrictCheck": ALPHA,  # hyperv.node.kubevirt.io/<feature> node selectors
    "CrossArchitectureVirtualization": ALPHA,  # kubevirt.io/vm-arch-<arch> instead of kubernetes.io/arch
    "IOMMUFD": ALPHA,  # devices.kubevirt.io/iommufd
    "AlignCPUs": ALPHA,  # EmulatorThreadCompleteToEvenParity copied from the CR to the VMI
}

DEFAULT_MACHINE_TYPES: Mapping[str, str] = {"amd64": "q35", "arm64": "virt", "s390x": "s390-ccw-virtio"}
EVEN_PARITY_ANNOTATION = "alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity"


def default_configuration(architecture: str = "amd64") -> dict[str, Any]:
    """The parts of ``defaultClusterConfig`` (pkg/virt-config/virt-config.go) that the launcher pod reads."""
    return {
        "imagePullPolicy": "IfNotPresent",
        "developerConfiguration": {
            "useEmulation": False,
            "memoryOvercommit": 100,
            "nodeSelectors": {},
            "cpuAllocationRatio": 10,
        },
        "cpuRequest": "100m",
        "networkConfiguration": {"defaultNetworkInterface": "bridge", "permitBridgeInterfaceOnPodNetwork": True},
        "architectureConfiguration": {
            "amd64": {"machineType": "q35"},
            "arm64": {"machineType": "virt"},
            "s390x": {"machineType": "s390-ccw-virtio"},
            "defaultArchitecture": architecture,
        },
    }


def _json_decode_over(target: Any, source: Any) -> Any:
    """``json.Unmarshal(source, &target)`` on decoded JSON: objects merge key by key (Go decodes into the
    existing struct or map), everything else (lists, scalars, null) replaces."""
    if isinstance(target, dict) and isinstance(source, dict):
        for key, value in source.items():
            target[key] = _json_decode_over(target.get(key), value)
        return target
    return clone(source)


class ConfigError(ValueError):
    """A KubeVirt configuration virt-controller refuses (``validateConfig``); it keeps its last valid one."""


@dataclass(frozen=True)
class LauncherConfig:
    """The KubeVirt CR's inputs to the launcher pod (``spec.configuration`` merged over KubeVirt's defaults).

    ``source`` names where it came from (``kubevirt/kubevirt``, or ``KubeVirt v1.9.0 defaults``).
    """

    cpu_allocation_ratio: int = 10
    memory_overcommit: int = 100
    cpu_request: str = "100m"
    cpu_model: str = ""
    additional_guest_memory_overhead_ratio: str | None = None
    support_container_resources: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    node_selectors: Mapping[str, str] = field(default_factory=dict)
    auto_cpu_limit_namespace_label_selector: Mapping[str, Any] | None = None
    default_architecture: str = "amd64"
    cluster_cpu_arch: str = "amd64"
    machine_type: str = ""
    machine_types: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_MACHINE_TYPES))
    network_interface: str = "bridge"
    permit_bridge_interface_on_pod_network: bool = True
    use_emulation: bool = False
    serial_console_log_disabled: bool = False
    feature_gates: tuple[str, ...] = ()
    disabled_feature_gates: tuple[str, ...] = ()
    permitted_host_devices: Mapping[str, Any] | None = None
    network_bindings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    default_runtime_class: str = ""
    minimum_cluster_tsc_frequency: int | None = None
    cr_annotations: Mapping[str, str] = field(default_factory=dict)
    source: str = "KubeVirt v1.9.0 defaults"

    def gate(self, name: str) -> bool:
        """``featuregate.IsEnabled``: explicitly enabled, else not disabled and Beta."""
        if name in self.feature_gates:
            return True
        if name in self.disabled_feature_gates:
            return False
        return FEATURE_GATES.get(name) == BETA

    def machine_type_for(self, architecture: str) -> str:
        """``ClusterConfig.GetMachineType``."""
        if self.machine_type:
            return self.machine_type
        key = architecture if architecture in ("arm64", "s390x") else "amd64"
        return self.machine_types.get(key, "")

    def support_container(self, kind: str, section: str, resource: str) -> str | None:
        """``GetSupportContainerRequest`` / ``GetSupportContainerLimit``: the first entry of type ``kind`` whose
        ``resources.<section>.<resource>`` is set and not zero."""
        from ...golang.quantity import QuantityError, parse_quantity

        for entry_kind, resources in self.support_container_resources:
            if entry_kind != kind:
                continue
            value = (resources.get(section) or {}).get(resource)
            if value is None:
                continue
            try:
                if parse_quantity(str(value)) != 0:
                    return str(value)
            except QuantityError:
                continue
        return None

    @property
    def even_parity(self) -> bool:
        """Whether the VMI mutator copies ``EmulatorThreadCompleteToEvenParity`` from the CR
        (``ApplyNewVMIMutations``: the CR annotation and the AlignCPUs gate)."""
        return EVEN_PARITY_ANNOTATION in self.cr_annotations and self.gate("AlignCPUs")

    @classmethod
    def from_configuration(
        cls, configuration: Mapping[str, Any], *, default_architecture: str, source: str, annotations: Any = None
    ) -> LauncherConfig:
        """``setConfigFromKubeVirt`` + ``validateConfig`` on a ``spec.configuration`` (raises ConfigError)."""
        merged = _json_decode_over(default_configuration(), clone(dict(configuration)))
        developer = merged.get("developerConfiguration") or {}
        overcommit = _int(developer.get("memoryOvercommit"))
        ratio = _int(developer.get("cpuAllocationRatio"))
        if overcommit <= 0:
            raise ConfigError(f"invalid memoryOvercommit in ConfigMap: {overcommit}")
        if ratio <= 0:
            raise ConfigError(f"invalid cpu allocation ratio in ConfigMap: {ratio}")
        network = merged.get("networkConfiguration") or {}
        interface = str(network.get("defaultNetworkInterface") or "")
        if interface not in ("", "bridge", "slirp", "masquerade"):
            raise ConfigError(f"invalid default-network-interface in config: {interface}")
        arch_config = merged.get("architectureConfiguration") or {}
        machine_types = {
            arch: str(((arch_config.get(arch) or {}).get("machineType")) or "") for arch in ("amd64", "arm64", "s390x")
        }
        support = tuple(
            (str(entry.get("type") or ""), dict(entry.get("resources") or {}))
            for entry in merged.get("supportContainerResources") or ()
            if isinstance(entry, dict)
        )
        tsc = developer.get("minimumClusterTSCFrequency")
        selector = merged.get("autoCPULimitNamespaceLabelSelector")
        cpu_request = merged.get("cpuRequest")
        return cls(
            cpu_allocation_ratio=ratio,
            memory_overcommit=overcommit,
            cpu_request=str(cpu_request) if cpu_request is not None else "100m",
            cpu_model=str(merged.get("cpuModel") or ""),
            additional_guest_memory_overhead_ratio=(
                str(merged["additionalGuestMemoryOverheadRatio"])
                if merged.get("additionalGuestMemoryOverheadRatio") is not None
                else None
            ),
            support_container_resources=support,
            node_selectors={str(k): str(v) for k, v in (developer.get("nodeSelectors") or {}).items()},
            auto_cpu_limit_namespace_label_selector=dict(selector) if isinstance(selector, dict) else None,
            default_architecture=default_architecture,
            machine_type=str(merged.get("machineType") or ""),
            machine_types=machine_types,
            network_interface=interface or "bridge",
            permit_bridge_interface_on_pod_network=network.get("permitBridgeInterfaceOnPodNetwork") is not False,
            use_emulation=bool(developer.get("useEmulation")),
            serial_console_log_disabled=(merged.get("virtualMachineOptions") or {}).get("disableSerialConsoleLog")
            is not None,
            feature_gates=tuple(str(g) for g in developer.get("featureGates") or ()),
            disabled_feature_gates=tuple(str(g) for g in developer.get("disabledFeatureGates") or ()),
            permitted_host_devices=(
                dict(merged["permittedHostDevices"]) if isinstance(merged.get("permittedHostDevices"), dict) else None
            ),
            network_bindings={
                str(name): dict(plugin)
                for name, plugin in (network.get("binding") or {}).items()
                if isinstance(plugin, dict)
            },
            default_runtime_class=str(merged.get("defaultRuntimeClass") or ""),
            minimum_cluster_tsc_frequency=int(tsc) if isinstance(tsc, int) and not isinstance(tsc, bool) else None,
            cr_annotations=dict(annotations or {}),
            source=source,
        )

    @classmethod
    def from_kubevirt(cls, kubevirt: Mapping[str, Any]) -> LauncherConfig:
        """The configuration virt-controller derives from the KubeVirt CR ``kubevirt``; KubeVirt's defaults
        (the default architecture virt-controller's own, amd64 here) when the CR has no ``status.phase``."""
        metadata = kubevirt.get("metadata") or {}
        status = kubevirt.get("status") or {}
        source = f"{metadata.get('namespace') or ''}/{metadata.get('name') or ''}"
        if not status.get("phase"):
            return cls(source=f"KubeVirt v1.9.0 defaults ({source} has no status.phase)")
        return cls.from_configuration(
            (kubevirt.get("spec") or {}).get("configuration") or {},
            default_architecture=str(status.get("defaultArchitecture") or ""),
            source=source,
            annotations=metadata.get("annotations"),
        )


def _int(value: Any) -> int:
    """An integer field as Go decodes it (absent or not a number: zero)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


@dataclass(frozen=True)
class NamespaceFacts:
    """What virt-controller's informers know of the VMI's namespace: its labels (None when it does not exist
    for them) and the resource names of its ResourceQuotas' ``spec.hard`` (``limits.memory``, ...)."""

    labels: Mapping[str, str] | None = None
    quota_resources: frozenset[str] = frozenset()
    container_defaults: tuple[tuple[Mapping[str, Any], Mapping[str, Any]], ...] = ()

    @classmethod
    def from_objects(
        cls,
        namespace: Mapping[str, Any] | None,
        quotas: Sequence[Mapping[str, Any]],
        limit_ranges: Sequence[Mapping[str, Any]] = (),
    ) -> NamespaceFacts:
        """From the Namespace object (None when it does not exist), its ResourceQuotas and its LimitRanges (by
        name, as the API lists them)."""
        labels = None
        if namespace is not None:
            labels = {str(k): str(v) for k, v in ((namespace.get("metadata") or {}).get("labels") or {}).items()}
        hard: set[str] = set()
        for quota in quotas:
            hard.update(str(name) for name in ((quota.get("spec") or {}).get("hard") or {}))
        return cls(
            labels=labels,
            quota_resources=frozenset(hard),
            container_defaults=tuple(container_defaults(limit_range) for limit_range in limit_ranges),
        )


def container_defaults(limit_range: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``defaultContainerResourceRequirements`` (plugin/pkg/admission/limitranger): the (limits, requests) a
    LimitRange's ``Container`` items default, later items overriding earlier ones."""
    limits: dict[str, Any] = {}
    requests: dict[str, Any] = {}
    for item in (limit_range.get("spec") or {}).get("limits") or ():
        if isinstance(item, dict) and item.get("type") == "Container":
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    return limits, requests
