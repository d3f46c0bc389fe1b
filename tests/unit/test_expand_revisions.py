"""Revision bookkeeping and switching (KubeVirt's pkg/instancetype/revision) as pure functions."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype.expand.revisions import (
    FROM_SPEC,
    FROM_STATUS,
    SPEC_REVISIONS,
    STATUS_REFS,
    UNKNOWN,
    revision_generation,
    revision_in_use,
    revision_matches,
    server_flavour,
    switched,
)


def _vm(matcher: dict | None = None, status: dict | None = None) -> dict:
    spec = {"instancetype": matcher} if matcher is not None else {}
    return {"spec": spec, **({"status": status} if status is not None else {})}


STATUS = {"instancetypeRef": {"name": "u1.small", "controllerRevisionRef": {"name": "vm-u1.small-v1beta1-uid-1"}}}


@pytest.mark.parametrize(
    ("vm", "expected", "flavour"),
    [
        (_vm({"name": "u1.small", "revisionName": "pinned"}, STATUS), ("pinned", FROM_SPEC), STATUS_REFS),
        (_vm({"name": "u1.small"}, STATUS), ("vm-u1.small-v1beta1-uid-1", FROM_STATUS), STATUS_REFS),
        (_vm({"name": "u1.small", "revisionName": "old"}), ("old", FROM_SPEC), SPEC_REVISIONS),
        (_vm({"name": "u1.small"}), ("", ""), UNKNOWN),
        (_vm(), ("", ""), UNKNOWN),
    ],
)
def test_revision_in_use_and_flavour(vm, expected, flavour) -> None:
    assert revision_in_use(vm, "instancetype") == expected
    assert server_flavour(vm) == flavour


def test_revision_labels() -> None:
    revision = {
        "metadata": {
            "labels": {
                "instancetype.kubevirt.io/object-name": "u1.small",
                "instancetype.kubevirt.io/object-generation": "3",
            }
        }
    }
    assert revision_matches(_vm({"name": "u1.small"}), "instancetype", revision)
    assert not revision_matches(_vm({"name": "u1.large"}), "instancetype", revision)
    assert revision_generation(revision) == 3
    assert revision_generation({"data": {"metadata": {"generation": 2}}}) == 2
    assert revision_generation({}) is None


def test_switched_clears_revision_name_and_inference() -> None:
    vm = _vm({"name": "u1.small", "revisionName": "pinned"})
    new, cleared = switched(vm, "instancetype", "u1.large", "")
    assert (new["spec"]["instancetype"], cleared) == ({"name": "u1.large"}, True)
    assert vm["spec"]["instancetype"]["revisionName"] == "pinned"  # input unchanged
    inferred = _vm({"inferFromVolume": "root", "inferFromVolumeFailurePolicy": "Ignore"})
    new, cleared = switched(inferred, "instancetype", "custom", "virtualmachineinstancetype")
    assert (new["spec"]["instancetype"], cleared) == ({"name": "custom", "kind": "virtualmachineinstancetype"}, False)
    added, _ = switched({"spec": {}}, "preference", "fedora", "")
    assert added["spec"]["preference"] == {"name": "fedora"}
