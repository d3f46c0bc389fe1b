"""``kubectl instancetype expand``: a VirtualMachine with its instance type and preference applied, as KubeVirt would.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Any, Optional

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
requirements, and the whole-VM rules instance types and preferences touch) are run unless --skip-checks.

The VMs of -f are checked against KubeVirt's schema (--validate) and, when the kubeconfig names a cluster that
answers, judged by KubeVirt itself with a server-side dry run (--offline: never); a VM it denies is not
expanded. Offline, one line says what was checked.

With --launcher-pod the output is instead the scheduling part of the virt-launcher pod KubeVirt v1.9's
virt-controller will create for the VM: every container's and init container's requests and limits (memory
with KubeVirt's overhead), nodeSelector, affinity, tolerations, priorityClassName, schedulerName and the QoS
class, as the scheduler will read them. It follows the cluster's KubeVirt configuration (cpuAllocationRatio,
memoryOvercommit, supportContainerResources, nodeSelectors, ...) and the namespace's labels and ResourceQuotas;
a VM expanded without reading the cluster gets KubeVirt's defaults, and a warning says so.

The instance type and preference are read from the cluster (honouring revisionName and the ControllerRevisions
in status), from --instancetype-file / --preference-file, or from documents of the same file (-f); with
everything local no cluster is contacted.

\b
Examples:
  kubectl instancetype expand vm/my-vm
  kubectl instancetype expand -f vm.yaml --explain
  kubectl instancetype expand -f vm.yaml --instancetype-file u1.medium.yaml --preference-file fedora.yaml --diff
  kubectl instancetype expand vm/my-vm --server -o json
  kubectl instancetype expand vm/my-vm --launcher-pod"""


