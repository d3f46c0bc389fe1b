"""``catalog list`` and ``catalog show`` offline: no cluster, no kubeconfig (HOME=/nonexistent, no KUBECONFIG),
the same filters, columns and output formats as ``list``; and the catalog group's help and usage errors."""

from __future__ import annotations

import json

import pytest
import yaml

from kubectl_instancetype.catalog import load_catalog
from kubectl_instancetype.cli.catalog_list import CatalogListOptions
from kubectl_instancetype.cli.list import ListOptions
from kubectl_instancetype.cli.options import fields_of
from tests.conftest import run_cli

OFFLINE = {"HOME": "/nonexistent"}  # no KUBECONFIG, no ~/.kube/config
CATALOG = load_catalog()


def offline(*args: str):
    return run_cli(list(args), environ=OFFLINE)


def test_catalog_list_has_lists_options_minus_the_connection_ones() -> None:
    listed = {name for name, _, _ in fields_of(ListOptions)}
    offline_options = {name for name, _, _ in fields_of(CatalogListOptions)}
    assert listed - offline_options == {
        *("kubeconfig", "context", "cluster", "request_timeout", "all_namespaces", "chunk_size"),
        *("as_user", "as_groups", "as_uid"),
        *("contexts", "all_contexts", "parallel", "context_timeout"),  # the fleet flags (issue 32)
        *("watch", "watch_only", "output_watch_events"),  # the embedded catalog never changes
        "fits",  # the catalog has no nodes
    }
    assert offline_options - listed == {"version"}


def test_catalog_list_table_like_list() -> None:
    result = offline("catalog", "list", "--min-cpu", "16", "--class", "general.purpose")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "NAME         KIND      CPU   MEMORY   CLASS",
        "u1.4xlarge   cluster   16    64Gi     general.purpose",
        "u1.8xlarge   cluster   32    128Gi    general.purpose",
    ]  # no AGE: catalog objects were never created


@pytest.mark.parametrize(
    "args,expected",
    [
        (["--cpu", "4", "--class", "general.purpose"], ["u1.xlarge"]),
        (["--memory", "4096Mi", "--cpu", "1", "--class", "overcommitted"], ["o1.medium"]),
        (["--hugepages=1Gi", "--cpu", "2"], None),
        (["--realtime", "--max-memory", "1Gi"], ["rt1.micro"]),
        (["-l", "instancetype.kubevirt.io/size in (nano)"], ["d1.nano", "o1.nano", "u1.nano"]),
        (["preferences", "--os-type", "windows", "--min-memory", "4Gi"], ["windows.11", "windows.11.virtio"]),
        (["preferences", "--arch", "arm64"], ["fedora.arm64", "rhel.10.arm64", "rhel.9.arm64"]),
    ],
)
def test_catalog_list_filters(args: list[str], expected: list[str] | None) -> None:
    result = offline("catalog", "list", *args, "-o", "name")
    assert result.exit_code == 0, result.stderr
    names = [line.rsplit("/", 1)[1] for line in result.stdout.splitlines()]
    if expected is None:  # every 2-vCPU type with 1Gi pages, computed from the catalog itself
        expected = sorted(
            obj["metadata"]["name"]
            for obj in CATALOG.instancetypes
            if obj["spec"]["cpu"]["guest"] == 2
            and (obj["spec"]["memory"].get("hugepages") or {}).get("pageSize") == "1Gi"
        )
        assert expected
    assert names == expected


def test_catalog_list_formats_and_scopes() -> None:
    document = json.loads(
        offline("catalog", "list", "--size", "medium", "--class", "general.purpose", "-o", "json").stdout
    )
    assert document["kind"] == "List"
    assert [item["metadata"]["name"] for item in document["items"]] == ["u1.medium"]
    wide = offline("catalog", "list", "--cpu", "1", "--class", "compute.exclusive", "-o", "wide", "--no-headers")
    assert [line.split()[:3] for line in wide.stdout.splitlines()] == [
        ["cx1.medium", "cluster", "1"],
        ["cx1.medium1gi", "cluster", "1"],
    ]
    namespaced = offline("catalog", "list", "--namespaced", "-n", "dev", "--cpu", "4", "--class", "general.purpose")
    assert namespaced.stdout.splitlines()[1].split()[:2] == ["u1.xlarge", "namespaced"]
    labels = offline("catalog", "list", "--cpu", "4", "--class", "general.purpose", "--show-labels", "--no-headers")
    assert "instancetype.kubevirt.io/size=xlarge" in labels.stdout
    by_memory = offline("catalog", "list", "--class", "memory.intensive", "--sort-by", "memory", "-o", "name")
    assert by_memory.stdout.splitlines()[-1].endswith("/m1.8xlarge1gi")


