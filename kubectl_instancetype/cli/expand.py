"""``kubectl instancetype expand``: a VirtualMachine with its instance type and preference applied, as KubeVirt would.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

OUTPUT_PANEL = "Output"
SOURCE_PANEL = "Sources"
CLUSTER_PANEL = "Cluster defaults"

HELP = """Show a VirtualMachine with its instance type and preference applied, as KubeVirt applies them.

The output is the whole VirtualMachine with spec.template.spec expanded and the matchers removed, as
KubeVirt's expand returns it: default disks and the default pod network, the instance type (conflicts
are errors), the preference (filling only unset fields), then VMI defaults. Unlike KubeVirt's expand,
inferFromVolume matchers are inferred first, and VM admission's checks (spread divisibility, preference
requirements) are run unless --skip-checks.

The instance type and preference are read from the cluster (honouring revisionName and the ControllerRevisions
in status), from --instancetype-file / --preference-file, or from documents of the same file (-f); with
everything local no cluster is contacted.

\b
Examples:
  kubectl instancetype expand vm/my-vm
  kubectl instancetype expand -f vm.yaml --explain
  kubectl instancetype expand -f vm.yaml --instancetype-file u1.medium.yaml --preference-file fedora.yaml --diff
  kubectl instancetype expand vm/my-vm --server -o json"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("expand", help=HELP, short_help="Show a VirtualMachine with its instance type and preference applied.")(
        options.command(ExpandOptions, run)
    )


@options.dataclass
class ExpandOptions:
    """Expand VirtualMachines and print them, their diff or their provenance."""

    target: Annotated[
        Optional[str], typer.Argument(metavar="[vm/NAME]", help="A stored VirtualMachine.", show_default=False)
    ] = None
    filename: Annotated[
        Optional[str],
        typer.Option(
            "-f",
            "--filename",
            "--file",
            metavar="FILE",
            help="A VirtualMachine manifest (YAML or JSON, one or more documents); - reads stdin.",
            rich_help_panel=SOURCE_PANEL,
            show_default=False,
        ),
    ] = None
    instancetype_file: Annotated[
        Optional[str],
        typer.Option(
            "--instancetype-file",
            metavar="FILE",
            help="Use this (cluster) instance type instead of the one the VM names.",
            rich_help_panel=SOURCE_PANEL,
            show_default=False,
        ),
    ] = None
    preference_file: Annotated[
        Optional[str],
        typer.Option(
            "--preference-file",
            metavar="FILE",
            help="Use this (cluster) preference instead of the one the VM names.",
            rich_help_panel=SOURCE_PANEL,
            show_default=False,
        ),
    ] = None
    server: Annotated[
        bool,
        typer.Option(
            "--server",
            help="Ask the cluster's KubeVirt (expand-vm-spec subresource) instead of expanding locally.",
            rich_help_panel=SOURCE_PANEL,
        ),
    ] = False
    output: Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            metavar="FORMAT",
            help="yaml, json, or a kubectl template (jsonpath=..., go-template=..., custom-columns=...).",
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = "yaml"
    diff: Annotated[
        bool,
        typer.Option(
            "--diff", help="A unified diff of spec.template.spec before and after.", rich_help_panel=OUTPUT_PANEL
        ),
    ] = False
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="A table of every field the expansion set: FIELD, VALUE, SOURCE (instancetype, preference, default).",
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = False
    skip_checks: Annotated[
        bool,
        typer.Option(
            "--skip-checks",
            help="Do not run VM admission's spread and requirement checks (KubeVirt's expand does not).",
        ),
    ] = False
    default_architecture: Annotated[
        str,
        typer.Option(
            "--default-architecture",
            metavar="ARCH",
            help="The cluster's default architecture, for VMs and preferences that set none.",
            rich_help_panel=CLUSTER_PANEL,
        ),
    ] = "amd64"
    default_network_interface: Annotated[
        str,
        typer.Option(
            "--default-network-interface",
            metavar="BINDING",
            help="The cluster's default pod interface binding (bridge or masquerade).",
            rich_help_panel=CLUSTER_PANEL,
        ),
    ] = "bridge"
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    name: Optional[str] = dataclasses.field(init=False, default=None)

    def validate(self) -> None:
        """-o, --diff/--explain, one source, --server without local files."""
        UsageError = options.UsageError
        from ..output.printers import is_template_format

        if self.output not in ("yaml", "json") and not is_template_format(self.output):
            raise UsageError(
                f"not supported output format defined: {self.output} (use yaml, json, or a kubectl template: "
                "jsonpath=..., go-template=..., custom-columns=...)"
            )
        if self.diff and self.explain:
            raise UsageError("--diff and --explain cannot be used together")
        if (self.target is None) == (self.filename is None):
            raise UsageError("a VirtualMachine (vm/NAME) or a file (-f FILE) must be given, but not both")
        if self.server and (self.instancetype_file or self.preference_file):
            raise UsageError(
                "--server expands with the cluster's objects; it cannot use --instancetype-file or --preference-file"
            )
        if self.target is not None:
            self.name = options.vm_target(self.target, "expand")


