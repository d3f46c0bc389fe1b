"""The column model (output/columns.py): headers, cells, wide-only columns, the AGE memo."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def kept_rows(objects: list[tuple[dict, str | None]], flags: dict) -> list[tuple[str, ...]]:
    chosen = columns.columns_for(IT, **flags)
    context = CellContext(NOW)
    return [columns.kept_cells(chosen, obj, namespace, context) for obj, namespace in objects]


def made_rows(objects: list[tuple[dict, str | None]], flags: dict) -> list[tuple[str, ...]]:
    row = columns.row_maker(columns.columns_for(IT, **flags), CellContext(NOW))
    return [row(obj, namespace) for obj, namespace in objects]


STAMPS = ["2026-01-01T00:00:00Z", "2025-12-31T23:59:30Z", "", "not a time"]
_values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 70), st.sampled_from(["", "2", "4Gi", "general.purpose", "(x)"])
)
_metadata = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.sampled_from(["a", "server.a", "highperformance.b", ""]), st.integers(0, 3)),
        "labels": st.one_of(
            st.none(),
            st.dictionaries(st.sampled_from([P + "class", P + "deprecated", P + "cpu"]), _values, max_size=3),
        ),
        "creationTimestamp": st.one_of(st.none(), st.sampled_from(STAMPS)),
    },
)
_part = st.one_of(st.none(), st.fixed_dictionaries({}, optional={"guest": _values}))
_objects = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.one_of(st.none(), _metadata),
        "spec": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"cpu": _part, "memory": _part})),
    },
)


@pytest.mark.parametrize("flags", [{}, {"all_namespaces": True}])
@settings(max_examples=150, deadline=None)
@given(objects=st.lists(st.tuples(_objects, st.sampled_from([None, "ns1"])), max_size=40))
def test_the_default_row_function_makes_kept_cells_rows(flags: dict, objects: list) -> None:
    # one function for the default instance type table (a fleet list's every row): the cells of the columns
    assert made_rows(objects, flags) == kept_rows(objects, flags)
    assert made_rows(objects * 300, flags) == kept_rows(objects * 300, flags)  # past the shared texts' bound


@pytest.mark.parametrize("obj", ODD_OBJECTS)
@pytest.mark.parametrize(
    "flags", [{}, {"all_namespaces": True}, {"wide": True}, {"show_kind": True}, {"label_columns": [P + "size"]}]
)
def test_every_table_row_is_its_columns_cells(obj: dict, flags: dict) -> None:
    for namespace in (None, "ns"):
        assert made_rows([(obj, namespace)], flags) == kept_rows([(obj, namespace)], flags)


def test_rows_share_the_texts_of_few_values() -> None:
    objects = [(instancetype(f"n{i}", 2, "8Gi", {f"{P}class": "general.purpose"}), "ns") for i in range(3)]
    first, *others = made_rows(objects, {})
    for other in others:
        assert [a is b for a, b in zip(first, other)] == [False, True, True, True, True, True]
