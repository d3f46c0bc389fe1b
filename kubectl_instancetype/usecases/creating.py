"""Creating one object on the cluster, checked first where a check applies.

The object is validated locally the way the API server would reject it (names, namespaces) before any
request, so that a mistake costs no round trip and reads the same; then pre-flight (for VirtualMachines),
then one POST (``dryRun=All`` for ``--dry-run=server``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource


def check_object_names(manifest: dict[str, Any], resource: Resource, namespace: str | None) -> None:
    """Refuse a name or namespace the API server would refuse, with the server's own message."""
    from ..kube.names import invalid_object_messages

    problems = invalid_object_messages(manifest, resource, namespace)
    if problems:
        raise UsageError(problems)


def create_object(
    client: Client,
    resource: Resource,
    manifest: dict[str, Any],
    namespace: str | None,
    *,
    server_dry_run: bool,
) -> dict[str, Any]:
    """Check the names of ``manifest`` and create it; return the server's answer (the object as stored, or as
    it would be with ``server_dry_run``)."""
    check_object_names(manifest, resource, namespace)
    return client.create(resource, manifest, namespace, dry_run=server_dry_run)


def create_vm(
    client: Client,
    manifest: dict[str, Any],
    namespace: str,
    *,
    server_dry_run: bool,
    checks: bool = True,
    resolve_inference: bool = False,
    report: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Create a VirtualMachine (``server_dry_run``: with ``dryRun=All``); KubeVirt's webhooks give the verdict.

    The pre-flight (unless ``checks`` is off) runs first with GETs only: it reports what inference resolves to
    and which references do not exist yet, and when the server denies the VM it explains the denial
    (:class:`~.preflight.AdmissionDenied`). The server's answer is never second-guessed: a VM the pre-flight
    would deny is still sent, so that the verdict is KubeVirt's own. ``resolve_inference`` sends the VM with
    the matchers inference resolved to, instead of leaving inference to the server.
    """
    from ..errors import APIError, ForbiddenError
    from ..kube.resources import VIRTUAL_MACHINES
    from .inference import InferenceForbidden
    from .preflight import AdmissionDenied, check_vm, explain, is_admission_denial, report_notes

    check_object_names(manifest, VIRTUAL_MACHINES, namespace)
    verdict = None
    if checks:
        try:
            verdict = check_vm(client, manifest, namespace)
        except (ForbiddenError, InferenceForbidden) as exc:
            # KubeVirt reads with its own service account: the user's RBAC only limits what can be checked here
            if report is not None:
                report(f"Warning: pre-flight skipped: {exc.message}")
        else:
            report_notes(verdict, report)
            if resolve_inference and verdict.denial is None:
                manifest = _without_namespace_added(verdict.vm, manifest)
    try:
        return client.create(VIRTUAL_MACHINES, manifest, namespace, dry_run=server_dry_run)
    except APIError as exc:
        if not is_admission_denial(exc):
            raise
        raise AdmissionDenied(exc, explain(verdict, exc.message)) from None


def _without_namespace_added(resolved: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """Inference ran with the target namespace set; keep metadata as the user's manifest had it."""
    return {**resolved, "metadata": original.get("metadata") or {}}
