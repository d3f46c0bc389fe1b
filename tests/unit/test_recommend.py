"""recommend: the verdict per instance type (KubeVirt's messages), the ranking, near misses, and the CLI offline."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.catalog import load_catalog
from kubectl_instancetype.instancetype import requirements
from kubectl_instancetype.instancetype.recommend import Minimums, evaluate, near_miss, rank_key, spread_problem
from tests.conftest import run_cli

CATALOG = load_catalog()


def spec(name: str) -> dict:
    obj = CATALOG.instancetype(name) or CATALOG.preference(name)
    assert obj is not None, name
    return obj["spec"]


# KubeVirt's spread divisibility vectors (pkg/instancetype/preference/validation/cpu.go)
@pytest.mark.parametrize(
    "vcpus,cpu,ok",
    [
        (4, {"preferredCPUTopology": "spread"}, True),
        (3, {"preferredCPUTopology": "spread"}, False),
        (6, {"preferredCPUTopology": "spread", "spreadOptions": {"ratio": 3}}, True),
        (8, {"preferredCPUTopology": "spread", "spreadOptions": {"ratio": 3}}, False),
        (6, {"preferredCPUTopology": "spread", "spreadOptions": {"across": "CoresThreads"}}, True),
        (5, {"preferredCPUTopology": "preferSpread", "spreadOptions": {"across": "CoresThreads"}}, False),
        (8, {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}, True),
        (4, {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}, False),
        (12, {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}, False),
        (16, {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}, True),
        (3, {"preferredCPUTopology": "sockets"}, True),
        (3, {}, True),
    ],
)
def test_spread_divisibility(vcpus: int, cpu: dict, ok: bool) -> None:
    assert (spread_problem({"cpu": {"guest": vcpus}}, {"cpu": cpu}) is None) is ok


def test_spread_messages_are_kubevirts() -> None:
    preference = {
        "cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}
    }
    assert spread_problem({"cpu": {"guest": 4}}, preference) == (
        "4 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and "
        "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 4"
    )
    assert spread_problem({"cpu": {"guest": 3}}, {"cpu": {"preferredCPUTopology": "spread"}}) == (
        "3 vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or "
        "Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the preference"
    )
    assert (
        spread_problem(
            {"cpu": {"guest": 3}}, {"cpu": {"preferredCPUTopology": "spread"}, "preferSpreadSocketToCoreRatio": 3}
        )
        is None
    )


def test_every_unmet_requirement_in_kubevirts_words() -> None:
    verdict = evaluate(spec("u1.nano"), spec("windows.11"))
    assert not verdict.fits
    assert verdict.reasons == [
        "insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU",
        "insufficient Memory resources of 512Mi provided by instance type, preference requires 4Gi",
    ]
    # the first reason is exactly what create vm's pre-flight (the one requirements implementation) says
    assert verdict.reasons[0] == requirements.unmet_requirement(spec("u1.nano"), spec("windows.11"), {})
    assert verdict.dimensions == {"cpu", "memory"}


def test_architecture() -> None:
    verdict = evaluate(spec("u1.medium"), spec("fedora.arm64"), architecture="amd64")
    assert verdict.reasons == ["preference requires architecture arm64 but amd64 is being requested"]
    assert evaluate(spec("u1.medium"), spec("fedora.arm64")).fits  # preferredArchitecture fills it in
    pinned = {**spec("u1.medium"), "nodeSelector": {"kubernetes.io/arch": "s390x"}}
    assert evaluate(pinned, spec("fedora")).reasons == [
        "instance type selects kubernetes.io/arch=s390x nodes but the VM requests architecture amd64"
    ]


def test_minimums_and_fit_reason() -> None:
    verdict = evaluate(spec("u1.small"), spec("fedora"), Minimums(cpu=2, memory="4096Mi"))
    assert verdict.reasons == ["1 vCPU is below --min-cpu 2", "2Gi is below --min-memory 4Gi"]
    fit = evaluate(spec("u1.small"), spec("fedora"))
    assert fit.fits and fit.reason == "1 vCPU >= 1 required, 2Gi >= 2Gi required, architecture amd64"
    assert evaluate(spec("u1.small"), spec("legacy")).reason == "1 vCPU, 2Gi"


def test_near_miss_is_one_dimension() -> None:
    assert near_miss(evaluate(spec("u1.micro"), spec("fedora")))
    assert not near_miss(evaluate(spec("u1.nano"), spec("windows.11")))
    assert not near_miss(evaluate(spec("u1.medium"), spec("fedora")))


def test_rank_smallest_first() -> None:
    names = ["u1.large", "o1.large", "d1.large", "cx1.large", "u1.2xmedium", "u1.medium", "m1.large"]
    ranked = sorted(names, key=lambda name: rank_key(spec(name), name, None))
    # vCPUs, then memory, then overcommit (none first), then the fewest special features
    assert ranked == ["u1.medium", "u1.2xmedium", "cx1.large", "u1.large", "d1.large", "o1.large", "m1.large"]


@given(cpu=st.integers(min_value=1, max_value=64), required=st.integers(min_value=1, max_value=64))
def test_cpu_requirement_property(cpu: int, required: int) -> None:
    verdict = evaluate(
        {"cpu": {"guest": cpu}, "memory": {"guest": "1Gi"}}, {"requirements": {"cpu": {"guest": required}}}
    )
    assert verdict.fits is (cpu >= required)


# -- the command, offline ---------------------------------------------------------------------------


def test_recommend_catalog_table() -> None:
    result = run_cli(["recommend", "--preference", "fedora", "--catalog", "--max", "3"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "NAME         KIND      CPU   MEMORY   CLASS",
        "u1.small     cluster   1     2Gi      general.purpose",
        "d1.small     cluster   1     2Gi      dedicated.vcpu",
        "cx1.medium   cluster   1     2Gi      compute.exclusive",
    ]


def test_recommend_wide_reason_and_rejected() -> None:
    result = run_cli(
        [
            "recommend",
            "--preference",
            "windows.11",
            "--catalog",
            "--class",
            "general.purpose",
            "--max",
            "1",
            "--show-rejected",
        ]
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "CPU", "MEMORY", "CLASS", "REASON"]
    assert lines[1].startswith("u1.2xmedium ")
    assert lines[1].endswith("2 vCPU >= 2 required, 4Gi >= 4Gi required; ranked first: the smallest fit")
    assert lines[2].startswith("u1.medium ")
    assert lines[2].endswith(
        "rejected: insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU"
    )
    assert len(lines) == 3


def test_recommend_name_and_json() -> None:
    names = run_cli(
        ["recommend", "--preference", "rhel.9.dpdk", "--catalog", "--class", "general.purpose", "-o", "name"]
    )
    assert names.stdout.splitlines() == [
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.2xlarge",
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.4xlarge",
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.8xlarge",
    ]
    document = json.loads(
        run_cli(["recommend", "--preference", "alpine", "--catalog", "--max", "2", "-o", "json"]).stdout
    )
    assert [item["metadata"]["name"] for item in document["items"]] == ["u1.nano", "d1.nano"]


def test_recommend_nothing_fits() -> None:
    result = run_cli(["recommend", "--preference", "fedora.arm64", "--arch", "amd64", "--catalog"])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == 'No instance type fits preference "fedora.arm64" (65 considered)\n'


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["--preference", "fedra", "--catalog"],
            'error: preference "fedra" not found in the common-instancetypes v1.7.0 catalog (did you mean fedora?)',
        ),
        (
            ["--preference", "a/b/c", "--catalog"],
            'error: invalid preference "a/b/c": invalid count 2 of slashes in prefix/name',
        ),
        (
            ["--preference", "pod/x", "--catalog"],
            'error: invalid preference kind "pod", supported values are: virtualmachinepreference, virtualmachineclusterpreference',
        ),
        (
            ["--preference", "fedora", "--catalog", "--min-memory", "lots"],
            "error: invalid --min-memory quantity 'lots': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (["--preference", "fedora", "--catalog", "--max", "-1"], "error: --max must not be negative"),
        (["--preference", "fedora", "--catalog-version", "v1.7.0"], "error: --catalog-version goes with --catalog"),
        (
            ["--preference", "fedora", "--catalog", "-o", "table"],
            'error: unable to match a printer suitable for the output format "table", allowed formats are: '
            "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml",
        ),
    ],
)
def test_recommend_errors(args: list[str], message: str) -> None:
    result = run_cli(["recommend", *args])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message + "\n")


def test_list_compatible_with_offline() -> None:
    result = run_cli(["catalog", "list", "--compatible-with", "windows.11", "--class", "general.purpose", "-o", "name"])
    assert result.exit_code == 0, result.stderr
    assert [line.rsplit("/", 1)[1] for line in result.stdout.splitlines()] == [
        "u1.2xlarge",
        "u1.2xmedium",
        "u1.4xlarge",
        "u1.8xlarge",
        "u1.large",
        "u1.xlarge",
    ]
    refused = run_cli(["catalog", "list", "preferences", "--compatible-with", "fedora"])
    assert (refused.exit_code, refused.stderr) == (1, "error: --compatible-with only applies to instance types\n")


def test_recommend_from_minimums_without_a_preference_in_cost_order_with_reasons() -> None:
    """Without --preference only the minimums count; at the same size the general-purpose type comes first and
    REASON says why each type follows the one above it."""
    result = run_cli(["recommend", "--min-cpu", "2", "--min-memory", "8Gi", "--catalog", "--max", "7", "-o", "wide"])
    assert (result.exit_code, result.stderr) == (0, "")
    rows = {line.split()[0]: line.split("   ")[-1].strip() for line in result.stdout.splitlines()[1:]}
    assert list(rows) == ["u1.large", "d1.large", "rt1.large", "o1.large", "m1.large", "m1.large1gi", "n1.large"]
    assert rows["u1.large"] == "2 vCPU, 8Gi; ranked first: the smallest fit"
    assert rows["d1.large"] == (
        "2 vCPU, 8Gi; same size as the one above, more special features (dedicated CPUs, isolated emulator thread)"
    )
    assert rows["o1.large"] == "2 vCPU, 8Gi; memory overcommitted 50% (more than the one above)"
    assert rows["m1.large"] == "2 vCPU, 16Gi; more memory than the one above"
    assert rows["n1.large"] == "4 vCPU, 8Gi; more vCPUs than the one above (4 > 2)"


def test_recommend_needs_a_preference_or_a_minimum() -> None:
    result = run_cli(["recommend", "--catalog"])
    assert (result.exit_code, result.stderr) == (1, "error: specify --preference, --min-cpu or --min-memory\n")


def test_recommend_takes_the_list_filters() -> None:
    base = ["recommend", "--min-cpu", "1", "--catalog", "-o", "name", "--max", "200"]
    everything = run_cli(base).stdout.splitlines()
    selected = run_cli([*base, "-l", "instancetype.kubevirt.io/class in (general.purpose,overcommitted)"])
    assert {line.split("/")[1].split(".")[0] for line in selected.stdout.splitlines()} == {"u1", "o1"}
    hidden = run_cli([*base, "--hide-deprecated"]).stdout.splitlines()
    assert set(hidden) <= set(everything)
    namespaced = run_cli([*base, "--namespaced", "-n", "dev", "--class", "general.purpose"]).stdout.splitlines()
    assert namespaced and all(line.startswith("virtualmachineinstancetype.") for line in namespaced)
    both = run_cli([*base, "--scope=cluster", "--namespaced"])
    assert (both.exit_code, both.stderr) == (1, "error: --scope=cluster and --namespaced cannot be used together\n")
    no_fit = run_cli(["recommend", "--min-cpu", "1000", "--catalog"])
    assert (no_fit.exit_code, no_fit.stderr) == (0, "No instance type fits the minimums (65 considered)\n")
