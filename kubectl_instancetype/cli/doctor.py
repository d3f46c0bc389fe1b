"""``kubectl instancetype doctor [-n NS | -A]``: what breaks or wastes the ControllerRevisions behind VMs.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated

import typer

from . import flagtable, options

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

  warning  revisions holding an object in an API version the CRD marks deprecated, and CRDs whose
           status.storedVersions still lists one (what the next KubeVirt may stop serving)

What RBAC forbids is one warning and the checks needing it are skipped; doctor then says it could not check
everything. Exits 1 when any error is found.

--fix makes the two changes that are safe and need no choice, each re-checked on a fresh read just before it
is written, and prints each change: it clears a VM's reference to a missing revision (when the instance type
or preference it names exists, so that virt-controller stores a new copy), and deletes orphaned revisions
(with preconditions on their uid and resourceVersion). Drift, deprecated objects and API versions are never
changed. --dry-run=client re-checks and writes nothing; server sends each write with dryRun=All. With --fix,
doctor exits 1 while an error remains.

\b
Examples:
  kubectl instancetype doctor
  kubectl instancetype doctor -A
  kubectl instancetype doctor -n prod -o yaml
  kubectl instancetype doctor -n prod --fix --dry-run=client
  kubectl instancetype doctor -A --all-contexts"""


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
    fix: Annotated[
        bool,
        options.bool_option(
            "--fix",
            help="Clear VMs' references to missing revisions and delete orphaned revisions; print each change.",
        ),
    ] = False
    dry_run: Annotated[
        str,
        options.path_option(
            "--dry-run",
            metavar="[=none|client|server]",
            help='With --fix: "client": re-check each change and write nothing; "server": send each write with '
            'dryRun=All; "none" (default): write. A bare --dry-run means client.',
        ),
    ] = "none"
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)

    def validate(self) -> None:
        """-o is a document format; --fix prints changes, writes one context at a time; --dry-run needs --fix."""
        from ..errors import UsageError
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        self.dry_run = flagtable.check_dry_run(self.dry_run)
        if self.dry_run != "none" and not self.fix:
            raise UsageError("--dry-run goes with --fix: doctor alone writes nothing")
        if self.fix and self.output:
            raise UsageError("--fix prints the changes it makes: it cannot go with -o")
        if self.fix and self.connection.several:
            raise UsageError("--fix writes: run it on one context at a time (--context NAME)")


def optional_value_flags() -> dict[str, str]:
    """A bare --dry-run means client, as kubectl's."""
    return dict(flagtable.OPTIONAL_VALUE_FLAGS)


def run(env, opts: DoctorOptions, session) -> None:
    """Check (and with --fix fix), print, and fail while an error-severity finding remains."""
    from ..errors import PluginError
    from ..output import doctor as printer
    from ..usecases.doctor import DoctorRequest, doctor

    request = DoctorRequest(
        all_namespaces=opts.all_namespaces,
        fix=opts.fix,
        dry_run=opts.dry_run,
        changed=lambda change: printer.print_change(env, change, opts.dry_run),
    )
    report = doctor(session, request)
    if opts.fix:
        printer.print_fix_summary(env, report)
    else:
        printer.print_report(env, opts.output, report)
    errors = len(report.unfixed_errors)
    if errors:
        raise PluginError(
            f"{errors} error(s) found: the VMs named cannot start or change until fixed (see WHAT TO DO)"
            if not opts.fix
            else f"{errors} error(s) remain: the VMs named cannot start or change until fixed (listed above)"
        )
