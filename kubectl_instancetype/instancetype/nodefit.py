"""Where a pod fits, as kube-scheduler v1.36.3's filters decide it: pure arithmetic on Node and Pod dicts.

Ported from ``k8s.io/kubernetes@v1.36.3`` and ``k8s.io/component-helpers@v0.36.3`` (the functions are named at
each step):

- a pod's requests: component-helpers ``resource.PodRequests`` (containers summed; init containers: the max of
  each ordinary one plus the sidecars started before it, sidecars (``restartPolicy: Always``) added to the
  containers; pod-level requests for cpu, memory and hugepages replace the containers'; ``spec.overhead``
  added), for pods already bound with ``UseStatusResources`` (InPlacePodVerticalScaling is GA): each
  container's request is the max of its spec, ``status.containerStatuses[].resources`` and
  ``allocatedResources``;
- the scheduler's units (``framework.Resource``): cpu in millicores rounded up (``MilliValue``), every other
  quantity rounded up to a whole number (``Value``); only cpu, memory, ephemeral-storage and the scalar
  resources (extended, hugepages-*, ``kubernetes.io/`` prefixed, attachable volumes) count;
- the filters in the default profile's order, each node counted under the first that rejects it
  (``frameworkImpl.RunFilterPlugins``): NodeUnschedulable (``spec.unschedulable`` unless the pod tolerates
  ``node.kubernetes.io/unschedulable:NoSchedule``), NodeName, TaintToleration (``FindMatchingUntoleratedTaint``
  over NoSchedule and NoExecute taints, ``Toleration.ToleratesTaint`` without the alpha comparison
  operators), NodeAffinity (``nodeaffinity.GetRequiredNodeAffinity(pod).Match``: nodeSelector, then the
  required terms ORed, a term that does not parse matching nothing), NodeResourcesFit (``fitsRequest``: the pod
  count, then each requested resource against allocatable minus what the node's non-terminal pods request; a
  resource the pod requests zero of is never checked, and a pod requesting nothing checks only the count).

The pods a node holds are those bound to it whose phase is neither Succeeded nor Failed (the scheduler's
informer field selector, ``pkg/scheduler/scheduler.go``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..golang import kubescheduler as words
from ..golang.quantity import QuantityError, parse_quantity

CPU, MEMORY, EPHEMERAL, PODS = "cpu", "memory", "ephemeral-storage", "pods"
HUGEPAGES_PREFIX = "hugepages-"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
# the order limitedBy and leftovers are reported in (after these: other resources by name)
RESOURCE_ORDER = (CPU, MEMORY, EPHEMERAL)

NANO = 10**9
_values: dict[str, int | None] = {}


def quantity_nanos(text: object) -> int | None:
    """A quantity's exact value in nano units (``resource.ParseQuantity`` rounds up to whole nanos, so every
    quantity is a whole number of them: sums stay exact integers), memoised: a cluster's pods repeat a few
    request strings many times. None for what is not a quantity."""
    key = text if isinstance(text, str) else str(text)
    found = _values.get(key, False)
    if found is not False:
        return found
    value: int | None = None
    if not isinstance(text, bool):
        try:
            exact = parse_quantity(key) * NANO
            value = exact.numerator // exact.denominator
        except (QuantityError, ValueError):
            value = None
    if len(_values) < 100_000:
        _values[key] = value
    return value


def is_scalar_resource(name: str) -> bool:
    """``schedutil.IsScalarResourceName``: extended resources (``vendor/name`` outside ``kubernetes.io``),
    hugepages, ``kubernetes.io/``-prefixed native resources and attachable volumes."""
    if name.startswith(HUGEPAGES_PREFIX) or name.startswith("attachable-volumes-"):
        return True
    if "kubernetes.io/" in name:  # IsPrefixedNativeResource
        return True
    # IsExtendedResourceName: not native (it has a "/"), not requests.*; quota-name validity is the API's check
    return "/" in name and not name.startswith("requests.")


_tracked: dict[str, bool] = {}


def tracked(name: str) -> bool:
    """A resource ``framework.Resource.Add`` keeps: cpu, memory, ephemeral-storage or a scalar resource."""
    found = _tracked.get(name)
    if found is None:
        found = name in (CPU, MEMORY, EPHEMERAL) or is_scalar_resource(name)
        if len(_tracked) < 10_000:
            _tracked[name] = found
    return found


def scheduler_units(name: str, nanos: int) -> int:
    """``MilliValue()`` for cpu, ``Value()`` for everything else, of a value in nano units: rounded up (away
    from zero)."""
    return -(-nanos // 1_000_000) if name == CPU else -(-nanos // NANO)


def _resource_list(raw: object) -> dict[str, int]:
    if not raw or not isinstance(raw, dict):
        return {}
    out = {}
    for name, text in raw.items():
        value = quantity_nanos(text)
        if value is not None:
            out[name] = value
    return out


def _add(into: dict[str, int], more: Mapping[str, int]) -> None:
    for name, value in more.items():
        into[name] = into.get(name, 0) + value


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, value in other.items():
        if name not in into or value > into[name]:
            into[name] = value


def _is_sidecar(container: Mapping[str, Any]) -> bool:
    return container.get("restartPolicy") == "Always"


def _pod_level_supported(name: str) -> bool:
    """``resource.IsSupportedPodLevelResource``: cpu, memory and hugepages."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def _resize_infeasible(pod: Mapping[str, Any]) -> bool:
    """``resource.IsPodResizeInfeasible``."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(condition, Mapping) and condition.get("type") == "PodResizePending":
            return bool(condition.get("reason") == "Infeasible")
    return False


def pod_requests(pod: Mapping[str, Any], *, use_status: bool = False) -> dict[str, int]:
    """``resource.PodRequests(pod, opts)`` with pod-level resources on (beta, default on) and the overhead, in
    nano units; ``use_status``: ``UseStatusResources`` (bound pods, ``determineEffectiveRequests``)."""
    spec = pod.get("spec") or {}
    statuses: dict[str, Mapping[str, Any]] = {}
    infeasible = False
    if use_status:
        status = pod.get("status") or {}
        for key in ("containerStatuses", "initContainerStatuses"):
            for item in status.get(key) or ():
                if isinstance(item, Mapping):
                    statuses[str(item.get("name"))] = item
        infeasible = bool(statuses) and _resize_infeasible(pod)

    def requests_of(container: Mapping[str, Any], effective: bool) -> dict[str, int]:
        own = _resource_list((container.get("resources") or {}).get("requests"))
        found = statuses.get(str(container.get("name"))) if effective else None
        if found is None or not isinstance(found.get("resources"), Mapping):
            return own
        actuated = _resource_list(found["resources"].get("requests"))
        allocated = _resource_list(found.get("allocatedResources"))
        merged: dict[str, int] = {} if infeasible else dict(own)
        _max(merged, actuated)
        _max(merged, allocated)
        return merged

    requests: dict[str, int] = {}
    for container in spec.get("containers") or ():
        _add(requests, requests_of(container, True))
    sidecars: dict[str, int] = {}
    init: dict[str, int] = {}
    for container in spec.get("initContainers") or ():
        if _is_sidecar(container):
            own = requests_of(container, True)
            _add(requests, own)
            _add(sidecars, own)
            this = sidecars
        else:
            this = dict(requests_of(container, False))
            _add(this, sidecars)
        _max(init, this)
    _max(requests, init)
    pod_level = _resource_list((spec.get("resources") or {}).get("requests"))
    for name, value in pod_level.items():
        if _pod_level_supported(name):
            requests[name] = value
    _add(requests, _resource_list(spec.get("overhead")))
    return requests


def scheduler_request(requests: Mapping[str, int]) -> dict[str, int]:
    """``Resource.SetMaxResource`` / ``Resource.Add`` of a request list: the tracked names in scheduler units,
    zeros dropped (``fitsRequest`` skips them)."""
    out = {}
    for name, value in requests.items():
        if tracked(name):
            units = scheduler_units(name, value)
            if units:
                out[name] = units
    return out


@dataclass
class NodeInfo:
    """What the scheduler's filters read of a node: labels, taints, ``spec.unschedulable``, allocatable in
    scheduler units (``pods``: the allowed pod count), and what its pods request and how many there are."""

    name: str
    labels: dict[str, str]
    taints: list[dict[str, Any]]
    unschedulable: bool
    allocatable: dict[str, int]
    requested: dict[str, int] = field(default_factory=dict)
    pods: int = 0

    def add_pod(self, request: Mapping[str, int]) -> None:
        """``NodeInfo.update`` with a bound pod's requests."""
        self.pods += 1
        for name, value in request.items():
            self.requested[name] = self.requested.get(name, 0) + value

    def free(self, name: str) -> int:
        """Allocatable minus requested."""
        return self.allocatable.get(name, 0) - self.requested.get(name, 0)


