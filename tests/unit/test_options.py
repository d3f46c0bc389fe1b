"""Typed options (cli/options.py): an options class's fields become one Typer signature (groups flattened), a run
fills one options object, validates groups then the command, and hands the Session over only to commands that
take the connection flags.

No ``from __future__ import annotations``: options classes need their annotations as objects, as Typer does.
"""

import dataclasses
import inspect
import io
import subprocess
import sys
from types import SimpleNamespace
from typing import Annotated

import pytest
import typer

from kubectl_instancetype.cli import options
from kubectl_instancetype.cli.usage import KINDS as USAGE_KINDS
from kubectl_instancetype.env import Environment
from kubectl_instancetype.errors import UsageError


@options.dataclass
class Inner:
    color: Annotated[str, typer.Option("--color")] = "red"

    def validate(self) -> None:
        calls.append("inner")
        if self.color == "bad":
            raise UsageError("bad color")


@options.dataclass
class Example:
    name: Annotated[str, typer.Argument()]
    inner: Inner = dataclasses.field(default_factory=Inner)
    count: Annotated[int, typer.Option("--count")] = 1
    derived: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        calls.append("own")
        self.derived = f"{self.name}-{self.inner.color}-{self.count}"


@options.dataclass
class Connected:
    loud: Annotated[bool, typer.Option("--loud")] = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)

    def warnings(self) -> list[str]:
        return ["Flag --loud has been deprecated"] if self.loud else []


calls: list[str] = []


def _env() -> Environment:
    return Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={"HOME": "/nonexistent"})


def test_fields_are_flattened_in_order_without_derived_values() -> None:
    assert [(name, default) for name, _, default in options.fields_of(Example)] == [
        ("name", inspect.Parameter.empty),
        ("color", "red"),
        ("count", 1),
    ]


def test_the_typer_signature_is_the_flags() -> None:
    command = options.command(Example, lambda env, opts: None)
    assert list(inspect.signature(command).parameters) == ["ctx", "name", "color", "count"]


def test_a_run_fills_validates_groups_first_and_calls_run() -> None:
    calls.clear()
    seen = []
    command = options.command(Example, lambda env, opts: seen.append(opts))
    command(SimpleNamespace(obj=_env()), name="vm", color="blue", count=3)
    assert calls == ["inner", "own"]
    assert seen[0].derived == "vm-blue-3"
    assert isinstance(seen[0].inner, Inner)


def test_a_group_failure_stops_before_the_command_runs() -> None:
    command = options.command(Example, lambda env, opts: pytest.fail("ran"))
    with pytest.raises(UsageError, match="bad color"):
        command(SimpleNamespace(obj=_env()), name="vm", color="bad", count=1)


def test_the_session_goes_to_commands_with_connection_flags_and_verbosity_to_the_environment() -> None:
    env = _env()
    seen = []
    command = options.command(Connected, lambda env, opts, session: seen.append(session))
    given = {name: default for name, _, default in options.fields_of(Connected)}
    command(
        SimpleNamespace(obj=env), **{**given, "loud": True, "namespace": "dev", "request_timeout": "2s", "verbosity": 7}
    )
    session = seen[0]
    assert (session.verbosity, env.verbosity) == (7, 7)
    assert (session.options.namespace, session.options.request_timeout) == ("dev", 2.0)
    assert env.stderr.getvalue() == "Flag --loud has been deprecated\n"


def test_connection_flags_are_checked_when_first_needed() -> None:
    session = options.ConnectionFlags(namespace="Not_A_Name").session(_env())
    with pytest.raises(UsageError, match='invalid namespace "Not_A_Name"'):
        session.client()


def test_options_classes_construct_like_dataclasses() -> None:
    example = Example(name="x")
    assert (example.count, example.inner.color, example.derived) == (1, "red", "")
    assert Example(name="x").inner is not example.inner  # a fresh group each time
    assert repr(Inner(color="blue")) == "Inner(color='blue')"
    with pytest.raises(TypeError, match="missing 'name'"):
        Example()
    with pytest.raises(TypeError, match="unexpected colour"):
        Inner(colour="x")


