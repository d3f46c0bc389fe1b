"""``inferFromVolume``: what KubeVirt's VM mutating webhook does with an inference matcher, step by step.

A faithful re-implementation of ``pkg/instancetype/infer`` (KubeVirt v1.9.0): the same volumes,
the same objects read in the same order and namespaces, the same error texts, the same split between
*ignorable* failures (a missing label, an unsupported volume or source) and the rest (a volume missing from the
spec, any failed GET), and the same outcome: a resolved matcher is replaced by ``{name, kind}`` (and under
``Ignore`` the instance type's success removes ``spec.template.spec.domain.memory``), an ignorable failure under
``Ignore`` drops the matcher, anything else denies admission with the error text.

Pure: objects are fetched through a :data:`Lookup` passed in, which raises :class:`LookupFailed` with the
server's message for a failed GET (the kube layer supplies the real one; the tests a dict). Besides the answer,
every resolution records the chain of objects it read, which is what ``infer --explain`` shows.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

INSTANCETYPE_LABEL = "instancetype.kubevirt.io/default-instancetype"
INSTANCETYPE_KIND_LABEL = "instancetype.kubevirt.io/default-instancetype-kind"
PREFERENCE_LABEL = "instancetype.kubevirt.io/default-preference"
PREFERENCE_KIND_LABEL = "instancetype.kubevirt.io/default-preference-kind"

# matcher name -> (spec key, name label, kind label); the webhook handles the instance type first.
MATCHERS: dict[str, tuple[str, str]] = {
    "instancetype": (INSTANCETYPE_LABEL, INSTANCETYPE_KIND_LABEL),
    "preference": (PREFERENCE_LABEL, PREFERENCE_KIND_LABEL),
}

IGNORE = "Ignore"
REJECT = "Reject"

# The object kinds a lookup is asked for.
PVC = "PersistentVolumeClaim"
DATA_VOLUME = "DataVolume"
DATA_SOURCE = "DataSource"
# kubectl's short names of the volumes that carry inference labels (``label pvc/NAME``)
LABELLED_VOLUME_SHORT_NAMES = {PVC: "pvc", DATA_VOLUME: "dv", DATA_SOURCE: "datasource"}
VOLUME_SNAPSHOT = "VolumeSnapshot"
DATA_VOLUME_TEMPLATE = "DataVolumeTemplate"  # read from the VM itself, never from the cluster

# KubeVirt's texts (pkg/instancetype/infer/volume.go).
UNSUPPORTED_VOLUME_TYPE = "unable to infer defaults from volume {} as type is not supported"
MISSING_LABEL = "unable to find required {} label on the volume"
UNSUPPORTED_DATA_VOLUME_SOURCE = "unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported"
UNSUPPORTED_SOURCE_REF_KIND = "unable to infer defaults from DataVolumeSourceRef as Kind {} is not supported"
MISSING_DATA_SOURCE_SOURCE = (
    "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC or DataVolumeSourceSnapshot"
)
# KubeVirt before v1.9 (PR #18337) follows no VolumeSnapshot: a DataSource without a PVC fails with this.
MISSING_DATA_SOURCE_PVC = "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC"


def _always() -> bool:
    return True


VOLUME_NOT_FOUND = "unable to find volume {} to infer defaults"

NOT_FOUND = "not found"
GET_FAILED = "GET failed"


class LookupFailed(Exception):
    """A GET failed; ``message`` is the error text client-go would give (the server's ``Status`` message)."""

    def __init__(self, message: str, *, not_found: bool = False):
        super().__init__(message)
        self.message = message
        self.not_found = not_found


Lookup = Callable[[str, str, str], Mapping[str, Any]]
"""``lookup(kind, namespace, name)`` -> the object; raises :class:`LookupFailed` when the GET fails.

``namespace`` is passed exactly as KubeVirt passes it, which may be ``""`` (a source without a namespace):
client-go then requests the path without a namespace segment, and so must the lookup.
"""


@dataclass(frozen=True)
class Link:
    """One step of a resolution: an object read (or the VM's own DataVolumeTemplate) and what it gave."""

    kind: str
    namespace: str
    name: str
    note: str = ""  # NOT_FOUND or GET_FAILED when the GET failed

    def text(self) -> str:
        """``DataVolume ns/name`` (with `` (not found)`` when the GET found nothing)."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}" + (f" ({self.note})" if self.note else "")

    def as_dict(self) -> dict[str, Any]:
        """The link as ``-o yaml|json`` prints it."""
        out: dict[str, Any] = {"kind": self.kind, "namespace": self.namespace, "name": self.name}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Resolution:
    """What one volume yields for one matcher: ``(name, kind)`` or KubeVirt's error, with the chain read."""

    name: str = ""
    kind: str = ""
    chain: tuple[Link, ...] = ()
    error: str | None = None
    ignorable: bool = False

    @property
    def ok(self) -> bool:
        """True when a name was found (the name label exists, even with an empty value)."""
        return self.error is None

    def chain_text(self) -> str:
        """``DataVolume ns/fedora -> DataSource os-images/fedora -> labels`` (or ``-> <the error>``)."""
        parts = [link.text() for link in self.chain]
        if self.ok:
            parts.append("labels")
        elif self.error and not (self.chain and self.chain[-1].note == NOT_FOUND):
            parts.append(self.error)
        return " -> ".join(parts)


class _Failure(Exception):
    """Internal: KubeVirt's error on its way up the call chain (Go returns it; Python raises it)."""

    def __init__(self, message: str, ignorable: bool):
        super().__init__(message)
        self.message = message
        self.ignorable = ignorable


class _Resolver:
    """One resolution for one pair of label keys: the Go functions of volume.go as methods."""

    def __init__(self, lookup: Lookup, name_label: str, kind_label: str, snapshots: Callable[[], bool] = _always):
        self.lookup = lookup
        self.snapshots = snapshots  # asked only when a VolumeSnapshot source is met (KubeVirt v1.9+ follows it)
        self.name_label = name_label
        self.kind_label = kind_label
        self.chain: list[Link] = []

    def get(self, kind: str, namespace: str, name: str) -> Mapping[str, Any]:
        try:
            obj = self.lookup(kind, namespace, name)
        except LookupFailed as exc:
            self.chain.append(Link(kind, namespace, name, NOT_FOUND if exc.not_found else GET_FAILED))
            raise
        self.chain.append(Link(kind, namespace, name))
        return obj

    def from_labels(self, obj: Mapping[str, Any]) -> tuple[str, str]:
        labels = _mapping(_mapping(obj.get("metadata")).get("labels"))
        if self.name_label not in labels:
            raise _Failure(MISSING_LABEL.format(self.name_label), ignorable=True)
        return _string(labels[self.name_label]), _string(labels.get(self.kind_label))

    def from_volumes(self, vm: Mapping[str, Any], volume_name: str) -> tuple[str, str]:
        namespace = _string(_mapping(vm.get("metadata")).get("namespace"))
        for volume in _list(_template_spec(vm).get("volumes")):
            volume = _mapping(volume)
            if volume.get("name") != volume_name:
                continue
            if volume.get("persistentVolumeClaim") is not None:
                claim = _string(_mapping(volume["persistentVolumeClaim"]).get("claimName"))
                return self.from_pvc(claim, namespace)
            if volume.get("dataVolume") is not None:
                return self.from_data_volume(vm, _string(_mapping(volume["dataVolume"]).get("name")), namespace)
            raise _Failure(UNSUPPORTED_VOLUME_TYPE.format(volume_name), ignorable=True)
        raise _Failure(VOLUME_NOT_FOUND.format(volume_name), ignorable=False)

    def from_pvc(self, name: str, namespace: str) -> tuple[str, str]:
        return self.from_labels(self.get(PVC, namespace, name))

    def from_volume_snapshot(self, name: str, namespace: str) -> tuple[str, str]:
        return self.from_labels(self.get(VOLUME_SNAPSHOT, namespace, name))

    def from_data_volume(self, vm: Mapping[str, Any], name: str, namespace: str) -> tuple[str, str]:
        for template in _list(_mapping(vm.get("spec")).get("dataVolumeTemplates")):
            template = _mapping(template)
            if _string(_mapping(template.get("metadata")).get("name")) != name:
                continue
            # Only the template's spec counts: its labels are not read (they are not on any object yet).
            self.chain.append(Link(DATA_VOLUME_TEMPLATE, namespace, name))
            return self.from_data_volume_spec(template.get("spec"), namespace)
        try:
            data_volume = self.get(DATA_VOLUME, namespace, name)
        except LookupFailed as exc:
            if exc.not_found:
                # A garbage-collected DataVolume leaves its PVC, of the same name, behind.
                return self.from_pvc(name, namespace)
            raise
        try:
            return self.from_labels(data_volume)
        except _Failure:
            # Go drops the label error (whatever it was) and looks at the DataVolume's source instead.
            return self.from_data_volume_spec(data_volume.get("spec"), namespace)

    def from_data_volume_spec(self, spec: Any, vm_namespace: str) -> tuple[str, str]:
        if isinstance(spec, Mapping):
            source = spec.get("source")
            if isinstance(source, Mapping):
                if source.get("pvc") is not None:
                    pvc = _mapping(source["pvc"])
                    return self.from_pvc(_string(pvc.get("name")), _string(pvc.get("namespace")))
                if source.get("snapshot") is not None and self.snapshots():
                    snapshot = _mapping(source["snapshot"])
                    return self.from_volume_snapshot(_string(snapshot.get("name")), _string(snapshot.get("namespace")))
            if spec.get("sourceRef") is not None:
                return self.from_source_ref(_mapping(spec["sourceRef"]), vm_namespace)
        raise _Failure(UNSUPPORTED_DATA_VOLUME_SOURCE, ignorable=True)

    def from_source_ref(self, source_ref: Mapping[str, Any], vm_namespace: str) -> tuple[str, str]:
        kind = _string(source_ref.get("kind"))
        if kind != "DataSource":
            raise _Failure(UNSUPPORTED_SOURCE_REF_KIND.format(kind), ignorable=True)
        # A nil namespace means the VM's; an empty string is used as it is (Go checks for nil only).
        namespace = source_ref.get("namespace")
        return self.from_data_source(
            _string(source_ref.get("name")), vm_namespace if namespace is None else _string(namespace)
        )

    def from_data_source(self, name: str, namespace: str) -> tuple[str, str]:
        data_source = self.get(DATA_SOURCE, namespace, name)
        try:
            return self.from_labels(data_source)
        except _Failure:
            pass
        source = _mapping(_mapping(data_source.get("spec")).get("source"))
        if source.get("pvc") is not None:
            pvc = _mapping(source["pvc"])
            return self.from_pvc(_string(pvc.get("name")), _string(pvc.get("namespace")))
        if not self.snapshots():
            raise _Failure(MISSING_DATA_SOURCE_PVC, ignorable=True)
        if source.get("snapshot") is not None:
            snapshot = _mapping(source["snapshot"])
            return self.from_volume_snapshot(_string(snapshot.get("name")), _string(snapshot.get("namespace")))
        raise _Failure(MISSING_DATA_SOURCE_SOURCE, ignorable=True)

    def run(self, step: Callable[[], tuple[str, str]]) -> Resolution:
        try:
            name, kind = step()
        except _Failure as exc:
            return Resolution(chain=tuple(self.chain), error=exc.message, ignorable=exc.ignorable)
        except LookupFailed as exc:
            return Resolution(chain=tuple(self.chain), error=exc.message, ignorable=False)
        return Resolution(name=name, kind=kind, chain=tuple(self.chain))


def resolve_volume(
    vm: Mapping[str, Any],
    volume_name: str,
    matcher: str,
    lookup: Lookup,
    *,
    snapshots: Callable[[], bool] = _always,
) -> Resolution:
    """Resolve ``matcher`` (``instancetype`` or ``preference``) from the VM volume ``volume_name``, as the webhook.

    The VM's namespace is ``metadata.namespace`` (the admission request's namespace; callers fill it in).
    ``snapshots()`` says whether the server follows VolumeSnapshot sources (KubeVirt v1.9+); it is asked only
    when one is met.
    """
    name_label, kind_label = MATCHERS[matcher]
    resolver = _Resolver(lookup, name_label, kind_label, snapshots)
    return resolver.run(lambda: resolver.from_volumes(vm, volume_name))


SOURCE_KINDS = (PVC, DATA_VOLUME, DATA_SOURCE, VOLUME_SNAPSHOT)


def resolve_object(
    kind: str, namespace: str, name: str, matcher: str, lookup: Lookup, *, snapshots: Callable[[], bool] = _always
) -> Resolution:
    """Resolve ``matcher`` from one object, as a VM volume naming it would: a PVC or a VolumeSnapshot by its
    labels, a DataVolume by its labels then its source (its PVC when it is gone), a DataSource by its labels
    then its ``source.pvc`` / ``source.snapshot``."""
    name_label, kind_label = MATCHERS[matcher]
    resolver = _Resolver(lookup, name_label, kind_label, snapshots)
    steps: dict[str, Callable[[], tuple[str, str]]] = {
        PVC: lambda: resolver.from_pvc(name, namespace),
        DATA_VOLUME: lambda: resolver.from_data_volume({}, name, namespace),
        DATA_SOURCE: lambda: resolver.from_data_source(name, namespace),
        VOLUME_SNAPSHOT: lambda: resolver.from_volume_snapshot(name, namespace),
    }
    if kind not in steps:
        raise ValueError(f"cannot infer from a {kind}")
    return resolver.run(steps[kind])


@dataclass(frozen=True)
class MatcherOutcome:
    """What admission does with one matcher (``instancetype`` or ``preference``)."""

    matcher: str
    volume: str  # inferFromVolume, or "" when the matcher names its type itself
    policy: str  # "Reject" or "Ignore" ("" without inference)
    action: str  # "inferred", "dropped", "rejected" or "given" (no inference asked)
    resolution: Resolution | None = None
    given: Mapping[str, Any] = field(default_factory=dict)  # the matcher as written, for "given"

    @property
    def name(self) -> str:
        """The type's name after admission ("" when dropped or rejected)."""
        if self.action == "given":
            return _string(self.given.get("name"))
        return self.resolution.name if self.resolution and self.action == "inferred" else ""

    @property
    def kind(self) -> str:
        """The type's kind after admission ("" = the cluster-scoped kind)."""
        if self.action == "given":
            return _string(self.given.get("kind"))
        return self.resolution.kind if self.resolution and self.action == "inferred" else ""


@dataclass(frozen=True)
class InferenceResult:
    """The outcome of admission's inference step for one VM.

    ``vm`` is the VirtualMachine as the mutating webhook leaves it (a deep copy; the input is not changed),
    ``error`` KubeVirt's text when admission would be denied (then ``vm`` is what it would have been up to
    the failing matcher, and the matchers after it were not evaluated, as on the server).
    """

    vm: dict[str, Any]
    outcomes: tuple[MatcherOutcome, ...]
    error: str | None = None
    error_reason: str = ""  # "Invalid" for a matcher validation failure (HTTP 422), else "BadRequest" (400)


def validate_matchers(vm: Mapping[str, Any]) -> str | None:
    """The mutating webhook's matcher checks, run before inference; KubeVirt's message (causes joined by ", ")
    or None. Only the first failing matcher's causes count, instance type first."""
    spec = _mapping(vm.get("spec"))
    for matcher, title in (("instancetype", "InstancetypeMatcher"), ("preference", "PreferenceMatcher")):
        value = spec.get(matcher)
        if value is None:
            continue
        value = _mapping(value)
        causes = []
        name, kind, volume = (_string(value.get(key)) for key in ("name", "kind", "inferFromVolume"))
        if not name and not volume:
            causes.append(f"Either Name or InferFromVolume should be provided within the {title}")
        if volume:
            if name:
                causes.append("Name already set, should be cleared before setting inferFromVolume")
            if kind:
                causes.append("Kind already set, should be cleared before setting inferFromVolume")
        policy = value.get("inferFromVolumeFailurePolicy")
        if policy is not None and policy not in (IGNORE, REJECT):
            causes.append(f"Invalid value '{_string(policy)}' for InferFromVolumeFailurePolicy")
        if causes:
            head = causes[:10]
            message = ", ".join(head)
            if len(causes) > 10:
                message += f", and {len(causes) - 10} more validation errors"
            return message
    return None


def resolve_matchers(
    vm: Mapping[str, Any], lookup: Lookup, *, snapshots: Callable[[], bool] = _always
) -> InferenceResult:
    """Run the webhook's matcher validation and inference on ``vm``: instance type first, then preference.

    Returns the VM as admission leaves it, what happened to each matcher, and KubeVirt's error when admission
    would be denied (a failed validation, a non-ignorable failure, or an ignorable one without ``Ignore``).
    """
    result = copy.deepcopy(dict(vm))
    problem = validate_matchers(result)
    if problem:
        return InferenceResult(result, (), problem, "Invalid")
    spec = result.get("spec")
    outcomes: list[MatcherOutcome] = []
    for matcher in MATCHERS:
        if not isinstance(spec, dict) or spec.get(matcher) is None:
            continue
        current = _mapping(spec[matcher])
        volume = _string(current.get("inferFromVolume"))
        if not volume:
            outcomes.append(MatcherOutcome(matcher, "", "", "given", given=dict(current)))
            continue
        ignore = current.get("inferFromVolumeFailurePolicy") == IGNORE
        policy = IGNORE if ignore else REJECT
        resolution = resolve_volume(result, volume, matcher, lookup, snapshots=snapshots)
        if not resolution.ok:
            if resolution.ignorable and ignore:
                del spec[matcher]
                outcomes.append(MatcherOutcome(matcher, volume, policy, "dropped", resolution))
                continue
            outcomes.append(MatcherOutcome(matcher, volume, policy, "rejected", resolution))
            return InferenceResult(result, tuple(outcomes), resolution.error, "BadRequest")
        if ignore and matcher == "instancetype":
            domain = _template_spec(result).get("domain")
            if isinstance(domain, dict):
                domain.pop("memory", None)
        replacement: dict[str, str] = {}
        if resolution.name:
            replacement["name"] = resolution.name
        if resolution.kind:
            replacement["kind"] = resolution.kind
        spec[matcher] = replacement
        outcomes.append(MatcherOutcome(matcher, volume, policy, "inferred", resolution))
    return InferenceResult(result, tuple(outcomes))


def _template_spec(vm: Mapping[str, Any]) -> Mapping[str, Any]:
    return _mapping(_mapping(_mapping(vm.get("spec")).get("template")).get("spec"))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def default_reference(name: str | None, kind: str | None, matcher: str, flag: str) -> tuple[str | None, str]:
    """``--default-instancetype [KIND/]NAME`` (``flag``) with ``--default-instancetype-kind KIND``: the name and
    KubeVirt's canonical kind ("" for the cluster-scoped default). KIND/ is any spelling ``create vm`` takes
    (vmf/, vmcf/, the long names); given both ways, the two must agree. Raises :class:`UsageError`."""
    from ..errors import UsageError
    from .params import ParamError, split_prefixed_name

    canonical = canonical_kind(kind or "", matcher)
    if name is None or "/" not in name:
        return name, canonical
    try:
        prefix, bare = split_prefixed_name(name)
    except ParamError as exc:
        raise UsageError(f'invalid argument "{name}" for "{flag}" flag: {exc}') from None
    named = canonical_kind(prefix, matcher)
    if kind is not None and named != canonical:
        raise UsageError(f'{flag} "{name}" names kind {named or prefix}, but {flag}-kind says {kind}: give one')
    return bare, named


def canonical_kind(value: str, matcher: str) -> str:
    """KubeVirt's lowercase singular kind for a ``--default-*-kind`` value (the kind labels hold; ``create vm``'s
    prefix spellings: any case, singular or plural); ``""`` stays ``""`` (the cluster-scoped kind). Raises
    :class:`UsageError` for a kind of the other matcher or none."""
    from ..errors import UsageError
    from .kinds import matcher_kind, singulars

    kind = matcher_kind(value, matcher, short_names=True)
    if kind is None:
        raise UsageError(f'invalid {matcher} kind "{value}", supported values are: {", ".join(singulars(matcher))}')
    return kind.singular if value else ""