def node_info(node: Mapping[str, Any]) -> NodeInfo:
    """A Node object as the scheduler's NodeInfo holds it (``framework.NewResource(node.Status.Allocatable)``)."""
    metadata = node.get("metadata") or {}
    spec = node.get("spec") or {}
    allocatable: dict[str, int] = {}
    for name, value in _resource_list((node.get("status") or {}).get("allocatable")).items():
        if name == PODS:
            allocatable[PODS] = scheduler_units(PODS, value)
        elif tracked(name):
            allocatable[name] = scheduler_units(name, value)
    return NodeInfo(
        name=str(metadata.get("name") or ""),
        labels={str(k): str(v) for k, v in (metadata.get("labels") or {}).items()},
        taints=[t for t in spec.get("taints") or () if isinstance(t, dict)],
        unschedulable=bool(spec.get("unschedulable")),
        allocatable=allocatable,
    )


def counts_on_node(pod: Mapping[str, Any]) -> bool:
    """A pod the scheduler holds on its node: bound and not terminal."""
    phase = (pod.get("status") or {}).get("phase")
    return bool((pod.get("spec") or {}).get("nodeName")) and phase not in ("Succeeded", "Failed")


def bound_request(pod: Mapping[str, Any]) -> dict[str, int]:
    """A bound pod's requests as ``PodInfo.CalculateResource`` counts them on its node.

    Most pods of a cluster have only containers (no init containers, overhead or pod-level resources) and no
    pending resize: for them the sum of each container's max of spec, ``status.containerStatuses[].resources``
    and ``allocatedResources`` is computed in one pass (the same arithmetic as :func:`pod_requests`)."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    if (
        spec.get("initContainers")
        or spec.get("overhead")
        or spec.get("resources")
        or (status.get("conditions") and _resize_infeasible(pod))
    ):
        return scheduler_request(pod_requests(pod, use_status=True))
    statuses = {item.get("name"): item for item in status.get("containerStatuses") or () if isinstance(item, dict)}
    total: dict[str, int] = {}
    for container in spec.get("containers") or ():
        own = _resource_list((container.get("resources") or {}).get("requests"))
        found = statuses.get(container.get("name"))
        if found is not None and isinstance(found.get("resources"), dict):
            _max(own, _resource_list(found["resources"].get("requests")))
            _max(own, _resource_list(found.get("allocatedResources")))
        for name, value in own.items():
            total[name] = total.get(name, 0) + value
    out = {}
    for name, value in total.items():
        if value and tracked(name):
            out[name] = -(-value // 1_000_000) if name == CPU else -(-value // NANO)
    return out


# --- the filters ---------------------------------------------------------------------------------------


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """``Toleration.ToleratesTaint`` (the Lt/Gt operators are alpha and off: they match nothing)."""
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    operator = toleration.get("operator") or ""
    if operator in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return operator == "Exists"


def tolerated(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """``TolerationsTolerateTaint``."""
    return any(tolerates(toleration, taint) for toleration in tolerations)


def untolerated_taint(node: NodeInfo, tolerations: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc``: the first NoSchedule or
    NoExecute taint no toleration matches."""
    for taint in node.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerated(tolerations, taint):
            return taint
    return None


