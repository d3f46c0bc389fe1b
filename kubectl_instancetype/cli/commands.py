"""The command table: what ``kubectl instancetype`` offers, as data (module paths, aliases, the root help).

Kept apart from :mod:`.registry` so that whatever needs the names (help, completion) imports no code; with how a
command line names its command (:func:`normalise`: aliases, kubectl's global flags before the command), which
every run needs before it knows whether Typer is needed at all.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PROG_NAME = "kubectl instancetype"

# command name -> the module that registers it. Order is the order of `--help`.
COMMANDS: dict[str, str] = {
    "adopt": "kubectl_instancetype.cli.adopt",
    "capacity": "kubectl_instancetype.cli.capacity",
    "catalog": "kubectl_instancetype.cli.catalog",
    "completion": "kubectl_instancetype.cli.completion_cmd",
    "convert": "kubectl_instancetype.cli.convert",
    "create": "kubectl_instancetype.cli.create",
    "derive": "kubectl_instancetype.cli.derive",
    "describe": "kubectl_instancetype.cli.describe",
    "doctor": "kubectl_instancetype.cli.doctor",
    "expand": "kubectl_instancetype.cli.expand",
    "fits": "kubectl_instancetype.cli.fits",
    "fleet": "kubectl_instancetype.cli.fleet",
    "get": "kubectl_instancetype.cli.list",
    "infer": "kubectl_instancetype.cli.infer",
    "label": "kubectl_instancetype.cli.label",
    "lint": "kubectl_instancetype.cli.lint",
    "list": "kubectl_instancetype.cli.list",
    "matrix": "kubectl_instancetype.cli.matrix",
    "recommend": "kubectl_instancetype.cli.recommend",
    "revisions": "kubectl_instancetype.cli.revisions",
    "rightsize": "kubectl_instancetype.cli.rightsize",
    "switch": "kubectl_instancetype.cli.switch",
    "upload": "kubectl_instancetype.cli.upload",
    "usage": "kubectl_instancetype.cli.usage",
    "version": "kubectl_instancetype.cli.version",
}
ALIASES = {"ls": "list"}

HELP = """KubeVirt instance types and preferences from the terminal.

Find VirtualMachine(Cluster)Instancetypes and VirtualMachine(Cluster)Preferences by size and features,
in both scopes, against the live cluster."""

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


# kubectl's global flags (ConfigFlags and -v, options.ConnectionFlags), persistent in cobra: they may come before
# the command too (completion reads the same list: completion_spec puts them on the root)
GLOBAL_VALUE_FLAGS = (
    "--kubeconfig",
    "--context",
    "--cluster",
    "-n",
    "--namespace",
    "--request-timeout",
    "-v",
    "--v",
    "--as",
    "--as-group",
    "--as-uid",
)


def hoist_global_flags(argv: Sequence[str]) -> list[str]:
    """``-n demo list`` -> ``list -n demo``: global flags given before the command move after it (before a
    ``--``), as cobra accepts a persistent flag anywhere. Anything else before the command stays put."""
    args = list(argv)
    moved: list[str] = []
    while args and args[0].startswith("-") and args[0] != "--":
        flag = args[0]
        name = flag.split("=", 1)[0]
        if name in GLOBAL_VALUE_FLAGS:
            attached = "=" in flag or (len(name) == 2 and len(flag) > 2)
            count = 1 if attached else 2
        elif flag[:2] in ("-n", "-v") and len(flag) > 2 and not flag.startswith("--"):
            count = 1  # -ndemo, -v6
        else:
            break
        moved += args[:count]
        args = args[count:]
    if not moved or not args:
        return list(argv)
    end = args.index("--") if "--" in args else len(args)
    return args[:end] + moved + args[end:]


def normalise(argv: Sequence[str]) -> list[str]:
    """``argv`` with global flags before the command moved after it, and a command alias replaced by the
    command's name (``ls`` -> ``list``)."""
    args = hoist_global_flags(argv)
    if args and args[0] in ALIASES:
        args[0] = ALIASES[args[0]]
    return args
