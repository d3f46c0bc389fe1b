"""Will it run? The virt-launcher pod of a VM placed on the cluster's nodes now (``fits``), how many more of each
instance type the nodes take (``capacity``), and the same answer for ``create vm`` / ``switch --plan`` warnings and
``list``/``recommend --fits``.

The cluster is read once per command: the Nodes (paged), and the pods bound to them streamed page by page with the
API's field selector ``spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed`` (the scheduler's own view:
bound, non-terminal), keeping of each pod only its node and its requests. The launcher pods come from the
launcher renderer (:mod:`.launcher`), the arithmetic and words from :mod:`..instancetype.nodefit`, the quota
check from :mod:`..instancetype.podquota`.

A cluster without Nodes (a control plane alone) cannot answer: the fit is *unknown*, never "no".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..instancetype.nodefit import Capacity, NodeFit, NodeInfo
    from ..instancetype.podquota import QuotaDenial
    from ..kube.client import Client
    from ..kube.session import Session

BOUND_PODS = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"
UNKNOWN_NO_NODES = "the cluster has no nodes: whether it fits is unknown"


@dataclass
class Nodes:
    """The nodes as the scheduler sees them now, and what could not be read (one warning each)."""

    nodes: list[NodeInfo]
    warnings: list[str] = field(default_factory=list)
    pods_read: int = 0


def read_nodes(client: Client) -> Nodes:
    """Every Node and the requests of the pods bound to it. Pods the user may not list: one warning, and the
    nodes are taken as empty (what is left on them is then an upper bound)."""
    from ..errors import ForbiddenError
    from ..instancetype import nodefit
    from ..kube import resources

    nodes = {}
    for page in client.list_pages(resources.NODES):
        for item in page.get("items") or ():
            info = nodefit.node_info(item)
            nodes[info.name] = info
    result = Nodes(sorted(nodes.values(), key=lambda node: node.name))
    if not nodes:
        return result
    from ..golang import k8sproto

    try:
        # in protobuf, each pod read for what the accounting reads only: 10,000 virt-launcher pods are 112 MB of
        # JSON, 2.5 of the 2.8 CPU seconds this read took (bench/README.md, "Right-sizing")
        for page in client.list_pages(resources.PODS, None, field_selector=BOUND_PODS, fields=k8sproto.BOUND_POD):
            items = page.get("items") or ()
            for pod in items:
                node = nodes.get(str((pod.get("spec") or {}).get("nodeName") or ""))
                if node is not None and nodefit.counts_on_node(pod):
                    node.add_pod(nodefit.bound_request(pod))
            result.pods_read += len(items)
            del items, page
    except ForbiddenError as exc:
        result.warnings.append(
            f"cannot list pods in all namespaces ({exc.message}): the nodes are taken as empty, so what is left on "
            "them is an upper bound"
        )
    return result


@dataclass(frozen=True)
class Placement:
    """One launcher pod against the nodes: each node's answer (sorted by name), the scheduler's line when none
    fits ("" otherwise), hints, the quota that would refuse the pod, and whether the answer is unknown."""

    subject: str
    namespace: str
    pod: dict[str, Any]
    request: dict[str, int]
    nodes: list[NodeFit]
    message: str
    hints: list[str]
    quota: QuotaDenial | None
    unknown: bool

    @property
    def fitting(self) -> list[NodeFit]:
        return [fit for fit in self.nodes if not fit.reasons]

    @property
    def runs(self) -> bool | None:
        """True when a node takes it and no quota refuses it, None when unknown."""
        if self.quota is not None:
            return False
        if self.unknown:
            return None
        return bool(self.fitting)


def place(
    subject: str,
    namespace: str,
    pod: dict[str, Any],
    nodes: list[NodeInfo],
    quotas: list[dict[str, Any]] | None = None,
    generate_name: str = "",
) -> Placement:
    """The filters and the quota check for one launcher pod."""
    from ..instancetype import fithints, nodefit, podquota

    candidate = nodefit.pod_filter(pod)
    diagnosis = nodefit.diagnose(candidate, nodes)
    hints = fithints.hints(candidate, nodes) if diagnosis.message else []
    denial = podquota.check(pod, quotas or [], generate_name) if quotas else None
    return Placement(
        subject=subject,
        namespace=namespace,
        pod=pod,
        request=dict(candidate.request),
        nodes=diagnosis.nodes,
        message=diagnosis.message,
        hints=hints,
        quota=denial,
        unknown=not nodes,
    )


class Renderer:
    """The launcher pods of VMs in one namespace, the KubeVirt configuration read once (:mod:`.launcherpods`
    through the expansion); instance types and preferences given to :meth:`know` are not fetched again."""

    def __init__(self, session: Session, namespace: str) -> None:
        from .expansion import Expansion, LauncherPodRequest

        self.namespace = namespace
        self.warnings: list[str] = []
        request = LauncherPodRequest(warn=self._warn)
        self.expansion = Expansion(session, None, check=True, stdin=None, launcher_pod=request)

    def _warn(self, line: str) -> None:
        line = line.removeprefix("Warning: ")
        if line not in self.warnings:
            self.warnings.append(line)

    def quotas(self, warnings: list[str]) -> list[dict[str, Any]]:
        """The namespace's ResourceQuotas, as the launcher pod's rendering read them (one GET for both; a user who
        may not list them: one warning, no quota check)."""
        assert self.expansion.launcher is not None  # made with a LauncherPodRequest
        read = self.expansion.launcher.namespace_inputs(self.namespace)
        if read.quotas_forbidden is not None:
            warnings.append(
                f"cannot list resourcequotas in namespace {self.namespace} ({read.quotas_forbidden}): "
                "quotas were not checked"
            )
        return list(read.quotas)

    def know(self, kind: str, objects: Iterable[dict[str, Any]]) -> None:
        """Objects already read (a listing), so expanding VMs that name them sends no GET."""
        for obj in objects:
            self.expansion.local[(kind, str((obj.get("metadata") or {}).get("name") or ""))] = obj

    def pod(self, vm: dict[str, Any]) -> dict[str, Any]:
        """The launcher pod of ``vm`` in the namespace; PluginError with KubeVirt's words when the VM cannot be
        expanded or rendered."""
        from ..errors import PluginError

        obj = {**vm, "metadata": {**(vm.get("metadata") or {}), "namespace": self.namespace}}
        expanded = self.expansion.expand_local(obj, stored=True)
        if expanded.launcher_pod is None:
            raise PluginError("; ".join(expanded.problems) or "the VirtualMachine cannot be expanded")
        return expanded.launcher_pod


def generate_name(vm: dict[str, Any]) -> str:
    """The launcher pod's generateName (virt-controller's ``virt-launcher-<vmi>-``, pkg/virt-controller/services
    template.go)."""
    return f"virt-launcher-{(vm.get('metadata') or {}).get('name') or ''}-"


# --- fits -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FitsRequest:
    """What ``fits`` places: a stored VM (``vm``), the VMs of a file (``file``, read from ``stdin`` for ``-``),
    or a VM of ``instancetype`` (and ``preference``) built as ``create vm`` would."""

    vm: str = ""
    file: str = ""
    instancetype: str = ""
    preference: str = ""
    stdin: Any = None


@dataclass(frozen=True)
class FitsReport:
    """One placement per VM, and what could not be read."""

    placements: list[Placement]
    warnings: list[str]
    smaller: dict[str, str] = field(default_factory=dict)  # subject -> a smaller instance type that would fit


def fits(session: Session, request: FitsRequest) -> FitsReport:
    """``fits``: each VM's launcher pod against the nodes and the namespace's quotas."""

    client = session.client()
    namespace = session.namespace
    subjects = _subjects(session, request, namespace)
    renderer = Renderer(session, namespace)
    state = read_nodes(client)
    warnings = list(state.warnings)
    quotas = renderer.quotas(warnings)
    placements = []
    smaller: dict[str, str] = {}
    for subject, vm in subjects:
        pod = renderer.pod(vm)
        placement = place(subject, namespace, pod, state.nodes, quotas, generate_name(vm))
        placements.append(placement)
        if placement.message:
            alternative = _smaller_type(session, renderer, vm, state.nodes)
            if alternative:
                smaller[subject] = alternative
    return FitsReport(placements, warnings + renderer.warnings, smaller)


def _subjects(session: Session, request: FitsRequest, namespace: str) -> list[tuple[str, dict[str, Any]]]:
    from ..errors import InputError
    from ..kube import resources

    if request.vm:
        vm = session.client().get(resources.VIRTUAL_MACHINES, request.vm, namespace)
        return [(f"vm/{request.vm}", vm)]
    if request.file:
        from .manifests import read_manifests

        out = []
        for obj in read_manifests(request.file, request.stdin):
            if obj.get("kind") != "VirtualMachine":
                raise InputError(f"{request.file}: fits places VirtualMachines; found kind {obj.get('kind')!r}")
            out.append((f"vm/{(obj.get('metadata') or {}).get('name', '')}", obj))
        if not out:
            raise InputError(f"{request.file}: no VirtualMachine found")
        return out
    return [(request.instancetype, type_vm(request.instancetype, request.preference))]


def type_vm(instancetype: str, preference: str) -> dict[str, Any]:
    """The VM ``create vm --instancetype T --preference P`` writes, without volumes (they do not change where the
    launcher pod fits beyond an init container's requests)."""
    from ..instancetype import kinds

    def matcher(reference: str, default: str) -> dict[str, Any]:
        kind, _, name = reference.rpartition("/")
        spelled = kinds.spelled(kind) if kind else None
        return {"kind": spelled.kind if spelled else default, "name": name}

    spec: dict[str, Any] = {
        "runStrategy": "Always",
        "instancetype": matcher(instancetype, "VirtualMachineClusterInstancetype"),
        "template": {"spec": {"domain": {"devices": {}}}},
    }
    if preference:
        spec["preference"] = matcher(preference, "VirtualMachineClusterPreference")
    name = instancetype.rpartition("/")[2].replace(".", "-") or "vm"
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name}, "spec": spec}