def test_catalog_list_nothing_found() -> None:
    result = offline("catalog", "list", "--cpu", "3")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No resources found\n")


def test_catalog_show() -> None:
    shown = yaml.safe_load(offline("catalog", "show", "u1.medium").stdout)
    assert shown == CATALOG.instancetype("u1.medium")
    both = json.loads(offline("catalog", "show", "u1.medium", "fedora", "-o", "json").stdout)
    assert [item["kind"] for item in both["items"]] == [
        "VirtualMachineClusterInstancetype",
        "VirtualMachineClusterPreference",
    ]
    names = offline("catalog", "show", "fedora", "--namespaced", "-n", "dev", "-o", "name")
    assert names.stdout == "virtualmachinepreference.instancetype.kubevirt.io/fedora\n"
    table = offline("catalog", "show", "cx1.large", "fedora", "-o", "wide")
    lines = table.stdout.splitlines()
    assert lines[0].split()[:3] == ["NAME", "KIND", "CPU"] and lines[1].split()[0] == "cx1.large"
    assert lines[2].split()[:3] == ["NAME", "KIND", "OS-TYPE"] and lines[3].split()[0] == "fedora"


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["catalog", "show", "u1.mediu"],
            'error: "u1.mediu" is not in the common-instancetypes v1.7.0 catalog (did you mean u1.medium?)',
        ),
        (["catalog", "show", "fedora", "-n", "dev"], "error: -n/--namespace goes with --namespaced"),
        (
            ["catalog", "list", "--version", "v0.3.0"],
            'error: no embedded common-instancetypes catalog for version "v0.3.0" (available: v1.7.0)',
        ),
        (
            ["catalog", "list", "--scope=cluster", "--namespaced"],
            "error: --scope=cluster and --namespaced cannot be used together",
        ),
        (["catalog", "list", "--namespaced", "-n", "a/b"], "error: invalid namespace \"a/b\": [may not contain '/']"),
        (
            ["catalog", "list", "sizes"],
            'error: no instance type named "sizes" cluster-wide (virtualmachineclusterinstancetypes); '
            "preferences are listed with: list preferences NAME (or vmcp/NAME, vmp/NAME)",
        ),
        (["catalog", "list", "preferences", "--class", "x"], "error: --class only applies to instance types"),
        (["catalog", "list", "-A"], "error: unknown shorthand flag: 'A' in -A"),
        (["catalog", "list", "--kubeconfig", "x"], "error: unknown flag: --kubeconfig"),
    ],
)
def test_catalog_usage_errors(args: list[str], message: str) -> None:
    result = offline(*args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message + "\n")


def test_catalog_group_help_lists_subcommands() -> None:
    result = offline("catalog")
    assert result.exit_code == 0
    for name in ("list", "show", "install", "diff"):
        assert f"  {name} " in result.stdout


def test_catalog_install_without_a_cluster_fails_in_one_line() -> None:
    result = offline("catalog", "install")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "error: no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config\n",
    )


@pytest.mark.parametrize(
    ("args", "code", "out"),
    [
        (["vmcf/u1.large"], 0, "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.large\n"),
        (
            ["virtualmachineclusterpreference/fedora"],
            0,
            "virtualmachineclusterpreference.instancetype.kubevirt.io/fedora\n",
        ),
        (["vmp/fedora", "--namespaced"], 0, "virtualmachinepreference.instancetype.kubevirt.io/fedora\n"),
        (["vmf/u1.large"], 1, 'error: "vmf/u1.large" names the namespaced kind: add --namespaced\n'),
        (["vmcp/u1.large"], 1, 'error: "vmcp/u1.large" is not in the common-instancetypes v1.7.0 catalog\n'),
        (
            ["pod/x"],
            1,
            'error: catalog show takes NAME or TYPE/NAME with an instance type or preference kind, not "pod/x"\n',
        ),
    ],
)
def test_show_takes_the_kind_prefixes(args: list[str], code: int, out: str) -> None:
    """Issue 29: one spelling of kinds everywhere (catalog show refused vmcf/u1.large)."""
    result = run_cli(["catalog", "show", *args, "-o", "name"])
    assert (result.exit_code, result.stdout if code == 0 else result.stderr) == (code, out)
