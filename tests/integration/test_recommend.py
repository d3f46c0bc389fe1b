"""``recommend``, ``list --compatible-with`` and ``matrix`` against the real control plane with the catalog loaded."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.controlplane

CLUSTER_IT = "virtualmachineclusterinstancetype.instancetype.kubevirt.io"


def test_recommend_from_the_cluster(cli) -> None:
    result = cli("recommend", "--preference", "fedora", "--max", "3")
    assert (result.exit_code, result.stderr) == (0, "")
    assert [line.split()[:4] for line in result.stdout.splitlines()] == [
        ["NAME", "KIND", "CPU", "MEMORY"],
        ["u1.small", "cluster", "1", "2Gi"],
        ["d1.small", "cluster", "1", "2Gi"],
        ["cx1.medium", "cluster", "1", "2Gi"],
    ]


def test_recommend_in_every_namespace_has_kubectls_namespace_column(cli) -> None:
    result = cli(
        "recommend",
        "--preference",
        "fedora",
        "-A",
        "-l",
        "instancetype.kubevirt.io/size=small",
        "--class",
        "general.purpose",
        "--max",
        "2",
    )
    assert (result.exit_code, result.stderr) == (0, "")
    header, *rows = result.stdout.splitlines()
    assert header.split()[:3] == ["NAMESPACE", "NAME", "KIND"]
    assert [row.split()[:3] for row in rows] == [["u1.small", "cluster", "1"], ["catalog", "u1.small", "namespaced"]]


def test_recommend_with_a_namespaced_preference_sees_both_scopes(cli) -> None:
    result = cli(
        "recommend",
        "--preference",
        "vmpref/windows.11",
        "-n",
        "catalog",
        "--class",
        "general.purpose",
        "--max",
        "2",
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    # the same type in both scopes: the cluster one ranks first (scope is the last key)
    assert [(item["kind"], item["metadata"]["name"]) for item in items] == [
        ("VirtualMachineClusterInstancetype", "u1.2xmedium"),
        ("VirtualMachineInstancetype", "u1.2xmedium"),
    ]


def test_recommend_missing_preference_hints(cli) -> None:
    result = cli("recommend", "--preference", "fedorra")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == 'error: virtualmachineclusterpreference "fedorra" not found (did you mean fedora?)\n'


def test_recommend_reports_a_forbidden_scope_and_uses_the_other(cli) -> None:
    # carol may read cluster-scoped kinds only
    result = cli("recommend", "--preference", "alpine", "--max", "1", "-o", "name", user="carol")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{CLUSTER_IT}/u1.nano\n"
    assert result.stderr.startswith("Warning: ")


def test_list_compatible_with(cli) -> None:
    result = cli("list", "--compatible-with", "windows.11", "--class", "general.purpose", "-o", "name")
    assert result.exit_code == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == [
        f"{CLUSTER_IT}/u1.{size}" for size in ("2xlarge", "2xmedium", "4xlarge", "8xlarge", "large", "xlarge")
    ]
    dpdk = cli("list", "--compatible-with", "rhel.9.dpdk", "--class", "network", "--sort-by", "cpu")
    # spread across sockets, cores and threads with ratio 4 needs a multiple of 8 vCPUs
    assert [line.split()[0] for line in dpdk.stdout.splitlines()[1:]] == [
        "n1.xlarge",
        "n1.2xlarge",
        "n1.4xlarge",
        "n1.8xlarge",
    ]
    missing = cli("list", "--compatible-with", "nothing-like-it")
    assert (missing.exit_code, missing.stderr) == (
        1,
        'error: virtualmachineclusterpreference "nothing-like-it" not found\n',
    )


def test_matrix_of_the_cluster(cli) -> None:
    result = cli("matrix", "--scope=cluster", "--format", "github")
    assert (result.exit_code, result.stderr) == (0, "")
    rows = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in result.stdout.splitlines()[2:]
    }
    assert rows["u1"] == [
        "1/512Mi",
        "1/1Gi",
        "1/2Gi",
        "1/4Gi",
        "2/4Gi",
        "2/8Gi",
        "4/16Gi",
        "8/32Gi",
        "16/64Gi",
        "32/128Gi",
    ]
    assert rows["cx1.*1gi"][3] == "1/2Gi"


def test_recommend_and_matrix_take_the_list_filters_on_the_cluster(cli) -> None:
    """-l goes to the server as the label selector; --scope=cluster keeps one scope; no preference, only minimums."""
    selector = "instancetype.kubevirt.io/class in (general.purpose,overcommitted)"
    result = cli(
        "recommend", "--min-memory", "8Gi", "--scope=cluster", "-l", selector, "--hide-deprecated", "-o", "wide"
    )
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[1:3]] == ["u1.large", "o1.large"]
    assert lines[1].endswith("ranked first: the smallest fit")
    assert {line.split()[0].split(".")[0] for line in lines[1:]} == {"u1", "o1"}
    matrix = cli("matrix", "--scope=cluster", "-l", selector)
    assert (matrix.exit_code, matrix.stderr) == (0, "")
    assert [line.split()[0] for line in matrix.stdout.splitlines()] == ["SERIES", "u1", "o1"]


def test_matrix_output_on_the_cluster(cli) -> None:
    result = cli("matrix", "--scope=cluster", "--class", "general.purpose", "-o", "jsonpath={.items[*].metadata.name}")
    assert (result.exit_code, result.stderr) == (0, "")
    assert {name.split(".")[0] for name in result.stdout.split()} == {"u1"}
    assert "u1.medium" in result.stdout.split()
