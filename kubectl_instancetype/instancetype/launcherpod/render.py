"""The scheduling part of the virt-launcher pod virt-controller v1.9.0 creates for a VMI, as the scheduler sees it.

Ported from KubeVirt v1.9.0 (each function names its upstream counterpart):
``pkg/virt-controller/services/template.go`` (``renderLaunchManifest``, ``VMIResourcePredicates``,
``CalculateMemoryOverhead``, ``doesVMIRequireAutoCPULimits``, ``doesVMIRequireAutoResourceLimits``,
``setNodeAffinityForPod``, ``newNodeSelectorRenderer``), ``renderresources.go`` (the ``With*`` resource rules,
``getRequiredResources``, ``initContainerResourceRequirementsForVMI``, ``sidecarResources``,
``validatePermittedHostDevices``), ``nodeselectorrenderer.go``, ``serialconsolelog.go``, ``virtiofs.go``,
``pkg/container-disk`` (``getMinimalInitContainerDiskResources``), ``pkg/hypervisor/kvm`` (``GetMemoryOverhead``,
``MultiplyMemory``), ``pkg/network/resources`` (``MemoryCalculator``), the VMI mutator's defaults
(``pkg/defaults``), and then what the API server does to the pod before the scheduler reads it: ``SetDefaults_Pod``
(requests defaulted from limits), the DefaultTolerationSeconds admission plugin, the default scheduler name, and
``ComputePodQOS`` (``pkg/apis/core/helper/qos``).

Quantities are computed as apimachinery's ``resource.Quantity`` computes them (exact values; ``Add`` keeps the
receiver's format unless the receiver is zero) and printed as ``Quantity.String()`` prints them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from ...golang.quantity import DECIMAL_EXPONENT, DECIMAL_SI, FORMATS, QuantityError, format_quantity, parse
from ...golang.strconv import go_parse_float  # the memory limit ratio label, additionalGuestMemoryOverheadRatio
from ..jsoncopy import clone
from .config import LauncherConfig, NamespaceFacts

Json = dict[str, Any]

K8S_DEVICE_PREFIX = "devices.kubevirt.io"
TUN_DEVICE = K8S_DEVICE_PREFIX + "/tun"
VHOST_NET_DEVICE = K8S_DEVICE_PREFIX + "/vhost-net"
VHOST_VSOCK_DEVICE = K8S_DEVICE_PREFIX + "/vhost-vsock"
KVM_DEVICE = K8S_DEVICE_PREFIX + "/kvm"
PR_DEVICE = K8S_DEVICE_PREFIX + "/pr-helper"
SEV_DEVICE = K8S_DEVICE_PREFIX + "/sev"
TDX_DEVICE = K8S_DEVICE_PREFIX + "/tdx"
IOMMUFD_DEVICE = K8S_DEVICE_PREFIX + "/iommufd"
EPHEMERAL_STORAGE_OVERHEAD = "50M"
DEFAULT_MEMORY_LIMIT_OVERHEAD_RATIO = 2.0
AUTO_MEMORY_LIMITS_RATIO_LABEL = "alpha.kubevirt.io/auto-memory-limits-ratio"
HOOK_SIDECARS_ANNOTATION = "hooks.kubevirt.io/hookSidecars"
KERNEL_BOOT_VOLUME_NAME = "kernel-boot-volume"
NODE_SCHEDULABLE = "kubevirt.io/schedulable"
CPU_MANAGER = "kubevirt.io/cpumanager"
CPU_MODEL_LABEL = "cpu-model.node.kubevirt.io/"
CPU_FEATURE_LABEL = "cpu-feature.node.kubevirt.io/"
MACHINE_TYPE_LABEL = "machine-type.node.kubevirt.io/"
HOST_MODEL_OBSOLETE_LABEL = "node-labeller.kubevirt.io/obsolete-host-model"
HYPERV_LABEL = "hyperv.node.kubevirt.io/"
CPU_VENDOR_LABEL = "cpu-vendor.node.kubevirt.io/"
TSC_FREQUENCY_LABEL = "scheduling.node.kubevirt.io/tsc-frequency"
VM_ARCH_LABEL = "kubevirt.io/vm-arch-"
ARCH_LABEL = "kubernetes.io/arch"
DEFAULT_SCHEDULER = "default-scheduler"
DEFAULT_TOLERATION_SECONDS = 300
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"


class RenderError(ValueError):
    """What virt-controller meets instead of creating the pod (``failed to render launch manifest: ...``)."""


# ------------------------------------------------------------------------------------------------ quantities


class Q:
    """An apimachinery ``resource.Quantity``: an exact value and its format."""

    __slots__ = ("format", "value")

    def __init__(self, value: Fraction | int, fmt: str) -> None:
        self.value = Fraction(value)
        self.format = fmt

    @classmethod
    def of(cls, text: Any) -> Q:
        """``resource.MustParse`` (a JSON number is read as its text, as the API decodes it)."""
        parsed = parse(str(text))
        return cls(parsed.value, parsed.format)

    def add(self, other: Q) -> Q:
        """``q.Add(other)``: a zero receiver takes the other's format."""
        return Q(self.value + other.value, other.format if self.value == 0 else self.format)

    def sub(self, other: Q) -> Q:
        """``q.Sub(other)``."""
        return Q(self.value - other.value, other.format if self.value == 0 else self.format)

    def int_value(self) -> int:
        """``Value()``: rounded up (away from zero) to an integer."""
        return _ceil(self.value)

    def scaled_kilo(self) -> int:
        """``ScaledValue(resource.Kilo)``."""
        return _ceil(self.value / 1000)

    def __str__(self) -> str:
        """``String()`` (a Quantity without a format prints as DecimalExponent: ``CanonicalizeBytes``)."""
        return format_quantity(self.value, self.format if self.format in FORMATS else DECIMAL_EXPONENT)

    def __repr__(self) -> str:
        return f"Q({self!s}, {self.format})"


def _ceil(value: Fraction) -> int:
    whole = value.numerator // value.denominator if value >= 0 else -(-value.numerator // value.denominator)
    if whole != value:
        whole += 1 if value > 0 else -1
    return whole


