"""Pre-flight: what KubeVirt's admission will say about a VirtualMachine, and why.

The verdict that counts is KubeVirt's. When the VM is sent (``create vm``, ``--dry-run=server``) the API server
runs KubeVirt's webhooks and its answer is the verdict; the pre-flight then only reports what inference resolved
to, warns about references that do not exist yet, and explains a denial (:func:`explain`). When nothing is sent
(``--dry-run=client``) the pre-flight's :class:`Verdict` stands in for the webhooks, with the same words, read
from the cluster with GETs only:

1. the mutating webhook (``virtualmachines-mutator.kubevirt.io``): matcher validation, then ``inferFromVolume``
   resolved against the cluster exactly as KubeVirt resolves it (:mod:`..instancetype.infer`);
2. every referenced instance type and preference is fetched (concurrently, one GET each). KubeVirt v1.6+
   admits a VM whose types do not exist yet (its controller waits for them, condition ``FailedFindInstancetype``),
   so a missing one is a warning with a did-you-mean hint (one list request, on that path only), not a denial;
3. the validating webhook (``virtualmachine-validator.kubevirt.io``): spread divisibility, conflicts between
   the VM and the instance type, the preference's requirements (:func:`..instancetype.expand.admission_problems`).

Nothing is written here. KubeVirt's whole VM validation (devices, networks, feature gates, strict decoding) is
not modelled: a VM this pre-flight admits can still be denied for those, which only a request that reaches the
webhooks (``--dry-run=server``) can tell.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import APIError

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.session import Session

MUTATING_WEBHOOK = "virtualmachines-mutator.kubevirt.io"
VALIDATING_WEBHOOK = "virtualmachine-validator.kubevirt.io"
MAX_CAUSES = 10  # webhookutils.ToAdmissionResponse keeps ten causes and counts the rest
# KubeVirt v1.6+ admits a VM whose types do not exist (PR #14219); its controller waits for them
MISSING_NOTE = "a VirtualMachine naming it stays stopped until it exists"


@dataclass(frozen=True)
class Found:
    """The specs of the referenced objects that exist (None where the VM references none or it is missing)."""

    instancetype: dict[str, Any] | None = None
    preference: dict[str, Any] | None = None


@dataclass(frozen=True)
class References:
    """What :func:`check_matcher_types` read: the specs found, one message per reference that is missing, and the
    objects themselves (so that a later step, the fit check, does not read them again)."""

    found: Found
    missing: tuple[str, ...] = ()
    objects: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Cause:
    """One ``metav1.StatusCause`` of a denial."""

    field: str
    message: str


@dataclass(frozen=True)
class Denial:
    """What a KubeVirt webhook answers when it denies a VM: its name, HTTP code, reason and causes.

    ``status_message`` is the message of the ``Status`` the API server returns (``admission webhook "<name>"
    denied the request: <message>``, k8s.io/apiserver/pkg/admission/plugin/webhook/errors.ToStatusErr).
    """

    webhook: str
    message: str
    code: int = 422
    reason: str = "Invalid"
    causes: tuple[Cause, ...] = ()

    @property
    def status_message(self) -> str:
        from ..golang.strconv import go_quote  # apiserver webhook/errors statuserror.go: %q

        return f"admission webhook {go_quote(self.webhook)} denied the request: {self.message}"

    def as_api_error(self) -> APIError:
        """The error the plugin raises for this denial: the same one the server's answer becomes."""
        return APIError(
            self.code,
            self.status_message,
            self.reason,
            causes=[{"field": c.field, "message": c.message} for c in self.causes],
        )

    @classmethod
    def from_causes(cls, webhook: str, causes: list[Cause]) -> Denial:
        """``webhookutils.ToAdmissionResponse``: 422 Invalid, the causes' messages joined with ", " (ten at most)."""
        shown = causes[:MAX_CAUSES]
        message = ", ".join(c.message for c in shown)
        if len(causes) > MAX_CAUSES:
            message += f", and {len(causes) - MAX_CAUSES} more validation errors"
        return cls(webhook, message, 422, "Invalid", tuple(shown))


@dataclass
class Verdict:
    """The pre-flight's answer for one VM.

    ``vm`` is the VM as the mutating webhook's inference leaves it; ``found`` the specs its matchers resolve
    to; ``denial`` what KubeVirt's admission would deny it with (None: admitted); ``notes`` the lines to tell
    the user (what inference resolved to, what the server drops, references that do not exist).
    """

    vm: dict[str, Any]
    found: Found = field(default_factory=Found)
    denial: Denial | None = None
    notes: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    inference: Any = None  # the InferenceResult, when inference ran
    fetched: tuple[dict[str, Any], ...] = ()  # the instance type and preference objects read
    # which of admission's checks denies the VM (instancetype.expand.AdmissionCheck.check): what explains it
    check: str = ""

    @property
    def admitted(self) -> bool:
        return self.denial is None


