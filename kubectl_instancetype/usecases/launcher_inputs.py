"""What the virt-launcher pod's prediction reads from the cluster: the KubeVirt CR (whichever exists, in any
namespace), the VM's namespace (labels) and its ResourceQuotas, once per invocation; then the pure rendering
(:mod:`..instancetype.launcherpod`). Offline (``expand -f`` that reads no cluster) KubeVirt v1.9.0's defaults are
used, and a warning says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ForbiddenError, NotFoundError

if TYPE_CHECKING:
    from ..instancetype.launcherpod import LauncherConfig, NamespaceFacts
    from ..kube.client import Client
    from ..kube.session import Session

TSC_FREQUENCY_NODE_LABEL = "cpu-timer.node.kubevirt.io/tsc-frequency"
OFFLINE_WARNING = (
    "Warning: no cluster was read: the launcher pod is predicted with KubeVirt v1.9.0's defaults "
    "(cpuAllocationRatio 10, memoryOvercommit 100, amd64, no namespace quota or labels)"
)


@dataclass(frozen=True)
class LauncherPod:
    """The predicted launcher pod of one VM (``pod``, a Pod dict), or the problems that stop it."""

    name: str
    pod: dict[str, Any] | None
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class LauncherInputs:
    """The KubeVirt configuration used, whether it is KubeVirt's defaults for want of a cluster, and the
    warnings its reading gave (one line each)."""

    config: LauncherConfig
    offline: bool = False
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class NamespaceInputs:
    """What is known of one namespace, and the warnings its reading gave."""

    facts: NamespaceFacts
    warnings: tuple[str, ...] = ()
    # the ResourceQuota objects (the quota check of ``fits`` and ``create vm`` reads them too: one GET), or the
    # server's message when they may not be listed
    quotas: tuple[dict[str, Any], ...] = ()
    quotas_forbidden: str | None = None


def read_launcher_config(client: Client) -> LauncherInputs:
    """The KubeVirt CR's configuration as virt-controller reads it (``GetConfigFromKubeVirtCR``: the last CR with
    a ``status.phase``), else KubeVirt's defaults with a warning saying why."""
    from ..instancetype.launcherpod import ConfigError, LauncherConfig

    try:
        kubevirts = client.kubevirts()
    except ForbiddenError:
        return LauncherInputs(
            LauncherConfig(),
            warnings=(
                "Warning: the KubeVirt resource cannot be read (forbidden): the launcher pod is predicted with "
                "KubeVirt v1.9.0's defaults",
            ),
        )
    except NotFoundError:
        kubevirts = []
    deployed = [kv for kv in kubevirts if (kv.get("status") or {}).get("phase") and not _deleting(kv)]
    if not deployed:
        return LauncherInputs(
            LauncherConfig(source="KubeVirt v1.9.0 defaults (no deployed KubeVirt resource)"),
            warnings=(
                "Warning: no deployed KubeVirt resource: the launcher pod is predicted with KubeVirt v1.9.0's defaults",
            ),
        )
    try:
        return LauncherInputs(LauncherConfig.from_kubevirt(deployed[-1]))
    except ConfigError as exc:
        return LauncherInputs(
            LauncherConfig(),
            warnings=(
                f"Warning: virt-controller refuses the KubeVirt configuration ({exc}) and keeps its last valid "
                "one, which cannot be read: the launcher pod is predicted with KubeVirt v1.9.0's defaults",
            ),
        )


