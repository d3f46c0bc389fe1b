"""The command table: what ``kubectl instancetype`` offers, as data (module paths, aliases, the root help).

Kept apart from :mod:`.registry` so that whatever needs the names (help, completion) imports no code.
"""

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