def optional_value_flags() -> dict:
    """A bare --validate means strict, as kubectl's."""
    return dict(options.VALIDATE_OPTIONAL_VALUE)


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
        options.output_option(
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
    launcher_pod: Annotated[
        bool,
        typer.Option(
            "--launcher-pod",
            help="Print the scheduling part of the virt-launcher pod KubeVirt will create for the VM instead.",
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
        Optional[str],
        typer.Option(
            "--default-architecture",
            metavar="ARCH",
            help="The cluster's default architecture, for VMs and preferences that set none "
            "(default amd64; with --launcher-pod, the KubeVirt resource's status.defaultArchitecture).",
            rich_help_panel=CLUSTER_PANEL,
            show_default=False,
        ),
    ] = None
    default_network_interface: Annotated[
        Optional[str],
        typer.Option(
            "--default-network-interface",
            metavar="BINDING",
            help="The cluster's default pod interface binding, bridge or masquerade "
            "(default bridge; with --launcher-pod, the KubeVirt resource's).",
            rich_help_panel=CLUSTER_PANEL,
            show_default=False,
        ),
    ] = None
    checks: options.FileChecks = dataclasses.field(default_factory=options.FileChecks)
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)
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
        if is_template_format(self.output):
            from ..output.printers import TEMPLATE_FORMATS, check_output_format

            check_output_format(self.output, TEMPLATE_FORMATS)  # kubectl's words for a template left empty
        if self.diff and self.explain:
            raise UsageError("--diff and --explain cannot be used together")
        if self.launcher_pod and (self.diff or self.explain):
            raise UsageError(f"--launcher-pod cannot be used with {'--diff' if self.diff else '--explain'}")
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
    from ..output import messages
    from ..usecases.expansion import LauncherPodRequest, expand

    launcher_pod = None
    if opts.launcher_pod:
        from ..output.terminal import escape

        def warn(line: str) -> None:
            env.stderr.write(escape(line) + "\n")

        launcher_pod = LauncherPodRequest(opts.default_architecture, opts.default_network_interface, warn)
    results = expand(
        session,
        ClusterDefaults(
            architecture=opts.default_architecture or "amd64",
            network_interface=opts.default_network_interface or "bridge",
        ),
        stdin=env.stdin,
        name=opts.name,
        filename=opts.filename,
        instancetype_file=opts.instancetype_file,
        preference_file=opts.preference_file,
        server=opts.server,
        check=not opts.skip_checks,
        launcher_pod=launcher_pod,
        validation=opts.checks.validation,
        offline=opts.checks.offline,
        warn=lambda line: messages.warn(env, line),
        note=lambda line: messages.info(env, line),
    )
    # Streamed: each VM is printed as it is expanded (a file of 100,000 VMs never sits in memory expanded, and
    # output starts at once); the VMs that cannot be expanded are named at the end, as kubectl names the objects
    # of a -f it could not handle, and the command fails.
    printer = _StreamPrinter(env, "explain" if opts.explain else "diff" if opts.diff else opts.output)
    failed = []
    count = 0
    for result in results:
        count += 1
        if result.expanded is None:
            failed.append(result)
        elif opts.launcher_pod:
            printer.add(dataclasses.replace(result, expanded=result.launcher_pod))
        else:
            printer.add(result)
    printer.close()
    if failed:
        from ..output.terminal import escape

        for result in failed:
            prefix = f"virtualmachine/{result.name}: " if count > 1 else ""
            for line in result.problems:
                # KubeVirt's verdict keeps kubectl's "Error from server (...)" shape
                head = "" if line.startswith("Error from server") else "error: "
                env.stderr.write(escape(f"{head}{prefix}{line}") + "\n")
        raise typer.Exit(1)


class _StreamPrinter:
    """Prints expanded VMs one at a time in the form of ``expand``'s output for all of them: one YAML document,
    or several separated by ``---``; one JSON object, or a ``kind: List`` of them; one --explain table, or one
    per VM under its name. The first VM is held until the second (or the end) says which form it takes."""

    def __init__(self, env, form: str):
        self.env, self.form = env, form
        self.first: Any = None
        self.count = 0
        from ..output.printers import is_template_format

        self.template: list[Any] | None = [] if is_template_format(form) else None

    def add(self, result) -> None:
        """One expanded VM (a usecases.expansion.Expanded)."""
        self.count += 1
        if self.template is not None:
            self.template.append(result.expanded)  # a template sees all the objects at once (kubectl's List)
            return
        if self.form == "diff":
            _print_diff(self.env, result)
            return
        if self.count == 1:
            self.first = result
            return
        if self.count == 2:
            self._write(self.first, several=True, first=True)
            self.first = None
        self._write(result, several=True, first=False)

    def close(self) -> None:
        if self.template:
            from ..output.printers import print_objects

            print_objects(self.env, self.form, self.template, [], single=True)
            return
        if self.first is not None:
            self._write(self.first, several=False, first=True)
        elif self.count > 1 and self.form == "json":
            self.env.stdout.write(
                '\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n'
            )

    def _write(self, result, *, several: bool, first: bool) -> None:
        write = self.env.stdout.write
        if self.form == "explain":
            _print_explain(self.env, result, header=several, separator=not first)
        elif self.form == "json":
            import json

            text = json.dumps(result.expanded, indent=4, sort_keys=True, ensure_ascii=False)
            if not several:
                write(text + "\n")
                return
            item = "\n".join("        " + line for line in text.split("\n"))
            write(('{\n    "apiVersion": "v1",\n    "items": [\n' if first else ",\n") + item)
        else:
            from ..golang.goyaml import dump

            write(("" if first else "---\n") + dump(result.expanded))


def _template_spec(vm) -> dict:
    return ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}


def _print_diff(env, result) -> None:
    import difflib

    from ..golang.goyaml import dump
    from ..output.terminal import escape_lines

    name = result.name
    before = dump(_template_spec(result.vm)).splitlines(keepends=True)
    after = dump(_template_spec(result.expanded)).splitlines(keepends=True)
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


def _print_explain(env, result, *, header: bool, separator: bool) -> None:
    from ..instancetype.expand import lookup
    from ..output.table import render_table

    rows = [
        (path, _format_value(lookup(result.expanded, path)), source)
        for path, source in sorted(result.provenance.items(), key=lambda item: _path_key(item[0]))
    ]
    title = render_table(None, [[f"virtualmachine/{result.name}"]]) if header else ""
    env.stdout.write(("\n" if separator else "") + title + render_table(("FIELD", "VALUE", "SOURCE"), rows))
