"""Creating one object on the cluster, checked first where a check applies (``create vm|instancetype|preference``,
``derive``).

The object is validated locally the way the API server would reject it (names, namespaces) before any
request, so that a mistake costs no round trip and reads the same; then pre-flight (for VirtualMachines),
then one POST (``dryRun=All`` for ``--dry-run=server``). With ``--dry-run=client`` nothing is sent; a
VirtualMachine is still checked against the cluster when the cluster answers at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..records import dataclass

if TYPE_CHECKING:
    from ..instancetype.createvm import VMOptions
    from ..kube.resources import Resource
    from ..kube.session import Session

# --dry-run=client checks against the cluster only when it answers at once: printing must not wait on it.
CLIENT_DRY_RUN_TIMEOUT = 5.0


@dataclass
class Created:
    """The object as the server stored it (or would, ``dry_run="server"``), or as built (``dry_run="client"``),
    and its resource."""

    obj: dict[str, Any]
    resource: Resource
    dry_run: str


def check_object_names(manifest: dict[str, Any], resource: Resource, namespace: str | None) -> None:
    """Refuse a name or namespace the API server would refuse, with the server's own message."""
    from ..kube.names import invalid_object_messages

    problems = invalid_object_messages(manifest, resource, namespace)
    if problems:
        raise UsageError(problems)


def create_object(
    session: Session | None, resource: Resource, manifest: dict[str, Any], namespace: str | None, *, dry_run: str
) -> Created:
    """Check the names of ``manifest`` and create it in ``namespace`` (None: cluster-scoped); with
    ``dry_run="client"`` send nothing and check nothing, as virtctl prints what it built (``session`` may then
    be None)."""
    if dry_run == "client" or session is None:
        return Created(manifest, resource, "client")
    check_object_names(manifest, resource, namespace)
    answer = session.client().create(resource, manifest, namespace, dry_run=dry_run == "server")
    return Created(answer, resource, dry_run)


@dataclass(frozen=True)
class VMRequest:
    """``create vm``: virtctl's flags (parsed into ``vm``), how the VM is sent (``dry_run``: none, server or
    client), and what is checked or resolved first: the pre-flight (``checks``), inference written into the VM
    (``resolve_inference``), the defaults of the boot disk's image (``infer_from_image``; the volume per
    matcher is ``vm``'s --infer-instancetype-from/--infer-preference-from). ``random_suffix``
    and ``read_file`` are virtctl's random name parts and --password-file's reader (tests hand in their own)."""

    vm: VMOptions
    dry_run: str = "none"
    checks: bool = True
    resolve_inference: bool = False
    infer_from_image: bool = False
    insecure_registry: bool = False
    random_suffix: Callable[[int], str] | None = None
    read_file: Callable[[str], str] | None = None


def create_vm_from_flags(
    session: Session, request: VMRequest, *, report: Callable[[str], None] | None = None
) -> Created:
    """``create vm``: build the VirtualMachine exactly as virtctl would (its warnings go to ``report`` as they
    happen), write in the image's defaults with ``infer_from_image``, then check and create it
    (:func:`create_vm`)."""
    from ..instancetype.createvm import build_vm
    from ..records import replace

    # -n comes from the Session alone (virtctl writes metadata.namespace only when it was given)
    vm = replace(request.vm, namespace=session.namespace_flag)
    manifest, _ = build_vm(vm, random_suffix=request.random_suffix, read_file=request.read_file, warn=report)
    if request.infer_from_image:
        from .infer_from_image import apply_image_defaults

        manifest = apply_image_defaults(
            session,
            manifest,
            from_volumes={
                matcher: volume
                for matcher, volume in (
                    ("instancetype", vm.infer_instancetype_from),
                    ("preference", vm.infer_preference_from),
                )
                if volume
            },
            insecure=request.insecure_registry,
            report=report,
        )
    return create_vm(
        session,
        manifest,
        dry_run=request.dry_run,
        checks=request.checks,
        resolve_inference=request.resolve_inference,
        report=report,
    )