_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!", "Gt": "gt", "Lt": "lt"}


def _requirement_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool | None:
    """One ``matchExpressions`` requirement (``nodeSelectorRequirementsAsSelector`` + ``Requirement.Matches``);
    None when ``labels.NewRequirement`` refuses it (then its term matches nothing)."""
    from ..golang.labels import Requirement, qualified_name_errors
    from ..golang.strconv import GoNumError, go_parse_int
    from ..golang.validation import label_value_errors

    operator = _OPERATORS.get(str(expression.get("operator") or ""))
    key = str(expression.get("key") or "")
    values = [str(v) for v in expression.get("values") or ()]
    if operator is None or qualified_name_errors(key):
        return None
    if operator in ("in", "notin") and not values:
        return None
    if operator in ("exists", "!") and values:
        return None
    if operator in ("gt", "lt"):
        if len(values) != 1:
            return None
        try:
            go_parse_int(values[0], base=10)
        except GoNumError:
            return None
    if any(label_value_errors(value) for value in values):
        return None
    return Requirement(key, operator, tuple(sorted(set(values)))).matches(labels)


def _field_matches(expression: Mapping[str, Any], node_name: str) -> bool | None:
    """One ``matchFields`` requirement (``nodeSelectorRequirementsAsFieldSelector``): In/NotIn with one value,
    on the node's fields (``metadata.name`` only; any other field reads as empty)."""
    operator = expression.get("operator")
    values = expression.get("values") or []
    if operator not in ("In", "NotIn") or len(values) != 1:
        return None
    have = node_name if expression.get("key") == "metadata.name" else ""
    return bool((have == str(values[0])) == (operator == "In"))


