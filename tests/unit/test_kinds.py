"""instancetype.kinds: how every command reads a kind the user typed."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype import kinds


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("vmcf", kinds.CLUSTER_INSTANCETYPE),
        ("VMCFS", kinds.CLUSTER_INSTANCETYPE),
        ("vmclusterinstancetype", kinds.CLUSTER_INSTANCETYPE),
        ("virtualmachineclusterinstancetypes.instancetype.kubevirt.io", kinds.CLUSTER_INSTANCETYPE),
        ("VirtualMachineInstancetype", kinds.INSTANCETYPE),
        ("vminstancetypes", kinds.INSTANCETYPE),
        ("vmf.instancetype.kubevirt.io", kinds.INSTANCETYPE),
        ("vmcps", kinds.CLUSTER_PREFERENCE),
        ("vmpref", kinds.PREFERENCE),
        ("vmp", kinds.PREFERENCE),
        ("virtualmachinepreferences", kinds.PREFERENCE),
        ("vm", None),
        ("vmcf.kubevirt.io", None),
        ("instancetype.kubevirt.io", None),
        ("", None),
    ],
)
def test_spelled(word: str, expected) -> None:
    assert kinds.spelled(word) == expected


def test_names_and_scopes() -> None:
    assert [
        kinds.of(what, namespaced).short
        for what in (kinds.INSTANCETYPES, kinds.PREFERENCES)
        for namespaced in (False, True)
    ] == [
        "vmcf",
        "vmf",
        "vmcp",
        "vmp",
    ]
    assert kinds.CLUSTER_PREFERENCE.qualified == "virtualmachineclusterpreference.instancetype.kubevirt.io"
    assert kinds.INSTANCETYPE_KINDS == ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
    assert kinds.PREFERENCE_KINDS == ("VirtualMachinePreference", "VirtualMachineClusterPreference")
