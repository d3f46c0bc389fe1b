"""The fast path (cli/fastpath.py) and Typer agree on every hot command line: the fast path parses a line into
exactly the parameter values Typer parses, or leaves the line to Typer. Its table is what the app declares."""

import contextlib
import io
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kubectl_instancetype import __version__
from kubectl_instancetype.cli import fastpath, fastpath_spec, main
from kubectl_instancetype.cli.commands import GLOBAL_VALUE_FLAGS, normalise
from kubectl_instancetype.cli.fastpath_data import TABLE
from kubectl_instancetype.cli.options import ParsedValues, expand_bare_flags, expand_optional_values
from kubectl_instancetype.cli.registry import bare_flags, build, optional_value_flags
from kubectl_instancetype.env import Environment

_COMMANDS: dict[str, Any] = {}


def typer_parse(args: list[str]) -> ParsedValues | BaseException:
    """What Typer makes of ``args`` (normalised): the values its command received, or the exception it raised."""
    path = fastpath.command_path(args)
    if path not in _COMMANDS:
        from typer.main import get_command

        app, modules = build(args)
        _COMMANDS[path] = (get_command(app), optional_value_flags(modules), bare_flags(modules))
    command, optional, bare = _COMMANDS[path]
    capture = ParsedValues()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            command.main(
                args=expand_bare_flags(expand_optional_values(list(args), optional), bare),
                prog_name=main.PROG_NAME,
                standalone_mode=False,
                obj=capture,
            )
        except Exception as exc:
            return exc
    return capture


def assert_agree(argv: list[str]) -> bool:
    """The fast path defers on ``argv`` or parses it as Typer does; True when it took the line."""
    args = normalise(argv)
    parsed = fastpath.parse(args)
    if parsed is None:
        return False
    typer = typer_parse(args)
    assert isinstance(typer, ParsedValues), f"{argv}: the fast path took a line Typer refuses: {typer!r}"
    assert typer.values is not None, f"{argv}: the fast path took a line Typer does not run (help?)"
    assert parsed.values == typer.values, argv
    assert parsed.command() == (typer.options_class, typer.run), argv
    return True


def test_the_table_is_what_the_app_declares() -> None:
    assert fastpath_spec.DATA_FILE.read_text() == fastpath_spec.render_table(fastpath_spec.build_table()), (
        "cli/fastpath_data.py is stale: run `make generate`"
    )


COMMON = [
    ["list"],
    ["ls", "--cpu", "4", "--scope=cluster"],
    ["list", "preferences", "--os-type", "windows", "-o", "yaml"],
    ["list", "--min-memory", "16Gi", "--max-memory", "64Gi", "-o", "wide", "-A"],
    ["list", "-A", "--hugepages=1Gi", "--hugepages"],
    ["list", "vmcf", "u1.medium", "u1.large", "-L", "a,b", "-L", "c", "--sort-by", ".spec.cpu.guest"],
    ["list", "--cluster", "--cpu", "0x10", "--chunk-size=7"],
    ["list", "--cluster", "prod", "-n", "demo", "--", "-x"],
    ["-n", "demo", "--context", "c", "list", "-v=6", "--allow-missing-template-keys"],
    ["get", "vmcf/u1.medium", "-o", "jsonpath={.spec}"],
    ["describe", "vmcp/fedora", "u1.large", "-ndemo", "--as-group", "a", "--as-group", "b"],
    ["create", "vm", "--name", "x", "--instancetype", "u1.medium", "--dry-run=client", "-o", "yaml", "--skip-checks"],
    [
        "create",
        "vm",
        "--volume-containerdisk",
        "src:a",
        "--volume-containerdisk",
        "src:b",
        "--dry-run",
        "--infer-preference",
    ],
    ["version", "--client"],
    ["version", "-o", "json", "--request-timeout", "3s"],
]


@pytest.mark.parametrize("argv", COMMON, ids=" ".join)
def test_the_fast_path_takes_the_usual_lines_and_parses_them_as_typer(argv: list[str]) -> None:
    assert assert_agree(argv)