def _smaller_type(session: Session, renderer: Any, vm: dict[str, Any], nodes: list[NodeInfo]) -> str:
    """The largest instance type of the VM's series (``u1`` of ``u1.2xlarge``) that fits some node, "" when the VM
    names no cluster instance type or none of its series fits."""
    from ..errors import PluginError
    from ..instancetype import nodefit
    from ..kube import resources

    matcher = (vm.get("spec") or {}).get("instancetype") or {}
    name = str(matcher.get("name") or "")
    if not name or "." not in name or "Cluster" not in str(matcher.get("kind") or "VirtualMachineClusterInstancetype"):
        return ""
    series = name.split(".", 1)[0] + "."
    try:
        candidates = [
            item
            for page in session.client().list_pages(resources.CLUSTER_INSTANCETYPES)
            for item in page.get("items") or ()
            if str(item["metadata"]["name"]).startswith(series) and item["metadata"]["name"] != name
        ]
    except PluginError:
        return ""
    best: tuple[tuple[int, int], str] | None = None
    for item in candidates:
        other = item["metadata"]["name"]
        changed = {**vm, "spec": {**vm["spec"], "instancetype": {**matcher, "name": other}}}
        try:
            pod = renderer.pod(changed)
        except PluginError:
            continue
        candidate = nodefit.pod_filter(pod)
        if any(not nodefit.filter_reasons(candidate, node) for node in nodes):
            size = (candidate.request.get("memory", 0), candidate.request.get("cpu", 0))
            if best is None or size > best[0]:
                best = (size, other)
    return best[1] if best else ""


