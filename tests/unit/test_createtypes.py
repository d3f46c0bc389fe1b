"""``build_instancetype`` / ``build_preference``: whole manifests and virtctl's exact error texts."""

from __future__ import annotations

from dataclasses import fields

import pytest

from kubectl_instancetype.instancetype.createtypes import (
    DIFFERENCES_FROM_VIRTCTL,
    INSTANCETYPE_EXAMPLES,
    INSTANCETYPE_FLAGS,
    PREFERENCE_EXAMPLES,
    PREFERENCE_FLAGS,
    InstancetypeOptions,
    PreferenceOptions,
    build_instancetype,
    build_preference,
)
from tests.conftest import (
    assert_same_as_virtctl,
    example_command_lines,
    fixed_suffixes,
    flags_to_argv,
    run_create,
    usage_error,
    virtctl_answers,
)

API = "instancetype.kubevirt.io/v1beta1"
CLUSTER_IT, NAMESPACED_IT = "VirtualMachineClusterInstancetype", "VirtualMachineInstancetype"
CLUSTER_PREF, NAMESPACED_PREF = "VirtualMachineClusterPreference", "VirtualMachinePreference"


def instancetype(flags: dict, namespace: str | None = None) -> dict:
    return build_instancetype(
        InstancetypeOptions.from_flags(flags, namespace=namespace), random_suffix=fixed_suffixes()
    )


def preference(flags: dict, namespace: str | None = None) -> dict:
    return build_preference(PreferenceOptions.from_flags(flags, namespace=namespace), random_suffix=fixed_suffixes())


def manifest(kind: str, metadata: dict, spec: dict) -> dict:
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec}


def it_spec(cpu: int = 2, memory: str = "256Mi", **extra) -> dict:
    return {"cpu": {"guest": cpu}, "memory": {"guest": memory}, **extra}


INSTANCETYPE_SUCCESS = [
    (
        "generated cluster name",
        {"cpu": 2, "memory": "256Mi"},
        None,
        manifest(CLUSTER_IT, {"name": "clusterinstancetype-bbbbb"}, it_spec()),
    ),
    (
        "named",
        {"cpu": 2, "memory": "256Mi", "name": "u1.small"},
        None,
        manifest(CLUSTER_IT, {"name": "u1.small"}, it_spec()),
    ),
    (
        "namespaced generated name",
        {"cpu": 2, "memory": "256Mi", "namespaced": True},
        None,
        manifest(NAMESPACED_IT, {"name": "instancetype-bbbbb"}, it_spec()),
    ),
    (
        "-n forces namespaced",
        {"cpu": 2, "memory": "256Mi", "name": "x"},
        "my-ns",
        manifest(NAMESPACED_IT, {"name": "x", "namespace": "my-ns"}, it_spec()),
    ),
    (
        "-n with --namespaced=false",
        {"cpu": 2, "memory": "256Mi", "namespaced": False},
        "my-ns",
        manifest(NAMESPACED_IT, {"name": "instancetype-bbbbb", "namespace": "my-ns"}, it_spec()),
    ),
    ("explicit empty name", {"cpu": 2, "memory": "256Mi", "name": ""}, None, manifest(CLUSTER_IT, {}, it_spec())),
    (
        "memory canonical",
        {"cpu": 4, "memory": "16384Mi", "name": "x"},
        None,
        manifest(CLUSTER_IT, {"name": "x"}, it_spec(4, "16Gi")),
    ),
    (
        "gpus",
        {"cpu": 1, "memory": "1Gi", "name": "x", "gpu": ["name:g1,devicename:nvidia.com/A", "devicename:b,name:g2"]},
        None,
        manifest(
            CLUSTER_IT,
            {"name": "x"},
            it_spec(1, "1Gi", gpus=[{"name": "g1", "deviceName": "nvidia.com/A"}, {"name": "g2", "deviceName": "b"}]),
        ),
    ),
    (
        "host devices",
        {"cpu": 1, "memory": "1Gi", "name": "x", "hostdevice": ["name:h,devicename:v.com/d"]},
        None,
        manifest(CLUSTER_IT, {"name": "x"}, it_spec(1, "1Gi", hostDevices=[{"name": "h", "deviceName": "v.com/d"}])),
    ),
    (
        "iothreads auto",
        {"cpu": 1, "memory": "1Gi", "name": "x", "iothreadspolicy": "auto"},
        None,
        manifest(CLUSTER_IT, {"name": "x"}, it_spec(1, "1Gi", ioThreadsPolicy="auto")),
    ),
    (
        "iothreads shared",
        {"cpu": 1, "memory": "1Gi", "name": "x", "iothreadspolicy": "shared"},
        None,
        manifest(CLUSTER_IT, {"name": "x"}, it_spec(1, "1Gi", ioThreadsPolicy="shared")),
    ),
]


