"""What completion knows, generated from the Typer app: commands, flags, fixed values and live-name sources.

Completion must answer in a few tens of milliseconds, so it never builds the Typer app: it reads the table
:mod:`.completion_data` written by :func:`write_table` (``make completion-table``) from what the app declares.
A test keeps the two equal. Value sources that the app cannot express (fixed value sets, live names) are
declared here, by flag name.
"""

from __future__ import annotations

import pprint
from pathlib import Path
from typing import Any

# Flag values with a fixed set, by flag (every command that has the flag). --class, --size, --os-type and
# --arch take the label values of the embedded catalog (catalog_values()).
FIXED_VALUES: dict[str, list[str]] = {
    "--run-strategy": ["Always", "Manual", "Halted", "Once", "RerunOnFailure"],
    "--sort-by": ["name", "cpu", "memory"],
    "--scope": ["cluster", "namespaced", "all"],
    "--dry-run": ["none", "client", "server"],
    "--hugepages": ["2Mi", "1Gi"],
    "--iothreadspolicy": ["auto", "shared"],
    "--cpu-topology": ["sockets", "cores", "threads", "spread", "any"],
    "--volume-import": [
        "type:blank",
        "type:gcs",
        "type:http",
        "type:imageio",
        "type:pvc",
        "type:registry",
        "type:s3",
        "type:vddk",
        "type:snapshot",
        "type:ds",
    ],
    "--format": ["plain", "github", "grid"],
}
# -o values per command (what each command accepts), in kubectl get's order: the object formats, the templates
# (kubectl completes their names; the user types =TEMPLATE), wide where a table has more columns.
_TEMPLATES = [
    "go-template",
    "go-template-file",
    "template",
    "templatefile",
    "jsonpath",
    "jsonpath-as-json",
    "jsonpath-file",
    "custom-columns",
    "custom-columns-file",
]
OUTPUT_FORMATS: dict[str, list[str]] = {
    "list": ["json", "yaml", "kyaml", "name", *_TEMPLATES, "wide"],
    "get": ["json", "yaml", "kyaml", "name", *_TEMPLATES, "wide"],
    "recommend": ["json", "yaml", "name", *_TEMPLATES, "wide"],
    "catalog list": ["json", "yaml", "name", *_TEMPLATES, "wide"],
    "catalog show": ["json", "yaml", "name", *_TEMPLATES, "wide"],
    "usage": ["json", "yaml", *_TEMPLATES],
    "lint": ["json", "yaml", *_TEMPLATES],
    "switch": ["json", "yaml", *_TEMPLATES],
    "revisions": ["json", "yaml", *_TEMPLATES],
    "doctor": ["json", "yaml", *_TEMPLATES],
    "version": ["json", "yaml"],
    "": ["json", "yaml", "name", *_TEMPLATES],
}
# Flags whose values are names read from the cluster (or the kubeconfig, for contexts and clusters).
LIVE_VALUES: dict[str, str] = {
    "--instancetype": "instancetypes",
    "--preference": "preferences",
    "--compatible-with": "preferences",
    "--namespace": "namespaces",
    "-n": "namespaces",
    "--context": "contexts",
    "--cluster": "clusters",
    "--volume-pvc": "pvc-src",
}
# Flags whose value is a file: the shell completes file names there.
FILE_FLAGS = frozenset({"--kubeconfig", "-f", "--filename", "--password-file", "--image-path", "--vms"})
# Positional arguments: the values a command's first argument takes ("objects" = kind/NAME from the cluster,
# "vms" = vm/NAME only, "volumes" = pvc/, dv/ or datasource/NAME only,
# "types" = an instance type or preference as kind/NAME; "type-names" = that for every argument, or a kind word
# first and then its names).
ARGUMENTS: dict[str, str] = {
    "list": "kinds",
    "catalog list": "kinds",
    "infer": "objects",
    "expand": "vms",
    "label": "volumes",
    "revisions": "vms",
    "switch": "vms",
    "adopt": "vms",
    "usage": "types",
    "lint": "types",
    "get": "type-names",
    "describe": "type-names",
}


