"""Would a namespace's ResourceQuotas refuse a new pod? The API server's quota admission for a pod create, pure.

Ported from ``k8s.io/apiserver@v0.36.3`` ``pkg/admission/plugin/resourcequota/controller.go`` ``CheckRequest``
and ``k8s.io/kubernetes@v1.36.3`` ``pkg/quota/v1/evaluator/core/pods.go`` (the pod evaluator):

- the pod's usage (``PodUsageFunc``): ``count/pods`` and ``pods`` 1; ``cpu``/``requests.cpu``,
  ``memory``/``requests.memory``, ``ephemeral-storage``/``requests.ephemeral-storage`` from
  ``resource.PodRequests``; ``limits.*`` from ``resource.PodLimits``; ``hugepages-*`` and
  ``requests.hugepages-*``; ``requests.<extended resource>``;
- a quota applies when its ``status.hard`` names a resource pods use and every scope (``spec.scopes``,
  ``spec.scopeSelector``) matches the pod: Terminating/NotTerminating (``activeDeadlineSeconds``),
  BestEffort/NotBestEffort (the QoS class), PriorityClass, CrossNamespacePodAffinity;
- an applying quota first checks ``Constraints`` (a quota on cpu or memory needs every container to state it:
  ``failed quota: NAME: must specify ...``) and that its status has usage for what it limits
  (``status unknown for quota: ...``); then the pod's non-zero usage, masked to the quota's hard names, is
  added to ``status.used`` and compared with ``status.hard``: ``exceeded quota: NAME, requested: ...,
  used: ..., limited: ...`` with only the exceeded resources.

The quotas are checked in name order; the API server checks them in its informer's order, so where two
quotas would both refuse it may name the other one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..golang import kubescheduler as words
from ..golang import resourcelist as rl

POD_COUNT = "count/pods"
_POD_RESOURCES = frozenset(
    (
        POD_COUNT,
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
    )
)
_VALIDATION = frozenset(("cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"))
_ONE = rl.Amount(Fraction(1), "DecimalSI", "1")


def _is_sidecar(container: Mapping[str, Any]) -> bool:
    return container.get("restartPolicy") == "Always"


def _aggregate(spec: Mapping[str, Any], key: str) -> rl.ResourceList:
    """``AggregateContainerRequests`` / ``AggregateContainerLimits`` without status resources (a new pod)."""
    total: rl.ResourceList = {}
    for container in spec.get("containers") or ():
        rl.add(total, rl.parse_list((container.get("resources") or {}).get(key)))
    sidecars: rl.ResourceList = {}
    init: rl.ResourceList = {}
    for container in spec.get("initContainers") or ():
        own = rl.parse_list((container.get("resources") or {}).get(key))
        if _is_sidecar(container):
            rl.add(total, own)
            rl.add(sidecars, own)
            this = sidecars
        else:
            this = {}
            rl.add(this, own)
            rl.add(this, sidecars)
        rl.maximum(init, this)
    rl.maximum(total, init)
    return total


def _pod_level(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def pod_requests(pod: Mapping[str, Any]) -> rl.ResourceList:
    """``resource.PodRequests`` of a new pod, with Go's quantities (they print as Go prints them)."""
    spec = pod.get("spec") or {}
    requests = _aggregate(spec, "requests")
    for name, amount in rl.parse_list((spec.get("resources") or {}).get("requests")).items():
        if _pod_level(name):
            requests[name] = amount
    rl.add(requests, rl.parse_list(spec.get("overhead")))
    return requests


def pod_limits(pod: Mapping[str, Any]) -> rl.ResourceList:
    """``resource.PodLimits`` of a new pod: the overhead is added only to limits that are set and not zero."""
    spec = pod.get("spec") or {}
    limits = _aggregate(spec, "limits")
    for name, amount in rl.parse_list((spec.get("resources") or {}).get("limits")).items():
        if _pod_level(name):
            limits[name] = amount
    for name, amount in rl.parse_list(spec.get("overhead")).items():
        if name in limits and limits[name].value != 0:
            limits[name] = limits[name].plus(amount)
    return limits


def _is_extended(name: str) -> bool:
    """``IsDRAExtendedResourceName``: an extended resource (not native, not ``requests.*``) or a device class."""
    if name.startswith("deviceclass.resource.kubernetes.io/"):
        return True
    native = "/" not in name or "kubernetes.io/" in name
    return not native and not name.startswith("requests.")


def usage_helper(requests: Mapping[str, rl.Amount], limits: Mapping[str, rl.Amount]) -> rl.ResourceList:
    """``podComputeUsageHelper``."""
    out: rl.ResourceList = {"pods": _ONE}
    for plain in ("cpu", "memory", "ephemeral-storage"):
        if plain in requests:
            out[plain] = requests[plain]
            out[f"requests.{plain}"] = requests[plain]
        if plain in limits:
            out[f"limits.{plain}"] = limits[plain]
    for name, amount in requests.items():
        if name.startswith("hugepages-"):
            out[name] = amount
            out[f"requests.{name}"] = amount
        if _is_extended(name):
            out[f"requests.{name}"] = amount
    return out


def pod_usage(pod: Mapping[str, Any]) -> rl.ResourceList:
    """``PodUsageFunc`` of a new (not terminal) pod."""
    usage: rl.ResourceList = {POD_COUNT: _ONE}
    usage.update(usage_helper(pod_requests(pod), pod_limits(pod)))
    return usage