# --- capacity -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CapacityRequest:
    """Which types ``capacity`` counts: ``instancetypes`` (none: every cluster instance type, narrowed by
    ``selector``), each with ``preference``."""

    instancetypes: tuple[str, ...] = ()
    preference: str = ""
    selector: str = ""


@dataclass(frozen=True)
class TypeCapacity:
    """One instance type's answer (``problem``: why its launcher pod cannot be predicted, KubeVirt's words)."""

    instancetype: str
    preference: str
    capacity: Capacity | None
    request: dict[str, int]
    problem: str = ""


@dataclass(frozen=True)
class CapacityReport:
    """Every type's answer, the node count, and whether the answer is unknown (no nodes)."""

    items: list[TypeCapacity]
    nodes: int
    schedulable: int
    warnings: list[str]

    @property
    def unknown(self) -> bool:
        return self.nodes == 0


def capacity(session: Session, request: CapacityRequest) -> CapacityReport:
    """``capacity``: for each type, how many more launcher pods like its VM's the nodes take now. The cluster
    instance types are listed once (and handed to the expansion), the nodes and pods read once."""
    from ..errors import PluginError
    from ..instancetype import nodefit
    from ..kube import resources

    client = session.client()
    namespace = session.namespace
    renderer = Renderer(session, namespace)
    names = list(request.instancetypes)
    if not names:
        listed = [
            item
            for page in client.list_pages(resources.CLUSTER_INSTANCETYPES, label_selector=request.selector or None)
            for item in page.get("items") or ()
        ]
        renderer.know(resources.CLUSTER_INSTANCETYPES.kind, listed)
        names = sorted(str(item["metadata"]["name"]) for item in listed)
    state = read_nodes(client)
    items = []
    for name in names:
        try:
            pod = renderer.pod(type_vm(name, request.preference))
        except PluginError as exc:
            items.append(TypeCapacity(name, request.preference, None, {}, str(exc)))
            continue
        candidate = nodefit.pod_filter(pod)
        items.append(
            TypeCapacity(name, request.preference, nodefit.capacity(candidate, state.nodes), candidate.request)
        )
    schedulable = sum(1 for node in state.nodes if not node.unschedulable)
    return CapacityReport(items, len(state.nodes), schedulable, state.warnings + renderer.warnings)


