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


# NamedTuple's public API is spelled with an underscore
PUBLIC_UNDERSCORED = {"_replace", "_fields", "_asdict", "_make"}


def private_attributes(source: str) -> list[tuple[int, str]]:
    """``(line, expression)`` of each private attribute read or written on another object than ``self``/``cls``
    (``transport._connection``, ``module._helper``); dunders and NamedTuple's ``_replace`` and co. are public."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and node.attr not in PUBLIC_UNDERSCORED
            and ast.unparse(node.value) not in ("self", "cls")
        ):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_the_attribute_check_catches_private_access() -> None:
    source = (
        "def test(transport, goyaml, query, self):\n"
        "    transport._connection.close()\n"
        "    goyaml._fast_dump({})\n"
        "    query._replace(a=1).__class__\n"
        "    self._own = 1\n"
    )
    assert private_attributes(source) == [(2, "transport._connection"), (3, "goyaml._fast_dump")]


def test_no_test_reaches_a_private_attribute() -> None:
    # tests/doubles/ are the test doubles' own code: a double's parts may share its internals
    offenders = [
        f"{path.relative_to(TESTS)}:{line} reaches {expression}"
        for path in sorted(TESTS.rglob("*.py"))
        if "doubles" not in path.relative_to(TESTS).parts
        for line, expression in private_attributes(path.read_text())
    ]
    assert offenders == []
