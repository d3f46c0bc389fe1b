"""The column model (output/columns.py): headers, cells, wide-only columns, the AGE memo."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype import listing
from kubectl_instancetype.output import columns
from kubectl_instancetype.output.columns import CellContext

IT, PREF = listing.INSTANCETYPES, listing.PREFERENCES
P = "instancetype.kubevirt.io/"
NOW = 1767225600.0 + 86400  # one day after 2026-01-01T00:00:00Z


def instancetype(name: str, cpu: int, memory: str, labels: dict | None = None) -> dict:
    return {
        "metadata": {"name": name, "labels": labels or {}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": memory}},
    }


def row(obj: dict, namespace: str | None, what: str, **flags: bool) -> list[str]:
    return columns.cells(columns.columns_for(what, **flags), obj, namespace, CellContext(NOW))


def test_default_instancetype_columns() -> None:
    assert columns.headers(columns.columns_for(IT)) == ["NAME", "KIND", "CPU", "MEMORY", "CLASS", "AGE"]
    assert row(instancetype("a", 4, "4Gi"), "ns", IT) == ["a", "namespaced", "4", "4Gi", "<none>", "24h"]
    assert row(instancetype("server.small", 1, "1Gi"), None, IT)[:2] == ["server.small (deprecated)", "cluster"]


def test_wide_cells_and_labels() -> None:
    obj = instancetype("cx1.large", 2, "4Gi", {f"{P}size": "large", f"{P}class": "compute.exclusive"})
    obj["spec"]["cpu"] |= {"dedicatedCPUPlacement": True, "numa": {"guestMappingPassthrough": {}}}
    obj["spec"]["memory"] |= {"hugepages": {"pageSize": "2Mi"}, "overcommitPercent": 10}
    assert row(obj, None, IT, wide=True, show_labels=True) == [
        "cx1.large",
        "cluster",
        "2",
        "4Gi",
        "compute.exclusive",
        "24h",
        "large",
        "2Mi",
        "true",
        "true",
        "10%",
        "<none>",
        f"{P}class=compute.exclusive,{P}size=large",
    ]
    assert columns.headers(columns.columns_for(IT, wide=True, show_labels=True))[-1] == "LABELS"


def test_preference_cells_prefer_the_spec_architecture() -> None:
    preference = {
        "metadata": {"name": "fedora", "labels": {f"{P}os-type": "linux", f"{P}arch": "amd64"}},
        "spec": {"requirements": {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}}, "preferredArchitecture": "amd64"},
    }
    assert row(preference, "ns1", PREF) == ["fedora", "namespaced", "linux", "amd64", "1", "2Gi", "<unknown>"]


def test_ages_are_computed_once_per_creation_second() -> None:
    context = CellContext(NOW)
    assert context.age("2026-01-01T00:00:00Z") == "24h"
    context.now = NOW + 86400 * 5  # memoised: the same stamp keeps its first rendering within one listing
    assert context.age("2026-01-01T00:00:00Z") == "24h"


@pytest.mark.parametrize(
    "spec,expected",
    [
        ({}, ["<none>", "<none>", "<none>", "<none>", "<none>"]),
        (
            {
                "cpu": {"preferredCPUTopology": "spread"},
                "devices": {"preferredDiskBus": "sata", "preferredInterfaceModel": "e1000e"},
                "firmware": {"preferredEfi": {"secureBoot": True}},
            },
            ["spread", "sata", "e1000e", "efi+secureboot", "<none>"],
        ),
        ({"firmware": {"preferredEfi": {}}}, ["<none>", "<none>", "<none>", "efi", "<none>"]),
        (
            {"firmware": {"preferredUseEfi": True, "preferredUseSecureBoot": True}},  # the deprecated spelling
            ["<none>", "<none>", "<none>", "efi+secureboot", "<none>"],
        ),
    ],
)
def test_preference_wide_cells(spec: dict, expected: list[str]) -> None:
    cells = row({"metadata": {"name": "p"}, "spec": spec}, None, PREF, wide=True)
    assert cells[-5:] == expected
    assert columns.headers(columns.columns_for(PREF, wide=True))[-5:] == [
        "CPU-TOPOLOGY",
        "DISK-BUS",
        "INTERFACE-MODEL",
        "FIRMWARE",
        "VERSION",
    ]


ODD_OBJECTS = [
    {},
    {"metadata": None, "spec": None},
    {"metadata": {"name": "x", "labels": None}, "spec": {"cpu": None, "memory": {}}},
    {"metadata": {"name": "x", "labels": {P + "deprecated": "true", P + "class": ""}}, "spec": {"cpu": {"guest": 0}}},
    {"metadata": {"name": "highperformance.a", "labels": {P + "deprecated": "false", P + "class": False}}},
    {"metadata": {"name": 7, "labels": {P + "class": 3, P + "size": True}}, "spec": {"cpu": {"guest": True}}},
    {
        "metadata": {"labels": {P + "class": "general.purpose"}},
        "spec": {"memory": {"guest": ""}, "cpu": {"guest": "2"}},
    },
]


@pytest.mark.parametrize("obj", ODD_OBJECTS)
def test_the_name_and_label_cells_read_as_the_domain_functions_and_show(obj: dict) -> None:
    # the cells read metadata and labels once per row; what they render is the domain's is_deprecated and label
    # through kubectl's show, for any shape an object may have
    name = str((obj.get("metadata") or {}).get("name", ""))
    spec = obj.get("spec") or {}
    expected = [
        f"{name} (deprecated)" if listing.is_deprecated(obj) else name,
        "namespaced",
        columns.show((spec.get("cpu") or {}).get("guest")),
        columns.show((spec.get("memory") or {}).get("guest")),
        columns.show(listing.label(obj, "class")),
    ]
    assert row(obj, "ns", IT)[:5] == expected
    assert row(obj, "ns", IT, wide=True)[6] == columns.show(listing.label(obj, "size"))
