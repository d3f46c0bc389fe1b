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
    assert (result.exit_code, result.stderr) == (0, "")
    assert "Usage:\n  kubectl instancetype [command]" in result.stdout
    for name in main.COMMANDS:
        assert name in result.stdout + result.stderr


@pytest.mark.parametrize("args", [["--help"], ["list", "--help"], ["version", "--help"], ["-h"], ["ls", "-h"]])
def test_help_everywhere(args: list[str]) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stderr) == (0, "")
    assert "Usage:\n  kubectl instancetype" in result.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["bogus"], 'error: unknown command "bogus" for "kubectl instancetype"\n'),
        (["create", "bogus"], 'error: unknown command "bogus" for "kubectl instancetype create"\n'),
        (
            ["create", "vm", "extra", "--dry-run=client"],
            'error: unknown command "extra" for "kubectl instancetype create vm"\n',
        ),
        (["version", "--client", "a", "b"], 'error: unknown command "a" for "kubectl instancetype version"\n'),
        (["list", "-x"], "error: unknown shorthand flag: 'x' in -x\n"),
        (["list", "-n"], "error: flag needs an argument: 'n' in -n\n"),
        (["list", "--bogus=1"], "error: unknown flag: --bogus\n"),
        (["list", "--chunk-size", "-1"], "error: --chunk-size must not be negative (got -1); 0 disables paging\n"),
        (["list", "--min-memory", ""], 'error: invalid argument "" for "--min-memory" flag: must not be empty\n'),
        (["list", "--class", " "], 'error: invalid argument " " for "--class" flag: must not be empty\n'),
        (["list", "-n", ""], 'error: invalid argument "" for "-n, --namespace" flag: must not be empty\n'),
        (["list", "--context="], 'error: invalid argument "" for "--context" flag: must not be empty\n'),
        (
            ["list", "--min-cpu", "\uff14"],
            'error: invalid argument "\uff14" for "--min-cpu" flag: strconv.ParseInt: parsing "\uff14": invalid syntax\n',
        ),
        (
            ["list", "--chunk-size", "99999999999999999999"],
            'error: invalid argument "99999999999999999999" for "--chunk-size" flag: '
            'strconv.ParseInt: parsing "99999999999999999999": value out of range\n',
        ),
        (["list", "--bogus"], "error: unknown flag: --bogus\n"),
        (
            ["list", "--cpu", "four"],
            'error: invalid argument "four" for "--cpu" flag: strconv.ParseInt: parsing "four": invalid syntax\n',
        ),
        (
            ["list", "-o", "table"],
            'error: unable to match a printer suitable for the output format "table", '
            "allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,"
            "jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,wide,yaml\n",
        ),
        (["list", "--cpu"], "error: flag needs an argument: --cpu\n"),
    ],
)
def test_usage_errors_are_one_line_and_exit_1(args: list[str], message: str) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)


def test_pflag_integers_accept_go_prefixes() -> None:
    from kubectl_instancetype.cli.options import GO_INT

    assert GO_INT.convert("0x10", "--cpu") == 16
    assert GO_INT.convert("1_000", "--cpu") == 1000


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
        ([], "", set(main.COMMANDS)),
        ([], "v", {"version"}),
        (["list"], "--min-", {"--min-cpu", "--min-memory"}),
        (["list"], "p", {"preferences"}),
        (["version"], "--cl", {"--client", "--cluster"}),
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


def test_closed_stdout_is_one_error_line() -> None:
    import io

    from kubectl_instancetype.cli.main import run
    from kubectl_instancetype.env import ClosedStream, Environment

    err = io.StringIO()
    code = run(["version", "--client"], Environment(stdout=ClosedStream("stdout"), stderr=err, environ={}))
    assert (code, err.getvalue()) == (1, "error: write /dev/stdout: bad file descriptor\n")


@pytest.mark.posix("bash closing stdout (>&-) of the console script")
def test_closed_stdout_through_the_console_script() -> None:
    """``kubectl-instancetype version --client >&-``: the real process, started without a stdout."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "kubectl-instancetype"
    result = subprocess.run(
        ["bash", "-c", f"'{script}' version --client >&-"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (result.returncode, result.stderr) == (1, "error: write /dev/stdout: bad file descriptor\n")


def test_only_the_run_subcommand_is_imported() -> None:
    """``create instancetype`` registers (and imports) neither the VM builder nor the other commands."""
    import subprocess
    import sys

    code = (
        "import sys; from kubectl_instancetype.cli.registry import build, optional_value_flags;"
        "app, leaves = build(['create', 'instancetype', '--cpu', '1']); optional_value_flags(leaves);"
        "print(sorted(m for m in sys.modules if m.startswith('kubectl_instancetype.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "kubectl_instancetype.instancetype.createvm" not in out
    assert "kubectl_instancetype.cli.create_vm" not in out
    assert "kubectl_instancetype.cli.list" not in out
    assert "kubectl_instancetype.cli.create_types" in out
