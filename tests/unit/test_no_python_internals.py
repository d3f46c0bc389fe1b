"""No Python exception text reaches a user (issue 34): each parser of user or server input is fed the inputs that once
leaked Python's words (the int-digits limit, ``'NoneType' object has no attribute``, ``invalid literal for int()``,
``Expecting value``) and must answer with the exact line kubectl, Go or the API server gives. The watch stream's
cases are in test_watch.py (a loopback watch double); Go's JSON syntax errors in test_encoding_json.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

DIGITS = "1" * 5000
REFUSED = "error: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"
INTERNALS = ("sys.set_int_max_str_digits", "NoneType", "invalid literal", "Expecting value", "Traceback")


def kubeconfig(tmp_path: Path, user: str, extra: str = "") -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://127.0.0.1:1\n  name: c\n"
        f"users:\n- name: u\n  user:\n{user}contexts:\n- context:\n    cluster: c\n    user: u\n  name: c\n"
        f"current-context: c\n{extra}"
    )
    return path


def test_a_token_of_5000_digits_is_the_string_kubectl_reads(tmp_path: Path) -> None:
    # go-yaml v2 resolves a plain scalar past int64, uint64 and float64 as the string it was written as
    path = kubeconfig(tmp_path, f"    token: {DIGITS}\n")
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert (result.exit_code, result.stderr) == (1, REFUSED)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        # the string go-yaml made of the number, into clientcmd's bool: encoding/json's UnmarshalTypeError
        (
            f"preferences:\n  colors: {DIGITS}\n",
            "json: cannot unmarshal string into Go struct field Preferences.preferences.colors of type bool",
        ),
        ("x: &a [*a]\n", "yaml: anchor 'a' value contains itself"),
    ],
    ids=["preference-digits", "anchor-contains-itself"],
)
def test_kubeconfigs_kubectl_refuses_are_refused_in_its_words(tmp_path: Path, extra: str, expected: str) -> None:
    path = kubeconfig(tmp_path, "    token: t\n", extra)
    result = run_cli(["list", "--kubeconfig", str(path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f'error: error loading config file "{path}": {expected}\n'


VM_HEAD = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm1\n"
CEL_NOTE = (
    "* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct "
    "the existing errors to complete validation"
)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        (
            "spec:\n  template:\n    spec:\n      domain:\n        cpu:\n          cores: abc\n",
            '* spec.template.spec.domain.cpu.cores: Invalid value: "string": spec.template.spec.domain.cpu.cores in '
            'body must be of type integer: "string"',
        ),
        (
            f"spec:\n  template:\n    spec:\n      domain:\n        cpu:\n          cores: {DIGITS}\n",
            '* spec.template.spec.domain.cpu.cores: Invalid value: "string": spec.template.spec.domain.cpu.cores in '
            'body must be of type integer: "string"',
        ),
        ("spec: null\n", "* spec.template: Required value"),
        (
            'spec:\n  template: "x"\n',
            '* spec.template: Invalid value: "string": spec.template in body must be of type object: "string"',
        ),
    ],
    ids=["cores-string", "cores-digits", "spec-null", "template-string"],
)
def test_adopt_input_of_the_wrong_shape_reads_as_the_api_servers_refusal(spec: str, problem: str) -> None:
    # read_manifests checks -f against KubeVirt's CRD schema (golang/structural.py) before adopt reads a field
    result = run_cli(["adopt", "-f", "-", "--catalog"], stdin=VM_HEAD + spec)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f'error: STDIN: The VirtualMachine "vm1" is invalid: \n{problem}\n{CEL_NOTE}\n'


def test_the_funnel_names_the_input_and_the_limit_for_every_parser_exception() -> None:
    from kubectl_instancetype.errors import render

    try:
        int("1" * 5000)
    except ValueError as exc:
        digits = exc
    cases = [
        (digits, "error: a number has more than 4300 digits, more than is read"),
        (
            RecursionError("maximum recursion depth exceeded"),
            "error: the input nests too deeply to process (more than about 1,000 levels)",
        ),
        (
            UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
            "error: the input is not valid UTF-8 text",
        ),
        (MemoryError(), "error: out of memory: the input is larger than this machine can hold; give a smaller input"),
    ]
    import json

    import yaml

    try:
        json.loads("garbage")
    except ValueError as exc:
        not_json = exc
    try:
        yaml.safe_load("a: [b")
    except yaml.YAMLError as exc:
        not_yaml = exc
    cases += [
        (not_json, "error: invalid JSON: invalid character 'g' looking for beginning of value"),
        (not_yaml, "error: yaml: line 1: expected ',' or ']', but got '<stream end>'"),
        (
            OverflowError("int too large to convert to float"),
            "error: a number is too large to compute with (more than a 64-bit float holds)",
        ),
        (
            AttributeError("'NoneType' object has no attribute 'get'"),
            "error: the input holds a value of an unexpected "
            "type where an object, list or number belongs (-v 1 shows where)",
        ),
    ]
    for exc, line in cases:
        assert render(exc) == line
    assert not any(word in render(exc) for exc, _ in cases for word in INTERNALS)


def test_completion_on_a_kubeconfig_too_big_for_its_budget_answers_without_names(tmp_path: Path) -> None:
    # 10,000 contexts take longer to read than a budget of 1 ms: the live look-up is given up, the answer stays
    path = tmp_path / "kubeconfig"
    lines = ["apiVersion: v1", "kind: Config", "contexts:"]
    for index in range(10_000):
        lines += [f"- name: c{index}", "  context:", "    cluster: k", "    user: u"]
    path.write_text("\n".join(lines) + "\n")
    command = [
        sys.executable,
        "-c",
        "import sys; from kubectl_instancetype.cli.main import complete_main; sys.exit(complete_main())",
        "list",
        "--kubeconfig",
        str(path),
        "--context",
        "c99",
    ]
    quick = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        env={"KUBECTL_INSTANCETYPE_COMPLETION_TIMEOUT": "1ms", "PATH": "/usr/bin:/bin"},
    )
    assert (quick.returncode, quick.stdout, quick.stderr) == (0, ":4\n", "")
    patient = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        env={"KUBECTL_INSTANCETYPE_COMPLETION_TIMEOUT": "50s", "PATH": "/usr/bin:/bin"},
    )
    assert patient.returncode == 0
    assert patient.stdout.splitlines()[:3] == ["c99", "c990", "c9900"] and patient.stdout.endswith(":4\n")
