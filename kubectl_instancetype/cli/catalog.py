"""``kubectl instancetype catalog list|show|install|diff``: the embedded common-instancetypes catalog.

Only the subcommand being run is imported (see :mod:`.registry`). ``list`` and ``show`` need no cluster and
no kubeconfig; ``install`` and ``diff`` compare with (and write to) the cluster.
"""

from typing import Any

GROUP_HELP = """The common-instancetypes catalog embedded in the plugin: browse it offline, install it, compare it.

list and show read the embedded release (no cluster, no kubeconfig); install applies it to the cluster
with server-side apply (field manager kubectl-instancetype); diff shows how the cluster's objects differ."""

SUBCOMMANDS = {
    "list": "kubectl_instancetype.cli.catalog_list",
    "show": "kubectl_instancetype.cli.catalog_list",
    "install": "kubectl_instancetype.cli.catalog_install",
    "diff": "kubectl_instancetype.cli.catalog_diff",
}


def register(app: Any, argv: list[str]) -> list[Any]:
    """Add the ``catalog`` group to ``app`` with the subcommand named in ``argv`` (all when none is)."""
    from .registry import add_group

    return add_group(
        app,
        "catalog",
        help_text=GROUP_HELP,
        subcommands=SUBCOMMANDS,
        argv=argv,
        short_help="Browse, install or diff the embedded common-instancetypes catalog.",
    )