# --- the answer others use --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FitCheck:
    """Whether a VM would run now (None: unknown, no nodes), and the line to show when it would not."""

    runs: bool | None
    line: str


LAZY_NODES = 5


def check_vm(session: Session, vm: dict[str, Any], namespace: str, known: Iterable[dict[str, Any]] = ()) -> FitCheck:
    """For ``create vm`` and ``switch --plan``: the fit of ``vm`` now, as one line (the quota's refusal or the
    scheduler's line). ``known``: the instance type and preference objects already read (the pre-flight's), not
    fetched again.

    Cheap when the VM fits: the KubeVirt configuration and the namespace's labels, quotas and limit ranges are
    read once (the quota check uses the quotas the rendering read), then the nodes, and the pods of at most
    :data:`LAZY_NODES` nodes that would take the pod were they empty (``fieldSelector=spec.nodeName=NODE,...``);
    the first where it fits answers. Only when none of those does are all pods read, for the scheduler's exact
    line."""
    from ..instancetype import nodefit
    from ..kube import resources

    client = session.client()
    warnings: list[str] = []
    renderer = Renderer(session, namespace)
    for obj in known:
        renderer.know(str(obj.get("kind") or ""), [obj])
    pod = renderer.pod(vm)
    denial = place("", namespace, pod, [], renderer.quotas(warnings), generate_name(vm)).quota
    if denial is not None:
        return FitCheck(False, denial.forbidden)
    nodes = [nodefit.node_info(item) for page in client.list_pages(resources.NODES) for item in page.get("items") or ()]
    if not nodes:
        return FitCheck(None, "")
    candidate = nodefit.pod_filter(pod)
    empty_fit = [node for node in nodes if not nodefit.filter_reasons(candidate, node)]
    for node in empty_fit[:LAZY_NODES]:
        selector = f"spec.nodeName={node.name},status.phase!=Succeeded,status.phase!=Failed"
        for page in client.list_pages(resources.PODS, None, field_selector=selector):
            for item in page.get("items") or ():
                if nodefit.counts_on_node(item):
                    node.add_pod(nodefit.bound_request(item))
        if not nodefit.filter_reasons(candidate, node):
            return FitCheck(True, "")
    state = read_nodes(client)
    placement = place("", namespace, pod, state.nodes)
    return FitCheck(placement.runs, placement.message)


