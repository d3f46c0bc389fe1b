"""Selectors, range filters, deprecation and rows of ``list`` (pure)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubectl_instancetype.instancetype import listing
from kubectl_instancetype.instancetype.listing import FilterError, Filters, RangeFilter

IT, PREF = listing.INSTANCETYPES, listing.PREFERENCES
P = "instancetype.kubevirt.io/"


def instancetype(name: str, cpu: int, memory: str, labels: dict | None = None, **spec) -> dict:
    return {
        "metadata": {"name": name, "labels": labels or {}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": memory}} | spec,
    }


@pytest.mark.parametrize(
    "filters,what,expected",
    [
        (Filters(), IT, ""),
        (Filters(cpu=4), IT, f"{P}cpu=4"),
        (Filters(memory="16384Mi"), IT, f"{P}memory=16Gi"),
        (Filters(memory="1536Mi"), PREF, f"{P}required-memory=1536Mi"),
        (Filters(cpu=8), PREF, f"{P}required-cpu=8"),
        (Filters(klass="general.purpose", size="medium"), IT, f"{P}class=general.purpose,{P}size=medium"),
        (Filters(hugepages=""), IT, f"{P}hugepages"),
        (Filters(hugepages="1Gi"), IT, f"{P}hugepages=1Gi"),
        (
            Filters(dedicated_cpu=True, isolate_emulator_thread=True, numa=True, realtime=True, gpus=True),
            IT,
            f"{P}dedicatedCPUPlacement=true,{P}isolateEmulatorThread=true,{P}numa=true,{P}realtime=true,{P}gpus=true",
        ),
        (
            Filters(vendor="kubevirt.io", os_type="linux", arch="arm64"),
            PREF,
            f"{P}vendor=kubevirt.io,{P}os-type=linux,{P}arch=arm64",
        ),
        (Filters(hide_deprecated=True, selector="a in (b,c)"), IT, f"{P}deprecated!=true,a in (b,c)"),
    ],
)
def test_label_selector(filters: Filters, what: str, expected: str) -> None:
    assert listing.label_selector(filters, what) == expected


@pytest.mark.parametrize(
    "filters,what,message",
    [
        (Filters(klass="x", numa=True), PREF, "--class, --numa only applies to instance types"),
        (Filters(os_type="linux"), IT, "--os-type only applies to preferences"),
        (Filters(min_cpu=4, max_cpu=2), IT, "--min-cpu 4 is greater than --max-cpu 2"),
        (Filters(min_memory="2Gi", max_memory="1Gi"), IT, "--min-memory 2Gi is greater than --max-memory 1Gi"),
    ],
)
def test_filters_that_do_not_apply(filters: Filters, what: str, message: str) -> None:
    with pytest.raises(FilterError, match="^" + message.replace("-", r"\-") + "$"):
        filters.check_for(what)


def test_negative_cpu() -> None:
    with pytest.raises(FilterError, match="^--min-cpu must not be negative$"):
        Filters(min_cpu=-1).check_for(IT)


def test_bad_memory_value() -> None:
    with pytest.raises(FilterError, match="invalid memory quantity 'x'"):
        listing.label_selector(Filters(memory="x"), IT)


@pytest.mark.parametrize(
    "filters,cpu,memory,expected",
    [
        (Filters(min_cpu=4), 4, "1Gi", True),
        (Filters(min_cpu=4), 3, "1Gi", False),
        (Filters(max_cpu=4), 5, "1Gi", False),
        (Filters(min_memory="16Gi"), 1, "16384Mi", True),
        (Filters(min_memory="16Gi"), 1, "16383Mi", False),
        (Filters(max_memory="16Gi"), 1, "17179869184", True),
        (Filters(max_memory="16Gi"), 1, "16.5Gi", False),
        (Filters(min_memory="1.5Gi", max_memory="1536Mi"), 1, "1536Mi", True),
    ],
)
def test_ranges_are_quantity_aware(filters: Filters, cpu: int, memory: str, expected: bool) -> None:
    assert RangeFilter.from_filters(filters, IT).matches(instancetype("x", cpu, memory)) is expected


def test_preference_without_requirements_counts_as_zero() -> None:
    preference = {"metadata": {"name": "linux"}, "spec": {}}
    assert RangeFilter.from_filters(Filters(max_cpu=2), PREF).matches(preference)
    assert not RangeFilter.from_filters(Filters(min_cpu=1), PREF).matches(preference)


def test_instancetype_without_spec_values_never_matches_a_range() -> None:
    assert not RangeFilter.from_filters(Filters(min_cpu=0), IT).matches({"metadata": {"name": "x"}, "spec": {}})


@pytest.mark.parametrize(
    "name,labels,expected",
    [
        ("u1.small", {}, False),
        ("server.small", {}, True),
        ("highperformance.large", {}, True),
        ("gn1.xlarge", {f"{P}deprecated": "true"}, True),
        ("gn1.xlarge", {f"{P}deprecated": "false"}, False),
    ],
)
def test_deprecation(name: str, labels: dict, expected: bool) -> None:
    assert listing.is_deprecated(instancetype(name, 1, "1Gi", labels)) is expected
    hide = RangeFilter.from_filters(Filters(hide_deprecated=True), IT)
    assert hide.matches(instancetype(name, 1, "1Gi", labels)) is not expected


def test_rows_and_sorting() -> None:
    def row(name: str, cpu: int, memory: str, namespace: str | None = None) -> listing.Row:
        return listing.make_row(
            instancetype(name, cpu, memory),
            namespace,
            IT,
            wide=False,
            show_labels=False,
            keep_object=False,
            age=lambda created: "1d",
        )

    rows = [row("b", 2, "8Gi"), row("a", 4, "4Gi", "ns"), row("c", 2, "2Gi")]
    assert [r.name for r in listing.sort_rows(rows, None)] == ["b", "a", "c"]
    assert [r.name for r in listing.sort_rows(rows, "name")] == ["a", "b", "c"]
    assert [r.name for r in listing.sort_rows(rows, "cpu")] == ["b", "c", "a"]
    assert [r.name for r in listing.sort_rows(rows, "memory")] == ["c", "a", "b"]
    assert rows[1].cells == ["a", "ns", "4", "4Gi", "<none>", "1d"]
    assert rows[0].memory == Fraction(8 * 2**30)
    with pytest.raises(FilterError):
        listing.sort_rows(rows, "age")


def test_wide_cells() -> None:
    obj = instancetype("cx1.large", 2, "4Gi", {f"{P}size": "large", f"{P}class": "compute.exclusive"})
    obj["spec"]["cpu"] |= {"dedicatedCPUPlacement": True, "numa": {"guestMappingPassthrough": {}}}
    obj["spec"]["memory"] |= {"hugepages": {"pageSize": "2Mi"}, "overcommitPercent": 10}
    row = listing.make_row(obj, None, IT, wide=True, show_labels=True, keep_object=True, age=lambda c: "5s")
    assert row.cells == [
        "cx1.large",
        "cluster",
        "2",
        "4Gi",
        "compute.exclusive",
        "5s",
        "large",
        "2Mi",
        "true",
        "true",
        "10%",
        "<none>",
        f"{P}class=compute.exclusive,{P}size=large",
    ]
    assert row.obj is obj


def test_preference_cells_prefer_the_spec_architecture() -> None:
    preference = {
        "metadata": {"name": "fedora", "labels": {f"{P}os-type": "linux", f"{P}arch": "amd64"}},
        "spec": {"requirements": {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}}, "preferredArchitecture": "amd64"},
    }
    row = listing.make_row(
        preference, "ns1", PREF, wide=False, show_labels=False, keep_object=False, age=lambda c: "1m"
    )
    assert row.cells == ["fedora", "ns1", "linux", "amd64", "1", "2Gi", "1m"]
    assert listing.headers(PREF, wide=True, show_labels=True)[-1] == "LABELS"


def test_created_at() -> None:
    assert listing.created_at("1970-01-01T00:01:00Z") == 60.0
    assert listing.created_at("2000-02-29T23:59:59Z") == 951868799.0
    assert listing.created_at("2100-03-01T00:00:00Z") == 4107542400.0
    assert listing.created_at("garbage-garbage-gar") is None
    assert listing.created_at("") is None


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
    assert listing.preference_wide_cells({"metadata": {"name": "p"}, "spec": spec}) == expected
    row = listing.make_row(
        {"metadata": {"name": "p"}, "spec": spec},
        None,
        PREF,
        wide=True,
        show_labels=False,
        keep_object=False,
        age=lambda stamp: "1s",
    )
    assert row.cells[-5:] == expected
    assert listing.headers(PREF, wide=True, show_labels=False)[-5:] == listing.PREFERENCE_WIDE_COLUMNS
