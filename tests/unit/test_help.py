"""``--help`` in cobra's layout; for the create commands, every virtctl flag reads exactly as virtctl prints it."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.unit.test_virtctl_differential import binaries, run_virtctl, virtctl_flag_help, workdir  # noqa: F401


def test_root_help_lists_commands_sorted_with_cobras_footer() -> None:
    result = run_cli(["--help"])
    assert (result.exit_code, result.stderr) == (0, "")
    text = result.stdout
    assert "\n\nUsage:\n  kubectl instancetype [command]\n\nAvailable Commands:\n  " in text
    names = [line.split()[0] for line in text.split("Available Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()]
    assert names == sorted(names) and {"create", "list", "version"} <= set(names)
    assert text.endswith('Use "kubectl instancetype [command] --help" for more information about a command.\n')


def test_command_help_has_usage_aliases_examples_and_pflag_lines() -> None:
    text = run_cli(["ls", "--help"]).stdout
    assert (
        "Usage:\n  kubectl instancetype list [KIND] [NAME...] [flags]\n\nAliases:\n  list, ls\n\nExamples:\n  kubectl"
        in text
    )
    flags = text.split("Flags:\n", 1)[1]
    assert "  -n, --namespace string " in flags
    assert "      --chunk-size int " in flags and "(default 500)" in flags
    assert '      --hugepages string[="*"] ' in flags
    assert "  -h, --help " in flags and "help for list" in flags
    import re

    flag_part = re.compile(r"^\s+(?:-\w, )?--[\w-]+(?: \S+)?\s+")
    columns = {flag_part.match(line).end() for line in flags.splitlines() if flag_part.match(line)}
    assert len(columns) == 1  # one usage column, as pflag aligns it


def test_group_without_subcommand_prints_its_help() -> None:
    result = run_cli(["create"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert "Available Commands:\n  instancetype" in result.stdout


@pytest.mark.differential
@pytest.mark.parametrize("command", ["vm", "instancetype", "preference"])
def test_create_flags_read_as_virtctls(binaries, workdir, command) -> None:  # noqa: F811
    code, stdout, _ = run_virtctl(binaries, workdir, command, ["--help"])
    assert code == 0
    virtctl = virtctl_flag_help(stdout)
    ours = virtctl_flag_help(run_cli(["create", command, "--help"]).stdout)
    assert {name: ours[name] for name in virtctl} == virtctl
