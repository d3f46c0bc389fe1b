"""How ``doctor`` prints: the findings table (SEVERITY, OBJECT, FINDING, WHAT TO DO; NAMESPACE first with -A),
or the findings as data (``-o json|yaml`` or a template)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..env import Environment
    from ..usecases.doctor import DoctorReport

HEADERS = ("SEVERITY", "OBJECT", "FINDING", "WHAT TO DO")


def document(report: DoctorReport) -> dict[str, Any]:
    """The findings as data; ``complete`` is false when something could not be read (``skipped`` says what)."""
    return {
        "apiVersion": "kubectl-instancetype/v1",
        "kind": "DoctorReport",
        "namespace": report.namespace,
        "checkedVirtualMachines": report.checked_vms,
        "checkedControllerRevisions": report.checked_revisions,
        "complete": not report.warnings,
        "warnings": list(report.warnings),
        "skipped": list(report.skipped),
        "items": [
            {
                "severity": f.severity,
                "check": f.check,
                "namespace": f.namespace or None,
                "object": f.object,
                "finding": f.finding,
                "whatToDo": f.action,
            }
            for f in report.findings
        ],
    }


def print_report(env: Environment, output: str, report: DoctorReport) -> None:
    """The table, or the document; "no problems found" only when everything was read."""
    from . import messages

    if output:
        from .printers import print_document

        print_document(env, output, document(report))
        return
    if report.findings:
        from .table import render_table
        from .terminal import escape

        every = report.namespace is None
        headers = ("NAMESPACE", *HEADERS) if every else HEADERS
        rows = [
            ((f.namespace or "-",) if every else ())
            + (f.severity, escape(f.object), escape(f.finding), escape(f.action))
            for f in report.findings
        ]
        env.stdout.write(render_table(headers, rows))
    scope = "every namespace" if report.namespace is None else f"namespace {report.namespace}"
    checked = f"{report.checked_vms} VirtualMachine(s) and {report.checked_revisions} ControllerRevision(s) in {scope}"
    if report.warnings:
        incomplete(env, report)
    elif not report.findings:
        messages.info(env, f"{checked} checked: no problems found")


def incomplete(env: Environment, report: DoctorReport) -> None:
    """The one warning line of a check that could not read everything: what it could not read, what it
    therefore did not check."""
    from . import messages

    skipped = f", so these were not checked: {'; '.join(report.skipped)}" if report.skipped else ""
    messages.warn(
        env,
        f"doctor could not check everything ({'; '.join(report.warnings)}){skipped}: findings may be missing",
    )


DRY_RUN_SUFFIX = {"client": " (dry run)", "server": " (server dry run)"}


def print_change(env: Environment, change: Any, dry_run: str) -> None:
    """One change ``--fix`` made, as kubectl words it (``NAME patched``, ``NAME deleted``), with what it changed."""
    from .terminal import escape

    where = f" -n {change.namespace}" if change.namespace else ""
    env.stdout.write(
        escape(f"{change.object}{where} {change.verb}{DRY_RUN_SUFFIX.get(dry_run, '')}: {change.detail}") + "\n"
    )
    env.stdout.flush()


def print_fix_summary(env: Environment, report: DoctorReport) -> None:
    """After ``--fix``: one warning per fixable finding left as it was (and why), one line for the findings
    --fix never changes, and the could-not-check warning."""
    from . import messages
    from .terminal import escape

    for left in report.not_fixed:
        finding = left.finding
        where = f" -n {finding.namespace}" if finding.namespace else ""
        messages.warn(env, escape(f"not fixed: {finding.object}{where} ({finding.check}): {left.reason}"))
    others = report.others
    if others:
        checks = sorted({f.check for f in others})
        messages.info(
            env,
            f"{len(others)} other finding(s) ({', '.join(checks)}) need a choice --fix does not make: "
            "kubectl instancetype doctor lists them with what to do",
        )
    if report.warnings:
        incomplete(env, report)
    elif not report.findings:
        scope = "every namespace" if report.namespace is None else f"namespace {report.namespace}"
        messages.info(env, f"no problems found in {scope}: nothing to fix")