def test_string_annotations_are_evaluated_only_for_typer() -> None:
    # what `from __future__ import annotations` leaves (list and list_options: a list run evaluates none)
    class Stringly:
        inner = dataclasses.field(default_factory=Inner)
        count = 1
        derived = dataclasses.field(init=False, default="")

    Stringly.__annotations__ = {
        "inner": "Inner",
        "count": "Annotated[int | None, typer.Option('--count')]",
        "derived": "NotDefinedAtRunTime",  # a name imported only for type checkers
    }
    options.dataclass(Stringly)
    specs = {spec.name: spec for spec in Stringly.__option_fields__}  # type: ignore[attr-defined]
    ran: list = []
    options.invoke(_env(), Stringly, lambda env, opts: ran.append(opts), {"color": "blue", "count": 3})
    assert [(filled.inner.color, filled.count, filled.derived) for filled in ran] == [("blue", 3, "")]
    # the run above looked up the group by name and evaluated no flag's annotation
    assert specs["count"].type == "Annotated[int | None, typer.Option('--count')]"
    assert (specs["inner"].group(), specs["count"].group(), specs["derived"].group()) == (Inner, None, None)
    # building the Typer command evaluates them in the declaring module, as objects
    flat = {name: annotation for name, annotation, _ in options.fields_of(Stringly)}
    assert flat["count"].__origin__ == int | None
    assert [type(item) for item in flat["count"].__metadata__] == [type(typer.Option("--count"))]
    assert flat["color"] is Inner.__option_fields__[0].type  # type: ignore[attr-defined]


def test_a_list_run_imports_no_typing() -> None:
    # the list path's modules, as a `list` run imports them (cli/list.py's annotations are strings, the rest of
    # the path keeps typing for type checkers only): typing costs a list run 11M instructions (bench/README.md)
    code = (
        "import sys\n"
        "import kubectl_instancetype.cli.main, kubectl_instancetype.cli.fastpath, kubectl_instancetype.cli.list\n"
        "from kubectl_instancetype.cli.fastpath import parse\n"
        "parsed = parse(['list', '--scope=cluster', '--cpu', '4'])\n"
        "opts_class, run = parsed.command()\n"
        "import kubectl_instancetype.usecases.list_cluster_or_catalog, kubectl_instancetype.kube.client\n"
        "import kubectl_instancetype.output.listing, kubectl_instancetype.output.table, kubectl_instancetype.kube.tls\n"
        "import kubectl_instancetype.kube.liststream, kubectl_instancetype.kube.lister\n"
        "print(sorted(m for m in ('typing', 'contextlib', 'contextvars', 'typer') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.stdout == "[]\n", result.stderr


@dataclasses.dataclass
class PlainGroup:
    size: Annotated[int, typer.Option("--size")] = 2


@dataclasses.dataclass
class PlainOptions:
    group: PlainGroup = dataclasses.field(default_factory=PlainGroup)
    note: str = dataclasses.field(init=False, default="")


def test_plain_dataclasses_work_too() -> None:
    seen = []
    command = options.command(PlainOptions, lambda env, opts: seen.append(opts))
    assert list(inspect.signature(command).parameters) == ["ctx", "size"]
    command(SimpleNamespace(obj=_env()), size=5)
    assert seen[0].group.size == 5


@pytest.mark.parametrize(
    "text,kinds,expected",
    [
        ("vmcf/u1.small", options.TYPE_SPELLINGS, ("VirtualMachineClusterInstancetype", "u1.small")),
        ("VMPS/fedora", options.TYPE_SPELLINGS, ("VirtualMachinePreference", "fedora")),
        (
            "virtualmachineclusterpreferences.instancetype.kubevirt.io/fedora",
            options.TYPE_SPELLINGS,
            ("VirtualMachineClusterPreference", "fedora"),
        ),
        ("controllerrevision.apps/r-1", USAGE_KINDS, ("ControllerRevision", "r-1")),
        ("controllerrevisions/r-1", USAGE_KINDS, ("ControllerRevision", "r-1")),
    ],
)
def test_type_target_reads_kubectls_spellings(text, kinds, expected) -> None:
    assert options.type_target(text, "usage", kinds) == expected


@pytest.mark.parametrize(
    "text,message",
    [
        ("vmcf/", "resource name may not be empty (vmcf/NAME)"),
        ("vmcf.apps/x", 'lint takes TYPE/NAME with TYPE one of {known}, not "vmcf.apps/x"'),
        ("controllerrevision/r", 'lint takes TYPE/NAME with TYPE one of {known}, not "controllerrevision/r"'),
        ("vm/x", 'lint takes TYPE/NAME with TYPE one of {known}, not "vm/x"'),
    ],
)
def test_type_target_refuses_other_kinds_and_groups(text, message) -> None:
    known = ", ".join(spellings[0] for spellings in options.TYPE_SPELLINGS.values())
    with pytest.raises(UsageError) as raised:
        options.type_target(text, "lint")
    assert str(raised.value) == message.format(known=known)
