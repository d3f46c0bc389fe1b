"""The README's examples are true: each ``$ kubectl instancetype ...`` line runs through the real kubectl on the
local control plane (the catalog loaded and eight simulated nodes, as ``make cluster NODES=8`` has it) and prints the lines the README shows.

Compared line by line with runs of spaces collapsed and the AGE value dropped (tables widen when the shared
control plane holds other tests' objects; ages differ); a shortened output in the README is a prefix of the real
one, and other tests' objects may add rows, so each line shown must appear, in the order shown.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def examples() -> list[tuple[str, list[str]]]:
    """(command line, the lines the README shows after it) for each ``$ `` line of its console blocks."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", README, flags=re.S):
        lines = block.splitlines()
        index = 0
        while index < len(lines):
            command = lines[index][2:]
            while command.endswith("\\"):
                index += 1
                command = command[:-1] + " " + lines[index].strip()
            index += 1
            shown = []
            while index < len(lines) and not lines[index].startswith("$ "):
                shown.append(lines[index])
                index += 1
            found.append((command, shown))
    return found


def normalise(line: str) -> str:
    return re.sub(r" \d+[smhd]\d*[smh]?$", "", " ".join(line.split()))


@pytest.fixture
def kubectl(control_plane, plugin_path, tmp_path):
    def invoke(*args: str) -> subprocess.CompletedProcess:
        environ = {"PATH": plugin_path, "HOME": str(tmp_path), "KUBECONFIG": str(control_plane.kubeconfig("admin"))}
        return subprocess.run(
            [str(control_plane.kubectl), *args], env=environ, capture_output=True, text=True, timeout=60
        )

    return invoke


def test_the_readme_has_examples() -> None:
    assert len(examples()) >= 5
    assert all(command.startswith("kubectl instancetype ") for command, _ in examples())


def test_each_readme_example_prints_what_the_readme_shows(kubectl, kwok_nodes) -> None:
    # kwok_nodes: the eight simulated nodes of `make cluster NODES=8` that the fits and capacity examples run on
    kubectl("delete", "virtualmachine", "fedora-vm", "-n", "default", "--ignore-not-found")
    try:
        for command, shown in examples():
            result = kubectl(*shlex.split(command)[1:])
            printed = [normalise(line) for line in (result.stdout + result.stderr).splitlines()]
            position = 0
            for line in (normalise(line) for line in shown):
                assert line in printed[position:], f"{command}: {line!r} not printed (in order) in:\n" + "\n".join(
                    printed
                )
                position = printed.index(line, position) + 1
    finally:
        kubectl("delete", "virtualmachine", "fedora-vm", "-n", "default", "--ignore-not-found")
