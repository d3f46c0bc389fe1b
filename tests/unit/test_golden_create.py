"""The virtctl-parity golden corpus: ``create vm|instancetype|preference`` through the CLI (the Typer path users
hit, ``--dry-run=client -o yaml``) compared byte for byte with virtctl's output.

Each case is a directory ``tests/golden/createvm/<case>/`` or ``tests/golden/createtypes/<case>/`` with

* ``args``: one shell-quoted line of command-line flags; under ``createtypes`` the first word is the
  subcommand (``instancetype`` or ``preference``);
* ``expected.yaml``: what ``virtctl create ...`` (KubeVirt v1.8.0, built by ``hack/virtctl/build.sh``) printed
  for those flags, with generated random name suffixes replaced by the fixed suffixes (tests/conftest.py) in the
  order virtctl draws them (VM or object name first, then imported volumes in volume order).
"""

from __future__ import annotations

import pytest

from tests.conftest import golden_create_cases, run_create

GOLDEN_CASES = golden_create_cases()


def test_golden_case_counts():
    groups = [case_id.split("/")[0] for case_id, *_ in GOLDEN_CASES]
    assert groups.count("createvm") >= 15
    assert groups.count("createtypes") >= 6


@pytest.mark.parametrize(("case_id", "command", "argv", "expected"), GOLDEN_CASES, ids=[c[0] for c in GOLDEN_CASES])
def test_golden(case_id, command, argv, expected):
    # Randomness and the one file a case reads come from the Environment: nothing is patched.
    result = run_create(
        command, argv, read_file=lambda path: "s3cr3t-pass\n" if path == "/golden/password" else open(path).read()
    )
    assert result.exit_code == 0, result.stderr  # stderr holds virtctl's warnings (deprecated flags, cleartext)
    assert result.stdout == expected.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nope"], "unknown flag: --nope"),
        (["--name"], "flag needs an argument: --name"),
        (
            ["--termination-grace-period", "abc"],
            'invalid argument "abc" for "--termination-grace-period" flag: strconv.ParseInt: parsing "abc": invalid syntax',
        ),
        (
            ["--infer-preference=maybe"],
            'invalid argument "maybe" for "--infer-preference" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
        ),
    ],
)
def test_flag_errors_in_pflags_words(argv, message):
    result = run_create("vm", argv)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {message}\n")
