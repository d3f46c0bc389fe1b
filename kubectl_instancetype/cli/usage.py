"""``kubectl instancetype usage [TYPE/NAME] [--check-delete]``: who uses which instance type and preference.

Click's usage errors, which this module's name once meant, are :mod:`.click_usage_errors`. No
``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Show which VirtualMachines, VirtualMachinePools and VirtualMachineTemplates use each instance type and
preference, and the ControllerRevisions that hold copies of them.

A VM uses an object through its matcher, by name or through inferFromVolume; pools and templates (read when
the cluster serves them; a template's ${PARAMETER} takes the parameter's value) through the VM they describe.
For each VM the GENERATION column says whether the revision it runs holds the object's live generation or an
older one (switch --refresh moves it). Without TYPE/NAME, one row per object in scope with the counts and
the vCPUs and memory of the VMs (every pool replica) using each instance type.

--check-delete TYPE/NAME lists what deleting the object (or a controllerrevision/NAME) would break and exits
non-zero while anything still needs it: a VM without a stored copy stops with FailedFindInstancetype, a pool
cannot create replicas, a template cannot make VMs; a VM on a stored copy keeps running but cannot switch back
or refresh. Deleting a ControllerRevision a VM records sends the VM back to the live object. A cluster-scoped
object is looked for in every namespace, whatever -n says (each namespace on its own when RBAC refuses a list
across all of them); when a namespace or kind could not be read, the check gives no verdict and exits 1.

\b
Examples:
  kubectl instancetype usage -A
  kubectl instancetype usage virtualmachineclusterinstancetype/u1.small -A
  kubectl instancetype usage vmcf/u1.small --check-delete -A
  kubectl instancetype usage controllerrevision/my-vm-u1.small-v1beta1-0e1f-1 --check-delete
  kubectl instancetype usage -A -o yaml"""

KINDS = {**options.TYPE_SPELLINGS, "ControllerRevision": ("controllerrevision",)}


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("usage", help=HELP, short_help="Show who uses which instance type and preference.")(
        options.command(UsageOptions, run)
    )


@options.dataclass
class UsageOptions:
    """Read the cluster, then print the table, the details of one object, or the delete check."""

    target: options.TypeTarget = None
    all_namespaces: Annotated[
        bool, options.all_namespaces_option("Look at every namespace, not only the current one.")
    ] = False
    check_delete: Annotated[
        bool,
        options.bool_option(
            "--check-delete", help="List what deleting TYPE/NAME would break; exit 1 while anything needs it."
        ),
    ] = False
    output: options.ReportOutput = ""
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)
    chosen: Optional[tuple] = dataclasses.field(init=False, default=None)

    def validate(self) -> None:
        """TYPE/NAME is an instance type or preference kind (or a ControllerRevision with --check-delete)."""
        from ..errors import UsageError
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        self.chosen = options.type_target(self.target, "usage", KINDS) if self.target else None
        if self.check_delete and self.chosen is None:
            raise UsageError("--check-delete needs the TYPE/NAME it would delete")
        if self.chosen and self.chosen[0] == "ControllerRevision" and not self.check_delete:
            raise UsageError("controllerrevision/NAME goes with --check-delete; to see copies, name their object")


def run(env, opts: UsageOptions, session) -> None:
    """Read, print, and fail --check-delete while something needs the object."""
    from ..errors import PluginError
    from ..output import messages
    from ..output import usage as printer
    from ..usecases.usage import RevisionUsers, UsageRequest, usage

    kind, name = opts.chosen if opts.chosen else (None, "")
    request = UsageRequest(kind=kind, name=name, all_namespaces=opts.all_namespaces, check_delete=opts.check_delete)
    report = usage(session, request)
    if isinstance(report, RevisionUsers):
        env.stdout.write(printer.render_revision_check(report.name, report.users))
        if report.users:
            raise PluginError(
                f"controllerrevision/{report.name} is recorded by {len(report.users)} VM(s): deleting it sends them "
                "back to the live object (or stops them when that is gone)"
            )
        return
    only = report.only
    for warning in report.warnings:
        messages.warn(env, warning)
    if opts.output:
        printer.print_document(env, opts.output, printer.document(report))
    elif opts.check_delete and only is not None:
        env.stdout.write(printer.render_delete_check(report, only, complete=not report.unread))
    elif only is not None:
        env.stdout.write(printer.render_details(report, only))
    elif not report.targets:
        messages.info(env, "No instance types or preferences found")
        return
    else:
        env.stdout.write(printer.render_summary(report, opts.all_namespaces))
    if opts.check_delete and only is not None:
        blocking = [use for use in report.uses_of(only) if use.breaks]
        unread = f"; and {'; '.join(report.unread)} could not be read" if report.unread else ""
        if blocking:
            raise PluginError(
                f"{only} is still used by {len(blocking)} object(s) (listed above){unread}: delete or switch them first"
            )
        if report.unread:
            # "safe" needs every place a VM could name it: without them there is no verdict
            raise PluginError(
                f"cannot tell whether {only} can be deleted: {'; '.join(report.unread)} could not be read; "
                "run the check as a user who may list them"
            )
