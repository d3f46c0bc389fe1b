"""``--help`` in cobra's layout (the create commands' flags against virtctl's: test_virtctl_differential.py)."""

from __future__ import annotations

from tests.conftest import run_cli


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