def _quantity(value: Any) -> Q | None:
    """A spec's quantity, None when absent or unreadable (admission refused those already)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return Q.of(value)
    except QuantityError:
        return None


def _zero_if_absent(resources: Mapping[str, Q], name: str, fmt: str = "") -> Q:
    return resources.get(name) or Q(0, fmt)


Resources = dict[str, Q]


def _resource_list(source: Any) -> Resources:
    out: Resources = {}
    for name, value in (source or {}).items():
        quantity = _quantity(value)
        if quantity is not None:
            out[str(name)] = quantity
    return out


def _render_list(resources: Mapping[str, Q]) -> dict[str, str]:
    return {name: str(quantity) for name, quantity in sorted(resources.items())}


def _round_up_milli(quantity: Q) -> Q:
    """``Quantity.RoundUp(-3)`` as ``SetDefaults_ResourceList`` (pkg/apis/core/v1/defaults.go) applies it to every
    container's limits and requests when the API server decodes the pod: a value finer than a milli-unit is
    rounded up (away from zero) to one (virt-controller's ``333333334n`` CPUs are stored as ``334m``)."""
    scaled = quantity.value * 1000
    if scaled.denominator == 1:
        return quantity
    return Q(Fraction(_ceil(scaled), 1000), quantity.format)


def _container_list(resources: Mapping[str, Q]) -> dict[str, str]:
    """A container's limits or requests as the API server stores them (rounded up to milli-units)."""
    return _render_list({name: _round_up_milli(quantity) for name, quantity in resources.items()})


# ------------------------------------------------------------------------------------------------ the VMI


def _get(obj: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _vcpus(cpu: Mapping[str, Any] | None) -> int:
    """``hardware.GetNumberOfVCPUs``."""
    cpu = cpu or {}
    vcpus = int(cpu.get("cores") or 0)
    for key in ("sockets", "threads"):
        value = int(cpu.get(key) or 0)
        if value:
            vcpus = value if vcpus == 0 else vcpus * value
    return vcpus


def is_cpu_dedicated(spec: Mapping[str, Any]) -> bool:
    """``VirtualMachineInstance.IsCPUDedicated``."""
    return bool(_get(spec, "domain", "cpu", "dedicatedCpuPlacement"))


def wants_guaranteed_qos(spec: Mapping[str, Any]) -> bool:
    """``VirtualMachineInstance.WantsToHaveQOSGuaranteed``: memory and CPU requests equal to their limits (a memory
    limit without a request counts)."""
    resources = _get(spec, "domain", "resources") or {}
    requests, limits = _resource_list(resources.get("requests")), _resource_list(resources.get("limits"))
    mem_req, mem_lim = _zero_if_absent(requests, "memory").value, _zero_if_absent(limits, "memory").value
    cpu_req, cpu_lim = _zero_if_absent(requests, "cpu").value, _zero_if_absent(limits, "cpu").value
    memory = (mem_req == 0 and mem_lim != 0) or (mem_req != 0 and mem_req == mem_lim)
    return memory and cpu_req != 0 and cpu_req == cpu_lim


def _high_qos(spec: Mapping[str, Any]) -> bool:
    return is_cpu_dedicated(spec) or wants_guaranteed_qos(spec)


def apply_vmi_defaults(vmi_spec: Mapping[str, Any], config: LauncherConfig) -> Json:
    """The VMI spec as virt-api's VMI mutator leaves it (``SetDefaultVirtualMachineInstanceSpec``, then
    ``setDefaultCPUArch``'s CPU model), on a copy; idempotent on an expanded VM's template spec."""
    from ..expand import ClusterDefaults
    from ..expand._tree import Provenance
    from ..expand.defaults import vmi_spec_defaults

    spec: Json = clone(dict(vmi_spec))
    defaults = ClusterDefaults(
        architecture=config.default_architecture or None,
        machine_type=config.machine_type,
        machine_types=dict(config.machine_types),
        cpu_request=config.cpu_request,
        eviction_strategy=None,
        network_interface=config.network_interface,
        permit_bridge_interface_on_pod_network=config.permit_bridge_interface_on_pod_network,
    )
    vmi_spec_defaults("spec", spec, defaults, Provenance())
    domain = spec.setdefault("domain", {})
    _hyperv_defaults(domain)
    cpu = domain.get("cpu")
    if not isinstance(cpu, dict):
        cpu = domain["cpu"] = {}
    if not cpu.get("model"):
        # setDefaultArm64CPUModel (pkg/defaults/arm64.go), then setDefaultCPUModel
        if spec.get("architecture") == "arm64":
            cpu["model"] = "host-passthrough"
        else:
            cpu["model"] = config.cpu_model or "host-model"
    return spec


_HYPERV_FEATURE_STATES = (
    "relaxed",
    "vapic",
    "spinlocks",
    "vpindex",
    "runtime",
    "synic",
    "synictimer",
    "reset",
    "vendorid",
    "frequencies",
    "reenlightenment",
    "tlbflush",
    "ipi",
    "evmcs",
)
# SetHypervFeatureDependencies (pkg/defaults/hyperv.go), leaves first: (feature, the feature it requires)
_HYPERV_REQUIRES = (
    ("evmcs", "vapic"),
    ("ipi", "vpindex"),
    ("tlbflush", "vpindex"),
    ("synictimer", "synic"),
    (
        "synic",
        "vpindex",
    ),
)


def _hyperv_defaults(domain: Json) -> None:
    """``SetObjectDefaults_VirtualMachineInstance`` on the HyperV features (a feature given as ``{}`` is enabled),
    then ``SetHypervFeatureDependencies``: an enabled feature enables the one it requires when that is unset,
    and EVMCS requires the vmx CPU feature."""
    hyperv = _get(domain, "features", "hyperv")
    if not isinstance(hyperv, dict):
        return
    for key in _HYPERV_FEATURE_STATES:
        if isinstance(hyperv.get(key), dict) and hyperv[key].get("enabled") is None:
            hyperv[key]["enabled"] = True
    for feature, required in _HYPERV_REQUIRES:
        if _get(hyperv, feature, "enabled") is not True:
            continue
        state = hyperv.get(required)
        if not isinstance(state, dict) or state.get("enabled") is None:
            hyperv[required] = {**(state if isinstance(state, dict) else {}), "enabled": True}
        elif state.get("enabled") is not True:
            break  # "... requires ..., which was disabled.": the mutator stops there (admission will deny)
    if isinstance(hyperv.get("evmcs"), dict) and hyperv["evmcs"].get("enabled") in (None, True):
        cpu = domain.get("cpu")
        if not isinstance(cpu, dict):
            cpu = domain["cpu"] = {}
        features = cpu.setdefault("features", [])
        for existing in features:
            if existing.get("name") == "vmx":
                existing["policy"] = "require"
                break
        else:
            features.append({"name": "vmx", "policy": "require"})


# ------------------------------------------------------------------------------------------------ memory


def _has_passt(spec: Mapping[str, Any]) -> bool:
    return any(iface.get("passtBinding") is not None for iface in _interfaces(spec))


def _interfaces(spec: Mapping[str, Any]) -> list[Json]:
    return [iface for iface in (_get(spec, "domain", "devices", "interfaces") or []) if isinstance(iface, dict)]


def network_memory_overhead(spec: Mapping[str, Any], config: LauncherConfig) -> Q:
    """``pkg/network/resources`` ``MemoryCalculator.Calculate``: 250Mi for passt, plus each binding plugin's
    ``computeResourceOverhead.requests.memory`` once per plugin in use."""
    total = Q(0, "")
    if _has_passt(spec):
        total = total.add(Q.of("250Mi"))
    seen: set[str] = set()
    for iface in _interfaces(spec):
        name = _get(iface, "binding", "name")
        if not isinstance(iface.get("binding"), dict) or name in seen or name not in config.network_bindings:
            continue
        seen.add(name)
        memory = _get(config.network_bindings[name], "computeResourceOverhead", "requests", "memory")
        quantity = _quantity(memory)
        if quantity is not None:
            total = total.add(quantity)
    return total


def memory_overhead(spec: Mapping[str, Any], config: LauncherConfig) -> Q:
    """``CalculateMemoryOverhead`` (template.go): the KVM hypervisor's ``GetMemoryOverhead``
    (pkg/hypervisor/kvm/hypervisorbackend.go) for the VMI's architecture (else the control plane's), with
    ``additionalGuestMemoryOverheadRatio`` applied, plus the network bindings' overhead."""
    arch = str(spec.get("architecture") or "") or config.cluster_cpu_arch
    domain = spec.get("domain") or {}
    resources = domain.get("resources") or {}
    requests = _resource_list(resources.get("requests"))
    request = requests.get("memory") or Q(0, "BinarySI")

    overhead = Q(0, DECIMAL_SI)  # resource.NewScaledQuantity(0, resource.Kilo)
    # pagetables: one bit for every 512b of RAM (NewScaledQuantity(ScaledValue(Kilo), Kilo), then Set(Value()/512))
    overhead = overhead.add(Q((request.scaled_kilo() * 1000) // 512, DECIMAL_SI))
    for fixed in ("25Mi", "100Mi", "25Mi", "40Mi", "30Mi"):  # launcher monitor, launcher, virtlogd, virtqemud, qemu
        overhead = overhead.add(Q.of(fixed))
    cpu = domain.get("cpu")
    if cpu is not None:
        vcpus = _vcpus(cpu)
    else:
        limits = _resource_list(resources.get("limits"))
        vcpus = (limits.get("cpu") or requests.get("cpu") or Q(0, DECIMAL_SI)).int_value()
    vcpus = max(vcpus, 1)
    overhead = overhead.add(Q(Q.of("8Mi").value * vcpus, "BinarySI"))
    overhead = overhead.add(Q.of("8Mi"))  # IOThread
    devices = domain.get("devices") or {}
    if devices.get("autoattachGraphicsDevice") is None or devices.get("autoattachGraphicsDevice") is True:
        overhead = overhead.add(Q.of("32Mi"))
    if arch == "arm64":
        overhead = overhead.add(Q.of("128Mi"))  # UEFI pflash
    if _has_vfio(spec):
        overhead = overhead.add(Q.of("1Gi"))
    if any(isinstance(v, dict) and v.get("downwardMetrics") is not None for v in spec.get("volumes") or []):
        overhead = overhead.add(Q.of("1Mi"))
    liveness = _get(spec, "livenessProbe", "exec") is not None
    readiness = _get(spec, "readinessProbe", "exec") is not None
    for probe in (liveness, readiness):
        if probe:
            overhead = overhead.add(Q.of("10Mi"))
    if liveness or readiness:
        overhead = overhead.add(Q.of("100Mi"))
    if _is_sev(spec) or _is_sev_snp(spec) or _is_sev_es(spec):
        overhead = overhead.add(Q.of("256Mi"))
    tpm = devices.get("tpm")
    if isinstance(tpm, dict) and tpm.get("enabled") is not False:
        overhead = overhead.add(Q.of("53Mi"))
    if _high_qos(spec):
        overhead = overhead.add(Q.of("100Mi"))
    added = _quantity(_get(domain, "memory", "reservedOverhead", "addedOverhead"))
    if added is not None:
        overhead = overhead.add(added)
    ratio_text = config.additional_guest_memory_overhead_ratio
    if ratio_text:
        try:
            ratio = go_parse_float(ratio_text)
        except ValueError:
            ratio = None  # virt-controller logs a warning and keeps the overhead
        if ratio is not None:
            # MultiplyMemory: float64(ScaledValue(Kilo)) * (ratio - 1), truncated, NewScaledQuantity(_, Kilo)
            addition = int(float(overhead.scaled_kilo()) * (ratio - 1.0))
            overhead = overhead.add(Q(addition * 1000, DECIMAL_SI))
    return overhead.add(network_memory_overhead(spec, config))


def _has_vfio(spec: Mapping[str, Any]) -> bool:
    """``vmitrait.HasVFIO``: host devices, GPUs or SR-IOV interfaces."""
    devices = _get(spec, "domain", "devices") or {}
    return (
        bool(devices.get("hostDevices"))
        or bool(devices.get("gpus"))
        or any(iface.get("sriov") is not None for iface in _interfaces(spec))
    )


def _launch_security(spec: Mapping[str, Any]) -> Json | None:
    value = _get(spec, "domain", "launchSecurity")
    return value if isinstance(value, dict) else None


def _is_sev(spec: Mapping[str, Any]) -> bool:
    security = _launch_security(spec)
    return security is not None and (security.get("sev") is not None or security.get("snp") is not None)


def _is_sev_es(spec: Mapping[str, Any]) -> bool:
    return bool(_get(_launch_security(spec), "sev", "policy", "encryptedState"))


def _is_sev_snp(spec: Mapping[str, Any]) -> bool:
    security = _launch_security(spec)
    return security is not None and security.get("snp") is not None


def _is_tdx(spec: Mapping[str, Any]) -> bool:
    security = _launch_security(spec)
    return security is not None and security.get("tdx") is not None


def _is_secure_execution(spec: Mapping[str, Any]) -> bool:
    return _launch_security(spec) is not None and spec.get("architecture") == "s390x"


# ------------------------------------------------------------------------------------------------ resources


class _Renderer:
    """``ResourceRenderer``: the VMI's limits and requests, and the computed ones they override."""

    def __init__(self, vm_limits: Resources, vm_requests: Resources) -> None:
        self.vm_limits = dict(vm_limits)
        self.vm_requests = dict(vm_requests)
        self.calc_limits: Resources = {}
        self.calc_requests: Resources = {}

    def limits(self) -> Resources:
        return {**self.calc_limits, **self.vm_limits}

    def requests(self) -> Resources:
        return {**self.calc_requests, **self.vm_requests}

    def request_resources(self, names: list[str]) -> None:
        """``requestResource`` for each name on the merged lists, copied back as computed ones (the pattern of
        ``WithGPUsDevicePlugins``, ``WithSEV``, ...)."""
        limits, requests = self.limits(), self.requests()
        for name in names:
            for resources in (limits, requests):
                resources[name] = resources[name].add(Q(1, DECIMAL_SI)) if name in resources else Q(1, DECIMAL_SI)
        self.calc_limits.update(limits)
        self.calc_requests.update(requests)


def _required_resources(spec: Mapping[str, Any], config: LauncherConfig) -> Resources:
    """``getRequiredResources``: tun, vhost-net, the hypervisor device (kvm), vhost-vsock."""
    devices = _get(spec, "domain", "devices") or {}
    out: Resources = {}
    if _interfaces(spec) or devices.get("autoattachPodInterface") is None or devices.get("autoattachPodInterface"):
        out[TUN_DEVICE] = Q.of("1")
    virtio = any(iface.get("model") in (None, "", "virtio") for iface in _interfaces(spec))
    if virtio and not config.use_emulation:
        out[VHOST_NET_DEVICE] = Q.of("1")
    if not config.use_emulation:
        out[KVM_DEVICE] = Q.of("1")
    if devices.get("autoattachVSOCK") is True:
        out[VHOST_VSOCK_DEVICE] = Q.of("1")
    return out


def validate_permitted_host_devices(spec: Mapping[str, Any], config: LauncherConfig) -> None:
    """``validatePermittedHostDevices``: with ``permittedHostDevices`` set, every GPU and host device (but those
    backed by DRA claims when their gate is on) must be listed there; else virt-controller renders no pod."""
    permitted = config.permitted_host_devices
    if permitted is None:
        return
    names = {
        str(device.get("resourceName"))
        for group in ("pciHostDevices", "mediatedDevices", "usb")
        for device in permitted.get(group) or ()
        if isinstance(device, dict)
    }
    errors = []
    devices = _get(spec, "domain", "devices") or {}
    for kind, key, gate in (("GPU", "gpus", "GPUsWithDRA"), ("HostDevice", "hostDevices", "HostDevicesWithDRA")):
        for device in devices.get(key) or ():
            if config.gate(gate) and device.get("claimRequest") is not None:
                continue
            if str(device.get("deviceName") or "") not in names:
                errors.append(
                    f"{kind} {device.get('deviceName') or ''} is not permitted in permittedHostDevices configuration"
                )
    if errors:
        raise RenderError(" ".join(errors))


def _io_thread_cpus(spec: Mapping[str, Any]) -> int:
    """``getIOThreadsCount``."""
    count = _get(spec, "domain", "ioThreads", "supplementalPoolThreadCount")
    return int(count) if isinstance(count, int) else 0


def _quota_requires(facts: NamespaceFacts, resource: str, vm_limits: Mapping[str, Any]) -> bool:
    """``doesVMIRequireAutoResourceLimits``: no VMI limit for ``resource`` and a ResourceQuota of the namespace
    with ``limits.<resource>`` in ``spec.hard``."""
    if resource in vm_limits:
        return False
    return f"limits.{resource}" in facts.quota_resources


def requires_auto_cpu_limits(spec: Mapping[str, Any], config: LauncherConfig, facts: NamespaceFacts) -> bool:
    """``doesVMIRequireAutoCPULimits``: a ``limits.cpu`` quota, or ``autoCPULimitNamespaceLabelSelector`` matching
    the namespace's labels, when the VMI sets no CPU limit."""
    limits = _get(spec, "domain", "resources", "limits") or {}
    if _quota_requires(facts, "cpu", limits):
        return True
    selector = config.auto_cpu_limit_namespace_label_selector
    if selector is None or "cpu" in limits or facts.labels is None:
        return False
    from ...errors import InputError
    from ..selectors import selector_matches

    try:
        return selector_matches(selector, facts.labels)
    except InputError:
        return False  # "invalid CPULimitNamespaceLabelSelector set, assuming none"


def memory_limits_ratio(facts: NamespaceFacts) -> float:
    """``getMemoryLimitsRatio``: the namespace's ``alpha.kubevirt.io/auto-memory-limits-ratio`` label, else 2."""
    if facts.labels is None or AUTO_MEMORY_LIMITS_RATIO_LABEL not in facts.labels:
        return DEFAULT_MEMORY_LIMIT_OVERHEAD_RATIO
    try:
        ratio = go_parse_float(facts.labels[AUTO_MEMORY_LIMITS_RATIO_LABEL])
    except ValueError:
        return DEFAULT_MEMORY_LIMIT_OVERHEAD_RATIO
    return DEFAULT_MEMORY_LIMIT_OVERHEAD_RATIO if ratio < 1.0 or ratio != ratio else ratio


def compute_resources(
    spec: Mapping[str, Any],
    overhead: Q,
    config: LauncherConfig,
    facts: NamespaceFacts,
    annotations: Mapping[str, str],
) -> tuple[Resources, Resources]:
    """The compute container's (limits, requests): ``newResourceRenderer`` and ``VMIResourcePredicates`` in
    their order."""
    domain = spec.get("domain") or {}
    vmi_resources = domain.get("resources") or {}
    renderer = _Renderer(_resource_list(vmi_resources.get("limits")), _resource_list(vmi_resources.get("requests")))
    # WithEphemeralStorageRequest
    storage = Q.of(EPHEMERAL_STORAGE_OVERHEAD)
    renderer.vm_requests["ephemeral-storage"] = _zero_if_absent(renderer.vm_requests, "ephemeral-storage").add(storage)
    if "ephemeral-storage" in renderer.vm_limits:
        renderer.vm_limits["ephemeral-storage"] = renderer.vm_limits["ephemeral-storage"].add(storage)
    # WithVirtualizationResources
    renderer.vm_limits.update(_required_resources(spec, config))
    validate_permitted_host_devices(spec, config)

    memory = domain.get("memory") or {}
    guest = _quantity(memory.get("guest"))
    hugepages = memory.get("hugepages") if isinstance(memory.get("hugepages"), dict) else None
    vm_limits_at_start = vmi_resources.get("limits") or {}

    # NewVMIResourceRule(emptyMemoryRequest, WithMemoryRequests(memory, overcommit))
    if _zero_if_absent(renderer.vm_requests, "memory").value == 0:
        _with_memory_requests(renderer, guest, hugepages, config.memory_overcommit)
    dedicated = is_cpu_dedicated(spec)
    if dedicated:
        _with_cpu_pinning(renderer, spec, annotations)
    else:
        _without_dedicated_cpu(
            renderer, spec, config.cpu_allocation_ratio, requires_auto_cpu_limits(spec, config, facts)
        )
    if hugepages is not None:
        _with_hugepages(renderer, guest, str(hugepages.get("pageSize") or ""), overhead)
    else:
        _with_memory_overhead(renderer, bool(vmi_resources.get("overcommitGuestOverhead")), overhead)
    if _quota_requires(facts, "memory", vm_limits_at_start):
        # WithAutoMemoryLimits: int64(float64(request.Value()) * ratio) in the request's format
        request = _zero_if_absent(renderer.vm_requests, "memory")
        value = int(float(request.int_value()) * memory_limits_ratio(facts))
        renderer.calc_limits["memory"] = Q(value, request.format)
    devices = domain.get("devices") or {}
    gpus = [g for g in devices.get("gpus") or () if g.get("deviceName") and g.get("claimRequest") is None]
    if gpus:
        renderer.request_resources([str(g["deviceName"]) for g in gpus])
    host_devices = [
        d for d in devices.get("hostDevices") or () if d.get("deviceName") and d.get("claimRequest") is None
    ]
    if host_devices:
        renderer.request_resources([str(d["deviceName"]) for d in host_devices])
    if _is_sev(spec):
        renderer.request_resources([SEV_DEVICE])
    if _is_tdx(spec):
        renderer.request_resources([TDX_DEVICE])
    if any(_get(disk, "lun", "reservation") for disk in devices.get("disks") or ()):
        renderer.request_resources([PR_DEVICE])
    if config.gate("IOMMUFD"):
        renderer.request_resources([IOMMUFD_DEVICE])
    return renderer.limits(), renderer.requests()


def _with_memory_requests(renderer: _Renderer, guest: Q | None, hugepages: Json | None, overcommit: int) -> None:
    """``WithMemoryRequests``: the request from a memory limit, else from the guest memory (or the page size)
    divided by ``memoryOvercommit`` percent."""
    limit = renderer.vm_limits.get("memory")
    request = renderer.vm_requests.get("memory")
    if limit is not None and limit.value != 0 and (request is None or request.value == 0):
        renderer.vm_requests["memory"] = limit
    if "memory" in renderer.vm_requests:
        return
    memory = guest
    if memory is None and hugepages is not None:
        memory = _quantity(hugepages.get("pageSize"))
    if memory is not None and memory.int_value() > 0:
        if overcommit == 100:
            renderer.vm_requests["memory"] = memory
        else:
            renderer.vm_requests["memory"] = Q((memory.int_value() * 100) // overcommit, memory.format)


def _with_cpu_pinning(renderer: _Renderer, spec: Mapping[str, Any], annotations: Mapping[str, str]) -> None:
    """``WithCPUPinning``: whole CPUs (vCPUs and IO threads) as requests and limits, one (or two, for even
    parity) more for an isolated emulator thread, the memory limit aligned with the request."""
    cpu = _get(spec, "domain", "cpu") or {}
    vcpus = _vcpus(cpu)
    io_threads = _io_thread_cpus(spec)
    if vcpus != 0:
        total = Q(vcpus + io_threads, "BinarySI")
        renderer.vm_limits["cpu"] = total
        renderer.vm_requests["cpu"] = total
    else:
        extra = Q(io_threads, "BinarySI")
        if "cpu" in renderer.vm_limits:
            renderer.vm_limits["cpu"] = renderer.vm_limits["cpu"].add(extra)
        if "cpu" in renderer.vm_requests:
            renderer.vm_requests["cpu"] = renderer.vm_requests["cpu"].add(extra)
    if cpu.get("isolateEmulatorThread"):
        additional = 0
        if _get(spec, "domain", "ioThreadsPolicy") == "supplementalPool":
            additional = _io_thread_cpus(spec)
        emulator = Q(1, "BinarySI")
        limits = _zero_if_absent(renderer.vm_limits, "cpu")
        if (
            "alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity" in annotations
            and (limits.int_value() + additional) % 2 == 0
        ):
            emulator = Q(2, "BinarySI")
        renderer.vm_limits["cpu"] = limits.add(emulator)
        if "cpu" in renderer.vm_requests:
            renderer.vm_requests["cpu"] = renderer.vm_requests["cpu"].add(emulator)
    if "memory" in renderer.vm_requests:
        renderer.vm_limits["memory"] = renderer.vm_requests["memory"]


def _without_dedicated_cpu(renderer: _Renderer, spec: Mapping[str, Any], ratio: int, with_limits: bool) -> None:
    """``WithoutDedicatedCPU``: (vCPUs + IO threads) / cpuAllocationRatio as the request, written with ``%g``
    (in milli-CPUs below one CPU) and parsed back; the vCPU count as the limit when auto CPU limits apply."""
    cpu = _get(spec, "domain", "cpu")
    vcpus = _vcpus(cpu) if cpu is not None else 1
    total = vcpus + _io_thread_cpus(spec)
    if total != 0 and ratio > 0:
        from ...golang.fmt import format_float  # fmt.Sprintf("%g", f), loaded only when a ratio asks for it

        value = float(total) / float(ratio)
        text = format_float(value, "g", -1)
        if value < 1:
            text = format_float(value * 1000, "g", -1) + "m"
        renderer.calc_requests["cpu"] = Q.of(text)
        if with_limits:
            renderer.calc_limits["cpu"] = Q.of(str(total))


def _with_hugepages(renderer: _Renderer, guest: Q | None, page_size: str, overhead: Q) -> None:
    """``WithHugePages``: the guest memory (at most) as ``hugepages-<size>`` requests and limits; the memory
    request and limit become the overhead plus what they exceed the guest memory by."""
    name = "hugepages-" + page_size
    request = renderer.vm_requests.get("memory") or Q(0, "BinarySI")
    hugepages_request = request
    if guest is not None and request.int_value() > guest.int_value():
        hugepages_request = guest
    renderer.calc_requests[name] = hugepages_request
    renderer.calc_limits[name] = hugepages_request
    request_diff = Q(0, DECIMAL_SI)
    limit_diff = Q(0, DECIMAL_SI)
    if guest is not None:
        requests = (renderer.vm_requests.get("memory") or Q(0, "BinarySI")).int_value()
        limits = (renderer.vm_limits.get("memory") or Q(0, "BinarySI")).int_value()
        if requests > guest.int_value():
            request_diff = request_diff.add(renderer.vm_requests["memory"]).sub(guest)
        if limits > guest.int_value():
            limit_diff = limit_diff.add(renderer.vm_limits["memory"]).sub(guest)
    renderer.vm_requests["memory"] = request_diff.add(overhead)
    if "memory" in renderer.vm_limits:
        renderer.vm_limits["memory"] = limit_diff.add(overhead)


def _with_memory_overhead(renderer: _Renderer, overcommit_guest_overhead: bool, overhead: Q) -> None:
    """``WithMemoryOverhead``: the overhead on the request (unless ``overcommitGuestOverhead``) and the limit."""
    request = renderer.vm_requests.get("memory") or Q(0, "")
    if not overcommit_guest_overhead:
        request = request.add(overhead)
    renderer.vm_requests["memory"] = request
    if "memory" in renderer.vm_limits:
        renderer.vm_limits["memory"] = renderer.vm_limits["memory"].add(overhead)


# ------------------------------------------------------------------------------------------------ support containers


def _support(config: LauncherConfig, kind: str, section: str, resource: str, default: str) -> Q:
    value = config.support_container(kind, section, resource)
    return Q.of(value if value is not None else default)


def _guest_console_log_resources(spec: Mapping[str, Any], config: LauncherConfig) -> tuple[Resources, Resources]:
    """``resourcesForSerialConsoleLogContainer`` (serialconsolelog.go): (limits, requests)."""
    kind = "guest-console-log"
    requests = {
        "memory": _support(config, kind, "requests", "memory", "35M"),
        "cpu": _support(config, kind, "requests", "cpu", "5m"),
    }
    limits = {
        "memory": _support(config, kind, "limits", "memory", "60M"),
        "cpu": _support(config, kind, "limits", "cpu", "15m"),
    }
    if _high_qos(spec):
        requests = dict(limits)
    return limits, requests


def serial_console_log_enabled(spec: Mapping[str, Any], config: LauncherConfig) -> bool:
    """``isSerialConsoleLogEnabled``."""
    devices = _get(spec, "domain", "devices") or {}
    if devices.get("autoattachSerialConsole") is False:
        return False
    if devices.get("logSerialConsole") is not None:
        return bool(devices["logSerialConsole"])
    return not config.serial_console_log_disabled


def _container_disk_resources(spec: Mapping[str, Any], config: LauncherConfig) -> tuple[Resources, Resources]:
    """``getMinimalInitContainerDiskResources`` (pkg/container-disk): (limits, requests)."""
    kind = "container-disk"
    requests = {
        "cpu": _support(config, kind, "requests", "cpu", "1m"),
        "memory": _support(config, kind, "requests", "memory", "1M"),
        "ephemeral-storage": Q.of(EPHEMERAL_STORAGE_OVERHEAD),
    }
    limits = {
        "cpu": _support(config, kind, "limits", "cpu", "10m"),
        "memory": _support(config, kind, "limits", "memory", "40M"),
    }
    if _high_qos(spec):
        requests["cpu"], requests["memory"] = limits["cpu"], limits["memory"]
    return limits, requests


def _container_disk_binary_resources(spec: Mapping[str, Any], config: LauncherConfig) -> tuple[Resources, Resources]:
    """``initContainerResourceRequirementsForVMI(vmi, ContainerDisk, config)``: (limits, requests)."""
    kind = "container-disk"
    if _high_qos(spec):
        both = {
            "cpu": _support(config, kind, "limits", "cpu", "10m"),
            "memory": _support(config, kind, "limits", "memory", "40M"),
        }
        return both, dict(both)
    limits = {
        "cpu": _support(config, kind, "limits", "cpu", "100m"),
        "memory": _support(config, kind, "limits", "memory", "40M"),
    }
    requests = {
        "cpu": _support(config, kind, "requests", "cpu", "10m"),
        "memory": _support(config, kind, "requests", "memory", "1M"),
    }
    return limits, requests


def _sidecar_resources(spec: Mapping[str, Any], config: LauncherConfig) -> tuple[Resources, Resources]:
    """``sidecarResources`` (renderresources.go): (limits, requests)."""
    kind = "sidecar"
    requests: Resources = {}
    limits: Resources = {}
    for resource in ("cpu", "memory"):
        value = config.support_container(kind, "requests", resource)
        if value is not None:
            requests[resource] = Q.of(value)
    if _high_qos(spec):
        limits["cpu"] = _support(config, kind, "limits", "cpu", "200m")
        limits["memory"] = _support(config, kind, "limits", "memory", "64M")
        requests["cpu"], requests["memory"] = limits["cpu"], limits["memory"]
    else:
        for resource in ("cpu", "memory"):
            value = config.support_container(kind, "limits", resource)
            if value is not None:
                limits[resource] = Q.of(value)
    return limits, requests


def _virtiofs_resources(spec: Mapping[str, Any], config: LauncherConfig) -> tuple[Resources, Resources]:
    """``virtiofs.ResourcesForVirtioFSContainer(dedicated, guaranteed, config)`` (pkg/virtiofs): (limits,
    requests)."""
    kind = "virtiofs"
    dedicated, guaranteed = is_cpu_dedicated(spec), _high_qos(spec)
    limits = {
        "cpu": _support(config, kind, "limits", "cpu", "100m"),
        "memory": _support(config, kind, "limits", "memory", "80M"),
    }
    requests: Resources = {
        "cpu": _support(config, kind, "requests", "cpu", "10m"),
        "memory": _support(config, kind, "requests", "memory", "1M"),
    }
    if dedicated or guaranteed:
        requests = {"cpu": limits["cpu"], "memory": limits["memory"]}
    return limits, requests


def _hook_sidecar_count(spec: Mapping[str, Any], annotations: Mapping[str, str], config: LauncherConfig) -> int:
    """How many ``hook-sidecar-N`` containers: the ``hooks.kubevirt.io/hookSidecars`` annotation's list, then one
    per network binding plugin in use that has a ``sidecarImage`` (``NetBindingPluginSidecarList``)."""
    count = 0
    raw = annotations.get(HOOK_SIDECARS_ANNOTATION)
    if raw is not None:
        try:
            listed = json.loads(raw)
        except ValueError as exc:
            raise RenderError(str(exc)) from None
        count += len(listed) if isinstance(listed, list) else 0
    bindings: set[str] = set()
    for iface in _interfaces(spec):
        binding = iface.get("binding")
        if not isinstance(binding, dict):
            continue
        name = str(binding.get("name") or "")
        if name not in config.network_bindings:
            raise RenderError(f"couldn't find configuration for network binding: {name}")
        bindings.add(name)
    count += sum(1 for name in bindings if config.network_bindings[name].get("sidecarImage"))
    return count


def _container(name: str, limits: Mapping[str, Q], requests: Mapping[str, Q], **extra: Any) -> Json:
    resources: Json = {}
    if limits:
        resources["limits"] = _container_list(limits)
    if requests:
        resources["requests"] = _container_list(requests)
    return {"name": name, "resources": resources, **extra}


def _containers(
    spec: Mapping[str, Any], config: LauncherConfig, facts: NamespaceFacts, annotations: Mapping[str, str]
) -> tuple[list[Json], list[Json]]:
    """(containers, initContainers) as ``renderLaunchManifest`` orders them."""
    overhead = memory_overhead(spec, config)
    limits, requests = compute_resources(spec, overhead, config, facts, annotations)
    containers = [_container("compute", limits, requests)]
    volumes = [v for v in spec.get("volumes") or () if isinstance(v, dict)]
    disk_volumes = [v for v in volumes if v.get("containerDisk") is not None]
    kernel_boot = _get(spec, "domain", "firmware", "kernelBoot", "container") is not None
    image_volume = config.gate("ImageVolume")
    disk_limits, disk_requests = _container_disk_resources(spec, config)
    if not image_volume:
        for volume in disk_volumes:
            if volume.get("name") != KERNEL_BOOT_VOLUME_NAME:
                containers.append(_container(f"volume{volume.get('name')}", disk_limits, disk_requests))
        if kernel_boot:
            containers.append(_container(f"volume{KERNEL_BOOT_VOLUME_NAME}", disk_limits, disk_requests))
    filesystems = {fs.get("name") for fs in _get(spec, "domain", "devices", "filesystems") or ()}
    if filesystems:
        fs_limits, fs_requests = _virtiofs_resources(spec, config)
        for volume in volumes:
            if volume.get("name") in filesystems and volume.get("containerPath") is None:
                containers.append(_container(f"virtiofs-{volume.get('name')}", fs_limits, fs_requests))
    sidecars = _hook_sidecar_count(spec, annotations, config)
    if sidecars:
        side_limits, side_requests = _sidecar_resources(spec, config)
        for index in range(sidecars):
            containers.append(_container(f"hook-sidecar-{index}", side_limits, side_requests))

    init: list[Json] = []
    if serial_console_log_enabled(spec, config):
        log_limits, log_requests = _guest_console_log_resources(spec, config)
        init.append(_container("guest-console-log", log_limits, log_requests, restartPolicy="Always"))
    if not image_volume and (disk_volumes or kernel_boot):
        binary_limits, binary_requests = _container_disk_binary_resources(spec, config)
        init.append(_container("container-disk-binary", binary_limits, binary_requests))
        for volume in disk_volumes:
            if volume.get("name") != KERNEL_BOOT_VOLUME_NAME:
                init.append(_container(f"volume{volume.get('name')}-init", disk_limits, disk_requests))
        if kernel_boot:
            init.append(_container(f"volume{KERNEL_BOOT_VOLUME_NAME}-init", disk_limits, disk_requests))
    elif image_volume:
        for volume in disk_volumes:
            init.append(_container(f"volume{volume.get('name')}", disk_limits, disk_requests))
        if kernel_boot:
            init.append(_container(f"volume{KERNEL_BOOT_VOLUME_NAME}", disk_limits, disk_requests))
    return containers, init


# ------------------------------------------------------------------------------------------------ placement


_HYPERV_LABELS = (
    ("vpindex", "vpindex"),
    ("runtime", "runtime"),
    ("reset", "reset"),
    ("synic", "synic"),
    ("synictimer", "synictimer"),
    ("frequencies", "frequencies"),
    ("reenlightenment", "reenlightenment"),
    ("tlbflush", "tlbflush"),
    ("ipi", "ipi"),
)


def _feature_enabled(state: Any) -> bool:
    """``isFeatureStateEnabled``: set and ``enabled: true``."""
    return isinstance(state, dict) and state.get("enabled") is True


def _hyperv_node_selectors(spec: Mapping[str, Any]) -> dict[str, str]:
    """``hypervNodeSelectors``: the enabled HyperV features that need host support, and Intel for EVMCS."""
    hyperv = _get(spec, "domain", "features", "hyperv")
    if not isinstance(hyperv, dict):
        return {}
    out = {}
    for key, label in _HYPERV_LABELS:
        state = hyperv.get(key)
        if key == "synictimer":
            state = {"enabled": state.get("enabled")} if isinstance(state, dict) else {}
        if key == "tlbflush" and isinstance(state, dict):
            state = {"enabled": state.get("enabled")}
        if _feature_enabled(state):
            out[HYPERV_LABEL + label] = "true"
    evmcs = hyperv.get("evmcs")
    if isinstance(evmcs, dict) and evmcs.get("enabled") in (None, True):
        out[CPU_VENDOR_LABEL + "Intel"] = "true"
    return out


def tsc_frequency_required(spec: Mapping[str, Any]) -> bool:
    """``GetTscFrequencyRequirement(vmi).Type != NotRequired`` on amd64 (``IsTscFrequencyRequired``): an invtsc
    CPU feature (require or force), or HyperV reenlightenment enabled."""
    if spec.get("architecture") != "amd64":
        return False
    for feature in _get(spec, "domain", "cpu", "features") or ():
        if feature.get("name") == "invtsc" and feature.get("policy") in ("require", "force"):
            return True
    return _get(spec, "domain", "features", "hyperv", "reenlightenment", "enabled") is True


TSC_FREQUENCY_NODE_LABEL = "cpu-timer.node.kubevirt.io/tsc-frequency"


def lowest_tsc_frequency(nodes: Iterable[Mapping[str, Any]]) -> int:
    """``LowestTSCFrequencyOnCluster`` without ``minimumClusterTSCFrequency`` (pkg/virt-controller/watch/topology):
    the lowest ``cpu-timer.node.kubevirt.io/tsc-frequency`` of the schedulable nodes that carry a valid one
    (``HasInvTSCFrequency`` and ``IsSchedulable``; virt-controller also counts nodes running VMIs); 0 when none
    does (then no frequency is selected)."""
    lowest = 0
    for node in nodes:
        labels = (node.get("metadata") or {}).get("labels") or {}
        if labels.get(NODE_SCHEDULABLE) != "true":
            continue
        text = labels.get(TSC_FREQUENCY_NODE_LABEL)
        try:
            frequency = int(text) if text is not None and text.lstrip("+-").isdigit() else 0
        except ValueError:
            frequency = 0
        if frequency <= 0 or frequency >= 2**63:
            continue
        if lowest == 0 or frequency < lowest:
            lowest = frequency
    return lowest


def node_selector(spec: Mapping[str, Any], config: LauncherConfig, tsc_frequency: int | None) -> dict[str, str]:
    """``newNodeSelectorRenderer(vmi).Render()`` (nodeselectorrenderer.go)."""
    arch = str(spec.get("architecture") or "")
    selectors: dict[str, str] = {NODE_SCHEDULABLE: "true"}
    if arch:
        selectors[ARCH_LABEL] = arch.lower()
    selectors.update(config.node_selectors)
    selectors.update({str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()})
    if config.gate("CrossArchitectureVirtualization") and arch:
        selectors.pop(ARCH_LABEL, None)  # WithoutNativeArchSelector
    if is_cpu_dedicated(spec):
        selectors[CPU_MANAGER] = "true"
    if config.gate("HypervStrictCheck"):
        selectors.update(_hyperv_node_selectors(spec))
    cpu = _get(spec, "domain", "cpu") or {}
    model = str(cpu.get("model") or "")
    if model and model not in ("host-model", "host-passthrough"):
        selectors[CPU_MODEL_LABEL + model] = "true"
    machine = str(_get(spec, "domain", "machine", "type") or "")
    if machine:
        selectors[MACHINE_TYPE_LABEL + machine] = "true"
    if model:  # CPUModelLabelFromCPUModel fails without a model: no feature labels then
        for feature in cpu.get("features") or ():
            if feature.get("policy") in (None, "", "require"):
                selectors[CPU_FEATURE_LABEL + str(feature.get("name"))] = "true"
    if tsc_frequency and tsc_frequency_required(spec):
        selectors[f"{TSC_FREQUENCY_LABEL}-{tsc_frequency}"] = "true"
    if cpu.get("realtime") is not None:
        selectors["kubevirt.io/realtime"] = "true"
    if _is_sev(spec):
        selectors["kubevirt.io/sev"] = "true"
    if _is_sev_es(spec):
        selectors["kubevirt.io/sev-es"] = "true"
    if _is_sev_snp(spec):
        selectors["kubevirt.io/sev-snp"] = "true"
    if _is_secure_execution(spec):
        selectors["kubevirt.io/s390-pv"] = "true"
    if _is_tdx(spec):
        selectors["kubevirt.io/tdx"] = "true"
    if config.gate("CrossArchitectureVirtualization") and arch:
        selectors[VM_ARCH_LABEL + arch] = "true"
    return selectors


def _reject_label(affinity: Json | None, label: str) -> Json:
    """``modifyNodeAffintyToRejectLabel``: ``label DoesNotExist`` added to every required term (one new term
    when there is none)."""
    requirement = {"key": label, "operator": "DoesNotExist"}
    affinity = clone(affinity) if affinity is not None else {}
    node = affinity.get("nodeAffinity")
    if isinstance(node, dict):
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            for term in required.get("nodeSelectorTerms") or []:
                term["matchExpressions"] = [*(term.get("matchExpressions") or []), dict(requirement)]
        else:
            node["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [{"matchExpressions": [requirement]}]
            }
    else:
        affinity["nodeAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [requirement]}]
            }
        }
    return affinity


def pod_affinity(spec: Mapping[str, Any], config: LauncherConfig) -> Json | None:
    """The VMI's affinity with ``setNodeAffinityForPod``'s rejections (an obsolete host model for host-model
    CPUs, forbidden CPU features) and, for cross-architecture clusters, the preferred architecture."""
    affinity: Json | None = clone(spec["affinity"]) if isinstance(spec.get("affinity"), dict) else None
    cpu = _get(spec, "domain", "cpu")
    if not isinstance(cpu, dict) or not cpu.get("model") or cpu.get("model") == "host-model":
        affinity = _reject_label(affinity, HOST_MODEL_OBSOLETE_LABEL)
    if isinstance(cpu, dict):
        for feature in cpu.get("features") or ():
            if feature.get("policy") == "forbid":
                affinity = _reject_label(affinity, CPU_FEATURE_LABEL + str(feature.get("name")))
    arch = str(spec.get("architecture") or "")
    if config.gate("CrossArchitectureVirtualization") and arch:
        affinity = affinity if affinity is not None else {}
        node = affinity.setdefault("nodeAffinity", {})
        node.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
            {
                "weight": 100,
                "preference": {"matchExpressions": [{"key": ARCH_LABEL, "operator": "In", "values": [arch.lower()]}]},
            }
        )
    return affinity


def default_tolerations(tolerations: list[Json]) -> list[Json]:
    """The DefaultTolerationSeconds admission plugin (plugin/pkg/admission/defaulttolerationseconds): not-ready
    and unreachable ``NoExecute`` for 300 s, each unless a toleration already covers it (its key or an empty
    key, with ``NoExecute`` or an empty effect)."""
    out = [clone(t) for t in tolerations]
    for taint in (NOT_READY_TAINT, UNREACHABLE_TAINT):
        covered = any(
            (t.get("key") in (taint, None, "")) and t.get("effect") in ("NoExecute", None, "") for t in tolerations
        )
        if not covered:
            out.append(
                {
                    "effect": "NoExecute",
                    "key": taint,
                    "operator": "Exists",
                    "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
                }
            )
    return out


# ------------------------------------------------------------------------------------------------ API server


def default_requests_from_limits(container: Json) -> None:
    """``SetDefaults_Pod`` (pkg/apis/core/v1/defaults.go): a limit without a request gives the request."""
    resources = container.setdefault("resources", {})
    limits = resources.get("limits")
    if not limits:
        return
    requests = resources.setdefault("requests", {})
    for name, value in limits.items():
        requests.setdefault(name, value)
    resources["requests"] = dict(sorted(requests.items()))


def merge_container_defaults(container: Json, limits: Mapping[str, Any], requests: Mapping[str, Any]) -> None:
    """The LimitRanger admission plugin's ``mergeContainerResources``: a LimitRange's default limits and requests
    for what the container does not set (after ``SetDefaults_Pod``, which runs when the pod is decoded)."""
    resources = container.setdefault("resources", {})
    for section, defaults in (("limits", limits), ("requests", requests)):
        current = resources.get(section) or {}
        for name, value in defaults.items():
            if name not in current:
                quantity = _quantity(value)
                current[name] = str(quantity) if quantity is not None else str(value)
        if current:
            resources[section] = dict(sorted(current.items()))


def default_priority_class(priority_classes: Iterable[Mapping[str, Any]]) -> str | None:
    """``getDefaultPriorityClass`` (plugin/pkg/admission/priority): the ``globalDefault`` PriorityClass with the
    lowest value (several can exist after a race), None when there is none."""
    chosen: Mapping[str, Any] | None = None
    for priority_class in priority_classes:
        if priority_class.get("globalDefault") is True and (
            chosen is None or int(chosen.get("value") or 0) > int(priority_class.get("value") or 0)
        ):
            chosen = priority_class
    return str((chosen.get("metadata") or {}).get("name") or "") or None if chosen is not None else None


def _toleration_superset(ss: Mapping[str, Any], t: Mapping[str, Any]) -> bool:
    """``isSuperset`` (pkg/util/tolerations): whether ``ss`` tolerates everything ``t`` does."""
    if dict(ss) == dict(t):
        return True
    key, ss_key = t.get("key") or "", ss.get("key") or ""
    if key != ss_key and (ss_key != "" or ss.get("operator") != "Exists"):
        return False
    if (t.get("effect") or "") != (ss.get("effect") or "") and (ss.get("effect") or "") != "":
        return False
    seconds = ss.get("tolerationSeconds")
    if (
        ss.get("effect") == "NoExecute"
        and seconds is not None
        and (t.get("tolerationSeconds") is None or t["tolerationSeconds"] > seconds)
    ):
        return False
    operator = ss.get("operator") or ""
    if operator in ("Equal", ""):
        return (t.get("operator") or "") == "Equal" and (t.get("value") or "") == (ss.get("value") or "")
    return operator == "Exists"


def merge_tolerations(first: list[Json], second: list[Json]) -> list[Json]:
    """``tolerations.MergeTolerations``: both lists without the tolerations another one covers."""
    everything = [*first, *second]
    merged: list[Json] = []
    for index, toleration in enumerate(everything):
        if any(_toleration_superset(kept, toleration) for kept in merged):
            continue
        if any(
            dict(other) != dict(toleration) and _toleration_superset(other, toleration)
            for other in everything[index + 1 :]
        ):
            continue
        merged.append(toleration)
    return merged


def apply_runtime_class(pod_spec: Json, runtime_class: Mapping[str, Any]) -> None:
    """The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass): ``setOverhead`` (the pod's
    ``spec.overhead`` from ``overhead.podFixed``) and ``setScheduling`` (its node selector merged in, a
    conflicting value refused; its tolerations merged with ``MergeTolerations``)."""
    fixed = (runtime_class.get("overhead") or {}).get("podFixed")
    if fixed is not None:
        pod_spec["overhead"] = _render_list(_resource_list(fixed))
    scheduling = runtime_class.get("scheduling")
    if not isinstance(scheduling, dict):
        return
    selector = pod_spec.setdefault("nodeSelector", {})
    for key, value in (scheduling.get("nodeSelector") or {}).items():
        if key in selector and selector[key] != value:
            raise RenderError(
                f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                f"pod.spec.nodeSelector[{key}] = {selector[key]}"
            )
        selector[key] = value
    pod_spec["nodeSelector"] = dict(sorted(selector.items()))
    pod_spec["tolerations"] = merge_tolerations(
        pod_spec.get("tolerations") or [], list(scheduling.get("tolerations") or [])
    )


def hugepages_errors(containers: list[Json], section: str) -> list[str]:
    """The pod validation's hugepages check (``validateResourceQuantityHugePageValue``,
    pkg/apis/core/validation): a ``hugepages-<size>`` limit or request that is not a whole number of pages,
    worded as ``field.Invalid``."""
    errors = []
    for index, container in enumerate(containers):
        resources = container.get("resources") or {}
        for kind in ("limits", "requests"):
            for name, value in (resources.get(kind) or {}).items():
                if not name.startswith("hugepages-"):
                    continue
                page = _quantity(name.removeprefix("hugepages-"))
                quantity = _quantity(value)
                divisible = (
                    page is not None
                    and quantity is not None
                    and page.value > 0
                    and (page.value * 1000).denominator == 1
                    and int(page.value * 1000) % 1000 == 0
                    and quantity.int_value() % page.int_value() == 0
                )
                if not divisible:
                    errors.append(
                        f'spec.{section}[{index}].resources.{kind}[{name}]: Invalid value: "{value}": '
                        f"{value} is not positive integer multiple of {name}"
                    )
    return errors


def pod_qos_class(pod: Mapping[str, Any]) -> str:
    """``ComputePodQOS`` (pkg/apis/core/helper/qos, no pod-level resources): Guaranteed when every container,
    init containers included, limits CPU and memory and the summed requests equal the summed limits;
    BestEffort without any CPU or memory request or limit; else Burstable."""
    spec = pod.get("spec") or {}
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for container in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
        resources = container.get("resources") or {}
        for target, section in ((requests, "requests"), (limits, "limits")):
            found = set()
            for name, value in (resources.get(section) or {}).items():
                if name not in ("cpu", "memory"):
                    continue
                quantity = _quantity(value)
                if quantity is not None and quantity.value > 0:
                    found.add(name)
                    target[name] = target.get(name, Fraction(0)) + quantity.value
            if section == "limits" and not {"cpu", "memory"} <= found:
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed:
        for name, value in requests.items():
            if limits.get(name) != value:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


# ------------------------------------------------------------------------------------------------ the pod


SPEC_FIELDS = (
    "affinity",
    "containers",
    "initContainers",
    "nodeSelector",
    "overhead",
    "priorityClassName",
    "runtimeClassName",
    "schedulerName",
    "tolerations",
)


def scheduling_part(pod: Mapping[str, Any]) -> Json:
    """The scheduling part of a Pod as the API server stores it: each container's name, requests and limits
    (and an init container's ``restartPolicy``), spec.overhead, nodeSelector, affinity, tolerations,
    priorityClassName, runtimeClassName, schedulerName and ``status.qosClass``. The same reduction applies to a
    prediction and to a real pod, so the two compare field for field."""
    spec = pod.get("spec") or {}
    metadata = pod.get("metadata") or {}
    out_spec: Json = {}
    for key in SPEC_FIELDS:
        value = spec.get(key)
        if value in (None, "", [], {}):
            continue
        if key in ("containers", "initContainers"):
            value = [_container_part(c) for c in value]
        out_spec[key] = clone(value)
    out_metadata = {k: metadata[k] for k in ("name", "generateName", "namespace") if metadata.get(k)}
    out: Json = {"apiVersion": "v1", "kind": "Pod", "metadata": out_metadata, "spec": out_spec}
    qos = (pod.get("status") or {}).get("qosClass")
    if qos:
        out["status"] = {"qosClass": qos}
    return out


def _container_part(container: Mapping[str, Any]) -> Json:
    resources = container.get("resources") or {}
    part: Json = {"name": container.get("name"), "resources": {}}
    for section in ("limits", "requests"):
        if resources.get(section):
            part["resources"][section] = {k: str(v) for k, v in sorted(resources[section].items())}
    if container.get("restartPolicy"):
        part["restartPolicy"] = container["restartPolicy"]
    return part


def render_launcher_pod(
    vmi_spec: Mapping[str, Any],
    *,
    namespace: str,
    config: LauncherConfig,
    name: str = "",
    namespace_facts: NamespaceFacts | None = None,
    annotations: Mapping[str, str] | None = None,
    tsc_frequency: int | None = None,
    runtime_class: Mapping[str, Any] | None = None,
    default_priority_class: str | None = None,
) -> Json:
    """The scheduling part of the virt-launcher pod virt-controller v1.9.0 renders for a VMI with spec
    ``vmi_spec`` (a VM's expanded ``spec.template.spec``, or a VMI's spec) in ``namespace``, after the API
    server's defaulting and admission: a Pod dict (``apiVersion``, ``kind``, ``metadata``, ``spec`` with only
    the scheduling fields, ``status.qosClass``).

    ``config`` holds the KubeVirt CR's inputs; ``namespace_facts`` the namespace's labels and ResourceQuotas
    (none known: no auto limits); ``annotations`` the VMI's (the VM template's, with the instance type's and
    preference's); ``tsc_frequency`` the lowest TSC frequency of the schedulable nodes, or
    ``minimumClusterTSCFrequency`` (for VMIs that need one); ``runtime_class`` the RuntimeClass that
    ``defaultRuntimeClass`` names (its overhead and scheduling); ``default_priority_class`` the cluster's
    ``globalDefault`` PriorityClass, which the Priority admission plugin gives a pod that names none. Raises :class:`RenderError` with virt-controller's
    message where it would render no pod.
    """
    facts = namespace_facts if namespace_facts is not None else NamespaceFacts()
    annotations = dict(annotations or {})
    spec = apply_vmi_defaults(vmi_spec, config)
    if config.even_parity and _get(spec, "domain", "cpu", "isolateEmulatorThread"):
        annotations["alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity"] = ""
    containers, init_containers = _containers(spec, config, facts, annotations)
    pod_spec: Json = {"containers": containers}
    if init_containers:
        pod_spec["initContainers"] = init_containers
    pod_spec["nodeSelector"] = dict(sorted(node_selector(spec, config, tsc_frequency).items()))
    if config.default_runtime_class:
        pod_spec["runtimeClassName"] = config.default_runtime_class
    if spec.get("priorityClassName"):
        pod_spec["priorityClassName"] = str(spec["priorityClassName"])
    elif default_priority_class:
        pod_spec["priorityClassName"] = default_priority_class
    affinity = pod_affinity(spec, config)
    if affinity:
        pod_spec["affinity"] = affinity
    pod_spec["schedulerName"] = str(spec.get("schedulerName") or DEFAULT_SCHEDULER)
    pod_spec["tolerations"] = default_tolerations([t for t in spec.get("tolerations") or () if isinstance(t, dict)])
    for container in [*containers, *init_containers]:
        default_requests_from_limits(container)
    for limits, requests in facts.container_defaults:
        for container in [*containers, *init_containers]:
            merge_container_defaults(container, limits, requests)
    if config.default_runtime_class and runtime_class is not None:
        apply_runtime_class(pod_spec, runtime_class)
    invalid = hugepages_errors(containers, "containers") + hugepages_errors(init_containers, "initContainers")
    if invalid:
        # the API server's words for the pod virt-controller would send (its name ends in 5 random characters)
        details = invalid[0] if len(invalid) == 1 else "[" + ", ".join(invalid) + "]"
        raise RenderError(f'Pod "virt-launcher-{name}-" is invalid: {details}')
    metadata: Json = {"generateName": f"virt-launcher-{name}-" if name else "virt-launcher-", "namespace": namespace}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec}
    pod["status"] = {"qosClass": pod_qos_class(pod)}
    return scheduling_part(pod)
