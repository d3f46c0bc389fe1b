"""``kubectl instancetype fleet diff``: the instance types and preferences of several kubeconfig contexts compared.

Only the subcommand being run is imported (see :mod:`.registry`).
"""

from typing import Any

GROUP_HELP = """Compare the clusters of several kubeconfig contexts.

diff lists, per instance type and preference, the contexts where it is missing, differs, or comes from
another common-instancetypes release; diff vm/NAME --to CONTEXT says whether a VM could be recreated there."""

SUBCOMMANDS = {"diff": "kubectl_instancetype.cli.fleet_diff"}


def register(app: Any, argv: list[str]) -> list[Any]:
    """Add the ``fleet`` group to ``app`` with the subcommand named in ``argv`` (all when none is)."""
    from .registry import add_group

    return add_group(
        app,
        "fleet",
        help_text=GROUP_HELP,
        subcommands=SUBCOMMANDS,
        argv=argv,
        short_help="Compare instance types and preferences across kubeconfig contexts.",
    )
