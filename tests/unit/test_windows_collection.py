"""The Windows CI job (.github/workflows/ci.yml, release.yml) collects tests/unit: a module that imports a POSIX-only
module at its top level fails collection there. Nobody runs Windows here, so this reads every module the unit suite
loads (tests/, kubectl_instancetype/, hack/) and refuses such an import outside a guard (``try``/``if`` at module
level); the tests that need one import it inside the test, or run it in a child process, and carry
``@pytest.mark.posix`` (skipped on Windows by tests/conftest.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# the standard library's Unix-only modules (https://docs.python.org/3/library/unix.html, plus tty, pty and posix)
POSIX_ONLY = {"resource", "fcntl", "termios", "tty", "pty", "grp", "pwd", "posix", "syslog", "crypt", "nis", "spwd"}


def unguarded_posix_imports(source: str) -> list[str]:
    """``LINE: module`` for each import of a POSIX-only module among the module's own top-level statements (imports
    nested in a module-level ``try`` or ``if`` are guarded; those inside functions and classes run only when called)."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [f"{node.lineno}: {name}" for name in names if name.split(".")[0] in POSIX_ONLY]
    return found


def modules() -> list[Path]:
    return sorted(
        path
        for folder in ("tests", "kubectl_instancetype", "hack")
        for path in (REPO / folder).rglob("*.py")
        if ".venv" not in path.parts
    )


def test_no_module_the_unit_suite_loads_imports_a_posix_only_module_unguarded() -> None:
    offenders = {
        str(path.relative_to(REPO)): hits
        for path in modules()
        if (hits := unguarded_posix_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import os\nimport resource\n", ["2: resource"]),
        ("import fcntl, json\n", ["1: fcntl"]),
        ("from termios import TCSANOW\n", ["1: termios"]),
        ("import pwd as p\n", ["1: pwd"]),
        ("try:\n    import fcntl\nexcept ImportError:\n    fcntl = None\n", []),
        ("import sys\nif sys.platform != 'win32':\n    import resource\n", []),
        ("def f():\n    import resource\n", []),
        ("from . import resource\nimport resources\n", []),
    ],
)
def test_the_check_finds_exactly_the_unguarded_imports(source: str, expected: list[str]) -> None:
    assert unguarded_posix_imports(source) == expected
