"""``kubectl instancetype revisions vm/NAME``: the ControllerRevisions a VM's instance type and preference use.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Show which instance type and preference revision a VirtualMachine uses, and whether the live object
changed since.

KubeVirt stores the instance type and preference a VM started with in ControllerRevisions: the matcher's
revisionName when set (KubeVirt v1.4 and older write it; users pin one), else status.instancetypeRef /
status.preferenceRef (v1.5+), which counts only while it was stored for the matcher's current name. For each
matcher this prints the revision, the generation of the object it holds and the live object's generation;
below the table, notes saying in words what a "-", "not found" or stale reference means (no revision stored
yet; a status reference stored for the name the matcher had before a switch, which KubeVirt ignores), then a unified diff of the stored spec against the live one for every object that changed.

Then every ControllerRevision the VM owns (its owner references), oldest first: the copies of each instance
type and preference it has used (KubeVirt keeps the old ones after a switch) and the VM's spec at its last
start (revision-start-vm-UID-GENERATION, holding the VM), with CURRENT naming the reference that uses it
(instancetype, preference, or vmi: the VMI's status.virtualMachineRevisionName). Without vm/NAME, the revisions of every VM in the namespace (-A: in every
namespace, with a NAMESPACE column first, as kubectl prints one).

\b
Examples:
  kubectl instancetype revisions vm/my-vm
  kubectl instancetype revisions vm/my-vm -n prod
  kubectl instancetype revisions -A
  kubectl instancetype revisions vm/my-vm -o jsonpath='{.items[*].revision}'"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("revisions", help=HELP, short_help="Show the ControllerRevisions a VirtualMachine uses.")(
        options.command(RevisionsOptions, run)
    )


@options.dataclass
class RevisionsOptions:
    """Print a table of the VM's matchers and their revisions, then the spec diffs of changed objects."""

    target: Annotated[Optional[str], options.vm_argument("A stored VirtualMachine (default: every VM).")] = None
    all_namespaces: Annotated[bool, options.all_namespaces_option("The VMs of every namespace (without vm/NAME).")] = (
        False
    )
    output: Annotated[
        str,
        options.output_option(
            help="yaml, json or a kubectl template (jsonpath=..., go-template=..., custom-columns=...): the rows as data."
        ),
    ] = ""
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)
    name: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        """The argument names a VirtualMachine."""
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        if self.target is None:
            return
        if self.all_namespaces:  # kubectl get's words for a name with -A
            raise options.UsageError("a resource cannot be retrieved by name across all namespaces")
        self.name = options.vm_target(self.target, "revisions")


def run(env, opts: RevisionsOptions, session) -> None:
    """Read the revisions and print them."""
    from ..output import messages
    from ..output import revisions as printer
    from ..usecases.revisions import AllRevisions, revisions

    result = revisions(session, opts.name, opts.all_namespaces)
    for warning in result.warnings:
        messages.warn(env, warning)
    if isinstance(result, AllRevisions):
        printer.print_all_revisions(env, opts.output, result)
    else:
        printer.print_revisions(env, opts.output, result, session.namespace)