def catalog_values() -> dict[str, list[str]]:
    """The label values the catalog's types carry, for the label filters (sizes in size order)."""
    from ..catalog import load_catalog
    from ..instancetype.matrix import SIZE_ORDER

    catalog = load_catalog()

    def values(objects: list[Any], key: str) -> set[str]:
        found = {(o["metadata"].get("labels") or {}).get(f"instancetype.kubevirt.io/{key}") for o in objects}
        return {value for value in found if value}

    sizes = values(catalog.instancetypes, "size")
    rank = {size: index for index, size in enumerate(SIZE_ORDER)}
    return {
        "--class": sorted(values(catalog.instancetypes, "class")),
        "--size": sorted(sizes, key=lambda size: (rank.get(size.removesuffix("1gi"), len(rank)), size)),
        "--os-type": sorted(values(catalog.preferences, "os-type")),
        "--arch": sorted(values(catalog.preferences, "arch")),
    }


def _flag_entry(command_path: str, param: Any) -> tuple[list[str], dict[str, Any]]:
    opts = [o for o in list(param.opts) + list(getattr(param, "secondary_opts", [])) if o.startswith("-")]
    takes_value = not getattr(param, "is_flag", False) and getattr(param, "metavar", None) != "[=true|false]"
    help_text = " ".join((param.help or "").split("\n", 1)[0].split())
    entry: dict[str, Any] = {"help": help_text, "value": takes_value}
    if takes_value:
        names = set(opts)
        if names & {"-o", "--output"}:
            entry["values"] = OUTPUT_FORMATS.get(
                command_path, OUTPUT_FORMATS.get(command_path.split(" ", 1)[0], OUTPUT_FORMATS[""])
            )
        fixed = FIXED_VALUES | catalog_values()
        for name in opts:
            if name in fixed:
                entry["values"] = fixed[name]
            if name in LIVE_VALUES:
                entry["live"] = LIVE_VALUES[name]
            if name in FILE_FLAGS:
                entry["file"] = True
    return opts, entry


def build_table() -> dict[str, Any]:
    """Walk the whole Typer app: ``{command path: {"commands", "flags", "argument"}}``."""
    from typer.main import get_command

    from .commands import GLOBAL_VALUE_FLAGS
    from .registry import ALIASES, build

    root = get_command(build([])[0])
    table: dict[str, Any] = {}

    def walk(command: Any, path: str) -> None:
        import typer._click as click

        ctx = click.Context(command, info_name=path or "kubectl instancetype", **(command.context_settings or {}))
        subcommands = {}
        if hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is None or getattr(sub, "hidden", False):
                    continue
                subcommands[name] = " ".join((sub.get_short_help_str(limit=300) or "").split())
                walk(sub, f"{path} {name}".strip())
        flags: dict[str, Any] = {}
        for param in command.get_params(ctx):
            if getattr(param, "param_type_name", "") != "option" or getattr(param, "hidden", False):
                continue
            opts, entry = _flag_entry(path, param)
            if "--help" in opts:
                entry["help"] = f"help for {path.rsplit(' ', 1)[-1] or 'kubectl instancetype'}"
            for name in opts:
                flags[name] = entry
        table[path] = {"commands": subcommands, "flags": flags, "argument": ARGUMENTS.get(path)}

    walk(root, "")
    table[""]["aliases"] = dict(ALIASES)
    # kubectl's global flags may come before the command (cobra's persistent flags; commands.hoist_global_flags
    # moves them after it to run): completion reads them there too, as every command declares them
    table[""]["flags"].update({name: table["list"]["flags"][name] for name in GLOBAL_VALUE_FLAGS})
    return table


DATA_FILE = Path(__file__).with_name("completion_data.py")
HEADER = '''"""Generated by ``make completion-table`` (kubectl_instancetype.cli.completion_spec.write_table): do not edit.

What shell completion knows without building the Typer app; tests/unit/test_completion.py keeps it equal to
what the app declares.
"""

# fmt: off
TABLE = '''


def render_table(table: dict[str, Any]) -> str:
    """The source text of :mod:`.completion_data` for ``table``."""
    return HEADER + pprint.pformat(table, width=120, sort_dicts=True) + "\n"


def write_table() -> None:
    """Regenerate :mod:`.completion_data` from the app."""
    DATA_FILE.write_text(render_table(build_table()))


if __name__ == "__main__":
    write_table()
