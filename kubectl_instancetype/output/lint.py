"""How ``lint`` prints: the findings table, the fixed objects, the data document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..env import Environment
    from ..instancetype.lint import Finding
    from ..usecases.linting import LintReport


def _printable(text: str) -> str:
    """Cluster data never reaches a terminal as control characters."""
    from .terminal import escape

    return escape(text)


def describe(finding: Finding) -> str:
    """``kind/name spec.field: message``."""
    where = f" (namespace {finding.namespace})" if finding.namespace else ""
    return _printable(f"{finding.target}{where} {finding.path}: {finding.message}")


def render_findings(findings: list[Finding]) -> str:
    """One row per finding."""
    from .table import render_table

    rows = [
        (
            _printable(finding.target),
            finding.path,
            finding.rule,
            _printable(finding.message),
            _printable(finding.replacement or "-"),
        )
        for finding in findings
    ]
    return render_table(("OBJECT", "FIELD", "RULE", "PROBLEM", "REPLACEMENT"), rows)


def render_fixed(objects: list[dict[str, Any]]) -> str:
    """The corrected objects as YAML documents."""
    from ..golang.goyaml import dump

    return "---\n".join(dump(obj) for obj in objects)


def document(report: LintReport) -> dict[str, Any]:
    """The findings as data."""
    return {
        "apiVersion": "kubectl-instancetype/v1",
        "kind": "LintReport",
        "checked": len(report.objects),
        "candidatesFrom": report.candidates_from,
        "findings": [
            {
                "kind": finding.kind,
                "name": finding.name,
                "namespace": finding.namespace or None,
                "field": finding.path,
                "rule": finding.rule,
                "message": finding.message,
                "replacement": finding.replacement or None,
                "fixable": finding.fixable,
            }
            for finding in report.findings
        ],
    }


def print_document(env: Environment, output: str, data: dict[str, Any]) -> None:
    """``-o json|yaml`` or a template (:func:`.printers.print_document`)."""
    from .printers import print_document as print_data

    print_data(env, output, data)
