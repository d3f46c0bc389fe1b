"""``create`` through the CLI with ``--dry-run=client``: help, pflag spellings, warnings and output streams
(the golden corpus through the CLI is test_golden_create.py)."""

from __future__ import annotations

from tests.conftest import run_cli


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
    # as a cobra command group: its help, as --help prints it, on stdout, and exit 0
    assert (result.exit_code, result.stderr, result.stdout) == (0, "", run_cli(["create", "--help"]).stdout)
    commands = result.stdout.split("Available Commands:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in commands.splitlines()] == ["instancetype", "preference", "vm"]
