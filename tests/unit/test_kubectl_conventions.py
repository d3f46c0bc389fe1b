"""kubectl's names for the four kinds wherever a kind is taken (create vm, switch, label share one parser)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.cli.list_options import parse_words
from kubectl_instancetype.instancetype.kinds import matcher_kind


@pytest.mark.parametrize(
    ("prefix", "matcher", "expected"),
    [
        ("vmcf", "instancetype", "virtualmachineclusterinstancetype"),
        ("vmf", "instancetype", "virtualmachineinstancetype"),
        ("VMCP", "preference", "virtualmachineclusterpreference"),
        ("vmp", "preference", "virtualmachinepreference"),
        (
            "virtualmachineclusterinstancetypes.instancetype.kubevirt.io",
            "instancetype",
            "virtualmachineclusterinstancetype",
        ),
        ("vmcp", "instancetype", None),
        ("", "instancetype", "virtualmachineclusterinstancetype"),  # KubeVirt's default: the cluster-scoped kind
    ],
)
def test_kind_spellings(prefix: str, matcher: str, expected: str | None) -> None:
    kind = matcher_kind(prefix, matcher, short_names=True)
    assert (kind.singular if kind is not None else None) == expected


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], ("instancetypes", None, ())),
        (["preferences"], ("preferences", None, ())),
        (["vmcf", "u1.small", "u1.large"], ("instancetypes", "cluster", ("u1.small", "u1.large"))),
        (["vmp/windows"], ("preferences", "namespaced", ("windows",))),
        (["virtualmachineclusterpreference/fedora"], ("preferences", "cluster", ("fedora",))),
        (["u1.small"], ("instancetypes", None, ("u1.small",))),
    ],
)
def test_list_words(words: list[str], expected: tuple) -> None:
    assert parse_words(words, None) == expected


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["vmcf/a", "vmcp/b"], "list and get take objects of one kind at a time"),
        (["vms"], 'unknown kind "vms"'),
        (["vmcf", "vmcf/a"], "there is no need to specify a resource type as a separate argument"),
        (["foo/bar"], 'unknown kind "foo"'),
    ],
)
def test_list_words_errors(words: list[str], message: str) -> None:
    from kubectl_instancetype.errors import UsageError

    with pytest.raises(UsageError, match=message):
        parse_words(words, None)


def test_memory_without_a_unit_warns_that_it_is_bytes() -> None:
    from tests.conftest import run_cli

    result = run_cli(["catalog", "list", "--min-memory", "16", "--max-cpu", "1", "-o", "name"])
    assert result.exit_code == 0
    assert result.stderr == (
        "Warning: --min-memory 16 is 16 bytes (a quantity without a unit); instance types have GiB of memory: "
        "did you mean --min-memory 16Gi?\n"
    )
    assert run_cli(["catalog", "list", "--min-memory", "16Gi", "-o", "name"]).stderr == ""
    # recommend's minimum alike (it judges the same instance types)
    ranked = run_cli(["recommend", "--catalog", "--min-memory", "16", "--max", "1", "-o", "name"])
    assert (ranked.exit_code, ranked.stderr) == (
        0,
        "Warning: --min-memory 16 is 16 bytes (a quantity without a unit); instance types have GiB of memory: "
        "did you mean --min-memory 16Gi?\n",
    )
    assert run_cli(["recommend", "--catalog", "--min-memory", "16Gi", "--max", "1", "-o", "name"]).stderr == ""


def test_a_second_kind_word_is_named_as_a_kind() -> None:
    """``kubectl get vmcp vmp`` reads vmp as a name: so does list, and the error says what vmp is."""
    from tests.conftest import run_cli

    result = run_cli(["catalog", "list", "vmcp", "vmp"])
    assert (result.exit_code, result.stderr) == (
        1,
        'error: no preference named "vmp" cluster-wide (virtualmachineclusterpreferences); "vmp" is a kind: list one '
        "kind at a time (list vmp)\n",
    )


def test_version_prints_yaml_or_json_as_kubectl_version() -> None:
    import json

    from kubectl_instancetype import __version__
    from tests.conftest import run_cli

    result = run_cli(["version", "--client", "-o", "json"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert json.loads(result.stdout) == {"clientVersion": {"gitVersion": f"v{__version__}"}}
    assert run_cli(["version", "--client", "-o", "yaml"]).stdout == f"clientVersion:\n  gitVersion: v{__version__}\n"
    wide = run_cli(["version", "--client", "-o", "wide"])
    assert (wide.exit_code, wide.stderr) == (1, "error: --output must be 'yaml' or 'json'\n")