def _matching_resources(names: list[str]) -> list[str]:
    """``podEvaluator.MatchingResources``."""
    out = [name for name in names if name in _POD_RESOURCES]
    for name in names:
        if name.startswith("hugepages-") or name.startswith("requests.hugepages-"):
            out.append(name)
        non_native = "/" in name and "kubernetes.io/" not in name  # not helper.IsNativeResource
        if non_native and (name.startswith("requests.") or name.startswith("requests.deviceclass.resource")):
            out.append(name)  # isExtendedResourceNameForQuota
    return out


def qos_class(pod: Mapping[str, Any]) -> str:
    """The pod's QoS class as the renderer gives it (``status.qosClass``)."""
    return str((pod.get("status") or {}).get("qosClass") or "")


def _scope_matches(selector: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``podMatchesScopeFunc``."""
    spec = pod.get("spec") or {}
    scope = selector.get("scopeName")
    if scope in ("Terminating", "NotTerminating"):
        deadline = spec.get("activeDeadlineSeconds")
        terminating = isinstance(deadline, int) and deadline >= 0
        return terminating if scope == "Terminating" else not terminating
    if scope in ("BestEffort", "NotBestEffort"):
        best_effort = qos_class(pod) == "BestEffort"
        return best_effort if scope == "BestEffort" else not best_effort
    if scope == "PriorityClass":
        name = str(spec.get("priorityClassName") or "")
        operator = selector.get("operator")
        values = [str(v) for v in selector.get("values") or ()]
        if operator == "Exists":
            return bool(name)
        if operator == "DoesNotExist":
            return not name
        if operator == "In":
            return bool(name) and name in values
        if operator == "NotIn":
            return not name or name not in values
        return False
    if scope == "CrossNamespacePodAffinity":
        affinity = spec.get("affinity") or {}
        for kind in ("podAffinity", "podAntiAffinity"):
            terms = affinity.get(kind) or {}
            for term in terms.get("requiredDuringSchedulingIgnoredDuringExecution") or ():
                if term.get("namespaces") or term.get("namespaceSelector") is not None:
                    return True
            for weighted in terms.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
                term = weighted.get("podAffinityTerm") or {}
                if term.get("namespaces") or term.get("namespaceSelector") is not None:
                    return True
        return False
    return False


def _scopes(quota: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    spec = quota.get("spec") or {}
    selectors: list[Mapping[str, Any]] = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or ()]
    selectors += list(((spec.get("scopeSelector") or {}).get("matchExpressions")) or ())
    return selectors


def _constraints(pod: Mapping[str, Any], required: set[str]) -> str:
    """``podEvaluator.Constraints``: the ``must specify ...`` text, "" when every container states them."""
    spec = pod.get("spec") or {}
    levels = spec.get("resources") or {}
    if any(_pod_level(str(n)) for key in ("requests", "limits") for n in (levels.get(key) or {})):
        return ""
    needed = required & _VALIDATION
    missing: dict[str, set[str]] = {}
    for container in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
        resources = container.get("resources") or {}
        have = set(
            usage_helper(rl.parse_list(resources.get("requests")), rl.parse_list(resources.get("limits"))).keys()
        )
        for name in needed - have:
            missing.setdefault(name, set()).add(str(container.get("name") or ""))
    if not missing:
        return ""
    parts = [f"{name} for: {','.join(sorted(missing[name]))}" for name in sorted(missing)]
    return "must specify " + "; ".join(parts)


@dataclass(frozen=True)
class QuotaDenial:
    """The quota that refuses the pod and the API server's words (``forbidden`` is the whole line as a
    client meets it: ``pods "virt-launcher-vm-" is forbidden: exceeded quota: ...``)."""

    quota: str
    message: str
    forbidden: str


def check(pod: Mapping[str, Any], quotas: Sequence[Mapping[str, Any]], generate_name: str) -> QuotaDenial | None:
    """``CheckRequest`` for creating ``pod`` (named by ``generate_name``) under ``quotas``: the first refusal."""
    usage = pod_usage(pod)
    nonzero = {name: amount for name, amount in usage.items() if amount.value != 0}
    applying = []
    # the first loop of CheckRequest: constraints and usage stats of every quota that applies
    for quota in sorted(quotas, key=lambda q: str((q.get("metadata") or {}).get("name") or "")):
        name = str((quota.get("metadata") or {}).get("name") or "")
        status = quota.get("status") or {}
        hard = rl.parse_list(status.get("hard"))
        restricted = _matching_resources(list(hard))
        if not restricted or not all(_scope_matches(s, pod) for s in _scopes(quota)):
            continue
        message = ""
        used = rl.parse_list(status.get("used"))
        constraint = _constraints(pod, set(restricted))
        if constraint:
            message = f"failed quota: {name}: {constraint}"
        elif any(r not in used for r in restricted):  # hasUsageStats; prettyPrintResourceNames
            message = f"status unknown for quota: {name}, resources: {','.join(sorted(restricted))}"
        if message:
            return QuotaDenial(name, message, words.forbidden("pods", generate_name, message))
        applying.append((name, hard, used))
    # the second: the pod's usage added to each quota's
    for name, hard, used in applying:
        requested = {r: a for r, a in nonzero.items() if r in hard}
        exceeded = [r for r, a in requested.items() if (used[r].value if r in used else 0) + a.value > hard[r].value]
        if exceeded:
            message = words.exceeded_quota(
                name,
                rl.pretty({r: requested[r] for r in exceeded}),
                rl.pretty({r: used[r] for r in exceeded if r in used}),
                rl.pretty({r: hard[r] for r in exceeded}),
            )
            return QuotaDenial(name, message, words.forbidden("pods", generate_name, message))
    return None
