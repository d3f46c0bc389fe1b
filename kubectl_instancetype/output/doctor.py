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
        messages.warn(
            env,
            f"doctor could not check everything ({'; '.join(report.skipped) or 'see above'} not checked): "
            "findings may be missing",
        )
    elif not report.findings:
        messages.info(env, f"{checked} checked: no problems found")
