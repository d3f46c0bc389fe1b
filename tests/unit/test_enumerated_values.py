"""Issue 29: a filter value no object carries is refused in pflag's words with the one did-you-mean
(golang.cobra.did_you_mean), not answered with an empty list; recommend --max 0 is refused."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

CLASSES = "compute.exclusive, dedicated.vcpu, general.purpose, memory.intensive, network, overcommitted, realtime"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["catalog", "list", "--class", "general-purpose"],
            'invalid argument "general-purpose" for "--class" flag: no instance type in scope has class '
            "general-purpose (did you mean general.purpose?)",
        ),
        (
            # a prefix of a value is a suggestion (cobra's rule, golang/cobra.did_you_mean)
            ["catalog", "list", "preferences", "--os-type", "win"],
            'invalid argument "win" for "--os-type" flag: no preference in scope has os-type win (did you mean '
            "windows?)",
        ),
        (
            ["catalog", "list", "preferences", "--os-type", "bsd"],
            'invalid argument "bsd" for "--os-type" flag: no preference in scope has os-type bsd; the values in '
            "scope are legacy, linux, windows",
        ),
        (
            ["catalog", "list", "preferences", "--arch", "amd46"],
            'invalid argument "amd46" for "--arch" flag: no preference in scope has arch amd46 (did you mean amd64?)',
        ),
        (
            ["catalog", "list", "--size", "smal"],
            'invalid argument "smal" for "--size" flag: no instance type in scope has size smal (did you mean small?)',
        ),
        (
            ["matrix", "--catalog", "--class", "gp"],
            f'invalid argument "gp" for "--class" flag: no instance type in scope has class gp; the values in scope '
            f"are {CLASSES}",
        ),
        (
            ["recommend", "--catalog", "--min-cpu", "2", "--class", "general-purpose"],
            'invalid argument "general-purpose" for "--class" flag: no instance type in scope has class '
            "general-purpose (did you mean general.purpose?)",
        ),
        (
            ["recommend", "--catalog", "--min-cpu", "2", "--max", "0"],
            'invalid argument "0" for "--max" flag: must be at least 1',
        ),
    ],
)
def test_values_no_object_carries_are_refused(args: list[str], message: str) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {message}\n")


def test_a_known_value_with_nothing_left_is_still_an_empty_answer() -> None:
    """The value exists; the other filters leave nothing: kubectl's "No resources found", exit 0."""
    result = run_cli(["catalog", "list", "--class", "general.purpose", "--cpu", "99"])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No resources found\n")
