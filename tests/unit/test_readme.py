"""The README documents what the code does: every deliberate difference from virtctl, every command."""

from __future__ import annotations

from pathlib import Path

from kubectl_instancetype.cli.main import COMMANDS
from kubectl_instancetype.instancetype import createtypes, createvm

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def test_every_difference_from_virtctl_is_listed() -> None:
    for difference in createvm.DIFFERENCES_FROM_VIRTCTL + createtypes.DIFFERENCES_FROM_VIRTCTL:
        assert f"- {difference}" in README


def test_every_command_has_a_section() -> None:
    for command in COMMANDS:
        assert f"### `kubectl instancetype {command}" in README
    for subcommand in ("vm", "instancetype", "preference"):
        assert f"kubectl instancetype create {subcommand}" in README


def test_quickstart_is_two_commands() -> None:
    quickstart = README.split("## Quickstart", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in quickstart.strip().splitlines()] == ["make demo", "make test"]
