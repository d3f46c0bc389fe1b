"""Options parse once, into typed values that travel (issue 30): a run parses each flag one time, and what it
parsed is what the use case and the printers read.

Each test spies on the parser and counts its calls over one whole CLI run, so that a second parse anywhere (in a
use case, per object) fails here.
"""

from __future__ import annotations

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
