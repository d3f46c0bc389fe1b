"""Golden tests for ``kubectl instancetype convert``: input file -> expected output, byte for byte.

Each case is a directory ``tests/golden/convert/<case>/`` with

* ``input.yaml`` or ``input.json``: the legacy objects (``-f``);
* ``vms.yaml`` (optional): VirtualMachines to match presets against (``--vms``);
* ``args`` (optional): more flags, one shell-quoted line (``-o json``, ``--memory 1Gi``);
* ``expected-output.yaml`` / ``expected-output.json``: what the command prints on stdout;
* ``expected-stderr``: its warnings and preset report;
* ``identical`` instead of ``expected-output.yaml``: the output is the input's objects re-printed (a real bundle of
  v1beta1 objects of the current shape passes through unchanged).

Set ``UPDATE_GOLDEN=1`` to rewrite the expected files after a deliberate change (then review the diff).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CONVERT_CASES as CASES
from tests.conftest import CONVERT_GOLDEN as GOLDEN
from tests.conftest import convert_case_argv as case_argv
from tests.conftest import run_cli


def expected_stdout(case: Path) -> Path:
    return case / ("expected-output.json" if "json" in case_argv(case) else "expected-output.yaml")


def expected_text(case: Path) -> str:
    if (case / "identical").exists():
        from kubectl_instancetype.golang.goyaml import dump_all
        from kubectl_instancetype.usecases.manifests import parse_manifests

        return dump_all(parse_manifests((case / "input.yaml").read_text()))
    return expected_stdout(case).read_text()


def test_every_documented_example_has_a_case() -> None:
    assert {"flavor-small-virtio", "windows-10-preset", "default-features-preset"} <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_golden(name: str) -> None:
    case = GOLDEN / name
    result = run_cli(case_argv(case))
    assert result.exit_code == 0, result.stderr
    if os.environ.get("UPDATE_GOLDEN"):
        if not (case / "identical").exists():
            expected_stdout(case).write_text(result.stdout)
        (case / "expected-stderr").write_text(result.stderr)
    assert result.stdout == expected_text(case)
    assert result.stderr == (case / "expected-stderr").read_text()


@pytest.mark.parametrize("name", [name for name in CASES if (GOLDEN / name / "expected-output.yaml").exists()])
def test_expected_yaml_is_what_the_go_printer_writes(name: str) -> None:
    """The expected files themselves round-trip through the Go-compatible printer (no hand-edited drift)."""
    import yaml

    from kubectl_instancetype.golang.goyaml import dump_all

    text = (GOLDEN / name / "expected-output.yaml").read_text()
    assert dump_all(list(yaml.safe_load_all(text))) == text


@pytest.mark.parametrize("name", CASES)
def test_converted_output_passes_lint(name: str) -> None:
    """Issue 29: convert -f old.yaml | lint -f - reported findings on the converted preferences."""
    case = GOLDEN / name
    converted = run_cli([*case_argv(case), "-o", "yaml"])
    assert converted.exit_code == 0, converted.stderr
    linted = run_cli(["lint", "-f", "-"], stdin=converted.stdout)
    assert (linted.exit_code, linted.stdout) == (0, ""), linted.stdout
    assert linted.stderr.endswith("object(s) checked: no findings\n")
