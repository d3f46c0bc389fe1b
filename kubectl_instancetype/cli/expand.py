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

    target: options.VMTarget = None
    filename: Annotated[
        Optional[str],
        options.file_option(
            "A VirtualMachine manifest (YAML or JSON, one or more documents); - reads stdin.",
            "--file",
            panel=SOURCE_PANEL,
        ),
    ] = None
    instancetype_file: Annotated[
        Optional[str],
        options.path_option(
            "--instancetype-file",
            metavar="FILE",
            help="Use this (cluster) instance type instead of the one the VM names.",
            panel=SOURCE_PANEL,
        ),
    ] = None
    preference_file: Annotated[
        Optional[str],
        options.path_option(
            "--preference-file",
            metavar="FILE",
            help="Use this (cluster) preference instead of the one the VM names.",
            panel=SOURCE_PANEL,
        ),
    ] = None
    server: Annotated[
        bool,
        options.bool_option(
            "--server",
            help="Ask the cluster's KubeVirt (expand-vm-spec subresource) instead of expanding locally.",
            panel=SOURCE_PANEL,
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
        options.bool_option(
            "--diff", help="A unified diff of spec.template.spec before and after.", panel=OUTPUT_PANEL
        ),
    ] = False
    explain: Annotated[
        bool,
        options.bool_option(
            "--explain",
            help="A table of every field the expansion set: FIELD, VALUE, SOURCE (instancetype, preference, default).",
            panel=OUTPUT_PANEL,
        ),
    ] = False
    launcher_pod: Annotated[
        bool,
        options.bool_option(
            "--launcher-pod",
            help="Print the scheduling part of the virt-launcher pod KubeVirt will create for the VM instead.",
            panel=OUTPUT_PANEL,
        ),
    ] = False
    skip_checks: Annotated[
        bool,
        options.bool_option(
            "--skip-checks",
            help="Do not run VM admission's spread and requirement checks (KubeVirt's expand does not).",
        ),
    ] = False
    default_architecture: Annotated[
        Optional[str],
        options.path_option(
            "--default-architecture",
            metavar="ARCH",
            help="The cluster's default architecture, for VMs and preferences that set none "
            "(default amd64; with --launcher-pod, the KubeVirt resource's status.defaultArchitecture).",
            panel=CLUSTER_PANEL,
        ),
    ] = None
    default_network_interface: Annotated[
        Optional[str],
        options.path_option(
            "--default-network-interface",
            metavar="BINDING",
            help="The cluster's default pod interface binding, bridge or masquerade "
            "(default bridge; with --launcher-pod, the KubeVirt resource's).",
            panel=CLUSTER_PANEL,
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
    from ..output.expansion import ExpandedPrinter, print_failures

    printer = ExpandedPrinter(env, "explain" if opts.explain else "diff" if opts.diff else opts.output)
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
        print_failures(env, failed, several=count > 1)
        raise typer.Exit(1)