def _term_matches(term: Mapping[str, Any], node: NodeInfo) -> bool | None:
    results = [_requirement_matches(e, node.labels) for e in term.get("matchExpressions") or ()]
    results += [_field_matches(e, node.name) for e in term.get("matchFields") or ()]
    if any(result is None for result in results):
        return None
    return all(bool(result) for result in results)


def matches_affinity(pod_spec: Mapping[str, Any], node: NodeInfo) -> bool:
    """``nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)``: the nodeSelector's labels all equal, and one of
    the required terms (empty terms skipped; none left matches nothing) matching."""
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if node.labels.get(str(key)) != str(value):
            return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        return True
    for term in required.get("nodeSelectorTerms") or ():
        if not (term.get("matchExpressions") or term.get("matchFields")):
            continue
        if _term_matches(term, node):
            return True
    return False


@dataclass(frozen=True)
class PodFilter:
    """What the filters read of the pod being placed: its spec and its requests in scheduler units."""

    spec: dict[str, Any]
    request: dict[str, int]

    @property
    def tolerations(self) -> list[Mapping[str, Any]]:
        return [t for t in self.spec.get("tolerations") or () if isinstance(t, Mapping)]


def pod_filter(pod: Mapping[str, Any]) -> PodFilter:
    """The pod to place (its requests as ``computePodResourceRequest`` computes them: no status)."""
    return PodFilter(dict(pod.get("spec") or {}), scheduler_request(pod_requests(pod)))


def placement_reasons(pod: PodFilter, node: NodeInfo) -> list[str]:
    """The reasons of the first filter plugin that rejects the node for the pod, before NodeResourcesFit
    (empty: those filters pass)."""
    if node.unschedulable and not tolerated(pod.tolerations, {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}):
        return [words.REASON_UNSCHEDULABLE]
    node_name = pod.spec.get("nodeName")
    if node_name and node_name != node.name:
        return [words.REASON_NODE_NAME]
    if untolerated_taint(node, pod.tolerations) is not None:
        return [words.REASON_TAINTS]
    if not matches_affinity(pod.spec, node):
        return [words.REASON_AFFINITY]
    return []


def resource_reasons(request: Mapping[str, int], node: NodeInfo, *, extra: int = 0) -> list[str]:
    """``fitsRequest`` for one more pod of ``request`` on the node, after ``extra`` such pods were added."""
    reasons = []
    allowed = node.allocatable.get(PODS, 0)
    if node.pods + extra + 1 > allowed:
        reasons.append(words.REASON_TOO_MANY_PODS)
    if not request:
        return reasons
    for name, value in request.items():
        if value > node.free(name) - extra * value:
            reasons.append(words.insufficient(name))
    return reasons


def filter_reasons(pod: PodFilter, node: NodeInfo) -> list[str]:
    """Every reason the scheduler records for the node (empty: the pod fits there)."""
    return placement_reasons(pod, node) or resource_reasons(pod.request, node)


def _order(name: str) -> tuple[int, str]:
    if name in RESOURCE_ORDER:
        return (RESOURCE_ORDER.index(name), name)
    if name.startswith(HUGEPAGES_PREFIX):
        return (len(RESOURCE_ORDER), name)
    if name == PODS:
        return (len(RESOURCE_ORDER) + 2, name)
    return (len(RESOURCE_ORDER) + 1, name)


