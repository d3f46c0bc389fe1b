"""Revision bookkeeping and switching (KubeVirt's pkg/instancetype/revision) as pure functions."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype.expand.revisions import (
    FROM_SPEC,
    FROM_STATUS,
    SPEC_REVISIONS,
    STATUS_REFS,
    UNKNOWN,
    controller_revision,
    pinned_revisions,
    revision_generation,
    revision_in_use,
    revision_matches,
    revision_target,
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


def test_controller_revision_is_the_copy_kubevirt_stores_and_reads_back() -> None:
    # pkg/instancetype/revision CreateControllerRevision: <vm>-<object>-<version>-<uid>-<generation>, the object's
    # labels, owned by the VM; revision_target and revision_generation read what it wrote
    vm = {"metadata": {"name": "vm1", "namespace": "ns", "uid": "vm-uid"}}
    obj = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "small", "namespace": "ns", "uid": "it-uid", "generation": 3, "labels": {"a": "b"}},
        "spec": {"cpu": {"guest": 1}},
    }
    revision = controller_revision(vm, obj)
    assert revision["metadata"]["name"] == "vm1-small-v1beta1-it-uid-3"
    assert revision["metadata"]["ownerReferences"][0]["uid"] == "vm-uid"
    assert revision["data"]["metadata"] == {"name": "small", "namespace": "ns", "uid": "it-uid", "generation": 3}
    assert revision_target(revision) == ("VirtualMachineInstancetype", "ns", "small", 3)
    assert revision_generation(revision) == 3
    cluster = {**obj, "kind": "VirtualMachineClusterInstancetype", "metadata": {"name": "u1", "generation": 1}}
    assert revision_target(controller_revision(vm, cluster)) == ("VirtualMachineClusterInstancetype", "", "u1", 1)
    assert revision_target({"metadata": {"name": "revision-start-vm-x-1"}}) is None


def test_pinned_revisions_reads_matchers_and_the_vms_own_start_revisions() -> None:
    vm = {
        "metadata": {"uid": "u"},
        "spec": {"instancetype": {"name": "a", "revisionName": "it-rev"}, "preference": {"name": "p"}},
        "status": {"preferenceRef": {"controllerRevisionRef": {"name": "pref-rev"}}},
    }
    mine = {"metadata": {"name": "revision-start-vm-u-2"}, "data": {"spec": {"instancetype": {"revisionName": "old"}}}}
    other = {"metadata": {"name": "revision-start-vm-v-1"}, "data": {"spec": {"preference": {"revisionName": "x"}}}}
    assert pinned_revisions(vm, [mine, other]) == ["it-rev", "pref-rev", "old"]
    assert pinned_revisions({"spec": {}}) == []
