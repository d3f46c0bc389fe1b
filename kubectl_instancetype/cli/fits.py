"""``kubectl instancetype fits (vm/NAME | -f FILE | --instancetype T [--preference P])``: where the VM's
virt-launcher pod can run now, and why not elsewhere.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Show which nodes could run a VirtualMachine now, as the scheduler would decide, and why the others cannot.

The VM's virt-launcher pod is predicted as KubeVirt's virt-controller renders it (its requests with the memory
overhead, nodeSelector, node affinity and tolerations, from the KubeVirt CR's configuration) and placed as
kube-scheduler's filters place it: NodeUnschedulable, TaintToleration, NodeAffinity and nodeSelector (the labels
virt-handler writes: kubevirt.io/schedulable, cpumanager, machine types, CPU models and features, SEV,
architecture), and NodeResourcesFit (allocatable minus what the node's running pods request, pod overhead,
hugepages, device-plugin resources, the pod count). It names the nodes that fit with what would be left on each;
when none fits it prints the scheduler's own line (0/N nodes are available: ...) and a hint. A ResourceQuota of
the namespace that would refuse the launcher pod is reported with the API server's message. Exits 1 when the VM
would not run now; a cluster without nodes cannot say (a warning, exit 0).

\b
Examples:
  kubectl instancetype fits vm/my-vm
  kubectl instancetype fits --instancetype u1.large --preference fedora
  kubectl instancetype fits -f vm.yaml -o json
  kubectl instancetype fits --instancetype cx1.2xlarge -o jsonpath='{.items[*].fits}'"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("fits", help=HELP, short_help="Show where a VirtualMachine could run now.")(
        options.command(FitsOptions, run)
    )


@options.dataclass
class FitsOptions:
    """Place the VM's launcher pod on the nodes and print where it fits."""

    target: options.VMTarget = None
    filename: Annotated[
        Optional[str],
        options.file_option("VirtualMachine manifests (YAML or JSON, one or more documents); - reads stdin."),
    ] = None
    instancetype: Annotated[
        Optional[str],
        options.reference_option(
            "--instancetype",
            "A VM of this instance type (a cluster instance type, or virtualmachineinstancetype/NAME).",
        ),
    ] = None
    preference: Annotated[
        Optional[str], options.reference_option("--preference", "With --instancetype: the VM's preference.")
    ] = None
    output: options.ReportOutput = ""
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)
    name: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        """Exactly one of vm/NAME, -f and --instancetype; --preference only with --instancetype."""
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        given = [
            flag
            for flag, value in (("vm/NAME", self.target), ("-f", self.filename), ("--instancetype", self.instancetype))
            if value
        ]
        if len(given) != 1:
            raise options.UsageError("name one of vm/NAME, -f FILE or --instancetype TYPE")
        if self.preference and not self.instancetype:
            raise options.UsageError("--preference goes with --instancetype (a VM names its own preference)")
        if self.target:
            self.name = options.vm_target(self.target, "fits")


def run(env, opts: FitsOptions, session) -> None:
    """Place the pods; print; exit 1 when a VM would not run."""
    from ..errors import PluginError
    from ..output import messages
    from ..output import placement as printer
    from ..usecases.placement import UNKNOWN_NO_NODES, FitsRequest, fits

    report = fits(
        session,
        FitsRequest(
            vm=opts.name,
            file=opts.filename or "",
            instancetype=opts.instancetype or "",
            preference=opts.preference or "",
            stdin=env.stdin,
        ),
    )
    for warning in report.warnings:
        messages.warn(env, warning)
    if any(p.unknown for p in report.placements):
        messages.warn(env, UNKNOWN_NO_NODES)
    if opts.output:
        printer.print_document(env, opts.output, printer.fits_document(report))
    else:
        env.stdout.write(printer.render_fits(report))
    refused = [p.subject for p in report.placements if p.runs is False]
    if refused:
        raise PluginError(f"{', '.join(refused)} would not run now (see above)")
