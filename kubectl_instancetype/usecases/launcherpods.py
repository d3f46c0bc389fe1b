"""The virt-launcher pod virt-controller will create for a VirtualMachine, predicted with the cluster's KubeVirt
configuration, namespace labels and quotas (:mod:`.launcher_inputs`): the entry point for other use cases
(``fits``, ``capacity``); ``expand --launcher-pod`` goes through :func:`.expansion.expand`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import PluginError

if TYPE_CHECKING:
    from ..kube.session import Session


def launcher_pod_for_vm(
    session: Session,
    vm: Mapping[str, Any] | str,
    *,
    namespace: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The scheduling part of the launcher pod of a VirtualMachine (an object, its instance type and preference
    read from the cluster, or the name of a stored one in ``namespace``, else the session's), with the
    cluster's KubeVirt configuration, namespace labels and quotas applied: a Pod dict
    (``render_launcher_pod``'s). Raises PluginError with KubeVirt's messages when the VM cannot be expanded or
    rendered; warnings about what could not be read go to ``warn``."""
    from .expansion import Expansion, LauncherPodRequest

    run = Expansion(session, None, check=True, stdin=None, launcher_pod=LauncherPodRequest(warn=warn))
    if isinstance(vm, str):
        obj = _stored_vm(session, vm, namespace or session.namespace)
    else:
        obj = dict(vm)
        if namespace is not None:
            obj["metadata"] = {**(obj.get("metadata") or {}), "namespace": namespace}
    expanded = run.expand_local(obj, stored=True)
    if expanded.launcher_pod is None:
        raise PluginError("; ".join(expanded.problems) or "the VirtualMachine cannot be expanded")
    return expanded.launcher_pod


def _stored_vm(session: Session, name: str, namespace: str) -> dict[str, Any]:
    from ..kube.resources import VIRTUAL_MACHINES

    stored: dict[str, Any] = session.client().get(VIRTUAL_MACHINES, name, namespace)
    return stored
