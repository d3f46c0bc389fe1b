"""The test suite's own rules: no test imports another test module (shared helpers live in tests/conftest.py or
tests/doubles/), and no test imports a private name of the package."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _imports() -> list[tuple[Path, int, str, list[str]]]:
    found = []
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.append((path, node.lineno, node.module, [alias.name for alias in node.names]))
            elif isinstance(node, ast.Import):
                found.extend((path, node.lineno, alias.name, []) for alias in node.names)
    return found


def test_no_test_imports_another_test_module() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{line} imports {module}"
        for path, line, module, names in _imports()
        if module.startswith(("tests.unit", "tests.integration", "tests.e2e"))
        or (module in ("tests.unit", "tests.integration", "tests.e2e") and names)
    ]
    assert offenders == []


def test_no_test_imports_a_private_name_of_the_package() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{line} imports {module}.{name}"
        for path, line, module, names in _imports()
        if module.startswith("kubectl_instancetype")
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    offenders += [
        f"{path.relative_to(TESTS)}:{line} imports {module}"
        for path, line, module, _ in _imports()
        if module.startswith("kubectl_instancetype") and any(part.startswith("_") for part in module.split(".")[1:])
    ]
    assert offenders == []