def _deleting(obj: Mapping[str, Any]) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def read_namespace_facts(client: Client, namespace: str) -> NamespaceInputs:
    """The namespace's labels and ResourceQuotas (what virt-controller's informers hold) and its LimitRanges (what
    the API server's LimitRanger defaults from); a namespace that does not exist has no labels (virt-controller
    then uses the default ratio), one that cannot be read gives a warning and no facts."""
    from ..instancetype.launcherpod import NamespaceFacts

    warnings = []
    namespace_object: dict[str, Any] | None
    try:
        namespace_object = client.namespace_object(namespace)
    except NotFoundError:
        namespace_object = None
    except ForbiddenError:
        namespace_object = None
        warnings.append(
            f"Warning: namespace {namespace} cannot be read (forbidden): its labels (auto CPU limits, memory limit "
            "ratio) are not taken into account"
        )
    quotas_forbidden = None
    try:
        quotas = client.resource_quotas(namespace)
    except ForbiddenError as exc:
        quotas, quotas_forbidden = [], exc.message
        warnings.append(
            f"Warning: the ResourceQuotas of namespace {namespace} cannot be read (forbidden): auto CPU and memory "
            "limits under a limits.* quota are not predicted"
        )
    try:
        limit_ranges = client.limit_ranges(namespace)
    except ForbiddenError:
        limit_ranges = []
        warnings.append(
            f"Warning: the LimitRanges of namespace {namespace} cannot be read (forbidden): their default requests "
            "and limits are not predicted"
        )
    return NamespaceInputs(
        NamespaceFacts.from_objects(namespace_object, quotas, limit_ranges),
        tuple(warnings),
        tuple(quotas),
        quotas_forbidden,
    )