DEFERRED = [
    ["list", "--help"],
    ["list", "-h", "--cpu", "4"],
    ["list", "--bogus"],
    ["list", "--cpu"],
    ["list", "--cpu", "x"],
    ["list", "--memory", " "],
    ["list", "-Aw"],
    ["list", "--watch=true"],
    ["describe"],
    ["create", "vm", "--help"],
    ["create", "vm", "extra"],
    ["create"],
    ["version", "--client=true"],
    ["catalog", "list"],
    ["--help"],
]


@pytest.mark.parametrize("argv", DEFERRED, ids=" ".join)
def test_what_the_fast_path_does_not_fully_understand_goes_to_typer(argv: list[str]) -> None:
    assert fastpath.parse(normalise(argv)) is None


def test_the_completion_variable_sends_every_line_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(main.COMPLETE_VAR, "bash_complete")
    assert fastpath.parse(["list"], main.COMPLETE_VAR) is None


def _words(entry: dict[str, Any]) -> st.SearchStrategy[list[str]]:
    """Command lines from the table's own flags, spelled every way Click knows (``--flag value``,
    ``--flag=value``, ``-fvalue``), with plausible values, plus garbage words and values."""
    plain = st.sampled_from(["4", "0x10", "16Gi", "vmcf", "vmcf/u1.medium", "u1.medium", "yaml", "true", "a=b", "-1"])
    garbage = st.one_of(
        st.sampled_from(["", " ", "1_0", "١", "--", "-", "-h", "--help", "--bogus", "-Z", "=x", "*", "é\t", "-Aw"]),
        st.text(max_size=4),
    )
    options = st.sampled_from([param for param in entry["params"] if param["kind"] == "option"])

    def spell(param: dict[str, Any], value: str, form: int) -> list[str]:
        name = param["opts"][form % len(param["opts"])]
        if param["flag"]:
            return [name]
        if form == 2:
            return [f"{name}={value}" if name.startswith("--") else f"{name}{value}"]
        return [name, value]

    flag = st.builds(spell, options, st.one_of(plain, plain, garbage), st.integers(0, 2))
    extras = st.sampled_from(sorted(entry["optional_values"]) + sorted(entry["bare"]) + ["-v=6", "-n=x"])
    word = st.one_of(flag, flag, flag, plain.map(lambda w: [w]), extras.map(lambda w: [w]), garbage.map(lambda w: [w]))
    return st.lists(word, max_size=6).map(lambda parts: [w for part in parts for w in part])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_fast_path_and_typer_agree_on_generated_lines(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(sorted(TABLE)))
    before = data.draw(st.lists(st.sampled_from([*GLOBAL_VALUE_FLAGS, "x", "-ndemo", "--help"]), max_size=2))
    taken = assert_agree([*before, *path.split(), *data.draw(_words(TABLE[path]))])
    event(f"{path}: {'fast path' if taken else 'left to Typer'}")


@pytest.mark.parametrize(
    ("argv", "printed"),
    [
        (
            ["create", "vm", "--name", "x", "--dry-run=client", "-o", "name", "--skip-checks"],
            "virtualmachine.kubevirt.io/x",
        ),
        (["version", "--client"], f"Client Version: v{__version__}"),
    ],
    ids=" ".join,
)
def test_a_fast_run_never_imports_typer(tmp_path, argv: list[str], printed: str) -> None:
    code = (
        "import io, sys; from kubectl_instancetype.cli.main import run;"
        "from kubectl_instancetype.env import Environment;"
        "out = io.StringIO();"
        f"code = run({argv!r},"
        " Environment(stdout=out, stderr=io.StringIO(), environ={'HOME': sys.argv[1]}));"
        "print(code, repr(out.getvalue().strip()), 'typer' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert result.stdout.split(" ", 1) == ["0", f"{printed!r} False\n"], result.stderr


def test_a_deferred_line_is_answered_by_typer_as_before() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main.run(["list", "--cpu", "x"], Environment(stdout=out, stderr=err, environ={})) == 1
    assert (
        err.getvalue()
        == 'error: invalid argument "x" for "--cpu" flag: strconv.ParseInt: parsing "x": invalid syntax\n'
    )
    err = io.StringIO()
    assert main.run(["describe", "--bogus"], Environment(stdout=out, stderr=err, environ={})) == 1
    assert err.getvalue().startswith("error: unknown flag: --bogus")
