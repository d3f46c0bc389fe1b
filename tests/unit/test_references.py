"""The did-you-mean of the "referenced types exist" pre-flight (usecases/references.py); require_types itself
runs against the real control plane in tests/integration (create vm, derive, label, upload, switch)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.usecases.references import TypeReference, closest, edit_distance


@pytest.mark.parametrize(
    "left,right,distance",
    [("", "", 0), ("a", "", 1), ("u1.medium", "u1.mediun", 1), ("u1.medium", "u1.mdium", 1), ("kitten", "sitting", 3)],
)
def test_edit_distance(left: str, right: str, distance: int) -> None:
    assert edit_distance(left, right) == distance == edit_distance(right, left)


def test_closest_names_are_the_nearest_ones() -> None:
    names = ["u1.medium", "u1.large", "u1.small", "cx1.medium", "o1.medium", "n1.medium", "u1.2xmedium", "fedora"]
    assert closest("u1.mediun", names) == ["u1.medium"]
    assert closest("x1.medium", names) == ["cx1.medium", "n1.medium", "o1.medium"]  # four ties: three, in name order
    assert closest("fedra", names) == ["fedora"]
    assert closest("windows.2k22", names) == []
    assert closest("u1.large", ["u1.large"]) == []  # the name itself is no suggestion


@pytest.mark.parametrize(
    "kind,plural",
    [
        ("VirtualMachineClusterInstancetype", "virtualmachineclusterinstancetypes"),
        ("virtualmachineinstancetype", "virtualmachineinstancetypes"),
        ("virtualmachinepreferences", "virtualmachinepreferences"),
        ("VirtualMachineClusterPreference", "virtualmachineclusterpreferences"),
    ],
)
def test_references_name_their_resource_in_any_spelling(kind: str, plural: str) -> None:
    assert TypeReference(kind, "x").resource.plural == plural