def ordered(names: Iterable[str]) -> list[str]:
    """Resource names in report order: cpu, memory, ephemeral-storage, hugepages-*, others by name, pods."""
    return sorted(set(names), key=_order)


@dataclass(frozen=True)
class NodeFit:
    """One node's answer: the reasons it rejects the pod (empty: it fits), what would be left there after the
    pod (the resources the pod requests, and the pod count), and how many identical pods it could take."""

    node: str
    reasons: tuple[str, ...]
    left: dict[str, int]
    count: int
    limited_by: str


def per_node_count(pod: PodFilter, node: NodeInfo) -> tuple[int, str]:
    """How many pods like ``pod`` the node could take now, and the resource that runs out first (``pods``
    for the pod count): the largest k for which ``fitsRequest`` passes k times in a row; (0, "") when another
    filter rejects the node."""
    if placement_reasons(pod, node):
        return 0, ""
    limits = {PODS: node.allocatable.get(PODS, 0) - node.pods}
    for name, value in pod.request.items():
        limits[name] = node.free(name) // value
    best = min(limits.values())
    limited_by = next(name for name in ordered(limits) if limits[name] == best)
    return max(best, 0), limited_by


def fit_node(pod: PodFilter, node: NodeInfo) -> NodeFit:
    """The filters' answer for one node and what the pod would leave there."""
    reasons = filter_reasons(pod, node)
    left = {name: node.free(name) - value for name, value in pod.request.items()}
    left[PODS] = node.allocatable.get(PODS, 0) - node.pods - 1
    count, limited_by = per_node_count(pod, node)
    return NodeFit(node.name, tuple(reasons), left, count, limited_by)


@dataclass(frozen=True)
class Diagnosis:
    """The filters over all nodes: the nodes that fit (by name), each node's answer, and the scheduler's
    ``0/N nodes are available: ...`` line when none fits ("" when one does or there are no nodes)."""

    nodes: list[NodeFit]
    message: str

    @property
    def fitting(self) -> list[NodeFit]:
        return [fit for fit in self.nodes if not fit.reasons]


def diagnose(pod: PodFilter, nodes: Iterable[NodeInfo]) -> Diagnosis:
    """Run the filters on every node; the scheduler's FitError line when none passes."""
    fits = [fit_node(pod, node) for node in nodes]
    message = ""
    if fits and not any(not fit.reasons for fit in fits):
        message = words.fit_error(len(fits), (fit.reasons for fit in fits))
    return Diagnosis(sorted(fits, key=lambda fit: fit.node), message)


@dataclass(frozen=True)
class Capacity:
    """How many more pods like one pod the nodes take now (the sum of each node's count: identical pods fill
    every node that passes the filters, whatever the scoring), the resource that runs out first on most of
    the nodes that could take one (``pods`` for the pod count; the first rejecting filter's reason when no
    node passes the other filters), the nodes that could take at least one, and the scheduler's line for the
    pod after those."""

    count: int
    limited_by: str
    nodes: int
    next_message: str


def capacity(pod: PodFilter, nodes: list[NodeInfo]) -> Capacity:
    """Fill every node with pods like ``pod``; the FitError line for one more."""
    total = 0
    taking = 0
    limits: dict[str, int] = {}
    reasons = []
    for node in nodes:
        placement = placement_reasons(pod, node)
        if placement:
            reasons.append(placement)
            continue
        count, limited_by = per_node_count(pod, node)
        total += count
        taking += 1 if count else 0
        limits[limited_by] = limits.get(limited_by, 0) + 1
        reasons.append(resource_reasons(pod.request, node, extra=count))
    if limits:
        most = max(limits.values())
        limited_by = next(name for name in ordered(limits) if limits[name] == most)
    else:
        counted: dict[str, int] = {}
        for node_reasons in reasons:
            for reason in node_reasons:
                counted[reason] = counted.get(reason, 0) + 1
        limited_by = max(sorted(counted), key=lambda r: counted[r]) if counted else ""
    message = words.fit_error(len(nodes), reasons) if nodes else ""
    return Capacity(total, limited_by, taking, message)