def fit_warning(session: Session, vm: dict[str, Any], namespace: str, known: Iterable[dict[str, Any]] = ()) -> str:
    """``create vm`` and ``switch --plan``: the one warning line when ``vm`` would not run now ("" when it would,
    when there are no nodes to judge by, or when the nodes cannot be read: the check is a courtesy). ``known``:
    the instance type and preference objects already read."""
    from ..errors import PluginError

    try:
        verdict = check_vm(session, vm, namespace, known)
    except PluginError:
        return ""
    if verdict.runs is not False:
        return ""
    name = (vm.get("metadata") or {}).get("name") or (vm.get("metadata") or {}).get("generateName") or ""
    return f"virtualmachine/{name} would not run now: {verdict.line} (kubectl instancetype fits for details)"


class FitsSource:
    """A listing source that passes on only the instance types whose VM (with ``preference``) fits some node now
    (``list --fits``, ``recommend --fits``). Without nodes nothing can be judged: everything passes, with one
    warning saying so. Preferences pass unchanged."""

    def __init__(self, inner: Any, session: Session, preference: str = ""):
        self.inner = inner
        self.session = session
        self.preference = preference

    @property
    def namespace(self) -> str:
        """The inner source's namespace."""
        return str(self.inner.namespace)

    def scan(self, query: Any, consume: Callable[[dict[str, Any], str | None], None]) -> list[str]:
        """Scan the inner source, then keep what fits."""
        from ..errors import PluginError
        from ..instancetype import nodefit
        from ..instancetype.listing import INSTANCETYPES

        held: list[tuple[dict[str, Any], str | None]] = []
        warnings = list(self.inner.scan(query, lambda obj, namespace: held.append((obj, namespace))))
        if query.what != INSTANCETYPES:
            for obj, namespace in held:
                consume(obj, namespace)
            return warnings
        state = read_nodes(self.session.client())
        warnings += state.warnings
        if not state.nodes:
            warnings.append(f"{UNKNOWN_NO_NODES}; --fits keeps every instance type")
            for obj, namespace in held:
                consume(obj, namespace)
            return warnings
        renderers: dict[str, Any] = {}
        for obj, namespace in held:
            where = namespace or self.inner.namespace
            renderer = renderers.get(where) or renderers.setdefault(where, Renderer(self.session, where))
            name = str((obj.get("metadata") or {}).get("name") or "")
            reference = name if namespace is None else f"virtualmachineinstancetype/{name}"
            try:
                candidate = nodefit.pod_filter(renderer.pod(type_vm(reference, self.preference)))
            except PluginError:
                continue  # KubeVirt would deny such a VM (a preference's requirements): nothing to run
            if any(not nodefit.filter_reasons(candidate, node) for node in state.nodes):
                consume(obj, namespace)
        for renderer in renderers.values():
            warnings += [line for line in renderer.warnings if line not in warnings]
        return warnings


def recommend_fitting(session: Session, reference: str | None, query: Any, **options: Any) -> Any:
    """``recommend --fits``: :func:`.recommend.recommend` over the cluster's instance types that fit some node now
    (with the preference ``reference``)."""
    from .listing import ClusterSource
    from .recommend import cluster_preference, recommend

    preference = cluster_preference(session, reference) if reference is not None else {}
    source = FitsSource(ClusterSource(session), session, reference or "")
    return recommend(source, query, preference, **options)
