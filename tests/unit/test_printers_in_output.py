"""Printers live in output/ (DEVELOPERS.md, "Layout"): a command module of cli/ parses flags, calls one use case
and hands the result to a printer of output/. It never serialises (json, yaml, Go's YAML/JSON), never lays out a
table (tabulate, output.table, output.columns, padding cells) and never diffs texts for display itself.

The check reads each cli/ module's source (lazy imports included) and names the line; its message says where the
code goes. A one-line message written to stdout (``vm/x created``) is not a printer and stays allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_instancetype"
ROOT = PACKAGE.name

# Modules that serialise objects or lay out tables: output/ imports them, cli/ never does.
PRINTING_MODULES = {
    "tabulate": "tabulate lays out tables",
    "json": "json serialises objects",
    "yaml": "yaml serialises objects",
    f"{ROOT}.golang.goyaml": "Go's YAML serialises objects",
    f"{ROOT}.golang.encoding_json": "Go's JSON serialises objects",
    f"{ROOT}.golang.kyaml": "KYAML serialises objects",
    f"{ROOT}.golang.tabwriter": "Go's tab writer lays out tables",
    f"{ROOT}.output.table": "render_table lays out tables",
    f"{ROOT}.output.columns": "the column model makes table cells",
    f"{ROOT}.output.customcolumns": "custom-columns lays out tables",
}
# Calls that lay out or diff text for display.
PRINTING_CALLS = {
    "unified_diff": "a diff for display",
    "context_diff": "a diff for display",
    "ndiff": "a diff for display",
    "ljust": "padding cells into columns",
    "rjust": "padding cells into columns",
    "center": "padding cells into columns",
}
# cli/ modules that are no command's printer, with the reason.
EXEMPT = {
    # cobra's --help layout: the help Typer's commands print, part of the CLI framework, not a command's result
    f"{ROOT}.cli.helpformat",
}
FIX = "put the printer in output/ (a function taking env and the result) and call it from the command's run()"


def _cli_modules() -> dict[str, Path]:
    return {f"{ROOT}.cli.{path.stem}": path for path in sorted((PACKAGE / "cli").glob("*.py"))}


def printer_problems(name: str, source: str) -> list[str]:
    """What in ``source`` (the module ``name`` of cli/) prints by itself, one line per finding."""
    package = name.rpartition(".")[0]
    problems = []
    for node in ast.walk(ast.parse(source)):
        imported: list[str] = []
        if isinstance(node, ast.Import):
            imported = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            imported = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for module in imported:
            if module in PRINTING_MODULES:
                problems.append(f"{name} line {node.lineno}: imports {module} ({PRINTING_MODULES[module]}): {FIX}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PRINTING_CALLS:
            what = PRINTING_CALLS[node.func.attr]
            problems.append(f"{name} line {node.lineno}: calls {ast.unparse(node.func)} ({what}): {FIX}")
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = ast.unparse(node.format_spec)
            if any(align in spec for align in ("<", ">", "^")):
                problems.append(f"{name} line {node.lineno}: pads a cell with a format spec (a table layout): {FIX}")
    return problems


def test_cli_modules_print_only_through_output() -> None:
    problems = []
    for name, path in _cli_modules().items():
        if name not in EXEMPT:
            problems += printer_problems(name, path.read_text())
    assert problems == [], "\n".join(problems)


def test_the_check_catches_printers_planted_in_cli() -> None:
    planted = (
        "def run(env, opts, session):\n"
        "    import json\n"
        "    from tabulate import tabulate\n"
        "    from ..golang.goyaml import dump\n"
        "    from ..output.table import render_table\n"
        "    import difflib\n"
        "    env.stdout.write(json.dumps({}))\n"
        "    env.stdout.writelines(difflib.unified_diff([], []))\n"
        "    env.stdout.write(name.ljust(10) + f'{value:>8}')\n"
    )
    found = printer_problems(f"{ROOT}.cli.fits", planted)
    assert [problem.split(" (")[0] for problem in found] == [
        f"{ROOT}.cli.fits line 2: imports json",
        f"{ROOT}.cli.fits line 3: imports tabulate",
        f"{ROOT}.cli.fits line 4: imports {ROOT}.golang.goyaml",
        f"{ROOT}.cli.fits line 5: imports {ROOT}.output.table",
        f"{ROOT}.cli.fits line 8: calls difflib.unified_diff",
        f"{ROOT}.cli.fits line 9: calls name.ljust",
        f"{ROOT}.cli.fits line 9: pads a cell with a format spec",
    ]
    assert all(problem.endswith(FIX) for problem in found)
    # a one-line message and output/'s printers are fine
    assert printer_problems(f"{ROOT}.cli.fits", "def run(env):\n    env.stdout.write(f'{name} created\\n')\n") == []
    assert printer_problems(f"{ROOT}.cli.fits", "from ..output import placement as printer\n") == []