class LauncherPods:
    """One invocation's predictions: the KubeVirt configuration and each namespace's facts are read once; each
    warning goes to ``warn`` once."""

    def __init__(self, session: Session, warn: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.warn = warn
        self._online: LauncherInputs | None = None
        self._facts: dict[str, NamespaceInputs] = {}
        self._warned: set[str] = set()
        self._tsc: int | None = None
        self._runtime_classes: dict[str, dict[str, Any] | None] = {}
        self._priority: str | None = None

    def _warn(self, lines: Iterable[str]) -> None:
        for line in lines:
            if line not in self._warned and self.warn is not None:
                self.warn(line)
            self._warned.add(line)

    def inputs(self, *, offline: bool = False) -> LauncherInputs:
        """The cluster's configuration (read on first need), or KubeVirt's defaults ``offline``."""
        from ..instancetype.launcherpod import LauncherConfig

        if offline:
            self._warn([OFFLINE_WARNING])
            return LauncherInputs(LauncherConfig(), True, (OFFLINE_WARNING,))
        if self._online is None:
            self._online = read_launcher_config(self.session.client())
        self._warn(self._online.warnings)
        return self._online

    def facts(self, namespace: str, *, offline: bool = False) -> NamespaceFacts:
        """The namespace's labels and quotas (none offline)."""
        from ..instancetype.launcherpod import NamespaceFacts

        if offline:
            return NamespaceFacts()
        return self.namespace_inputs(namespace).facts

    def namespace_inputs(self, namespace: str) -> NamespaceInputs:
        """What was read of the namespace (on first need): its facts, and its ResourceQuota objects."""
        if namespace not in self._facts:
            read = read_namespace_facts(self.session.client(), namespace)
            self._facts[namespace] = read
            self._warn(read.warnings)
        return self._facts[namespace]

    def render(self, vm: Mapping[str, Any], *, offline: bool = False) -> LauncherPod:
        """The launcher pod of the expanded VirtualMachine ``vm`` (its namespace: the VM's, else -n, else the
        context's; ``default`` offline)."""
        from ..instancetype.launcherpod import RenderError, render_launcher_pod

        metadata = vm.get("metadata") or {}
        name = str(metadata.get("name") or "")
        namespace = str(metadata.get("namespace") or "") or str(self.session.namespace_flag or "")
        if not namespace:
            namespace = "default" if offline else self.session.namespace
        template = (vm.get("spec") or {}).get("template") or {}
        config = self.inputs(offline=offline).config
        try:
            tsc_frequency = config.minimum_cluster_tsc_frequency
            if tsc_frequency is None and not offline:
                tsc_frequency = self._lowest_tsc_frequency(template.get("spec") or {}, config)
            runtime_class = None
            if config.default_runtime_class and not offline:
                runtime_class = self._runtime_class(config.default_runtime_class)
                if runtime_class is None:
                    return LauncherPod(
                        name, None, (f'pod rejected: RuntimeClass "{config.default_runtime_class}" not found',)
                    )
            pod = render_launcher_pod(
                template.get("spec") or {},
                namespace=namespace,
                name=name,
                config=config,
                namespace_facts=self.facts(namespace, offline=offline),
                annotations=(template.get("metadata") or {}).get("annotations") or {},
                tsc_frequency=tsc_frequency,
                runtime_class=runtime_class,
                default_priority_class=(
                    None
                    if offline or (template.get("spec") or {}).get("priorityClassName")
                    else self._default_priority()
                ),
            )
        except RenderError as exc:
            message = str(exc)
            if not message.startswith("Pod "):
                message = f"failed to render launch manifest: {message}"
            return LauncherPod(name, None, (message,))
        return LauncherPod(name, pod)

    def _default_priority(self) -> str | None:
        """The cluster's ``globalDefault`` PriorityClass (read once); one that cannot be read gives a warning."""
        from ..instancetype.launcherpod import default_priority_class

        if self._priority is None:
            try:
                self._priority = default_priority_class(self.session.client().priority_classes()) or ""
            except ForbiddenError:
                self._warn(
                    [
                        "Warning: PriorityClasses cannot be read (forbidden): a cluster default PriorityClass, which "
                        "the API server gives launcher pods that name none, is not predicted"
                    ]
                )
                self._priority = ""
        return self._priority or None

    def _runtime_class(self, name: str) -> dict[str, Any] | None:
        """The RuntimeClass ``name`` (read once; None when it does not exist). One that cannot be read gives a
        warning and counts as one without overhead or scheduling."""
        if name not in self._runtime_classes:
            try:
                self._runtime_classes[name] = self.session.client().runtime_class(name)
            except NotFoundError:
                self._runtime_classes[name] = None
            except ForbiddenError:
                self._warn(
                    [
                        f"Warning: RuntimeClass {name} cannot be read (forbidden): its pod overhead and scheduling "
                        "are not predicted"
                    ]
                )
                self._runtime_classes[name] = {}
        return self._runtime_classes[name]

    def _lowest_tsc_frequency(self, spec: Mapping[str, Any], config: LauncherConfig) -> int | None:
        """For a VMI that needs a TSC frequency (invtsc, HyperV reenlightenment): the lowest of the schedulable
        nodes', read once (the nodes that carry the label only); None when the nodes cannot be read."""
        from ..instancetype.launcherpod import apply_vmi_defaults, lowest_tsc_frequency, tsc_frequency_required

        if not tsc_frequency_required(apply_vmi_defaults(spec, config)):
            return None
        if self._tsc is None:
            try:
                nodes = self.session.client().labelled_nodes(TSC_FREQUENCY_NODE_LABEL)
            except ForbiddenError:
                self._warn(
                    [
                        "Warning: nodes cannot be read (forbidden): the TSC frequency virt-controller selects for "
                        "VMs with invtsc or HyperV reenlightenment is not predicted"
                    ]
                )
                nodes = []
            self._tsc = lowest_tsc_frequency(nodes)
        return self._tsc or None


def cluster_defaults(config: LauncherConfig, *, architecture: str | None, network_interface: str | None) -> Any:
    """The expansion's cluster defaults from the KubeVirt configuration, the flags given overriding it."""
    from ..instancetype.expand import ClusterDefaults

    return ClusterDefaults(
        architecture=architecture or config.default_architecture or None,
        machine_type=config.machine_type,
        machine_types=dict(config.machine_types),
        cpu_request=config.cpu_request,
        network_interface=network_interface or config.network_interface,
        permit_bridge_interface_on_pod_network=config.permit_bridge_interface_on_pod_network,
    )