def run(env, opts: ExpandOptions, session) -> None:
    """Expand, then print the VMs, their diff or their provenance; a VM that cannot be expanded fails."""
    from ..instancetype.expand import ClusterDefaults
    from ..usecases.expansion import expand, vm_name

    results = expand(
        session,
        ClusterDefaults(architecture=opts.default_architecture, network_interface=opts.default_network_interface),
        stdin=env.stdin,
        name=opts.name,
        filename=opts.filename,
        instancetype_file=opts.instancetype_file,
        preference_file=opts.preference_file,
        server=opts.server,
        check=not opts.skip_checks,
    )
    failed = [result for result in results if result.expanded is None]
    if failed:
        from ..output.terminal import escape

        for result in failed:
            prefix = f"virtualmachine/{vm_name(result.vm)}: " if len(results) > 1 else ""
            for line in result.problems:
                env.stderr.write(escape(f"error: {prefix}{line}") + "\n")
        raise typer.Exit(1)
    expanded = [(result.vm, (result.expanded, result.provenance)) for result in results]
    if opts.explain:
        _print_explain(env, expanded)
    elif opts.diff:
        _print_diff(env, expanded)
    else:
        _print_objects(env, opts.output, [data for _, data in expanded])


def _print_objects(env, output: str, results) -> None:
    vms = [expanded for expanded, _ in results]
    from ..output.printers import is_template_format

    if is_template_format(output):
        from ..output.printers import print_objects

        print_objects(env, output, vms, [], single=True)
        return
    if output == "json":
        import json

        from ..output.printers import as_list

        document = vms[0] if len(vms) == 1 else as_list(vms)
        env.stdout.write(json.dumps(document, indent=4, sort_keys=True, ensure_ascii=False) + "\n")
        return
    from ..golang.goyaml import dump, dump_all

    env.stdout.write(dump(vms[0]) if len(vms) == 1 else dump_all(vms))


def _template_spec(vm) -> dict:
    return ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}


def _print_diff(env, results) -> None:
    import difflib

    from ..golang.goyaml import dump
    from ..output.terminal import escape_lines
    from ..usecases.expansion import vm_name

    for vm, (expanded, _) in results:
        name = vm_name(vm)
        before = dump(_template_spec(vm)).splitlines(keepends=True)
        after = dump(_template_spec(expanded)).splitlines(keepends=True)
        diff = difflib.unified_diff(
            before, after, f"virtualmachine/{name} spec.template.spec", f"virtualmachine/{name} expanded"
        )
        env.stdout.writelines(escape_lines(line.removesuffix("\n")) + "\n" for line in diff)


def _format_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return "" if value is None else str(value)


def _path_key(path: str):
    """Sort fields by path with list indexes in numeric order."""
    import re

    return [int(part) if part.isdigit() else part for part in re.split(r"\[(\d+)\]", path)]


def _print_explain(env, results) -> None:
    from ..instancetype.expand import lookup
    from ..output.table import render_table
    from ..usecases.expansion import vm_name

    blocks = []
    for vm, (expanded, provenance) in results:
        rows = [
            (path, _format_value(lookup(expanded, path)), source)
            for path, source in sorted(provenance.items(), key=lambda item: _path_key(item[0]))
        ]
        header = render_table(None, [[f"virtualmachine/{vm_name(vm)}"]]) if len(results) > 1 else ""
        blocks.append(header + render_table(("FIELD", "VALUE", "SOURCE"), rows))
    env.stdout.write("\n".join(blocks))
