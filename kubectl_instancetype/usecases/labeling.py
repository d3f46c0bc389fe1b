"""``label``: set or remove the ``instancetype.kubevirt.io/default-*`` labels of a volume.

Read the volume, check the referenced types exist (and work together), then patch only the labels with a JSON
merge patch, as ``kubectl label`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..instancetype import infer
from ..instancetype.kinds import DEFAULT_KIND, matcher_kind

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session
    from .references import TypeReference


@dataclass(frozen=True)
class LabelRequest:
    """What ``label`` was asked to do."""

    instancetype: str | None = None
    instancetype_kind: str = ""
    preference: str | None = None
    preference_kind: str = ""
    remove: bool = False
    overwrite: bool = False

    def desired(self) -> dict[str, str | None]:
        """label key -> new value, or None to remove it. Setting a name without a kind removes a kind label
        left from before: name and kind are one reference."""
        if self.remove:
            return dict.fromkeys(
                (
                    infer.INSTANCETYPE_LABEL,
                    infer.INSTANCETYPE_KIND_LABEL,
                    infer.PREFERENCE_LABEL,
                    infer.PREFERENCE_KIND_LABEL,
                )
            )
        out: dict[str, str | None] = {}
        if self.instancetype is not None:
            out[infer.INSTANCETYPE_LABEL] = self.instancetype
            out[infer.INSTANCETYPE_KIND_LABEL] = self.instancetype_kind or None
        if self.preference is not None:
            out[infer.PREFERENCE_LABEL] = self.preference
            out[infer.PREFERENCE_KIND_LABEL] = self.preference_kind or None
        return out


@dataclass(frozen=True)
class LabelPatch:
    """The ``metadata.labels`` merge patch (None removes a label) and kubectl label's verb for it."""

    labels: dict[str, str | None]
    verb: str


def label_patch(current: Mapping[str, str], request: LabelRequest) -> LabelPatch:
    """The ``metadata.labels`` merge patch and kubectl's verb (``labeled``, ``unlabeled``, ``modified``,
    ``not labeled``); kubectl label's error when a value would change without ``--overwrite``."""
    patch: dict[str, str | None] = {}
    conflicts = []
    added = removed = False
    for key, value in request.desired().items():
        if value is None:
            if key in current:
                patch[key] = None
                removed = True
            continue
        if key in current and current[key] != value and not request.overwrite:
            conflicts.append(f"'{key}' already has a value ({current[key]}), and --overwrite is false")
        if current.get(key) != value:
            patch[key] = value
            added = True
    if conflicts:
        # apimachinery's aggregate error: one message as it is, several in brackets
        raise UsageError(conflicts[0] if len(conflicts) == 1 else "[" + ", ".join(conflicts) + "]")
    verb = "modified" if added and removed else "labeled" if added else "unlabeled" if removed else "not labeled"
    return LabelPatch(patch, verb)


def label_references(request: LabelRequest) -> list[TypeReference]:
    """The instance type and preference the labels will name (their kinds as the labels give them)."""
    from .references import DEFAULT_FLAGS, TypeReference

    references = []
    for key, name, kind in (
        ("instancetype", request.instancetype, request.instancetype_kind),
        ("preference", request.preference, request.preference_kind),
    ):
        if name:
            # the kind as the command checked it (infer.canonical_kind), read as KubeVirt reads the label
            references.append(TypeReference(matcher_kind(kind, key) or DEFAULT_KIND[key], name, DEFAULT_FLAGS[key]))
    return references


@dataclass(frozen=True)
class LabelOutcome:
    """The volume's ``-o name`` form and kubectl's verb for what happened."""

    name: str
    verb: str


def label_volume(
    session: Session, kind: str, name: str, request: LabelRequest, *, skip_checks: bool = False
) -> LabelOutcome:
    """Read the volume (a ``kind`` of the session's namespace), check the types, and merge-patch its labels
    (nothing is sent when nothing changes)."""
    from ..kube.resources import BY_KIND

    resource, namespace, client = BY_KIND[kind], session.namespace, session.client()
    current = client.get(resource, name, namespace)
    labels = (current.get("metadata") or {}).get("labels") or {}
    planned = label_patch(labels, request)
    patch = planned.labels
    if patch:
        if not skip_checks and not request.remove:
            from .references import require_types

            # a namespaced kind is looked up in the volume's namespace, where VMs using the volume usually live
            then = " (--skip-checks labels anyway)"
            found = require_types(session, label_references(request), namespace, then=then)
            volume = f"{infer.LABELLED_VOLUME_SHORT_NAMES.get(resource.kind, resource.singular)}/{name}"
            _check_pair(
                session,
                {**labels, **patch},
                request,
                found,
                volume,
                "; nothing was labeled (--skip-checks labels anyway)",
            )
        merge_patch(client, resource, name, namespace, {"metadata": {"labels": patch}})
    return LabelOutcome(resource.name_of(name), planned.verb)


def _check_pair(
    session: Session,
    labels: Mapping[str, str | None],
    request: LabelRequest,
    found: list[dict[str, Any]],
    volume: str,
    then: str,
) -> None:
    """The instance type and preference the volume will name (the ones asked for, else the labels it keeps) must
    work together: KubeVirt denies every VM that infers both from it otherwise."""
    from ..errors import PluginError
    from .fitting import check_default_types

    given = iter(found)
    objects: dict[str, dict[str, Any] | None] = {}
    for key, asked, label, kind_label in (
        ("instancetype", request.instancetype, infer.INSTANCETYPE_LABEL, infer.INSTANCETYPE_KIND_LABEL),
        ("preference", request.preference, infer.PREFERENCE_LABEL, infer.PREFERENCE_KIND_LABEL),
    ):
        if asked:
            objects[key] = next(given)
        elif labels.get(label):
            from .references import TypeReference

            kind = matcher_kind(str(labels.get(kind_label) or ""), key)
            objects[key] = None  # a kind KubeVirt does not know, or a label that names nothing: not ours to check
            if kind is not None:
                reference = TypeReference(kind, str(labels[label]))
                scope = session.namespace if reference.resource.namespaced else None
                try:
                    objects[key] = session.client().get(reference.resource, reference.name, scope)
                except PluginError:
                    pass
    check_default_types(session, objects.get("instancetype"), objects.get("preference"), volume=volume, then=then)


def merge_patch(client: Client, resource: Resource, name: str, namespace: str, body: dict[str, Any]) -> Any:
    """PATCH ``body`` as a JSON merge patch (only the labels ``label`` changes)."""
    from ..kube.client import MERGE_PATCH

    return client.patch(resource, name, namespace, body, MERGE_PATCH)
