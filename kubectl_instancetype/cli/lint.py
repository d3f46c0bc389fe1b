"""``kubectl instancetype lint [-f FILE | TYPE/NAME | --all] [--fix]``.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Find what in instance types and preferences is deprecated, will not survive the planned
instancetype.kubevirt.io/v1, or can never work, with the replacement for each.

Checked: the prefer* spellings of preferredCPUTopology (preferSockets -> sockets...), firmware.preferredUseEfi
and preferredUseSecureBoot (-> preferredEfi), preferSpreadSocketToCoreRatio (-> cpu.spreadOptions.ratio), an
instance type's launchSecurity (-> the preference's preferredLaunchSecurity, KubeVirt v1.9+), instance types no
VM can run with (maxSockets below the vCPUs, maxGuest below the memory, overcommitPercent with hugepages or out
of range), preferences whose preferredArchitecture contradicts requirements.architecture, and preferences no
instance type satisfies (the cluster's, or for -f the file's and the common-instancetypes catalog's).

With -f, lint also checks every object's fields against KubeVirt's schema (unknown fields are findings under
--validate=strict, the default; warn prints them, ignore drops them) and VirtualMachines against KubeVirt's
admission: the cluster's own verdict by a server-side dry run when the kubeconfig names a cluster that
answers (--offline: never), else the rules instance types and preferences touch and the whole-VM rules they
reach. A file with no instance type, preference or VirtualMachine is refused.

Exits 1 when anything is found. --fix prints the objects corrected (YAML, ready for kubectl apply -f -) and
exits 1 only while findings it cannot fix remain (they are listed on stderr). Only rewrites with the same
effect on every VM are made.

\b
Examples:
  kubectl instancetype lint -A
  kubectl instancetype lint virtualmachineclusterpreference/legacy
  kubectl instancetype lint -f my-preferences.yaml --fix > fixed.yaml"""

HEADERS = ("OBJECT", "FIELD", "RULE", "PROBLEM", "REPLACEMENT")


def optional_value_flags() -> dict:
    """A bare --validate means strict, as kubectl's."""
    return dict(options.VALIDATE_OPTIONAL_VALUE)


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("lint", help=HELP, short_help="Find deprecated and never-working instance type fields.")(
        options.command(LintOptions, run)
    )


@options.dataclass
class LintOptions:
    """Lint the chosen objects; print the findings, or the fixed objects."""

    target: options.TypeTarget = None
    filename: Annotated[
        Optional[str], options.file_option("Manifests to lint (YAML or JSON; a directory; - reads stdin).")
    ] = None
    everything: Annotated[
        bool, options.bool_option("--all", help="Every instance type and preference in scope (cluster and namespace).")
    ] = False
    all_namespaces: Annotated[
        bool, options.all_namespaces_option("The namespaced kinds of every namespace (alone: --all -A).")
    ] = False
    fix: Annotated[
        bool, options.bool_option("--fix", help="Print the objects with every fixable finding corrected.")
    ] = False
    output: options.FindingsOutput = ""
    checks: options.FileChecks = dataclasses.field(default_factory=options.FileChecks)
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)
    chosen: Optional[tuple] = dataclasses.field(init=False, default=None)

    def validate(self) -> None:
        """Exactly one source: -f, TYPE/NAME or --all."""
        from ..errors import UsageError
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        if self.all_namespaces and not (self.filename or self.target):
            self.everything = True  # kubectl's -A alone: every object, every namespace
        given = [bool(self.filename), bool(self.target), self.everything]
        if sum(given) != 1:
            raise UsageError("lint takes one of -f FILE, TYPE/NAME or --all")
        if self.fix and self.output:
            raise UsageError("--fix prints the corrected objects as YAML: it cannot go with -o")
        if self.all_namespaces and not self.everything:
            raise UsageError("-A lints the objects of every namespace: it cannot go with -f or TYPE/NAME")
        self.chosen = options.type_target(self.target, "lint") if self.target else None


def run(env, opts: LintOptions, session) -> None:
    """Lint, print, and fail while findings remain."""
    from ..errors import PluginError
    from ..output import lint as printer
    from ..output import messages
    from ..usecases.linting import LintRequest, lint

    kind, name = opts.chosen if opts.chosen else (None, None)
    request = LintRequest(
        filename=opts.filename,
        stdin=env.stdin,
        kind=kind,
        name=name,
        all_namespaces=opts.all_namespaces,
        fix=opts.fix,
        validation=opts.checks.validation,
        offline=opts.checks.offline,
        warn=lambda line: messages.warn(env, line),
    )
    report = lint(session, request)
    if report.note:
        messages.info(env, report.note)
    if opts.fix:
        env.stdout.write(printer.render_fixed(report.fixed))
        for finding in report.findings:
            if finding.fixable:
                messages.info(env, f"fixed {printer.describe(finding)}")
        for finding in report.unfixed:
            messages.warn(env, f"not fixed: {printer.describe(finding)}; {finding.replacement}")
        if report.unfixed:
            raise PluginError(f"{len(report.unfixed)} finding(s) need a change --fix cannot make (listed above)")
        return
    if opts.output:
        printer.print_document(env, opts.output, printer.document(report))
    elif report.findings:
        env.stdout.write(printer.render_findings(report.findings))
    else:
        messages.info(env, f"{len(report.objects)} object(s) checked: no findings")
    if report.findings:
        objects = len({(f.kind, f.namespace, f.name) for f in report.findings})
        fixable = sum(1 for f in report.findings if f.fixable)
        raise PluginError(
            f"{len(report.findings)} finding(s) in {objects} object(s); {fixable} can be fixed with --fix"
        )
