"""KubeVirt's verdict on objects before anything is written: a server-side dry run (``dryRun=All``) of each.

Every command that reads instance types, preferences or VirtualMachines it does not write itself (``expand -f``,
``lint -f``, ``adopt``, ``convert``, and ``convert --apply`` before it writes) asks the API server what it would
say about each object, as ``create vm --dry-run=server`` does: the API server's strict decoding and schema
validation, then KubeVirt's mutating and validating webhooks run, and nothing is stored. The answer is KubeVirt's
own words (``Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the
request: ...``), with what to change when the words allow it (:func:`hint`).

"Reachable" means: the kubeconfig selects a context (or the in-cluster service account is there), checked without
any connection (:meth:`..kube.session.Session.why_no_cluster`), and the API server answers within the request
timeout (``--request-timeout``, else :data:`DRY_RUN_TIMEOUT`). Without a context nothing is attempted (the
offline path pays nothing); a server that does not answer, or RBAC that refuses the dry run, leaves the objects to
the offline checks, and :attr:`Verdicts.offline` says why in one line.

An object that already exists is judged as ``kubectl replace --dry-run=server`` judges it (a dry-run PUT over
the stored one, its ``resourceVersion`` taken): a dry-run POST would only say AlreadyExists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..instancetype.kinds import TYPE_KINDS

if TYPE_CHECKING:
    from ..errors import APIError
    from ..kube.session import Session

DRY_RUN_TIMEOUT = 5.0
# What the plugin checks itself when no cluster is asked (instancetype/admission.py and expand's checks)
OFFLINE_SCOPE = (
    "instance type and preference rules, input devices, interface bindings and launch security firmware only"
)
# kubectl's --validate values (k8s.io/kubectl/pkg/cmd/util/helpers.go GetValidationDirective) -> fieldValidation
FIELD_VALIDATION = {"strict": "Strict", "warn": "Warn", "ignore": "Ignore"}


@dataclass(frozen=True)
class ObjectVerdict:
    """The server's answer for one object: ``error`` when it refuses it (None: it would be admitted)."""

    obj: dict[str, Any]
    error: APIError | None = None
    advice: str | None = None  # what to change, when worked out with the cluster at hand (else :func:`hint`)

    @property
    def admitted(self) -> bool:
        return self.error is None

    def line(self) -> str:
        """The refusal as kubectl prints it, with what to change after ``; `` when :func:`hint` knows ("")."""
        if self.error is None:
            return ""
        text = self.error.render()
        advice = self.advice if self.advice is not None else hint(self.error.message)
        return f"{text}; {advice}" if advice else text


@dataclass(frozen=True)
class Verdicts:
    """The dry run of a set of objects: one :class:`ObjectVerdict` per object asked about (same order), or none
    with ``offline`` saying why the cluster was not asked (then the offline checks stand alone)."""

    verdicts: tuple[ObjectVerdict, ...] = ()
    offline: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def asked(self) -> bool:
        return not self.offline

    def denied(self) -> list[ObjectVerdict]:
        return [verdict for verdict in self.verdicts if not verdict.admitted]

    def for_object(self, obj: dict[str, Any]) -> ObjectVerdict | None:
        """The verdict of ``obj`` (the same object, by identity), None when it was not asked about."""
        for verdict in self.verdicts:
            if verdict.obj is obj:
                return verdict
        return None


def offline_note(verdicts: Verdicts) -> str:
    """The one line that says what was checked without the cluster, and why ("" when the cluster answered)."""
    if verdicts.asked:
        return ""
    return f"checked offline ({verdicts.offline}): {OFFLINE_SCOPE}"


def dry_run(
    session: Session | None,
    objects: Iterable[dict[str, Any]],
    *,
    validation: str = "strict",
    offline: bool = False,
) -> Verdicts:
    """Ask the cluster about each of ``objects`` (instance types, preferences, VirtualMachines; other kinds are
    not sent) with a server-side dry run; ``validation`` is kubectl's ``--validate`` directive (``strict``,
    ``warn``, ``ignore``), sent as ``fieldValidation``. ``offline`` (or ``session`` None) asks nothing."""
    with DryRun(session, validation=validation, offline=offline) as asker:
        verdicts = [verdict for obj in objects if (verdict := asker.ask(obj)) is not None]
        if asker.offline:
            return Verdicts(offline=asker.offline)
        return Verdicts(tuple(verdicts))


