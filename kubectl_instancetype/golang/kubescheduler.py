"""kube-scheduler v1.36.3's words, and the API server's ResourceQuota denial, byte for byte.

The scheduler's filter plugins each answer one reason per node they reject (the framework stops at the first
plugin that rejects a node, ``frameworkImpl.RunFilterPlugins``); NodeResourcesFit may answer several
(``fitsRequest``: ``Too many pods``, then ``Insufficient cpu``, ``Insufficient memory``, ``Insufficient
ephemeral-storage``, then ``Insufficient <scalar resource>``). ``FitError.Error``
(``pkg/scheduler/framework/types.go``) counts each reason over the nodes, writes ``"<count> <reason>"`` for
each, sorts those strings as Go's ``sort.Strings`` does (bytes, the count included) and joins them:
``0/N nodes are available: 1 node(s) had untolerated taint(s), 4 Insufficient memory.``
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# pkg/scheduler/framework/types.go NoNodeAvailableMsg
NO_NODE_AVAILABLE = "0/%d nodes are available"
# pkg/scheduler/schedule_one.go ErrNoNodesAvailable
NO_NODES_AVAILABLE = "no nodes available to schedule pods"

# The filter plugins' reasons (pkg/scheduler/framework/plugins/...), in the default Filter order
# (pkg/scheduler/apis/config/v1/default_plugins.go): NodeUnschedulable, NodeName, TaintToleration,
# NodeAffinity, NodePorts, NodeResourcesFit.
REASON_UNSCHEDULABLE = "node(s) were unschedulable"  # nodeunschedulable.ErrReasonUnschedulable
REASON_NODE_NAME = "node(s) didn't match the requested node name"  # nodename.ErrReason
REASON_TAINTS = "node(s) had untolerated taint(s)"  # tainttoleration.Filter
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"  # nodeaffinity.ErrReasonPod
REASON_PORTS = "node(s) didn't have free ports for the requested pod ports"  # nodeports.ErrReason
REASON_TOO_MANY_PODS = "Too many pods"  # noderesources.fitsRequest


def insufficient(resource: str) -> str:
    """``noderesources.fitsRequest``'s reason for a resource short on a node: ``Insufficient <name>``."""
    return f"Insufficient {resource}"


def fit_error(num_all_nodes: int, node_reasons: Iterable[Iterable[str]]) -> str:
    """``FitError.Error()`` for a pod no node took, from each rejected node's reasons (a node counted under
    every reason its rejecting plugin gave). Without PreFilter and PostFilter messages: the first sentence
    of the PodScheduled condition's message (v1.36 goes on with `` no new claims to deallocate,`` from its
    DRA plugin and `` preemption: ...``)."""
    reasons: dict[str, int] = {}
    for node in node_reasons:
        for reason in node:
            reasons[reason] = reasons.get(reason, 0) + 1
    message = (NO_NODE_AVAILABLE % num_all_nodes) + ":"
    histogram = sorted(f"{count} {reason}" for reason, count in reasons.items())
    if histogram:
        message += f" {', '.join(histogram)}."
    return message


def first_sentence(condition_message: str) -> str:
    """The scheduler's line as a PodScheduled=False condition carries it, cut after its first sentence (what
    :func:`fit_error` builds): the message ends at the first ``". "``."""
    end = condition_message.find(". ")
    return condition_message if end < 0 else condition_message[: end + 1]


def pretty_print(resources: Mapping[str, str]) -> str:
    """The resource quota admission plugin's ``prettyPrint`` (k8s.io/apiserver
    ``pkg/admission/plugin/resourcequota/controller.go``): ``name=quantity`` pairs sorted by name, joined by
    commas; the quantities as ``Quantity.String()`` prints them (given already printed)."""
    return ",".join(f"{name}={resources[name]}" for name in sorted(resources))


def exceeded_quota(quota: str, requested: Mapping[str, str], used: Mapping[str, str], hard: Mapping[str, str]) -> str:
    """``CheckRequest``'s error for a quota the new object would exceed (only the exceeded resources)."""
    return (
        f"exceeded quota: {quota}, requested: {pretty_print(requested)}, used: {pretty_print(used)}, "
        f"limited: {pretty_print(hard)}"
    )


def forbidden(resource: str, name: str, message: str) -> str:
    """``apierrors.NewForbidden`` as ``admission.NewForbidden`` calls it: the object's name, else its
    generateName (a virt-launcher pod is created with ``generateName: virt-launcher-<vm>-``)."""
    if not name:
        return f"{resource} is forbidden: {message}"
    return f'{resource} "{name}" is forbidden: {message}'
