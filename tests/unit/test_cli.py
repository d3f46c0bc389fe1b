"""The CLI in-process without a cluster: usage errors, help, options, completion, the registry."""

from __future__ import annotations

import pytest

from kubectl_instancetype.cli import completion, main
from kubectl_instancetype.cli.options import expand_optional_values, parse_request_timeout
from kubectl_instancetype.errors import UsageError
from tests.conftest import run_cli


@pytest.mark.parametrize(
    "text,seconds",
    [("0", None), ("30", 30.0), ("1s", 1.0), ("2m", 120.0), ("1h30m", 5400.0), ("500ms", 0.5), ("1.5s", 1.5)],
)
def test_request_timeout(text: str, seconds: float | None) -> None:
    assert parse_request_timeout(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "1d", "-1s", "1 s"])
def test_bad_request_timeout(text: str) -> None:
    with pytest.raises(UsageError, match="^Invalid timeout value"):
        parse_request_timeout(text)


def test_optional_value_flags() -> None:
    assert expand_optional_values(["list", "--hugepages", "--cpu", "2"]) == ["list", "--hugepages=*", "--cpu", "2"]
    assert expand_optional_values(["--hugepages=1Gi"]) == ["--hugepages=1Gi"]
    assert expand_optional_values(["--", "--hugepages"]) == ["--", "--hugepages"]


def test_no_arguments_prints_help() -> None:
    result = run_cli([])
    assert "Usage: kubectl instancetype [OPTIONS] COMMAND [ARGS]..." in result.stdout + result.stderr
    for name in main.COMMANDS:
        assert name in result.stdout + result.stderr


@pytest.mark.parametrize("args", [["--help"], ["list", "--help"], ["version", "--help"], ["-h"], ["ls", "-h"]])
def test_help_everywhere(args: list[str]) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith("Usage: kubectl instancetype")


@pytest.mark.parametrize(
    "args,message",
    [
        (["bogus"], "error: No such command 'bogus'.\n"),
        (["list", "--bogus"], "error: unknown flag: --bogus\n"),
        (["list", "--cpu", "four"], "error: Invalid value for '--cpu': 'four' is not a valid int.\n"),
        (
            ["list", "-o", "table"],
            'error: unable to match a printer suitable for the output format "table", '
            "allowed formats are: json,name,wide,yaml\n",
        ),
        (["list", "--cpu"], "error: Option '--cpu' requires an argument.\n"),
    ],
)
def test_usage_errors_are_one_line_and_exit_1(args: list[str], message: str) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)


def test_version_client_needs_no_cluster() -> None:
    from kubectl_instancetype import __version__

    result = run_cli(["version", "--client"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"Client Version: v{__version__}\n", "")


def test_only_the_selected_command_is_registered() -> None:
    import typer.main

    app = main.build_app(["version"])
    assert set(typer.main.get_command(app).commands) == {"version"}
    assert set(typer.main.get_command(main.build_app(["--help"])).commands) == set(main.COMMANDS)


@pytest.mark.parametrize(
    "args,incomplete,expected",
    [
        ([], "", {"completion", "create", "list", "version"}),
        ([], "v", {"version"}),
        (["list"], "--min-", {"--min-cpu", "--min-memory"}),
        (["list"], "p", {"preferences"}),
        (["version"], "--cl", {"--client"}),
    ],
)
def test_completion_candidates(args: list[str], incomplete: str, expected: set[str]) -> None:
    found, directive = completion.candidates(args, incomplete)
    assert {value for value, _ in found} == expected
    assert directive == completion.NO_FILE_COMPLETION


def test_completion_protocol_output(capsys) -> None:
    import io

    from kubectl_instancetype.env import Environment

    out = io.StringIO()
    assert completion.complete(["list", "--min-c"], Environment(stdout=out)) == 0
    assert out.getvalue().splitlines() == ["--min-cpu\tAt least N vCPUs (evaluated on the spec).", ":4"]
    out = io.StringIO()
    assert completion.complete(["no-such-command", "x"], Environment(stdout=out)) == 0
    assert out.getvalue().endswith(":4\n")


def test_short_flags_with_equals() -> None:
    assert expand_optional_values(["-v=6", "-n=demo", "--x=1"]) == ["-v", "6", "-n", "demo", "--x=1"]


def test_hugepages_size_needs_equals() -> None:
    result = run_cli(["list", "--hugepages", "1Gi"])
    assert result.stderr == (
        'error: unknown kind "1Gi": use instancetypes or preferences '
        "(a page size goes with the flag: --hugepages=1Gi)\n"
    )
