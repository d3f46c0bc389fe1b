"""``rightsize --print-rules``: rightsize's recording rules (:mod:`..instancetype.rightsize_rules`) as a
PrometheusRule in the session's namespace, or as a plain Prometheus rule file. Nothing is read or written: the admin
applies what is printed (``kubectl apply -f -``, or the rule file in ``rule_files:``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..kube.session import Session


def recording_rules(session: Session, form: str) -> dict[str, Any]:
    """The rules as ``form`` (``prometheusrule``, ``rulefile``) asks; a PrometheusRule goes in ``-n`` (else the
    context's namespace, else default)."""
    from ..instancetype.rightsize_rules import RuleFormat, document

    return document(RuleFormat(form, session.namespace if form == "prometheusrule" else ""))
