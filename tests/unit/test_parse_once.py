"""Options parse once, into typed values that travel (issue 30): a run parses each flag one time, and what it
parsed is what the use case and the printers read.

Each test spies on the parser and counts its calls over one whole CLI run, so that a second parse anywhere (in a
use case, per object) fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kubectl_instancetype.golang import jsonpath
from kubectl_instancetype.instancetype import params
from kubectl_instancetype.instancetype.createvm import VMOptions
from tests.conftest import run_cli


def test_sort_by_is_parsed_once_per_run_not_once_per_object(mocker) -> None:
    parse = mocker.spy(jsonpath, "parse")
    result = run_cli(["catalog", "list", "--sort-by", ".spec.cpu.guest", "--no-headers"])
    assert result.exit_code == 0, result.stderr
    rows = result.stdout.splitlines()
    assert len(rows) > 20  # the catalog's instance types, each sorted by its own value of the path
    assert parse.call_count == 1
    assert parse.call_args.args == ("{.spec.cpu.guest}",)


def test_a_sort_by_that_does_not_parse_is_a_usage_error_before_anything_is_read(mocker) -> None:
    parse = mocker.spy(jsonpath, "parse")
    result = run_cli(["catalog", "list", "--sort-by", ".spec[", "--no-headers"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("error: ")
    assert parse.call_count == 1


def test_create_vm_flags_are_parsed_once_into_the_options_that_travel(mocker) -> None:
    accumulate = mocker.spy(params, "accumulate")
    from_parsed = mocker.spy(VMOptions, "from_parsed")
    from_flags = mocker.spy(VMOptions, "from_flags")
    result = run_cli(
        [
            "create",
            "vm",
            "--name",
            "vm1",
            "--instancetype",
            "virtualmachineinstancetype/u1.medium",
            "--volume-pvc",
            "src:a",
            "--volume-pvc",
            "src:b",
            "-n",
            "dev",
            "--dry-run=client",
            "--skip-checks",
            "-o",
            "yaml",
        ]
    )
    assert result.exit_code == 0, result.stderr
    # one conversion per flag given (its occurrences together), one options object, no key converted back
    assert sorted(call.args[0].name for call in accumulate.call_args_list) == ["instancetype", "name", "volume-pvc"]
    assert from_parsed.call_count == 1
    assert from_flags.call_count == 0
    # -n reached the manifest through the Session (virtctl writes metadata.namespace only when -n was given)
    assert "  namespace: dev\n" in result.stdout
    assert "    kind: virtualmachineinstancetype\n" in result.stdout


def test_create_vm_reads_each_matcher_kind_once_through_the_one_reader(mocker) -> None:
    """The flag's KIND/ is read by instancetype.kinds.matcher_kind, once per flag; kinds.spelled (kubectl's
    spellings) only through it: a second normaliser of the kind (its own spelled() call, its own table) fails
    here, a second call of the reader too."""
    from kubectl_instancetype.instancetype import kinds

    matcher_kind = mocker.spy(kinds, "matcher_kind")
    spelled = mocker.spy(kinds, "spelled")
    result = run_cli(
        [
            "create",
            "vm",
            "--name",
            "vm1",
            "--instancetype",
            "vmf/u1.medium",
            "--preference",
            "VirtualMachineClusterPreferences/fedora",
            "--dry-run=client",
            "--skip-checks",
            "-o",
            "yaml",
        ]
    )
    assert result.exit_code == 0, result.stderr
    assert [(call.args, call.kwargs) for call in matcher_kind.call_args_list] == [
        (("vmf", "instancetype"), {"short_names": True}),
        (("VirtualMachineClusterPreferences", "preference"), {"short_names": True}),
    ]
    assert [call.args for call in spelled.call_args_list] == [("vmf",), ("VirtualMachineClusterPreferences",)]
    assert "    kind: virtualmachineinstancetype\n    name: u1.medium\n" in result.stdout
    assert "    kind: virtualmachineclusterpreference\n    name: fedora\n" in result.stdout


def test_create_vm_checks_the_namespace_once_and_takes_it_from_the_session(mocker, tmp_path) -> None:
    """-n is checked once, with the flags (ConnectionFlags.connection_options); the pre-flight (which runs here
    against a server nobody listens on, and gives up) and the manifest take it from the Session."""
    from kubectl_instancetype.kube import names
    from tests.conftest import write_kubeconfig

    checked = mocker.spy(names, "invalid_namespace")
    kubeconfig = write_kubeconfig(tmp_path, namespace="from-context")
    result = run_cli(
        [
            "create",
            "vm",
            "--name",
            "vm1",
            "--instancetype",
            "vmf/u1.medium",
            "-n",
            "dev",
            "--dry-run=client",
            "-o",
            "yaml",
        ],
        environ={"HOME": "/nonexistent", "KUBECONFIG": str(kubeconfig)},
    )
    assert result.exit_code == 0, result.stderr
    assert [call.args for call in checked.call_args_list] == [("dev",)]
    assert "  namespace: dev\n" in result.stdout


@pytest.mark.parametrize(
    ("flag", "context", "expected"),
    [("dev", "from-context", "dev"), (None, "from-context", "from-context"), (None, None, "default")],
)
def test_the_session_is_the_namespace_kubectls_rule(tmp_path, flag, context, expected) -> None:
    """-n, else the kubeconfig context's namespace, else "default" (kubectl's ConfigFlags), resolved once."""
    from kubectl_instancetype.cli.options import ConnectionFlags
    from kubectl_instancetype.kube.session import Session
    from tests.conftest import write_kubeconfig

    kubeconfig = write_kubeconfig(tmp_path, namespace=context)
    flags = ConnectionFlags(kubeconfig=str(kubeconfig), namespace=flag)
    session = Session(flags.connection_options, {}, "/nonexistent")
    assert (session.namespace, session.namespace_flag) == (expected, flag)
    assert session.with_request_timeout(1.0).namespace == expected


# what may hold a namespace besides the Session: the flags (ConnectionFlags.namespace, -n as typed) and the
# resolved kubeconfig (ClusterConfig.namespace) are the Session's inputs, read in kube/ alone
_NOT_A_NAMESPACE_SOURCE = ("connection", "client", "client()", "config", "options")


def namespace_source_violations(source: str, filename: str = "<module>") -> list[str]:
    """Where ``source`` reads a namespace from somewhere other than the Session: ``X.namespace`` with X the
    connection flags, a client, the kubeconfig's config or the connection options."""
    problems = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Attribute) and node.attr == "namespace":
            owner = ast.get_source_segment(source, node.value) or ""
            if owner.split(".")[-1] in _NOT_A_NAMESPACE_SOURCE:
                problems.append(
                    f"{filename}:{node.lineno}: `{owner}.namespace`: the namespace comes from the Session alone "
                    "(session.namespace: -n, else the context's, else default; session.namespace_flag: -n as given)"
                )
    return sorted(problems, key=lambda problem: int(problem.split(":")[1]))


def test_only_the_session_gives_the_namespace() -> None:
    package = Path(params.__file__).resolve().parents[1]
    problems = []
    for folder in ("cli", "usecases"):
        for path in sorted((package / folder).rglob("*.py")):
            problems += namespace_source_violations(path.read_text(), str(path.relative_to(package.parent)))
    assert problems == [], "\n".join(problems)


def test_the_namespace_check_finds_a_planted_second_source() -> None:
    planted = (
        "def run(env, opts, session):\n"
        "    built = parse(opts.extra, opts.connection.namespace)\n"
        "    where = session.client().namespace\n"
        "    return session.namespace\n"
    )
    assert [line.split(": the")[0] for line in namespace_source_violations(planted, "planted.py")] == [
        "planted.py:2: `opts.connection.namespace`",
        "planted.py:3: `session.client().namespace`",
    ]