def check_matcher_types(client: Client, manifest: dict[str, Any], namespace: str) -> References:
    """The instance type and preference ``manifest``'s matchers name, through :func:`.references.check_types`
    (namespaced kinds in ``namespace``): the specs found, and one message per missing object or unknown kind
    (KubeVirt ignores what its finders cannot find, an unknown kind included)."""
    from ..instancetype import kinds
    from ..instancetype.createvm import matcher_references
    from .references import MATCHER_FLAGS, TypeReference, check_types

    references: list[TypeReference] = []
    problems: list[str] = []
    wanted: list[str] = []
    for named in matcher_references(manifest):
        if named.kind is None:
            problems.append(kinds.unexpected_kind(named.key, named.written))
            continue
        wanted.append(named.key)
        references.append(TypeReference(named.kind, named.name, MATCHER_FLAGS[named.key]))
    checked = check_types(client, references, namespace)
    found = {key: obj.get("spec") or {} for key, obj in zip(wanted, checked.objects) if obj is not None}
    objects = tuple(
        {**obj, "kind": obj.get("kind") or reference.kind.kind}
        for reference, obj in zip(references, checked.objects)
        if obj is not None
    )
    missing = (*problems, *checked.missing)
    return References(Found(found.get("instancetype"), found.get("preference")), missing, objects)


def uses_inference(manifest: dict[str, Any]) -> bool:
    """True when a matcher of ``manifest`` asks for ``inferFromVolume``."""
    spec = manifest.get("spec") or {}
    return any(isinstance(spec.get(m), dict) and spec[m].get("inferFromVolume") for m in ("instancetype", "preference"))


def check_vm(session: Session, manifest: dict[str, Any], namespace: str) -> Verdict:
    """Run the pre-flight for ``manifest`` created in ``namespace`` (GETs only); never raises for a denial."""
    from ..instancetype.expand import admission_check
    from ..instancetype.infer import validate_matchers

    client = session.client()
    vm = manifest
    notes: list[str] = []
    problem = validate_matchers(manifest)
    if problem:
        return Verdict(manifest, denial=_matcher_denial(manifest))
    if uses_inference(manifest):
        from .infer_resolve import dropped_warnings, resolve_vm, resolved_lines

        result = resolve_vm(client, manifest, namespace)
        notes += [f"Inferred {line}" for line in resolved_lines(result)]
        notes += [f"Warning: {line}" for line in dropped_warnings(result)]
        if result.error:
            rejected = Denial(MUTATING_WEBHOOK, result.error, 400, "")
            return Verdict(result.vm, denial=rejected, notes=notes, inference=result)
        vm = result.vm
    references = check_matcher_types(client, vm, namespace)
    found, missing = references.found, list(references.missing)
    notes += [f"Warning: {line}: {MISSING_NOTE}" for line in missing]
    defaults = None
    if _requires_architecture(found.preference) and not _template_architecture(vm):
        from ..instancetype.expand import ClusterDefaults
        from .cluster_facts import default_architecture

        architecture = default_architecture(client)
        if architecture is None:
            notes.append(
                "Warning: the KubeVirt resource (its status.defaultArchitecture) cannot be read: the preference's "
                "architecture requirement is not checked here"
            )
        defaults = ClusterDefaults(architecture=architecture)
    checked = admission_check(vm, found.instancetype, found.preference, defaults=defaults, whole_vm=True)
    denial = None
    if checked.problems:
        denial = Denial.from_causes(VALIDATING_WEBHOOK, [Cause(p.path, p.error()) for p in checked.problems])
    return Verdict(vm, found, denial, notes, missing, fetched=references.objects, check=checked.check)


def _requires_architecture(preference: dict[str, Any] | None) -> bool:
    """True when the cluster's default architecture decides the preference's architecture requirement (the
    mutating webhook writes ``preferredArchitecture`` into the VM first)."""
    preference = preference or {}
    return bool((preference.get("requirements") or {}).get("architecture")) and not preference.get(
        "preferredArchitecture"
    )


def _template_architecture(vm: dict[str, Any]) -> str:
    return str((((vm.get("spec") or {}).get("template") or {}).get("spec") or {}).get("architecture") or "")


def _matcher_denial(vm: dict[str, Any]) -> Denial:
    """The mutating webhook's matcher validation as causes (field and message each), instance type first."""
    from ..instancetype.infer import validate_matchers

    for matcher, title in (("instancetype", "InstancetypeMatcher"), ("preference", "PreferenceMatcher")):
        value = (vm.get("spec") or {}).get(matcher)
        if value is None or not validate_matchers({"spec": {matcher: value}}):
            continue
        causes = []
        path = f"spec.{matcher}"
        name, kind, volume = (str(value.get(key) or "") for key in ("name", "kind", "inferFromVolume"))
        if not name and not volume:
            causes.append(Cause(path, f"Either Name or InferFromVolume should be provided within the {title}"))
        if volume and name:
            causes.append(Cause(f"{path}.name", "Name already set, should be cleared before setting inferFromVolume"))
        if volume and kind:
            causes.append(Cause(f"{path}.kind", "Kind already set, should be cleared before setting inferFromVolume"))
        policy = value.get("inferFromVolumeFailurePolicy")
        if policy is not None and policy not in ("Ignore", "Reject"):
            causes.append(
                Cause(
                    f"{path}.inferFromVolumeFailurePolicy", f"Invalid value '{policy}' for InferFromVolumeFailurePolicy"
                )
            )
        return Denial.from_causes(MUTATING_WEBHOOK, causes)
    raise AssertionError("no matcher failed validation")


