"""``kubectl instancetype doctor [-n NS | -A]``: what breaks or wastes the ControllerRevisions behind VMs.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated

import typer

from . import options

HELP = """Find what breaks VirtualMachines' instance types and preferences over time, with a severity and what to
do for each finding.

Checked, on the VMs and ControllerRevisions of the namespace (-A: of every namespace):

\b
  error    a VM names a ControllerRevision that does not exist (spec.*.revisionName or status.*Ref): KubeVirt
           cannot start or change it; doctor prints the kubectl patch that clears the reference so that
           virt-controller stores a new copy
  error    a revision in use holds an instance type or preference in an API version the cluster's CRD no
           longer serves (warning when no VM uses it)
  warning  a VM's instance type or preference changed since its revision was stored (drift, as revisions
           shows it), or no longer exists
  warning  a VM uses an instance type or preference labelled instancetype.kubevirt.io/deprecated=true
  info     revisions owned by no existing VM and named by none (orphans), with the delete command
  info     revisions holding the same copy of the same object (KubeVirt stores one per VM)

What RBAC forbids is a warning and the checks needing it are skipped; doctor then says it could not check
everything. Exits 1 when any error is found.

\b
Examples:
  kubectl instancetype doctor
  kubectl instancetype doctor -A
  kubectl instancetype doctor -n prod -o yaml"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("doctor", help=HELP, short_help="Find broken, stale and orphaned instance type revisions.")(
        options.command(DoctorOptions, run)
    )


@options.dataclass
class DoctorOptions:
    """Check the scope and print the findings."""

    all_namespaces: Annotated[
        bool, options.all_namespaces_option("Check the VMs and revisions of every namespace.")
    ] = False
    output: options.FindingsOutput = ""
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)

    def validate(self) -> None:
        """-o is a document format."""
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))


def run(env, opts: DoctorOptions, session) -> None:
    """Check, print, and fail when an error-severity finding exists."""
    from ..errors import PluginError
    from ..instancetype.doctor import ERROR
    from ..output import doctor as printer
    from ..output import messages
    from ..usecases.doctor import doctor

    report = doctor(session, opts.all_namespaces)
    for warning in report.warnings:
        messages.warn(env, warning)
    printer.print_report(env, opts.output, report)
    errors = sum(1 for finding in report.findings if finding.severity == ERROR)
    if errors:
        raise PluginError(f"{errors} error(s) found: the VMs named cannot start or change until fixed (see WHAT TO DO)")
