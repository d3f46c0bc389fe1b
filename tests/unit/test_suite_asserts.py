"""The test suite's own contract (issue 21: every test asserts the output it exists for; no test that cannot
fail): every test function checks something, through an ``assert``, ``pytest.raises``/``warns``/``fail``, an
``assert_*`` call or a helper of its module that asserts; and no assert is true whatever the code does (a tuple,
a truthy constant, ``x or True``, a value compared with itself, ``"" in text``). Read from the source, not run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
CHECKING_CALLS = frozenset({"raises", "warns", "fail", "deprecated_call"})
Function = ast.FunctionDef | ast.AsyncFunctionDef


def called_names(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            function = call.func
            if isinstance(function, ast.Attribute):
                names.add(function.attr)
            elif isinstance(function, ast.Name):
                names.add(function.id)
    return names


def checks(node: ast.AST, helpers: dict[str, Function], seen: set[str]) -> bool:
    """Whether ``node`` asserts, itself or through the helpers of its module it calls."""
    if any(isinstance(sub, ast.Assert) for sub in ast.walk(node)):
        return True
    for name in called_names(node):
        if name in CHECKING_CALLS or name.startswith("assert"):
            return True
        if name in helpers and name not in seen:
            seen.add(name)
            if checks(helpers[name], helpers, seen):
                return True
    return False


def always_true(test: ast.expr) -> str | None:
    """Why an assert's expression holds whatever the code under test does, or None."""
    if isinstance(test, ast.Tuple):
        return "a tuple is always true"
    if isinstance(test, ast.Constant) and test.value:
        return "a truthy constant"
    truthy = [value for value in getattr(test, "values", []) if isinstance(value, ast.Constant) and value.value]
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and truthy:
        return "`or` a truthy constant"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right, operator = test.left, test.comparators[0], test.ops[0]
        calls = any(isinstance(sub, ast.Call) for sub in ast.walk(left))  # f() is f() checks a cache: not a tautology
        if not calls and ast.dump(left) == ast.dump(right) and isinstance(operator, (ast.Eq, ast.Is, ast.In)):
            return "a value compared with itself"
        if isinstance(operator, ast.In) and isinstance(left, ast.Constant) and left.value == "":
            return "the empty string is in every string"
    return None


def collected_functions(tree: ast.Module) -> list[Function]:
    """What pytest collects with its default ``python_functions``/``python_classes`` (``test*``, ``Test*``)."""
    found = [node for node in tree.body if isinstance(node, Function) and node.name.startswith("test")]
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef) and node.name.startswith("Test")):
        found += [node for node in cls.body if isinstance(node, Function) and node.name.startswith("test")]
    return found


def weak_tests(source: str, where: str = "<source>") -> list[str]:
    tree = ast.parse(source)
    helpers = {
        node.name: node for node in ast.walk(tree) if isinstance(node, Function) and not node.name.startswith("test")
    }
    problems = []
    for function in collected_functions(tree):
        if not checks(function, helpers, set()):
            problems.append(f"{where}:{function.lineno} {function.name}: checks nothing")
        for statement in ast.walk(function):
            if isinstance(statement, ast.Assert) and (why := always_true(statement.test)):
                problems.append(f"{where}:{statement.lineno} {function.name}: {why}: {ast.unparse(statement.test)}")
    return problems


def test_every_test_in_the_suite_checks_something_that_can_fail() -> None:
    problems: list[str] = []
    files = sorted(TESTS.rglob("test_*.py"))
    for path in files:
        problems += weak_tests(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))
    assert len(files) > 100  # the walk found the suite
    assert problems == []


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("def test_a():\n    run()\n", "<source>:1 test_a: checks nothing"),
        ("def test_a():\n    assert (run(), 'why')\n", "<source>:2 test_a: a tuple is always true: (run(), 'why')"),
        ("def test_a():\n    assert run() or True\n", "<source>:2 test_a: `or` a truthy constant: run() or True"),
        ("def test_a():\n    assert 'ok'\n", "<source>:2 test_a: a truthy constant: 'ok'"),
        (
            "def test_a(r):\n    assert r.out == r.out\n",
            "<source>:2 test_a: a value compared with itself: r.out == r.out",
        ),
        (
            "def test_a(r):\n    assert '' in r.stdout\n",
            "<source>:2 test_a: the empty string is in every string: '' in r.stdout",
        ),
        ("class TestX:\n    def test_a(self):\n        pass\n", "<source>:2 test_a: checks nothing"),
        ("def helper():\n    run()\n\ndef test_a():\n    helper()\n", "<source>:4 test_a: checks nothing"),
    ],
)
def test_the_checker_finds_what_it_looks_for(source: str, problem: str) -> None:
    assert weak_tests(source) == [problem]


@pytest.mark.parametrize(
    "source",
    [
        "def test_a(r):\n    assert r.exit_code == 0\n",
        "def test_a():\n    with pytest.raises(ValueError):\n        run()\n",
        "def test_a():\n    assert_same_as_virtctl(run())\n",
        "def check(x):\n    assert x == 1\n\ndef test_a():\n    check(run())\n",
        "def test_a(s):\n    assert s.client() is s.client()\n",
        "def helper():\n    pass\n\ndef test_a():\n    helper()\n    assert run()\n",
    ],
)
def test_the_checker_passes_tests_that_check(source: str) -> None:
    assert weak_tests(source) == []