class AdmissionDenied(APIError):
    """KubeVirt's admission denied the VirtualMachine (the server's answer, or the pre-flight's stand-in for it
    under ``--dry-run=client``); ``hint`` says what to change, when the pre-flight can tell."""

    def __init__(self, error: APIError, hint: str = ""):
        super().__init__(error.code, error.message, error.reason, error.kind, error.name, error.causes)
        self.hint = hint

    def render(self) -> str:
        text = super().render()
        if not self.hint:
            return text
        # a hint that starts with a space continues KubeVirt's sentence (" (what was read); what to do")
        return f"{text}{self.hint}" if self.hint.startswith(" ") else f"{text}; {self.hint}"


def is_admission_denial(error: APIError) -> bool:
    """True when ``error`` is a webhook's denial (not RBAC, not a missing resource, not a schema failure)."""
    return "admission webhook" in error.message and "denied the request" in error.message


def explain(verdict: Verdict | None, message: str, session: Session | None = None) -> str:
    """What to do about an admission denial, from what the pre-flight found ("" if nothing).

    When the pre-flight foresaw the denial, the hint follows its structured problems (the inference failure, the
    missing references, :attr:`Verdict.check`), never the words of the server's ``message``; only a denial the
    pre-flight did not foresee (or a pre-flight that could not run: ``verdict`` None) is recognised by
    ``message``. With ``session``, a requirements failure names the smallest instance types that satisfy the
    preference (``recommend``'s ranking: one list of the instance types, on that failure only)."""
    foreseen = verdict is not None and verdict.denial is not None
    inference = verdict.inference if verdict is not None else None
    if inference is not None and inference.error and (foreseen or inference.error in message):
        from .infer_resolve import explain_rejection

        # the volume, every object read and the label command that fixes it (" (...); label ...")
        return explain_rejection(inference)[len(inference.error) :]
    if verdict is not None and verdict.missing:
        # a name that does not exist explains more than what follows from its absence
        return "; ".join(verdict.missing)
    check = verdict.check if verdict is not None and foreseen else _check_of_message(message)
    spec = ((verdict.vm if verdict else None) or {}).get("spec") or {}
    instancetype = _matcher_text(spec.get("instancetype"), "instance type")
    preference = _matcher_text(spec.get("preference"), "preference")
    if check == "conflicts":
        return f"the {instancetype or 'instance type'} sets these fields: remove them from the VirtualMachine"
    if check == "spread":
        return (
            f"choose an instance type whose vCPU count the {preference or 'preference'}'s spread topology divides, "
            "or a preference that does not spread"
        )
    if check in ("cpu", "memory"):
        from .fitting import matcher_preference, requirements_hint

        used = matcher_preference({"spec": spec}, verdict.found.preference if verdict is not None else None)
        if used is None:
            return "choose an instance type that meets the preference's requirements"
        return requirements_hint(session, used)
    if check == "architecture":
        return "the VM must run on the architecture the preference requires: set spec.template.spec.architecture, or choose a preference for the VM's architecture"
    if check == "label":
        return "label the volume with kubectl instancetype label, or name the type with --instancetype/--preference"
    return ""


def _check_of_message(message: str) -> str:
    """Which check of admission a denial the pre-flight did not foresee comes from, by the server's words (the
    :class:`~..instancetype.expand.AdmissionCheck` names; ``label`` for inference's missing label)."""
    from ..instancetype.expand.conflicts import CONFLICTS_FORMAT
    from .fitting import is_requirements_failure

    if CONFLICTS_FORMAT.format("").split(" ", 3)[-1].strip() in message:  # "conflicts with selected instance type"
        return "conflicts"
    if "vCPUs provided by the instance type are not divisible" in message:
        return "spread"
    if is_requirements_failure(message):
        return "cpu"
    if "preference requires architecture" in message:
        return "architecture"
    if "label on the volume" in message:
        return "label"
    return ""


def _matcher_text(matcher: Any, what: str) -> str:
    if not isinstance(matcher, dict) or not matcher.get("name"):
        return ""
    kind = str(matcher.get("kind") or "")
    return f"{what} {kind.lower() + '/' if kind else ''}{matcher['name']}"


def report_notes(verdict: Verdict, report: Callable[[str], None] | None) -> None:
    """Hand every note of ``verdict`` to ``report``."""
    if report is not None:
        for line in verdict.notes:
            report(line)