class DryRun:
    """One command's dry runs, one object at a time (a stream of VMs is judged as it is read): the first
    object decides whether the cluster answers; from then on :attr:`offline` says why it is not asked."""

    def __init__(self, session: Session | None, *, validation: str = "strict", offline: bool = False) -> None:
        self.validation = FIELD_VALIDATION.get(validation)
        self.offline = ""
        self._session: Session | None = None
        if offline or session is None:
            self.offline = "--offline" if offline else "no cluster"
            return
        self.offline = session.why_no_cluster()
        if not self.offline:
            timeout = session.options.request_timeout
            self._session = session if timeout else session.with_request_timeout(DRY_RUN_TIMEOUT)
        self._own = self._session is not session

    def __enter__(self) -> DryRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._session is not None and self._own:
            self._session.close()

    def ask(self, obj: dict[str, Any]) -> ObjectVerdict | None:
        """The server's verdict on ``obj``; None when it is not asked (not a kind sent, or offline)."""
        from ..errors import APIError, ConfigurationError, ForbiddenError, TransportError, UnauthorizedError
        from ..kube.resources import BY_KIND

        if self.offline or self._session is None or obj.get("kind") not in _SENT_KINDS:
            return None
        resource = BY_KIND[str(obj["kind"])]
        try:
            client = self._session.client()
            namespace = None
            if resource.namespaced:
                namespace = str((obj.get("metadata") or {}).get("namespace") or "") or self._session.namespace
            _ask(client, resource, obj, namespace, self.validation)
        except (ForbiddenError, UnauthorizedError) as exc:
            self.offline = f"the dry run was refused: {exc.render()}"
            return None
        except APIError as exc:
            if exc.code == 404 and "namespaces" in exc.message:
                self.offline = exc.render()
                return None
            return ObjectVerdict(obj, exc, _advice(self._session, obj, namespace, exc))
        except (ConfigurationError, TransportError) as exc:
            self.offline = f"the cluster did not answer: {exc.render().removeprefix('error: ')}"
            return None
        return ObjectVerdict(obj)


_SENT_KINDS = ("VirtualMachine", *TYPE_KINDS)


def _ask(client: Any, resource: Any, obj: dict[str, Any], namespace: str | None, validation: str | None) -> None:
    """A dry-run POST; over an object that exists, a dry-run PUT with its resourceVersion (kubectl replace)."""
    from ..errors import APIError

    body = _sendable(obj)
    try:
        client.create(resource, body, namespace, dry_run=True, field_validation=validation)
        return
    except APIError as exc:
        if exc.code != 409 or exc.reason != "AlreadyExists":
            raise
    name = str((body.get("metadata") or {}).get("name") or "")
    # virt-controller writes a VM it manages (status, revision references) between our GET and the dry-run PUT: a
    # 409 Conflict there says nothing about the object, so read it again and ask again, a bounded number of times,
    # as client-go's retry.RetryOnConflict (DefaultRetry: 5 steps) does.
    for attempt in range(_CONFLICT_RETRIES):
        stored = client.get(resource, name, namespace)
        metadata = {
            **(body.get("metadata") or {}),
            "resourceVersion": (stored.get("metadata") or {}).get("resourceVersion"),
        }
        try:
            client.replace(
                resource, name, namespace, {**body, "metadata": metadata}, dry_run=True, field_validation=validation
            )
            return
        except APIError as exc:
            if exc.code != 409 or exc.reason != "Conflict" or attempt == _CONFLICT_RETRIES - 1:
                raise


_CONFLICT_RETRIES = 5


def _advice(session: Session | None, obj: dict[str, Any], namespace: str | None, error: APIError) -> str | None:
    """For a VM, what ``create vm`` says about the same denial (the requirements hint names the smallest instance
    types that satisfy the preference, read from the cluster); None: :func:`hint`'s words."""
    if session is None or obj.get("kind") != "VirtualMachine" or any(m in error.message for m, _ in _HINTS):
        return None
    from ..errors import PluginError
    from .preflight import Verdict, check_matcher_types, explain

    try:
        found = check_matcher_types(session.client(), obj, namespace or session.namespace).found
        return explain(Verdict(obj, found), error.message, session) or None
    except PluginError:
        return None


# metadata the server sets: a manifest read back from the cluster (kubectl get -o yaml) carries them
_SERVER_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink")


def _sendable(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _SERVER_METADATA}
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": metadata}


# KubeVirt's whole-VM messages -> what to change (the words are KubeVirt's v1.9 admitters')
_HINTS = (
    ("Input device can have only tablet type.", "set type: tablet on the input device (or remove it)"),
    ("Input device can have only virtio or usb bus.", "set the input device's bus to usb or virtio"),
    (
        "interface must have exactly one binding method or binding plugin",
        "give the interface one binding (masquerade: {}, bridge: {}, sriov: {}, passt: {} or binding: {name: ...})",
    ),
    ("requires OVMF (UEFI)", "boot with UEFI: spec.template.spec.domain.firmware.bootloader.efi: {secureBoot: false}"),
    ("does not work along with SecureBoot", "set firmware.bootloader.efi.secureBoot: false"),
    ("strict decoding error: unknown field", "remove or correct the unknown field(s)"),
)


def hint(message: str) -> str:
    """What to change for a refusal whose message is ``message`` ("" when the words say it already)."""
    for marker, advice in _HINTS:
        if marker in message:
            return advice
    from .preflight import explain

    return explain(None, message)