@pytest.mark.parametrize(
    ("flags", "namespace", "expected"),
    [row[1:] for row in INSTANCETYPE_SUCCESS],
    ids=[row[0] for row in INSTANCETYPE_SUCCESS],
)
def test_build_instancetype(flags, namespace, expected):
    assert instancetype(flags, namespace) == expected


INSTANCETYPE_FAILURES = [
    ({}, 'required flag(s) "cpu", "memory" not set'),
    ({"cpu": 2}, 'required flag(s) "memory" not set'),
    ({"memory": "1Gi", "name": "x"}, 'required flag(s) "cpu" not set'),
    ({"cpu": 0, "memory": "1Gi"}, "cpu value must be greater than zero"),
    ({"cpu": 1, "memory": "1GG"}, "unable to parse quantity's suffix"),
    (
        {"cpu": 1, "memory": ""},
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    # the memory is checked before the CPU count
    (
        {"cpu": 0, "memory": "bad"},
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    ({"cpu": 1, "memory": "1Gi", "gpu": ["name:x"]}, 'failed to parse "--gpu" flag: deviceName must be specified'),
    ({"cpu": 1, "memory": "1Gi", "gpu": ["devicename:x"]}, 'failed to parse "--gpu" flag: name must be specified'),
    ({"cpu": 1, "memory": "1Gi", "gpu": [""]}, 'failed to parse "--gpu" flag: params may not be empty'),
    (
        {"cpu": 1, "memory": "1Gi", "gpu": ["name:a,devicename:b,x:y"]},
        'failed to parse "--gpu" flag: unknown param(s): x:y',
    ),
    (
        {"cpu": 1, "memory": "1Gi", "hostdevice": ["name:x"]},
        'failed to parse "--hostdevice" flag: deviceName must be specified',
    ),
    (
        {"cpu": 1, "memory": "1Gi", "hostdevice": ["name=x"]},
        'failed to parse "--hostdevice" flag: params need to have at least one colon: name=x',
    ),
    (
        {"cpu": 1, "memory": "1Gi", "iothreadspolicy": "Auto"},
        'failed to parse "--iothreadspolicy" flag: IOThread must be of value auto or shared',
    ),
    (
        {"cpu": 1, "memory": "1Gi", "iothreadspolicy": ""},
        'failed to parse "--iothreadspolicy" flag: IOThread must be of value auto or shared',
    ),
]


@pytest.mark.parametrize(("flags", "message"), INSTANCETYPE_FAILURES, ids=[m[:50] for _, m in INSTANCETYPE_FAILURES])
def test_build_instancetype_errors(flags, message):
    assert usage_error(lambda: instancetype(flags)) == message


def test_instancetype_errors_in_fixed_flag_order():
    flags = {"cpu": 1, "memory": "1Gi", "gpu": ["name:x"], "hostdevice": ["name:y"], "iothreadspolicy": "bad"}
    assert usage_error(lambda: instancetype(flags)) == 'failed to parse "--gpu" flag: deviceName must be specified'


PREFERENCE_SUCCESS = [
    ("no flags", {}, None, manifest(CLUSTER_PREF, {"name": "clusterpreference-bbbbb"}, {})),
    ("namespaced", {"namespaced": True}, None, manifest(NAMESPACED_PREF, {"name": "preference-bbbbb"}, {})),
    ("-n", {"name": "p"}, "ns", manifest(NAMESPACED_PREF, {"name": "p", "namespace": "ns"}, {})),
    ("empty name", {"name": ""}, None, manifest(CLUSTER_PREF, {}, {})),
    (
        "storage class",
        {"name": "p", "volume-storage-class": "fast"},
        None,
        manifest(CLUSTER_PREF, {"name": "p"}, {"volumes": {"preferredStorageClassName": "fast"}}),
    ),
    (
        "empty storage class",
        {"name": "p", "volume-storage-class": ""},
        None,
        manifest(CLUSTER_PREF, {"name": "p"}, {"volumes": {}}),
    ),
    (
        "machine type",
        {"name": "p", "machine-type": "q35"},
        None,
        manifest(CLUSTER_PREF, {"name": "p"}, {"machine": {"preferredMachineType": "q35"}}),
    ),
    (
        "empty machine type",
        {"name": "p", "machine-type": ""},
        None,
        manifest(CLUSTER_PREF, {"name": "p"}, {"machine": {}}),
    ),
    *[
        (
            f"topology {value}",
            {"name": "p", "cpu-topology": value},
            None,
            manifest(CLUSTER_PREF, {"name": "p"}, {"cpu": {"preferredCPUTopology": value}}),
        )
        for value in (
            "sockets",
            "cores",
            "threads",
            "spread",
            "any",
            "preferSockets",
            "preferCores",
            "preferThreads",
            "preferSpread",
            "preferAny",
        )
    ],
    (
        "everything",
        {
            "name": "p",
            "namespaced": True,
            "volume-storage-class": "sc",
            "machine-type": "q35",
            "cpu-topology": "spread",
        },
        None,
        manifest(
            NAMESPACED_PREF,
            {"name": "p"},
            {
                "volumes": {"preferredStorageClassName": "sc"},
                "machine": {"preferredMachineType": "q35"},
                "cpu": {"preferredCPUTopology": "spread"},
            },
        ),
    ),
]


@pytest.mark.parametrize(
    ("flags", "namespace", "expected"),
    [row[1:] for row in PREFERENCE_SUCCESS],
    ids=[row[0] for row in PREFERENCE_SUCCESS],
)
def test_build_preference(flags, namespace, expected):
    assert preference(flags, namespace) == expected


PREFERENCE_FAILURES = [
    (
        {"cpu-topology": "bad"},
        'failed to parse "--cpu-topology" flag: CPU topology must have a value of sockets, cores, threads or spread',
    ),
    (
        {"cpu-topology": "Sockets"},
        'failed to parse "--cpu-topology" flag: CPU topology must have a value of sockets, cores, threads or spread',
    ),
    (
        {"cpu-topology": ""},
        'failed to parse "--cpu-topology" flag: CPU topology must have a value of sockets, cores, threads or spread',
    ),
]


@pytest.mark.parametrize(("flags", "message"), PREFERENCE_FAILURES)
def test_build_preference_errors(flags, message):
    assert usage_error(lambda: preference(flags)) == message


def test_default_generated_names():
    generated = build_instancetype(InstancetypeOptions.from_flags({"cpu": 1, "memory": "1Gi"}))
    assert generated["metadata"]["name"].startswith("clusterinstancetype-")
    assert len(generated["metadata"]["name"]) == len("clusterinstancetype-") + 5
    assert build_preference(PreferenceOptions())["metadata"]["name"].startswith("clusterpreference-")


@pytest.mark.parametrize(
    ("options_class", "specs"), [(InstancetypeOptions, INSTANCETYPE_FLAGS), (PreferenceOptions, PREFERENCE_FLAGS)]
)
def test_flag_tables_match_options(options_class, specs):
    names = [f.name for f in fields(options_class) if f.name not in ("namespace", "changed")]
    assert [spec.field for spec in specs] == names
    defaults = options_class()
    for spec in specs:
        assert getattr(defaults, spec.field) == spec.default, spec.name
    assert [spec.name for spec in INSTANCETYPE_FLAGS if spec.required] == ["cpu", "memory"]


@pytest.mark.parametrize(
    ("examples", "command"), [(INSTANCETYPE_EXAMPLES, "instancetype"), (PREFERENCE_EXAMPLES, "preference")]
)
def test_examples_are_valid_commands(examples, command):
    commands = example_command_lines(examples, command)
    assert len(commands) >= 4
    for argv in commands:
        result = run_create(command, argv)
        assert result.exit_code == 0, (argv, result.stderr)


def test_differences_are_documented():
    assert DIFFERENCES_FROM_VIRTCTL and all(isinstance(item, str) and item for item in DIFFERENCES_FROM_VIRTCTL)


@pytest.mark.parametrize(
    "argv",
    [
        ["create", "instancetype", "--cpu", "1", "--memory", "1Gi", "--dry-run=client", "-o", "yaml"],
        ["create", "preference", "--dry-run=client", "-o", "yaml"],
    ],
)
def test_create_instancetype_and_preference_do_not_import_the_vm_builder(argv: list[str]) -> None:
    """Start-up: only the command being run is imported; the create vm package is not on these paths."""
    import subprocess
    import sys

    code = (
        "import io, sys\n"
        "from kubectl_instancetype.cli.main import run\n"
        "from kubectl_instancetype.env import Environment\n"
        "out = io.StringIO()\n"
        "env = Environment(stdin=io.StringIO(), stdout=out, stderr=io.StringIO(), environ={'HOME': '/nonexistent'})\n"
        f"assert run({argv!r}, env) == 0, out.getvalue()\n"
        "assert 'kind:' in out.getvalue()\n"
        "print(sorted(name for name in sys.modules if 'createvm' in name))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_negative_memory_is_refused_beyond_virtctl():
    """virtctl writes ``guest: -1Gi`` (instancetype/differences.py); the error comes after virtctl's own."""
    assert usage_error(lambda: instancetype({"cpu": 1, "memory": "-1Gi"})) == "memory must not be negative: -1Gi"
    assert usage_error(lambda: instancetype({"cpu": 0, "memory": "-1Gi"})) == "cpu value must be greater than zero"
    assert instancetype({"cpu": 1, "memory": "-0"})["spec"]["memory"]["guest"] == "0"


@pytest.mark.parametrize("cpu", ["４", "٣", "1\u00b2"])
def test_full_width_and_other_unicode_digits_are_not_digits(cpu):
    message = f'invalid argument "{cpu}" for "--cpu" flag: strconv.ParseUint: parsing "{cpu}": invalid syntax'
    result = run_create("instancetype", ["--cpu", cpu, "--memory", "1Gi"])
    assert (result.exit_code, result.stderr) == (1, f"error: {message}\n")


# --- the same rows through virtctl v1.8.0 (hack/virtctl/build.sh): our CLI must answer as it does ------------------

VIRTCTL_ROWS = (
    [("instancetype", flags_to_argv(flags, namespace)) for _, flags, namespace, _ in INSTANCETYPE_SUCCESS]
    + [("instancetype", flags_to_argv(flags)) for flags, _ in INSTANCETYPE_FAILURES]
    + [("preference", flags_to_argv(flags, namespace)) for _, flags, namespace, _ in PREFERENCE_SUCCESS]
    + [("preference", flags_to_argv(flags)) for flags, _ in PREFERENCE_FAILURES]
)


@pytest.fixture(scope="module")
def virtctl_results(binaries, virtctl_workdir):
    return virtctl_answers(binaries, virtctl_workdir, VIRTCTL_ROWS)


@pytest.mark.differential
@pytest.mark.parametrize(("command", "argv"), VIRTCTL_ROWS, ids=[f"{c}:{' '.join(a)}"[:120] for c, a in VIRTCTL_ROWS])
def test_rows_same_as_virtctl(virtctl_results, virtctl_workdir, command, argv):
    assert_same_as_virtctl(virtctl_results, virtctl_workdir, command, argv)
