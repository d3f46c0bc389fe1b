"""ControllerRevisions of instance types and preferences, the one home of their facts: the labels KubeVirt puts
on them, the revision it stores for an object a VM uses, which revision a VM's matcher uses, and how to switch a
VM to another instance type or preference (KubeVirt's ``pkg/instancetype/revision`` and
``pkg/instancetype/find``), as pure functions over the objects."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._tree import Json, clone

# the labels of a stored copy (kubevirt.io/api instancetype/v1beta1 register.go: ControllerRevisionObject*Label)
OBJECT_GENERATION_LABEL = "instancetype.kubevirt.io/object-generation"
OBJECT_KIND_LABEL = "instancetype.kubevirt.io/object-kind"
OBJECT_NAME_LABEL = "instancetype.kubevirt.io/object-name"
OBJECT_UID_LABEL = "instancetype.kubevirt.io/object-uid"
OBJECT_VERSION_LABEL = "instancetype.kubevirt.io/object-version"
# virt-controller's revision of a VM's spec at a start (pkg/virt-controller/watch/vm getVMRevisionName)
START_REVISION_PREFIX = "revision-start-vm-"
MATCHER_KEYS = ("instancetype", "preference")  # a VM's spec.instancetype and spec.preference
FROM_SPEC = "spec.revisionName"
FROM_STATUS = "status"
STATUS_REFS = "status-refs"  # KubeVirt v1.5+: the controller records revisions in status.*Ref
SPEC_REVISIONS = "spec-revision-name"  # KubeVirt <= v1.4: the controller writes spec.*.revisionName
UNKNOWN = "unknown"


def revision_in_use(vm: Mapping[str, Any], key: str) -> tuple[str, str]:
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
    value: Any = labels.get(OBJECT_GENERATION_LABEL) or ((revision.get("data") or {}).get("metadata") or {}).get(
        "generation"
    )
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def revision_target(revision: Mapping[str, Any]) -> tuple[str, str, str, int | None] | None:
    """(kind, namespace, name, generation) of the object ``revision`` holds a copy of, from its labels; the
    namespace is "" for a cluster-scoped kind; None when the revision is not a copy of an instance type or
    preference."""
    from ..kinds import BY_KIND

    metadata = revision.get("metadata") or {}
    labels = metadata.get("labels") or {}
    kind, name = labels.get(OBJECT_KIND_LABEL), labels.get(OBJECT_NAME_LABEL)
    if not kind or not name:
        return None
    known = BY_KIND.get(str(kind))
    namespaced = known.namespaced if known is not None else "Cluster" not in str(kind)
    namespace = str(metadata.get("namespace") or "") if namespaced else ""
    try:
        generation: int | None = int(str(labels.get(OBJECT_GENERATION_LABEL)))
    except (TypeError, ValueError):
        generation = None
    return str(kind), namespace, str(name), generation


def is_start_revision(name: str, vm_uid: str = "") -> bool:
    """True when ControllerRevision ``name`` is virt-controller's copy of a VM's spec at a start
    (``revision-start-vm-<uid>-<generation>``), of the VM with ``vm_uid`` when given."""
    return name.startswith(f"{START_REVISION_PREFIX}{vm_uid}-" if vm_uid else START_REVISION_PREFIX)


def pinned_revisions(vm: Mapping[str, Any], start_revisions: Iterable[Mapping[str, Any]] = ()) -> list[str]:
    """The revisions ``vm`` resolves its matchers through: each matcher's :func:`revision_in_use`, and the
    ``revisionName`` of each matcher in its start revisions (``start_revisions``: the VM's, or any; those of other
    VMs are skipped by uid). Deleting one of them sends the VM back to the live object."""
    pinned = [revision_in_use(vm, key)[0] for key in MATCHER_KEYS]
    uid = str((vm.get("metadata") or {}).get("uid") or "")
    for start in start_revisions:
        if uid and is_start_revision(str((start.get("metadata") or {}).get("name") or ""), uid):
            start_spec = (start.get("data") or {}).get("spec") or {}
            pinned += [str((start_spec.get(key) or {}).get("revisionName") or "") for key in MATCHER_KEYS]
    return [name for name in pinned if name]


def controller_revision(vm: Json, obj: Json) -> Json:
    """The ControllerRevision KubeVirt itself stores for ``obj`` used by ``vm`` (``pkg/instancetype/revision``:
    ``CreateControllerRevision``): its name ``<vm>-<object>-v1beta1-<uid>-<generation>``, owned by the VM, the
    object labels, and the object without labels, annotations, finalizers, owner references and managed fields."""
    metadata = obj.get("metadata") or {}
    kind = str(obj.get("kind") or "")
    version = str(obj.get("apiVersion") or "instancetype.kubevirt.io/v1beta1").rpartition("/")[2]
    generation = int(metadata.get("generation") or 0)
    uid = str(metadata.get("uid") or "")
    stored_metadata = {
        key: value
        for key, value in metadata.items()
        if key not in ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")
    }
    vm_metadata = vm.get("metadata") or {}
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"{vm_metadata.get('name')}-{metadata.get('name')}-{version}-{uid}-{generation}",
            "namespace": vm_metadata.get("namespace"),
            "ownerReferences": [
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachine",
                    "name": vm_metadata.get("name"),
                    "uid": vm_metadata.get("uid"),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "labels": {
                OBJECT_GENERATION_LABEL: str(generation),
                OBJECT_KIND_LABEL: kind,
                OBJECT_NAME_LABEL: str(metadata.get("name") or ""),
                OBJECT_UID_LABEL: uid,
                OBJECT_VERSION_LABEL: version,
            },
        },
        "data": {**{k: v for k, v in obj.items() if k != "metadata"}, "metadata": stored_metadata},
        "revision": 0,
    }


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


@dataclass(frozen=True)
class OwnedRevision:
    """One ControllerRevision a VM owns: a copy of an instance type or preference (``holds`` names it,
    ``generation`` is the object's generation it copied), or the VM's spec at a start (``revision-start-vm-...``,
    ``generation`` the VM's, ``holds`` the VM); ``current`` says which reference names it: instancetype,
    preference, or vmi (the VMI's ``status.virtualMachineRevisionName``); "" when none does."""

    namespace: str
    vm: str
    name: str
    holds: str
    generation: str
    current: str
    created: str


def owned_revisions(
    vm: Mapping[str, Any], revisions: Iterable[Mapping[str, Any]], vmi_revision: str = ""
) -> list[OwnedRevision]:
    """Every revision of ``revisions`` whose owner references name ``vm`` (by uid), oldest first, marked current
    when ``vm``'s matcher (``revisionName``, else the status reference) or its VMI's
    ``status.virtualMachineRevisionName`` (``vmi_revision``) names it. KubeVirt sets the owner reference on both
    kinds (pkg/instancetype/revision store; pkg/virt-controller/watch/vm createVMRevision)."""
    metadata = vm.get("metadata") or {}
    uid = metadata.get("uid")
    current = {revision_in_use(vm, key)[0]: key for key in MATCHER_KEYS}
    current.pop("", None)
    if vmi_revision:
        current[vmi_revision] = "vmi"
    rows = []
    for revision in revisions:
        meta = revision.get("metadata") or {}
        if not uid or not any(ref.get("uid") == uid for ref in meta.get("ownerReferences") or ()):
            continue
        name = str(meta.get("name") or "")
        found = revision_target(revision)
        if found is not None:
            kind, _, held, generation = found
            holds = f"{kind.lower()}/{held}"  # usage's Target as text
            held_generation = "-" if generation is None else str(generation)
        elif is_start_revision(name):
            holds, held_generation = f"virtualmachine/{metadata.get('name')}", str(revision.get("revision", "-"))
        else:
            holds, held_generation = "-", str(revision.get("revision", "-"))
        rows.append(
            OwnedRevision(
                str(meta.get("namespace") or ""),
                str(metadata.get("name") or ""),
                name,
                holds,
                held_generation,
                current.get(name, ""),
                str(meta.get("creationTimestamp") or ""),
            )
        )
    rows.sort(key=lambda row: (row.created, row.name))
    return rows
