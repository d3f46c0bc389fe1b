"""``kubectl instancetype capacity [--instancetype T ...] [--preference P] [-l SELECTOR]``: how many more VMs of
each instance type the nodes take now.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Show how many more VirtualMachines of each instance type the cluster's nodes could run now.

For each instance type (every cluster instance type by default, -l narrows them by label) the VM's
virt-launcher pod is predicted as virt-controller renders it, and every node is filled with such pods as
kube-scheduler's filters allow: COUNT is the sum over the nodes of how many fit on each (for identical pods this
does not depend on the scheduler's scoring), LIMITED BY what runs out first on most nodes (cpu, memory,
hugepages-*, a device resource, or pods for the pod count; a filter's reason when no node passes the others),
NODES how many nodes could take at least one. Nodes and pods are read once for all types. A cluster without
nodes cannot say (a warning; COUNT unknown).

\b
Examples:
  kubectl instancetype capacity
  kubectl instancetype capacity --instancetype u1.large --instancetype cx1.2xlarge --preference fedora
  kubectl instancetype capacity -l instancetype.kubevirt.io/class=general.purpose
  kubectl instancetype capacity -o json"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("capacity", help=HELP, short_help="Show how many more VMs of each instance type fit now.")(
        options.command(CapacityOptions, run)
    )


@options.dataclass
class CapacityOptions:
    """Fill the nodes with each type's launcher pods and print the counts."""

    instancetype: Annotated[
        Optional[list[str]],
        options.text_option(
            "--instancetype",
            metavar="NAME",
            help="A cluster instance type to count (repeat for several; default: all of them).",
        ),
    ] = None
    preference: Annotated[
        Optional[str], options.reference_option("--preference", "The preference of the VMs counted.")
    ] = None
    selector: Annotated[
        Optional[str],
        options.path_option(
            "-l",
            "--selector",
            metavar="SELECTOR",
            help="Only the cluster instance types with these labels (a label selector).",
        ),
    ] = None
    output: options.ReportOutput = ""
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)

    def validate(self) -> None:
        """-o is a report format; -l parses as a label selector; -l and --instancetype exclude each other."""
        from ..golang.labels import LabelSelectorError, parse
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        if self.selector is not None:
            if self.instancetype:
                raise options.UsageError("-l selects among all instance types; --instancetype names them: not both")
            try:
                parse(self.selector)
            except LabelSelectorError as exc:
                raise options.UsageError(str(exc)) from None


def run(env, opts: CapacityOptions, session) -> None:
    """Count and print."""
    from ..output import messages
    from ..output import placement as printer
    from ..usecases.placement import UNKNOWN_NO_NODES, CapacityRequest, capacity

    report = capacity(
        session,
        CapacityRequest(
            instancetypes=tuple(opts.instancetype or ()),
            preference=opts.preference or "",
            selector=opts.selector or "",
        ),
    )
    for warning in report.warnings:
        messages.warn(env, warning)
    if report.unknown:
        messages.warn(env, UNKNOWN_NO_NODES)
    if opts.output:
        printer.print_document(env, opts.output, printer.capacity_document(report))
    elif not report.items:
        messages.info(env, "No instance types found")
    else:
        env.stdout.write(printer.render_capacity(report))
