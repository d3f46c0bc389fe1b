"""``kubectl instancetype create vm|instancetype|preference``: the group.

Only the subcommand being run is imported (see :mod:`.registry`); what the subcommands share lives in
:mod:`.flagtable`.
"""

from typing import Any

GROUP_HELP = """Create a VirtualMachine, an instance type or a preference on the cluster, checked first.

Flags are virtctl's (KubeVirt v1.9) with the same defaults and messages. By default the object is created
in the target namespace; --dry-run=client prints or names it without contacting the server, and
--dry-run=server has the server validate it without persisting it."""

SUBCOMMANDS = {
    "vm": "kubectl_instancetype.cli.create_vm",
    "instancetype": "kubectl_instancetype.cli.create_types",
    "preference": "kubectl_instancetype.cli.create_types",
}


def register(app: Any, argv: list[str]) -> list[Any]:
    """Add the ``create`` group to ``app`` with the subcommand named in ``argv`` (all when none is)."""
    from .registry import add_group

    return add_group(
        app,
        "create",
        help_text=GROUP_HELP,
        subcommands=SUBCOMMANDS,
        argv=argv,
        short_help="Create a VM, instance type or preference (virtctl flags, checked).",
    )
