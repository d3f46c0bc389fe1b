"""golang/cobra.py: cobra v1.10.2's ld and SuggestionsFor rule on cobra's own test vectors (cobra_test.go
TestLevenshteinDistance, command_test.go TestSuggestions), and the plugin's one did-you-mean policy on top."""

from __future__ import annotations

import pytest

from kubectl_instancetype.golang.cobra import did_you_mean, ld, suggestions_for


@pytest.mark.parametrize(
    ("s", "t", "ignore_case", "expected"),
    [
        ("hello", "hello", False, 0),
        ("Hello", "hello", True, 0),
        ("kitten", "sitting", False, 3),
        ("Kitten", "Sitting", True, 3),
        ("", "", False, 0),
        ("abc", "", False, 3),
        ("", "", True, 0),
        # beyond cobra's table: case counts unless ignored, and Go counts bytes (é is two)
        ("Hello", "hello", False, 1),
        ("u1.medium", "u1.mediun", False, 1),
        ("é", "e", False, 2),
    ],
)
def test_ld_is_cobras(s: str, t: str, ignore_case: bool, expected: int) -> None:
    assert ld(s, t, ignore_case) == expected == ld(t, s, ignore_case)


# command_test.go TestSuggestions: typo -> the suggestion for the one command "times" ("" for none); its
# "counts" -> "times" comes from the command's SuggestFor list, which the plugin's commands do not use
@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [
        ("time", "times"),
        ("tiems", "times"),
        ("tims", "times"),
        ("timeS", "times"),
        ("rimes", "times"),
        ("ti", "times"),
        ("t", "times"),
        ("timely", "times"),
        ("ri", ""),
        ("timezone", ""),
        ("foo", ""),
    ],
)
def test_suggestions_for_is_cobras_rule(typo: str, suggestion: str) -> None:
    assert suggestions_for(typo, ["times"]) == ([suggestion] if suggestion else [])
    assert did_you_mean(typo, ["times"]) == ([suggestion] if suggestion else [])


def test_did_you_mean_offers_the_nearest_of_cobras_candidates() -> None:
    names = ["cx1.medium", "fedora", "n1.medium", "o1.medium", "u1.2xmedium", "u1.large", "u1.medium", "u1.small"]
    assert did_you_mean("u1.mediun", names) == ["u1.medium"]  # n1.medium and o1.medium are 2 away: not offered
    assert did_you_mean("x1.medium", names) == ["cx1.medium", "n1.medium", "o1.medium"]  # four ties: three, in order
    assert did_you_mean("fedra", names) == ["fedora"]
    assert did_you_mean("FEDORA", names) == ["fedora"]  # case-insensitive, as cobra
    assert did_you_mean("windows.2k22", names) == []  # more than 2 edits and no prefix
    assert did_you_mean("u1.large", ["u1.large"]) == []  # the name itself is no suggestion
    assert did_you_mean("", names) == []  # nothing typed, nothing to correct
    assert did_you_mean("desc", ["derive", "describe"]) == ["describe"]  # a prefix, derive is 3 edits away
    assert did_you_mean("u1.nan", ["u1.nano", "u1.nano", "u1.nanos"]) == ["u1.nano"]  # repeats offered once
