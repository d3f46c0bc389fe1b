"""The package's import graph has no cycle, lazy imports (inside functions) and TYPE_CHECKING ones included."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_instancetype"
ROOT = PACKAGE.name


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "kubectl_instancetype.cli.registry" in graph["kubectl_instancetype.cli.main"]


def test_no_import_cycles() -> None:
    # A package's __init__ importing its own submodules is how packages expose names, not a cycle of logic.
    graph = {name: {t for t in targets if not name.startswith(t + ".")} for name, targets in _graph().items()}
    assert _cycles(graph) == []


def test_every_import_of_the_package_names_a_module_that_exists() -> None:
    """A lazy import of a moved or removed module fails only when its function runs: catch it here."""
    modules = {_module_name(path) for path in PACKAGE.rglob("*.py")}
    missing = []
    for path in PACKAGE.rglob("*.py"):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(ROOT + ".")):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                if base not in modules and not any(f"{base}.{alias.name}" in modules for alias in node.names):
                    missing.append(f"{name}:{node.lineno} imports {base}")
    assert missing == []
