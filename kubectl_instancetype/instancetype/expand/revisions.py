"""Which ControllerRevision a VM's matcher uses, and how to switch a VM to another instance type or preference
(KubeVirt's ``pkg/instancetype/revision`` and ``pkg/instancetype/find``), as pure functions over the VM object."""

from __future__ import annotations

from typing import Any

from ._tree import Json, clone
from .resolve import OBJECT_NAME_LABEL

GENERATION_LABEL = "instancetype.kubevirt.io/object-generation"
KIND_LABEL = "instancetype.kubevirt.io/object-kind"
FROM_SPEC = "spec.revisionName"
FROM_STATUS = "status"
STATUS_REFS = "status-refs"  # KubeVirt v1.5+: the controller records revisions in status.*Ref
SPEC_REVISIONS = "spec-revision-name"  # KubeVirt <= v1.4: the controller writes spec.*.revisionName
UNKNOWN = "unknown"


def revision_in_use(vm: Json, key: str) -> tuple[str, str]:
    """(ControllerRevision name, where it is recorded) for matcher ``spec.<key>``; ("", "") when none is.

    ``revisionName`` wins; the status reference counts only while the revision was stored for the matcher's
    current name, which the caller checks on the revision's labels with :func:`revision_matches`.
    """
    matcher = (vm.get("spec") or {}).get(key) or {}
    if matcher.get("revisionName"):
        return str(matcher["revisionName"]), FROM_SPEC
    ref = ((vm.get("status") or {}).get(f"{key}Ref") or {}).get("controllerRevisionRef") or {}
    if ref.get("name"):
        return str(ref["name"]), FROM_STATUS
    return "", ""


def revision_matches(vm: Json, key: str, revision: Json) -> bool:
    """True when ``revision`` was stored for the name the matcher has now (KubeVirt ignores it otherwise)."""
    labels = (revision.get("metadata") or {}).get("labels") or {}
    return bool(labels.get(OBJECT_NAME_LABEL) == ((vm.get("spec") or {}).get(key) or {}).get("name"))


def revision_generation(revision: Json) -> int | None:
    """The generation of the object when the revision was stored (label, else the stored object's metadata)."""
    labels = (revision.get("metadata") or {}).get("labels") or {}
    value: Any = labels.get(GENERATION_LABEL) or ((revision.get("data") or {}).get("metadata") or {}).get("generation")
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def server_flavour(vm: Json) -> str:
    """How the cluster records revisions, read from the VM itself rather than from a version list.

    Status references mean KubeVirt v1.5+; a ``revisionName`` without them means the controller wrote it
    (v1.4 and older) or the user pinned it; neither means nothing has been recorded yet.
    """
    status = vm.get("status") or {}
    if status.get("instancetypeRef") or status.get("preferenceRef"):
        return STATUS_REFS
    spec = vm.get("spec") or {}
    if any((spec.get(key) or {}).get("revisionName") for key in ("instancetype", "preference")):
        return SPEC_REVISIONS
    return UNKNOWN


def switched(vm: Json, key: str, name: str, kind: str) -> tuple[Json, bool]:
    """A copy of ``vm`` whose matcher ``spec.<key>`` names ``kind``/``name``, and whether ``revisionName`` was cleared.

    KubeVirt rejects a changed name with an unchanged ``revisionName`` (``the Matcher Name has been updated
    without updating the RevisionName``), so a set ``revisionName`` is always cleared: on v1.4 and older the
    controller wrote it, on v1.5+ only a user pins one. Inference settings are dropped with the old matcher.
    """
    result: Json = clone(vm)
    spec = result.setdefault("spec", {})
    old = spec.get(key) or {}
    cleared = bool(old.get("revisionName"))
    spec[key] = {"name": name, **({"kind": kind} if kind else {})}
    return result, cleared
