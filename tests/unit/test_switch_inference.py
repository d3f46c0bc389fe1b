"""switch on a VM whose matcher still holds ``inferFromVolume`` (stored without KubeVirt's admission): the
inference is resolved first, as the VM mutating webhook resolves it, instead of failing on an empty name."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_instancetype.errors import PreflightError
from kubectl_instancetype.usecases.switching import inferred_first

LABELS = {
    "instancetype.kubevirt.io/default-instancetype": "u1.medium",
    "instancetype.kubevirt.io/default-preference": "fedora",
}


def _vm(policy: str | None = None) -> dict[str, Any]:
    matcher: dict[str, Any] = {"inferFromVolume": "root"}
    if policy:
        matcher["inferFromVolumeFailurePolicy"] = policy
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm1", "namespace": "demo"},
        "spec": {
            "instancetype": dict(matcher),
            "preference": {"name": "fedora"},
            "template": {
                "spec": {
                    "domain": {"devices": {}},
                    "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "disk"}}],
                }
            },
        },
    }


def _fetch(labels: dict[str, str]):
    def fetch(kind: str, name: str, namespace: str) -> Any:
        if kind.lower() == "persistentvolumeclaim" and (name, namespace) == ("disk", "demo"):
            return {"metadata": {"name": "disk", "namespace": "demo", "labels": labels}}
        return None

    return fetch


def test_the_inference_is_resolved_before_the_switch() -> None:
    notes: list[str] = []
    resolved = inferred_first(_vm(), _fetch(LABELS), notes)
    assert resolved["spec"]["instancetype"] == {"name": "u1.medium"}
    assert notes == [
        'spec.instancetype still held inferFromVolume "root": resolved to u1.medium first, as KubeVirt\'s admission '
        "resolves it; the switch writes the resolved matcher"
    ]


def test_a_vm_without_pending_inference_is_left_alone() -> None:
    vm = _vm()
    vm["spec"]["instancetype"] = {"name": "u1.small"}
    notes: list[str] = []
    assert inferred_first(vm, _fetch(LABELS), notes) is vm
    assert notes == []


def test_a_failing_inference_says_what_to_run() -> None:
    with pytest.raises(PreflightError) as caught:
        inferred_first(_vm(), _fetch({}), [])
    message = str(caught.value)
    assert message.startswith('spec.instancetype still infers from volume "root" and the inference fails: ')
    assert message.endswith("(see kubectl instancetype infer vm/vm1)")
