"""switch's write when KubeVirt writes the VM at the same time (a 409 Conflict): a recording double stands in for
the API client (the real race is in tests/integration/test_switch_kubevirt.py, where it is not deterministic)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kubectl_instancetype.errors import APIError, PluginError
from kubectl_instancetype.usecases.switching import CONFLICT_RETRIES, replace_matchers


class ConflictingClientDouble:
    """Answers the first ``conflicts`` PUTs with 409 and GETs with ``current``; records every PUT body."""

    def __init__(self, current: dict[str, Any], conflicts: int) -> None:
        self.current, self.conflicts, self.puts = current, conflicts, []

    def replace(self, resource: Any, name: str, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        self.puts.append(copy.deepcopy(body))
        if len(self.puts) <= self.conflicts:
            raise APIError(409, "the object has been modified", "Conflict")
        return body

    def get(self, resource: Any, name: str, namespace: str) -> dict[str, Any]:
        return copy.deepcopy(self.current)


class SessionDouble:
    def __init__(self, client: ConflictingClientDouble) -> None:
        self._client = client

    def client(self) -> ConflictingClientDouble:
        return self._client


READ = {"metadata": {"resourceVersion": "1"}, "spec": {"instancetype": {"name": "u1.small"}, "runStrategy": "Always"}}
UPDATED = {**READ, "spec": {**READ["spec"], "instancetype": {"name": "u1.large"}}}


def test_a_conflict_is_retried_on_the_fresh_vm_with_the_planned_matchers() -> None:
    fresh = copy.deepcopy(READ)
    fresh["metadata"]["resourceVersion"] = "2"
    fresh["metadata"]["finalizers"] = ["kubevirt.io/virtualMachineControllerFinalize"]
    fresh["spec"]["template"] = {"spec": {"domain": {"firmware": {"uuid": "u"}}}}  # virt-controller's write
    client = ConflictingClientDouble(fresh, conflicts=1)
    stored = replace_matchers(SessionDouble(client), "vm", "ns", READ, UPDATED)  # type: ignore[arg-type]
    assert len(client.puts) == 2
    assert stored["metadata"]["resourceVersion"] == "2"
    assert stored["spec"]["instancetype"] == {"name": "u1.large"}
    assert stored["spec"]["template"]["spec"]["domain"]["firmware"]["uuid"] == "u"


def test_changed_matchers_need_a_new_plan() -> None:
    fresh = copy.deepcopy(READ)
    fresh["spec"]["instancetype"] = {"name": "u1.medium"}
    client = ConflictingClientDouble(fresh, conflicts=1)
    with pytest.raises(PluginError, match="changed since it was read"):
        replace_matchers(SessionDouble(client), "vm", "ns", READ, UPDATED)  # type: ignore[arg-type]


def test_endless_conflicts_end() -> None:
    client = ConflictingClientDouble(copy.deepcopy(READ), conflicts=100)
    with pytest.raises(PluginError, match=f"kept changing while it was written \\({CONFLICT_RETRIES} conflicts\\)"):
        replace_matchers(SessionDouble(client), "vm", "ns", READ, UPDATED)  # type: ignore[arg-type]
    assert len(client.puts) == CONFLICT_RETRIES


class RevertedClientDouble:
    """GETs answer the VM as a second writer left it right after the switch's PUT: the old instance type again,
    and the controller's revision for it recorded in status."""

    def __init__(self, current: dict[str, Any]) -> None:
        self.current, self.gets = current, 0

    def get(self, resource: Any, name: str, namespace: str) -> dict[str, Any]:
        self.gets += 1
        return copy.deepcopy(self.current)


def test_a_vm_reverted_after_the_put_is_not_reported_as_the_switchs_outcome() -> None:
    from types import SimpleNamespace

    from kubectl_instancetype.usecases.switching import observe

    reverted = copy.deepcopy(READ)
    reverted["metadata"]["resourceVersion"] = "9"
    reverted["status"] = {
        "instancetypeRef": {"name": "u1.small", "controllerRevisionRef": {"name": "vm-u1.small-1-abc"}}
    }
    written = {**UPDATED, "metadata": {"resourceVersion": "8", "generation": 2}}
    plan = SimpleNamespace(
        name="vm",
        namespace="ns",
        changes=[SimpleNamespace(key="instancetype")],
        live=SimpleNamespace(running=False, changes=(), restart_required=None),
    )
    client = RevertedClientDouble(reverted)
    session = SessionDouble(client)  # type: ignore[arg-type]
    with pytest.raises(PluginError) as raised:
        observe(session, plan, written, timeout=5, clock=lambda: 0.0, sleep=lambda _: None)  # type: ignore[arg-type]
    assert client.gets == 1
    assert raised.value.render() == (
        "error: virtualmachine.kubevirt.io/vm was changed by another writer after the switch: spec.instancetype names "
        "u1.small, not u1.large (resourceVersion 9); the controller's answer is not reported, as it is not about the "
        "switch; see kubectl get vm vm -o yaml, and run the switch again if it still applies"
    )
