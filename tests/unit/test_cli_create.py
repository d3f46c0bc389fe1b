"""``create`` through the CLI with ``--dry-run=client -o yaml``: the golden files again, byte for byte.

The builders are covered by test_golden_create.py; this runs the same cases through the Typer commands
(flag tables turned into options, pflag spellings, the printer), which send nothing to a server.
"""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.unit.test_golden_create import GOLDEN_CASES, fixed_suffixes


@pytest.mark.parametrize(("case_id", "command", "argv", "expected"), GOLDEN_CASES, ids=[c[0] for c in GOLDEN_CASES])
def test_golden_through_the_cli(case_id, command, argv, expected) -> None:
    # Randomness and the one file a case reads come from the Environment: nothing is patched.
    result = run_cli(
        ["create", command, *argv, "--dry-run=client", "-o", "yaml"],
        random_suffix=fixed_suffixes(),
        read_file=lambda path: "s3cr3t-pass\n" if path == "/golden/password" else open(path).read(),
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected.read_text()


def test_create_help_lists_virtctl_flags() -> None:
    result = run_cli(["create", "vm", "--help"])
    assert result.exit_code == 0
    for flag in (
        "--volume-import",
        "--infer-preference-from",
        "--cloud-init-network-data",
        "--dry-run",
        "--skip-checks",
        "--kubeconfig",
    ):
        assert flag in result.stdout
    assert "kubectl instancetype create vm --name=my-vm --run-strategy=Always" in result.stdout


def test_boolean_flags_take_pflag_spellings() -> None:
    import json

    base = ["create", "vm", "--name", "b", "--dry-run=client", "-o", "json"]
    explicit = json.loads(run_cli(base + ["--infer-instancetype=false", "--volume-pvc", "src:disk"]).stdout)
    bare = json.loads(run_cli(base + ["--infer-instancetype", "--volume-pvc", "src:disk"]).stdout)
    assert "instancetype" not in explicit["spec"] and "preference" in explicit["spec"]
    assert bare["spec"]["instancetype"] == {"inferFromVolume": "disk"}  # explicit: no failure policy
    bad = run_cli(base + ["--infer-instancetype=maybe"])
    assert bad.stderr == (
        'error: invalid argument "maybe" for "--infer-instancetype" flag: strconv.ParseBool: '
        'parsing "maybe": invalid syntax\n'
    )


def test_warnings_go_to_stderr_and_output_stays_clean() -> None:
    result = run_cli(["create", "vm", "--name", "w", "--volume-blank", "size:1Gi", "--dry-run=client", "-o", "yaml"])
    assert result.exit_code == 0
    assert result.stderr == "Flag --volume-blank has been deprecated, use flag --volume-import instead\n"
    assert result.stdout.startswith("apiVersion: kubevirt.io/v1\n")


def test_create_without_subcommand_shows_help() -> None:
    result = run_cli(["create"])
    assert "Commands:" in result.stdout + result.stderr
