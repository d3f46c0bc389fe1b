"""matrix: rows and columns from names, cells vCPU/memory, the catalog's matrix (common-instancetypes' README size matrix),
the tabulate formats (golden files), and that only this command imports tabulate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_instancetype.catalog import load_catalog
from kubectl_instancetype.instancetype.matrix import build_matrix, split_name
from tests.conftest import run_cli

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "matrix"


@pytest.mark.parametrize(
    "name,cell",
    [
        ("u1.medium", ("u1", "medium")),
        ("cx1.large1gi", ("cx1.*1gi", "large")),
        ("m1.8xlarge1gi", ("m1.*1gi", "8xlarge")),
        ("u1.medium.6g", ("u1", "medium.6g")),
        ("mytype", ("mytype", "-")),
        ("x1.huge1gi", ("x1", "huge1gi")),
    ],
)
def test_split_name(name: str, cell: tuple[str, str]) -> None:
    assert split_name(name) == cell


def _catalog_matrix():
    return build_matrix((obj["metadata"]["name"], obj["spec"]) for obj in load_catalog().instancetypes)


def test_catalog_matrix_is_the_documented_one() -> None:
    matrix = _catalog_matrix()
    sizes = ["nano", "micro", "small", "medium", "2xmedium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge"]
    assert matrix.headers == ["SERIES", *sizes]
    rows = {row[0]: dict(zip(sizes, row[1:])) for row in matrix.rows}
    assert list(rows) == ["u1", "o1", "cx1", "cx1.*1gi", "m1", "m1.*1gi", "n1", "rt1", "d1"]
    # github.com/kubevirt/common-instancetypes README's size matrix (v1.7.0 = main for instance types)
    assert rows["u1"] == dict(
        zip(sizes, ["1/512Mi", "1/1Gi", "1/2Gi", "1/4Gi", "2/4Gi", "2/8Gi", "4/16Gi", "8/32Gi", "16/64Gi", "32/128Gi"])
    )
    assert rows["n1"] == dict(
        zip(sizes, ["", "", "", "4/4Gi", "", "4/8Gi", "8/16Gi", "16/32Gi", "32/64Gi", "64/128Gi"])
    )
    assert rows["o1"]["2xmedium"] == "" and rows["rt1"]["nano"] == "" and rows["rt1"]["micro"] == "1/1Gi"
    assert rows["m1.*1gi"]["8xlarge"] == "32/256Gi" and rows["cx1"]["medium"] == "1/2Gi"


def test_custom_series_and_sizes_come_last() -> None:
    types = [
        ("zz9.tiny", {"cpu": {"guest": 1}, "memory": {"guest": "256Mi"}}),
        ("u1.medium", {"cpu": {"guest": 1}, "memory": {"guest": "4Gi"}}),
        ("u1.medium.6g", {"cpu": {"guest": 1}, "memory": {"guest": "6144Mi"}}),
        ("a1.large", {"cpu": {"guest": 2}, "memory": {"guest": "8Gi"}}),
        ("plain", {"cpu": {"guest": 3}, "memory": {"guest": "3Gi"}}),
        # the same name in two scopes with different resources shows both
        ("u1.medium", {"cpu": {"guest": 2}, "memory": {"guest": "4Gi"}}),
    ]
    matrix = build_matrix(types)
    assert matrix.headers == ["SERIES", "medium", "large", "tiny", "medium.6g", "-"]
    assert matrix.rows == [
        ["u1", "1/4Gi, 2/4Gi", "", "", "1/6Gi", ""],
        ["a1", "", "2/8Gi", "", "", ""],
        ["plain", "", "", "", "", "3/3Gi"],
        ["zz9", "", "", "1/256Mi", "", ""],
    ]


@pytest.mark.parametrize("fmt", ["plain", "github", "grid"])
def test_catalog_matrix_formats(fmt: str) -> None:
    result = run_cli(["matrix", "--catalog", "--format", fmt])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (GOLDEN / f"catalog-v1.7.0-{fmt}.txt").read_text()


@pytest.mark.parametrize(
    "args,message",
    [
        (["--catalog", "--format", "html"], 'error: --format must be one of plain, github, grid (got "html")'),
        (
            ["--catalog", "--scope=cluster", "--namespaced"],
            "error: --scope=cluster and --namespaced cannot be used together",
        ),
        (["--catalog-version", "v1.7.0"], "error: --catalog-version goes with --catalog"),
        (
            ["--catalog", "--catalog-version", "v0.1"],
            'error: no embedded common-instancetypes catalog for version "v0.1" (available: v1.7.0)',
        ),
    ],
)
def test_matrix_errors(args: list[str], message: str) -> None:
    result = run_cli(["matrix", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message + "\n")


def test_only_matrix_imports_tabulate() -> None:
    code = (
        "import sys\n"
        "from kubectl_instancetype.cli.main import run\n"
        "run(sys.argv[1:])\n"
        "print('tabulate' in sys.modules)\n"
    )
    seen = {}
    for args in (
        ["catalog", "list", "--cpu", "1"],
        ["recommend", "--catalog", "--preference", "fedora"],
        ["matrix", "--catalog"],
    ):
        out = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            check=True,
            env={"HOME": "/nonexistent", "PATH": "/usr/bin:/bin"},
        ).stdout
        seen[args[0]] = out.splitlines()[-1]
    assert seen == {"catalog": "False", "recommend": "False", "matrix": "True"}


def test_matrix_takes_the_list_filters() -> None:
    klass = run_cli(["matrix", "--catalog", "--class", "general.purpose"])
    assert klass.exit_code == 0, klass.stderr
    assert [line.split()[0] for line in klass.stdout.splitlines()] == ["SERIES", "u1"]
    selected = run_cli(
        ["matrix", "--catalog", "-l", "instancetype.kubevirt.io/class in (general.purpose,overcommitted)"]
    )
    assert [line.split()[0] for line in selected.stdout.splitlines()] == ["SERIES", "u1", "o1"]
    none = run_cli(["matrix", "--catalog", "-l", "instancetype.kubevirt.io/class=nothing", "--hide-deprecated"])
    assert (none.exit_code, none.stdout, none.stderr) == (0, "", "No resources found\n")


def test_matrix_output_prints_the_types_it_is_built_from() -> None:
    names = run_cli(["matrix", "--catalog", "-l", "instancetype.kubevirt.io/class=overcommitted", "-o", "name"])
    assert names.exit_code == 0, names.stderr
    assert len(names.stdout.splitlines()) == 9
    assert all(
        line.startswith("virtualmachineclusterinstancetype.instancetype.kubevirt.io/o1.")
        for line in names.stdout.splitlines()
    )
    path = run_cli(["matrix", "--catalog", "--class", "general.purpose", "-o", "jsonpath={.items[0].kind}"])
    assert path.stdout == "VirtualMachineClusterInstancetype"
    refused = run_cli(["matrix", "--catalog", "-o", "wide"])
    assert refused.exit_code == 1
    assert refused.stderr.startswith('error: unable to match a printer suitable for the output format "wide"')
