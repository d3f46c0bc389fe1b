"""``matrix``'s table: series (rows) by size (columns), rendered with tabulate.

tabulate is imported here only (about 25 ms, measured in docs/finding.md): no other command pays for it.
"""

from __future__ import annotations

from ..env import Environment

FORMATS = ("plain", "github", "grid")


def render_matrix(headers: list[str], rows: list[list[str]], fmt: str) -> str:
    """The matrix in tabulate's ``fmt`` (cells are text: ``1/4Gi`` must not be read as a number)."""
    from tabulate import tabulate

    return tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)


def print_matrix(env: Environment, headers: list[str], rows: list[list[str]], fmt: str) -> None:
    """The matrix, or kubectl's "No resources found" when it has no rows."""
    if not rows:
        from . import messages

        messages.info(env, "No resources found")
        return
    env.stdout.write(render_matrix(headers, rows, fmt) + "\n")
