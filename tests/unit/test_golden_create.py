"""Golden tests: ``create vm|instancetype|preference`` manifests compared byte for byte with virtctl's output.

Each case is a directory ``tests/golden/createvm/<case>/`` or ``tests/golden/createtypes/<case>/`` with

* ``args``: one shell-quoted line of command-line flags; under ``createtypes`` the first word is the
  subcommand (``instancetype`` or ``preference``);
* ``expected.yaml``: what ``virtctl create ...`` (KubeVirt v1.8.0, built by ``hack/virtctl/build.sh``) printed
  for those flags, with generated random name suffixes replaced by :func:`fixed_suffixes`' sequence in the
  order virtctl draws them (VM or object name first, then imported volumes in volume order).

The small argv parser below follows pflag (``--flag value``, ``--flag=value``, bare booleans, repeatable
flags, ``-n``/``--namespace``) and is shared with ``test_virtctl_differential.py``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.golang import goyaml
from kubectl_instancetype.instancetype.createtypes import (
    INSTANCETYPE_FLAGS_BY_NAME,
    PREFERENCE_FLAGS_BY_NAME,
    InstancetypeOptions,
    PreferenceOptions,
    build_instancetype,
    build_preference,
)
from kubectl_instancetype.instancetype.createvm import VM_FLAGS_BY_NAME, VMOptions, build_vm
from kubectl_instancetype.instancetype.params import FlagSpec, accumulate

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
FIXED_SUFFIX_LETTERS = "bcdfghjklmnpqrstvwxz"


def fixed_suffixes() -> Callable[[int], str]:
    """A ``random_suffix`` replacement returning ``bbbbb``, ``ccccc``, ... on successive calls."""
    letters: Iterator[str] = iter(FIXED_SUFFIX_LETTERS)
    return lambda length: next(letters) * length


def parse_argv(specs: Mapping[str, FlagSpec], argv: list[str]) -> tuple[dict[str, object], str | None]:
    """pflag-style parsing of ``argv`` into ({flag name: value} for the flags given, ``-n`` value or None)."""
    occurrences: dict[str, list[str]] = {}
    namespace = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if arg in ("-n", "--namespace") or arg.startswith(("-n=", "--namespace=")):
            if "=" in arg:
                namespace = arg.split("=", 1)[1]
            else:
                if index >= len(argv):
                    raise UsageError(f"flag needs an argument: {arg!r} in {arg}")
                namespace = argv[index]
                index += 1
            continue
        if arg.startswith("-n") and not arg.startswith("--"):
            namespace = arg[2:]
            continue
        if not arg.startswith("--"):
            raise UsageError(f'unknown command "{arg}"')
        name, equals, value = arg[2:].partition("=")
        spec = specs.get(name)
        if spec is None:
            raise UsageError(f"unknown flag: --{name}")
        if not equals:
            if not spec.takes_value:
                value = "true"
            elif index < len(argv):
                value = argv[index]
                index += 1
            else:
                raise UsageError(f"flag needs an argument: --{name}")
        occurrences.setdefault(name, []).append(value)
    values = {name: accumulate(specs[name], raws) for name, raws in occurrences.items()}
    return values, namespace


def usage_error(call: Callable[[], object]) -> str:
    """The message of the :class:`UsageError` that ``call()`` raises (the test fails when it raises none)."""
    with pytest.raises(UsageError) as caught:
        call()
    return caught.value.message


def render(
    command: str,
    argv: list[str],
    *,
    read_file: Callable[[str], str] | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[str, list[str]]:
    """Our YAML and warnings for ``virtctl create <command> <argv>``, with :func:`fixed_suffixes` names.

    ``warn`` receives the warnings as they happen, also those of a command that then fails.
    """
    suffixes = fixed_suffixes()
    if command == "vm":
        values, namespace = parse_argv(VM_FLAGS_BY_NAME, argv)
        manifest, warnings = build_vm(
            VMOptions.from_flags(values, namespace=namespace), random_suffix=suffixes, read_file=read_file, warn=warn
        )
        return goyaml.dump(manifest), warnings
    if command == "instancetype":
        values, namespace = parse_argv(INSTANCETYPE_FLAGS_BY_NAME, argv)
        options = InstancetypeOptions.from_flags(values, namespace=namespace)
        return goyaml.dump(build_instancetype(options, random_suffix=suffixes)), []
    if command == "preference":
        values, namespace = parse_argv(PREFERENCE_FLAGS_BY_NAME, argv)
        options = PreferenceOptions.from_flags(values, namespace=namespace)
        return goyaml.dump(build_preference(options, random_suffix=suffixes)), []
    raise ValueError(f"unknown create command {command!r}")


def _golden_cases() -> list[tuple[str, str, list[str], Path]]:
    cases = []
    for group in ("createvm", "createtypes"):
        for case_dir in sorted((GOLDEN / group).iterdir()):
            words = shlex.split((case_dir / "args").read_text())
            command, argv = ("vm", words) if group == "createvm" else (words[0], words[1:])
            cases.append((f"{group}/{case_dir.name}", command, argv, case_dir / "expected.yaml"))
    return cases


GOLDEN_CASES = _golden_cases()


def test_golden_case_counts():
    groups = [case_id.split("/")[0] for case_id, *_ in GOLDEN_CASES]
    assert groups.count("createvm") >= 15
    assert groups.count("createtypes") >= 6


@pytest.mark.parametrize(("case_id", "command", "argv", "expected"), GOLDEN_CASES, ids=[c[0] for c in GOLDEN_CASES])
def test_golden(case_id, command, argv, expected):
    files = {"/golden/password": "s3cr3t-pass\n"}

    def read_file(path: str) -> str:
        if path not in files:
            raise FileNotFoundError(2, "No such file or directory", path)
        return files[path]

    text, _ = render(command, argv, read_file=read_file)
    assert text == expected.read_text()


@pytest.mark.parametrize(
    ("argv", "values", "namespace"),
    [
        (["--name", "a", "--memory=1Gi"], {"name": "a", "memory": "1Gi"}, None),
        (["--infer-instancetype"], {"infer-instancetype": True}, None),
        (["--infer-instancetype=false"], {"infer-instancetype": False}, None),
        (["--volume-pvc", "src:a", "--volume-pvc=src:b"], {"volume-pvc": ("src:a", "src:b")}, None),
        (["--ssh-key", "k1,k2", "--ssh-key", "k3"], {"ssh-key": ("k1", "k2", "k3")}, None),
        (["--termination-grace-period", "0x10"], {"termination-grace-period": 16}, None),
        (["-n", "ns", "--name", "x"], {"name": "x"}, "ns"),
        (["-nns"], {}, "ns"),
        (["--namespace=ns"], {}, "ns"),
    ],
)
def test_parse_argv(argv, values, namespace):
    assert parse_argv(VM_FLAGS_BY_NAME, argv) == (values, namespace)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--nope"], "unknown flag: --nope"),
        (["--name"], "flag needs an argument: --name"),
        (
            ["--termination-grace-period", "abc"],
            'invalid argument "abc" for "--termination-grace-period" flag: strconv.ParseInt: parsing "abc": invalid syntax',
        ),
        (
            ["--infer-preference=maybe"],
            'invalid argument "maybe" for "--infer-preference" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
        ),
    ],
)
def test_parse_argv_errors(argv, message):
    assert usage_error(lambda: parse_argv(VM_FLAGS_BY_NAME, argv)) == message
