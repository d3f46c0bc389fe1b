"""Selectors, range filters, deprecation and rows of ``list`` (pure)."""

from __future__ import annotations

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


def test_sort_order() -> None:
    keys = [
        listing.SortKey.of(instancetype("b", 2, "8Gi"), None, IT),
        listing.SortKey.of(instancetype("a", 4, "4Gi"), "ns", IT),
        listing.SortKey.of(instancetype("c", 2, "2Gi"), None, IT),
    ]
    assert listing.sort_order(keys, None) == [0, 1, 2]
    assert listing.sort_order(keys, listing.SortBy("name")) == [1, 0, 2]
    assert listing.sort_order(keys, listing.SortBy("cpu")) == [0, 2, 1]
    assert listing.sort_order(keys, listing.SortBy("memory")) == [2, 1, 0]
    with pytest.raises(FilterError, match='couldn\'t find any field with path "{.age}"'):
        listing.sort_order(keys, listing.SortBy("age"))
    by = listing.SortBy(".spec.memory.guest")  # parsed once, read per object
    by_path = [by.key(instancetype(n, 1, m), None, IT) for n, m in (("a", "16Gi"), ("b", "2Gi"))]
    assert listing.sort_order(by_path, by) == [1, 0]  # quantities, not strings


@pytest.mark.parametrize("cpu", ["abc", None, True, {"x": 1}, 1.5])
def test_odd_cpu_values_from_the_server_never_stop_a_listing(cpu: object) -> None:
    obj = {"metadata": {"name": "odd"}, "spec": {"cpu": {"guest": cpu}}}
    assert listing.cpu_of(obj, IT) is None
    assert listing.SortKey.of(obj, None, IT).cpu == 0


def test_created_at() -> None:
    assert listing.created_at("1970-01-01T00:01:00Z") == 60.0
    assert listing.created_at("2000-02-29T23:59:59Z") == 951868799.0
    assert listing.created_at("2100-03-01T00:00:00Z") == 4107542400.0
    assert listing.created_at("garbage-garbage-gar") is None
    assert listing.created_at("") is None


@pytest.mark.parametrize(
    "filters,message",
    [
        (Filters(klass="x,foo=bar"), 'invalid value "x,foo=bar" for --class: a valid label must be'),
        (Filters(size="medium)"), 'invalid value "medium)" for --size'),
        (Filters(size="medium\n"), 'invalid value "medium\n" for --size'),  # "$" would have let it through
        (Filters(vendor="a" * 64), "for --vendor"),
        (Filters(min_memory="-1Gi"), "--min-memory must not be negative"),
        (Filters(max_memory="-1"), "--max-memory must not be negative"),
        (Filters(memory="-16Gi"), "--memory must not be negative"),
        (Filters(min_memory="9" * 5000), "invalid memory quantity '999999999999"),
    ],
)
def test_filter_values_that_cannot_be_meant(filters: Filters, message: str) -> None:
    with pytest.raises(FilterError) as caught:
        filters.check_for(IT)
    assert message in str(caught.value)
    assert len(str(caught.value)) < 600  # no 5000-digit echo


@pytest.mark.parametrize(
    ("output", "sort_by", "left_out"),
    [
        ("", "", True),  # a table: its cells read no managedFields
        ("wide", "cpu", True),  # the named sort keys neither
        ("", ".metadata.managedFields[0].time", False),  # a JSONPath may
        ("json", "", False),  # objects are printed whole
        ("yaml", "", False),
        ("name", "", False),
        ("jsonpath={.items[*].metadata.managedFields}", "", False),
    ],
)
def test_the_list_leaves_managed_fields_out_only_where_nothing_reads_them(
    output: str, sort_by: str, left_out: bool
) -> None:
    from kubectl_instancetype.cli.list_options import ListFilters, ListOutputFlags, build_query

    flags = ListOutputFlags(output=output, sort_by=sort_by)
    flags.validate()
    assert build_query(["vmf"], ListFilters(), flags).without_managed_fields is left_out
