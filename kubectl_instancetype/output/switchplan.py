"""How ``switch`` shows its plan (before writing) and what the controller did (``--wait``): text for people,
``-o yaml|json`` documents for scripts."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..usecases.switching import SwitchOutcome, SwitchPlan

PLAN_HEADERS = ("FIELD", "NOW", "NEW", "WHEN")
_WHEN = {
    "live": "live",
    "restart": "after restart",
    "next start": "at next start",
    "retry": "retried by the controller",
    "waits": "not applied",
    "already live": "already on the VMI",
}


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)
    return _printable(text)


def _printable(text: str) -> str:
    """Cluster data never reaches a terminal as control characters."""
    from .terminal import escape

    return escape(text)


def render_plan(plan: SwitchPlan) -> str:
    """The plan as text: the VM's state and rollout strategy, the matchers, one row per changed field (with
    KubeVirt's message for each restart), and the VM's expected condition."""
    from .table import render_table

    live = plan.live
    state = "running" if live.running else "not running"
    lines = [
        f"virtualmachine.kubevirt.io/{plan.name} ({state}; rollout strategy {live.strategy}, "
        f"from {plan.strategy_source})"
    ]
    for matcher in plan.changes:
        lines.append(f"  {matcher.key}: {_printable(matcher.before)} -> {_printable(matcher.after)}")
    text = "\n".join(lines) + "\n"
    if not live.changes:
        text += "No field of the VM's template changes.\n"
    else:
        rows: list[tuple[str, str, str, str]] = []
        for change in live.changes:
            when = _WHEN.get(change.outcome, change.outcome)
            if change.outcome in ("restart", "retry", "waits") and change.message:
                when = f"{when}: {change.message}"
            elif change.outcome == "live" and change.message:
                when = f"{when} ({change.message})"
            rows.append((change.path, _cell(change.old), _cell(change.new), when))
        text += "\n" + render_table(PLAN_HEADERS, rows)
    text += "\n" + verdict(plan) + "\n"
    for note in plan.notes:
        text += f"Note: {_printable(note)}\n"
    return text


def verdict(plan: SwitchPlan) -> str:
    """One sentence: what the VM will carry."""
    live = plan.live
    if not live.running:
        return "The VM is not running: it gets the new values when it starts."
    if live.sync_error:
        failure = live.sync_error
        return f"The controller will report Failure ({failure.reason}): {failure.message}; it retries."
    if live.restart_required:
        return f'The VM will carry RestartRequired: "{live.restart_required}".'
    if live.hotplug:
        return f"No restart needed: hot-plug ({', '.join(live.hotplug)} on the VMI)."
    if live.changes:
        return "No restart needed."
    return "Nothing changes for the running guest."


def plan_document(plan: SwitchPlan) -> dict[str, Any]:
    """The plan as data (``-o yaml|json``)."""
    live = plan.live
    return {
        "apiVersion": "kubectl-instancetype/v1",
        "kind": "SwitchPlan",
        "virtualMachine": {"name": plan.name, "namespace": plan.namespace, "running": live.running},
        "rolloutStrategy": {"value": live.strategy, "from": plan.strategy_source},
        "matchers": [
            {"matcher": c.key, "from": c.before, "to": c.after, "clearsRevisionName": c.cleared_revision}
            for c in plan.changes
        ],
        "fields": [
            {"path": c.path, "now": c.old, "new": c.new, "when": c.outcome, "message": c.message} for c in live.changes
        ],
        "restartRequired": live.restart_required,
        "hotplugConditions": list(live.hotplug),
        "failure": (
            {"reason": live.sync_error.reason, "message": live.sync_error.message} if live.sync_error else None
        ),
        "notes": list(plan.notes),
    }


def render_outcome(plan: SwitchPlan, outcome: SwitchOutcome, timeout: str) -> str:
    """What ``--wait`` saw."""
    lines = []
    if outcome.timed_out:
        lines.append(f"timed out after {timeout} waiting for the controller; what it had done by then:")
    for key, revision in outcome.revisions.items():
        lines.append(f"{key} revision: controllerrevision/{_printable(revision)}")
    if outcome.restart_required is not None:
        lines.append(f'RestartRequired: "{_printable(outcome.restart_required)}"')
    elif plan.live.running:
        lines.append("RestartRequired: none")
    if outcome.failure:
        lines.append(f"Failure ({_printable(outcome.failure.reason)}): {_printable(outcome.failure.message)}")
    for change in outcome.vmi_changes:
        lines.append(f"VMI {change.path}: {_cell(change.before)} -> {_cell(change.after)}")
    for condition in outcome.vmi_conditions:
        detail = f" ({_printable(condition.detail)})" if condition.detail else ""
        lines.append(f"VMI condition {condition.type}={condition.status}{detail}")
    if not outcome.agrees:
        lines.append(f"The controller did not do what the plan said: {outcome.disagreement}")
    return "".join(line + "\n" for line in lines)


def outcome_document(outcome: SwitchOutcome) -> dict[str, Any]:
    """What ``--wait`` saw, as data."""
    return {
        "revisions": dict(outcome.revisions),
        "restartRequired": outcome.restart_required,
        "failure": (
            {"reason": outcome.failure.reason, "message": outcome.failure.message} if outcome.failure else None
        ),
        "vmiConditions": [{"type": c.type, "status": c.status, "detail": c.detail} for c in outcome.vmi_conditions],
        "vmiChanges": [{"path": c.path, "before": c.before, "after": c.after} for c in outcome.vmi_changes],
        "timedOut": outcome.timed_out,
        "agreesWithPlan": outcome.agrees,
    }