def create_vm(
    session: Session,
    manifest: dict[str, Any],
    *,
    dry_run: str,
    checks: bool = True,
    resolve_inference: bool = False,
    report: Callable[[str], None] | None = None,
) -> Created:
    """Create a VirtualMachine in the session's namespace (``dry_run="server"``: with ``dryRun=All``); KubeVirt's
    webhooks give the verdict.

    The pre-flight (unless ``checks`` is off) runs first with GETs only: it reports what inference resolves to
    and which references do not exist yet, and when the server denies the VM it explains the denial
    (:class:`~.preflight.AdmissionDenied`). The server's answer is never second-guessed: a VM the pre-flight
    would deny is still sent, so that the verdict is KubeVirt's own. ``resolve_inference`` sends the VM with
    the matchers inference resolved to, instead of leaving inference to the server. ``dry_run="client"`` sends
    nothing: see :func:`client_dry_run_preflight`.
    """
    from ..kube.resources import VIRTUAL_MACHINES

    if dry_run == "client":
        if checks:
            manifest = client_dry_run_preflight(session, manifest, resolve_inference=resolve_inference, report=report)
        return Created(manifest, VIRTUAL_MACHINES, dry_run)
    # not before: a client dry run without checks (virtctl's create vm) needs neither the pre-flight nor inference
    from ..errors import APIError, ForbiddenError
    from .infer_resolve import InferenceForbidden
    from .preflight import AdmissionDenied, check_vm, explain, is_admission_denial, report_notes

    namespace = session.namespace
    check_object_names(manifest, VIRTUAL_MACHINES, namespace)
    client = session.client()
    verdict = None
    if checks:
        try:
            verdict = check_vm(session, manifest, namespace)
        except (ForbiddenError, InferenceForbidden) as exc:
            # KubeVirt reads with its own service account: the user's RBAC only limits what can be checked here
            if report is not None:
                report(f"Warning: pre-flight skipped: {exc.message}")
        else:
            report_notes(verdict, report)
            if resolve_inference and verdict.denial is None:
                manifest = _without_namespace_added(verdict.vm, manifest)
    try:
        answer = client.create(VIRTUAL_MACHINES, manifest, namespace, dry_run=dry_run == "server")
    except APIError as exc:
        if not is_admission_denial(exc):
            raise
        raise AdmissionDenied(exc, explain(verdict, exc.message, session)) from None
    if checks and report is not None:
        from .placement import fit_warning

        # the instance type and preference the pre-flight read are not read again
        line = fit_warning(session, answer, namespace, verdict.fetched if verdict is not None else ())
        if line:
            report(f"Warning: {line}")
    return Created(answer, VIRTUAL_MACHINES, dry_run)


def client_dry_run_preflight(
    session: Session,
    manifest: dict[str, Any],
    *,
    resolve_inference: bool = False,
    report: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """``--dry-run=client``'s policy: nothing is sent, so the pre-flight stands in for KubeVirt's webhooks,
    reading (GET only; a SubjectAccessReview when an inference chain reaches a VolumeSnapshot) the inference
    chain and the referenced types, within :data:`CLIENT_DRY_RUN_TIMEOUT` unless ``--request-timeout`` says
    otherwise. A cluster that cannot be reached (or read) is no failure here; what admission would refuse is,
    in the words the server would use (:class:`~.preflight.AdmissionDenied`). A missing reference is a warning,
    as KubeVirt admits the VM. Returns the manifest to print (inference resolved with ``resolve_inference``)."""
    from ..errors import APIError, ConfigurationError, TransportError
    from ..kube.resources import VIRTUAL_MACHINES
    from .infer_resolve import InferenceForbidden
    from .preflight import AdmissionDenied, check_vm, explain, report_notes

    say = report or (lambda line: None)
    probe = session if session.options.request_timeout else session.with_request_timeout(CLIENT_DRY_RUN_TIMEOUT)
    try:
        with probe:
            target = probe.namespace
            check_object_names(manifest, VIRTUAL_MACHINES, target)
            verdict = check_vm(probe, manifest, target)
            hint = explain(verdict, verdict.denial.status_message, probe) if verdict.denial is not None else ""
    except InferenceForbidden as exc:
        say(f"Warning: pre-flight skipped: {exc.message}")
        return manifest
    except (ConfigurationError, TransportError, APIError) as exc:
        if session.verbosity:
            say(f"pre-flight skipped: {exc.render()}")
        return manifest
    report_notes(verdict, report)
    if verdict.denial is not None:
        raise AdmissionDenied(verdict.denial.as_api_error(), hint)
    if resolve_inference:
        return _without_namespace_added(verdict.vm, manifest)
    return manifest


def _without_namespace_added(resolved: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """Inference ran with the target namespace set; keep metadata as the user's manifest had it."""
    return {**resolved, "metadata": original.get("metadata") or {}}
