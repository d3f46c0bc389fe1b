"""``doctor``'s rules: what breaks or wastes the ControllerRevisions behind VMs' instance types and preferences,
as pure functions over the listed objects (the use case lists them; nothing here reads the cluster).

Each rule returns :class:`Finding` rows: a severity, the object, what is wrong and what to do. The recovery
commands follow what KubeVirt v1.9.0's virt-controller does (``pkg/instancetype/find/revision.go``
``revisionFinder.Find``, ``pkg/instancetype/revision/store.go`` ``syncStatusWithMatcher``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .expand.revisions import (
    FROM_SPEC,
    MATCHER_KEYS,
    OBJECT_KIND_LABEL,
    is_start_revision,
    pinned_revisions,
    revision_generation,
    revision_in_use,
    revision_matches,
    revision_target,
)

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (ERROR, WARNING, INFO)  # the table's order
DEPRECATED_LABEL = "instancetype.kubevirt.io/deprecated"  # common-instancetypes' label on deprecated objects

Json = dict[str, Any]


@dataclass(frozen=True)
class Finding:
    """One problem: ``severity`` (error, warning, info), the ``check`` that found it, the object (``kind/name``
    in ``namespace``, "" for a cluster-scoped one), what is wrong and what to do (commands included)."""

    severity: str
    check: str
    namespace: str
    object: str
    finding: str
    action: str
    key: str = ""  # the matcher (instancetype, preference) a missing-revision finding is about
    revision: str = ""  # the ControllerRevision the finding names


def _meta(obj: Json) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _key(obj: Json) -> tuple[str, str]:
    return str(_meta(obj).get("namespace") or ""), str(_meta(obj).get("name") or "")


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def clear_revision_commands(vm: Json, key: str) -> list[str]:
    """The commands that make virt-controller store a new revision for matcher ``spec.<key>`` of ``vm``.

    ``revisionFinder.Find`` reads ``spec.<key>.revisionName`` first, else ``status.<key>Ref.controllerRevisionRef``,
    and fails the VM's sync while that revision cannot be got; ``syncStatusWithMatcher`` stores a copy of the live
    object only when the status reference is empty and no ``revisionName`` is set. So: remove ``revisionName``
    when set, then the status reference (the status subresource) when set."""
    namespace, name = _key(vm)
    target = f"vm/{_shell_quote(name)} -n {_shell_quote(namespace)}"
    commands = []
    if ((vm.get("spec") or {}).get(key) or {}).get("revisionName"):
        commands.append(
            f'kubectl patch {target} --type=json -p \'[{{"op":"remove","path":"/spec/{key}/revisionName"}}]\''
        )
    if (((vm.get("status") or {}).get(f"{key}Ref") or {}).get("controllerRevisionRef") or {}).get("name"):
        commands.append(
            f"kubectl patch {target} --subresource=status --type=json -p "
            f'\'[{{"op":"remove","path":"/status/{key}Ref/controllerRevisionRef"}}]\''
        )
    return commands


def missing_revisions(vms: Iterable[Json], revisions: Mapping[tuple[str, str], Json]) -> list[Finding]:
    """VMs whose matcher names a ControllerRevision that does not exist: virt-controller's ``Find`` fails on the
    GET (whatever the revision's labels would have said), so every sync of the VM fails and it cannot start or
    change (ssp-operator #1556)."""
    findings = []
    for vm in vms:
        namespace, name = _key(vm)
        for key in MATCHER_KEYS:
            revision, where = revision_in_use(vm, key)
            if not revision or (namespace, revision) in revisions:
                continue
            recorded = f"spec.{key}.revisionName" if where == FROM_SPEC else f"status.{key}Ref"
            matcher = (vm.get("spec") or {}).get(key) or {}
            findings.append(
                Finding(
                    ERROR,
                    "missing-revision",
                    namespace,
                    f"virtualmachine/{name}",
                    f"ControllerRevision {revision} named by {recorded} does not exist: virt-controller cannot "
                    f"find the {key} the VM was stored with, so the VM cannot start or change",
                    "clear the reference so that virt-controller stores a new copy of "
                    f"{key} {matcher.get('name') or '?'} as it is now: "
                    + " && ".join(clear_revision_commands(vm, key)),
                    key,
                    revision,
                )
            )
    return findings


def unserved_revisions(
    vms: Iterable[Json], revisions: Iterable[Json], served: Mapping[str, frozenset[str]]
) -> list[Finding]:
    """Revisions holding an instance type or preference in an API version the cluster's CRD for that kind does
    not serve (``served``: kind -> versions; kinds absent were not read): KubeVirt v1.9's
    ``compatibility.Decode`` reads only v1beta1 objects, so a VM using one cannot start or change (kubevirt
    #15400)."""
    users = _users(vms)
    findings = []
    for revision in revisions:
        kind, version = _revision_kind_version(revision)
        api_version = str((revision.get("data") or {}).get("apiVersion") or "")
        if kind not in served or not version:
            continue
        if version in served[kind]:
            continue
        namespace, name = _key(revision)
        used_by = users.get((namespace, name), [])
        if used_by:
            action = "clear the VMs' references so that virt-controller stores a new copy: " + " && ".join(
                command for vm, key in used_by for command in clear_revision_commands(vm, key)
            )
        else:
            action = (
                f"no VM uses it: kubectl delete controllerrevision {_shell_quote(name)} -n {_shell_quote(namespace)}"
            )
        findings.append(
            Finding(
                ERROR if used_by else WARNING,
                "unserved-version",
                namespace,
                f"controllerrevision/{name}",
                f"holds a {kind} as {api_version}, which this cluster's CRD no longer serves"
                + (
                    f": virtualmachine/{', virtualmachine/'.join(sorted({_key(vm)[1] for vm, _ in used_by}))} "
                    "cannot start or change"
                    if used_by
                    else ""
                ),
                action,
            )
        )
    return findings


@dataclass(frozen=True)
class CRDVersions:
    """What one kind's CustomResourceDefinition says of its versions: those ``served``, those served with
    ``deprecated: true`` (the API server then warns on every request to them), the ``storage`` version, and
    ``status.storedVersions`` (every version objects may still be stored in, in etcd)."""

    name: str
    served: frozenset[str]
    deprecated: frozenset[str]
    storage: str
    stored: tuple[str, ...]


def crd_versions(crd: Json) -> CRDVersions:
    """The :class:`CRDVersions` of a CRD object (apiextensions.k8s.io/v1)."""
    versions = (crd.get("spec") or {}).get("versions") or ()
    served = frozenset(str(v.get("name")) for v in versions if v.get("served"))
    return CRDVersions(
        str(_meta(crd).get("name") or ""),
        served,
        frozenset(str(v.get("name")) for v in versions if v.get("served") and v.get("deprecated")),
        next((str(v.get("name")) for v in versions if v.get("storage")), ""),
        tuple(str(v) for v in (crd.get("status") or {}).get("storedVersions") or ()),
    )


def _revision_kind_version(revision: Json) -> tuple[str, str]:
    data = revision.get("data") or {}
    kind = str(data.get("kind") or (_meta(revision).get("labels") or {}).get(OBJECT_KIND_LABEL) or "")
    return kind, str(data.get("apiVersion") or "").rpartition("/")[2]


def _users(vms: Iterable[Json]) -> dict[tuple[str, str], list[tuple[Json, str]]]:
    users: dict[tuple[str, str], list[tuple[Json, str]]] = {}
    for vm in vms:
        for key in MATCHER_KEYS:
            name = revision_in_use(vm, key)[0]
            if name:
                users.setdefault((_key(vm)[0], name), []).append((vm, key))
    return users


def deprecated_versions(
    vms: Iterable[Json], revisions: Iterable[Json], versions: Mapping[str, CRDVersions]
) -> list[Finding]:
    """What the next KubeVirt may no longer read, as far as the cluster itself announces it: a version its CRD
    still serves but marks ``deprecated`` (how a CRD announces a removal; KubeVirt's v1beta1 -> v1, enhancements
    #17). ``versions``: kind -> :class:`CRDVersions` (kinds absent were not read).

    - a CRD whose ``status.storedVersions`` still lists a deprecated version: objects written before the storage
      version changed stay stored so until rewritten (the API server converts them on read, so no list tells which
      ones; the storage-migration steps Kubernetes documents for CRD versions rewrite them all);
    - a ControllerRevision holding its object in a deprecated version (KubeVirt stores the object as it decoded
      it: ``pkg/instancetype/revision/store.go`` ``storeControllerRevision``).

    KubeVirt v1.9.0's CRDs serve v1beta1 alone, not deprecated: nothing is reported there."""
    from .kinds import ALL

    findings = []
    for kind in ALL:
        facts = versions.get(kind.kind)
        if facts is None:
            continue
        for version in (v for v in facts.stored if v in facts.deprecated and v != facts.storage):
            every = " -A" if kind.namespaced else ""
            findings.append(
                Finding(
                    WARNING,
                    "deprecated-version",
                    "",
                    f"customresourcedefinition/{facts.name}",
                    f"status.storedVersions still lists {version}, which the CRD marks deprecated (storage version "
                    f"{facts.storage or '?'}): {kind.plural} written before the storage version changed are "
                    f"stored as {version} until rewritten",
                    f"rewrite them as {facts.storage}: kubectl get {kind.plural}{every} -o json | kubectl replace -f -"
                    f"; then kubectl patch crd {facts.name} --subresource=status --type=merge -p "
                    f'\'{{"status":{{"storedVersions":["{facts.storage}"]}}}}\'',
                )
            )
    users = _users(vms)
    for revision in revisions:
        held, version = _revision_kind_version(revision)
        facts = versions.get(held)
        if facts is None or not version or version not in facts.deprecated:
            continue
        namespace, name = _key(revision)
        used_by = users.get((namespace, name), [])
        if used_by:
            action = (
                "store a new copy of the object as it is now (check drift first: the VM takes the live spec): "
                + " && ".join(command for vm, key in used_by for command in clear_revision_commands(vm, key))
            )
        else:
            action = (
                f"no VM uses it: kubectl delete controllerrevision {_shell_quote(name)} -n {_shell_quote(namespace)}"
            )
        findings.append(
            Finding(
                WARNING,
                "deprecated-version",
                namespace,
                f"controllerrevision/{name}",
                f"holds a {held} as {(revision.get('data') or {}).get('apiVersion')}, which this cluster's CRD "
                f"marks deprecated: a KubeVirt that stops serving {version} cannot read it",
                action,
                revision=name,
            )
        )
    return findings


def named_elsewhere(vmis: Iterable[Json], snapshot_contents: Iterable[Json]) -> set[tuple[str, str]]:
    """(namespace, name) of the revisions other objects than VMs name: a VMI's
    ``status.virtualMachineRevisionName`` (its VM's start revision, read on restart and by the snapshot
    controller: KubeVirt v1.9.0 ``pkg/virt-controller/watch/vm/vm.go``, ``pkg/storage/snapshot/source.go``), and
    the ``revisionName`` of each matcher of the VM a VirtualMachineSnapshotContent holds (what a restore copies
    back: ``pkg/storage/snapshot/restore.go`` ``restoreInstancetypeControllerRevisions``)."""
    named: set[tuple[str, str]] = set()
    for vmi in vmis:
        name = (vmi.get("status") or {}).get("virtualMachineRevisionName")
        if name:
            named.add((_key(vmi)[0], str(name)))
    for content in snapshot_contents:
        vm = ((content.get("spec") or {}).get("source") or {}).get("virtualMachine") or {}
        for key in MATCHER_KEYS:
            name = ((vm.get("spec") or {}).get(key) or {}).get("revisionName")
            if name:
                named.add((_key(content)[0], str(name)))
    return named


def orphan_revisions(
    vms: Iterable[Json], revisions: Iterable[Json], named: Iterable[tuple[str, str]] = ()
) -> list[Finding]:
    """Copies of instance types and preferences (and VM start revisions) that no existing VM owns nor uses, and
    that no other object owns (a VirtualMachineSnapshot owns the copies it took) nor names (``named``:
    :func:`named_elsewhere`): left by a VM deleted with ``--cascade=orphan`` or restored without its owner.
    Deleting them changes no VM."""
    vms = list(vms)
    uids = {str(_meta(vm).get("uid")) for vm in vms}
    revisions = list(revisions)
    used: set[tuple[str, str]] = set(named)
    for vm in vms:
        namespace = _key(vm)[0]
        used.update((namespace, name) for name in pinned_revisions(vm, revisions))
    findings = []
    for revision in revisions:
        namespace, name = _key(revision)
        if revision_target(revision) is None and not is_start_revision(name):
            continue  # not KubeVirt's: another controller's revision
        references = list(_meta(revision).get("ownerReferences") or ())
        if any(ref.get("kind") != "VirtualMachine" for ref in references):
            continue  # owned by something else (a snapshot): the garbage collector's to delete with it
        if any(str(ref.get("uid")) in uids for ref in references) or (namespace, name) in used:
            continue
        gone = ", ".join(f"virtualmachine/{ref.get('name')}" for ref in references)
        findings.append(
            Finding(
                INFO,
                "orphan-revision",
                namespace,
                f"controllerrevision/{name}",
                (f"owned by {gone}, which no longer exists" if gone else "owned by no VirtualMachine")
                + ", and no VM names it",
                f"kubectl delete controllerrevision {_shell_quote(name)} -n {_shell_quote(namespace)}",
                revision=name,
            )
        )
    return findings


def _comparable(data: Json) -> str:
    """The stored object without what changes with every write (resourceVersion, managedFields)."""
    metadata = {k: v for k, v in (data.get("metadata") or {}).items() if k not in ("resourceVersion", "managedFields")}
    return json.dumps({**data, "metadata": metadata}, sort_keys=True)


def duplicate_revisions(revisions: Iterable[Json]) -> list[Finding]:
    """Revisions of one namespace holding the same copy of the same object (one per VM: KubeVirt never shares
    them, kubevirt #8591): one info finding per group, naming the others."""
    groups: dict[tuple[str, str], list[str]] = {}
    for revision in revisions:
        if revision_target(revision) is None:
            continue
        namespace, name = _key(revision)
        groups.setdefault((namespace, _comparable(revision.get("data") or {})), []).append(name)
    findings = []
    for (namespace, _), names in sorted(groups.items(), key=lambda item: (item[0][0], sorted(item[1]))):
        if len(names) < 2:
            continue
        names.sort()
        findings.append(
            Finding(
                INFO,
                "identical-revisions",
                namespace,
                f"controllerrevision/{names[0]}",
                f"{len(names) - 1} other revision(s) hold the same copy: {', '.join(names[1:])}",
                "nothing breaks: KubeVirt stores one copy per VM (kubevirt #8591); VMs created with "
                f"spec.<instancetype|preference>.revisionName: {names[0]} would share this one",
            )
        )
    return findings


def drift(
    vms: Iterable[Json], revisions: Mapping[tuple[str, str], Json], live: Mapping[tuple[str, str, str], Json]
) -> list[Finding]:
    """VMs whose instance type or preference changed since their revision was stored (``revisions``'s CHANGED),
    whose object is gone, or whose object carries common-instancetypes' deprecated label. ``live``: (kind,
    namespace or "", name) -> object, for the kinds that could be listed (a kind absent is not judged)."""
    from .expand.resolve import ResolveError, matcher_kind, revision_spec

    findings = []
    for vm in vms:
        namespace, name = _key(vm)
        for key in MATCHER_KEYS:
            matcher = (vm.get("spec") or {}).get(key) or {}
            if not matcher.get("name"):
                continue
            try:
                kind = matcher_kind(key, str(matcher.get("kind") or ""))
            except ResolveError:
                continue
            listed_kinds = {k for k, _, _ in live}
            obj_namespace = namespace if "Cluster" not in kind else ""
            target = f"{kind.lower()}/{matcher['name']}"
            obj = live.get((kind, obj_namespace, str(matcher["name"])))
            if obj is not None and (_meta(obj).get("labels") or {}).get(DEPRECATED_LABEL) == "true":
                findings.append(
                    Finding(
                        WARNING,
                        "deprecated",
                        namespace,
                        f"virtualmachine/{name}",
                        f"uses {target}, labelled {DEPRECATED_LABEL}=true",
                        f"switch to a supported {key}: kubectl instancetype switch vm/{_shell_quote(name)} "
                        f"-n {_shell_quote(namespace)} --{key} NAME (kubectl instancetype list {kind.lower()} "
                        f"-l '!{DEPRECATED_LABEL}' lists the others)",
                    )
                )
            revision_name, where = revision_in_use(vm, key)
            revision = revisions.get((namespace, revision_name)) if revision_name else None
            if revision is None or (where != FROM_SPEC and not revision_matches(vm, key, revision)):
                continue
            if kind not in listed_kinds:
                continue
            if obj is None:
                findings.append(
                    Finding(
                        WARNING,
                        "drift",
                        namespace,
                        f"virtualmachine/{name}",
                        f"{target} no longer exists: the VM runs on its stored copy ({revision_name})",
                        f"recreate {target}, or switch the VM to another {key}: kubectl instancetype switch "
                        f"vm/{_shell_quote(name)} -n {_shell_quote(namespace)} --{key} NAME",
                    )
                )
                continue
            try:
                stored = revision_spec(revision)
            except ResolveError:
                continue
            if (obj.get("spec") or {}) == stored:
                continue
            generation = revision_generation(revision)
            findings.append(
                Finding(
                    WARNING,
                    "drift",
                    namespace,
                    f"virtualmachine/{name}",
                    f"{target} changed since the VM's revision was stored (generation "
                    f"{'?' if generation is None else generation} -> {_meta(obj).get('generation', '?')}): the VM "
                    "keeps the old spec",
                    f"see the difference: kubectl instancetype revisions vm/{_shell_quote(name)} -n "
                    f"{_shell_quote(namespace)}; take the new spec: kubectl instancetype switch "
                    f"vm/{_shell_quote(name)} -n {_shell_quote(namespace)} --refresh",
                )
            )
    return findings


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then warnings, then infos; by namespace and object within a severity."""
    return sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), f.namespace, f.object, f.check, f.finding))


CLEAR_REFERENCE, DELETE_ORPHAN = "clear-reference", "delete-orphan"
FIXABLE = {"missing-revision": CLEAR_REFERENCE, "orphan-revision": DELETE_ORPHAN}


@dataclass(frozen=True)
class Fix:
    """One change ``doctor --fix`` makes: clear matcher ``key``'s reference to the missing ``revision`` of
    virtualmachine ``name`` (:data:`CLEAR_REFERENCE`), or delete the orphan ControllerRevision ``name``
    (:data:`DELETE_ORPHAN`), in ``namespace``. ``finding``: what it fixes."""

    action: str
    namespace: str
    name: str
    finding: Finding
    key: str = ""
    revision: str = ""


@dataclass(frozen=True)
class NotFixed:
    """A finding ``--fix`` handles that it left as it is, and why."""

    finding: Finding
    reason: str


def fix_plan(
    findings: Iterable[Finding],
    vms: Iterable[Json],
    live: Mapping[tuple[str, str, str], Json],
    listed: Iterable[str],
) -> tuple[list[Fix], list[NotFixed]]:
    """The changes ``--fix`` makes for ``findings``, and the fixable findings it leaves (with the reason).

    Only two changes are made, both of which KubeVirt allows and neither of which changes what a VM runs now:

    - a VM naming a ControllerRevision that does not exist: clear the reference (``revisionName``, then the
      status reference), as the printed commands do. KubeVirt v1.9.0's VM admission lets a matcher lose its
      ``revisionName`` (``pkg/instancetype/webhooks/vm/mutator.go`` ``validateMatcherUpdate`` refuses only a
      new name with the old revisionName), and virt-controller then stores a copy of the live object
      (``syncStatusWithMatcher``). Only when that object exists (``live``: (kind, namespace or "", name) ->
      object of the kinds ``listed``): otherwise clearing would only trade one failure for another.
    - a revision no VM owns or names and nothing else owns or names: delete it.

    Drift, deprecated objects and API versions are never changed: each needs a choice (which spec, which type)
    that only the user can make."""
    by_key = {_key(vm): vm for vm in vms}
    kinds = frozenset(listed)
    plan: list[Fix] = []
    left: list[NotFixed] = []
    for finding in findings:
        action = FIXABLE.get(finding.check)
        if action is None:
            continue
        name = finding.object.partition("/")[2]
        if action == DELETE_ORPHAN:
            plan.append(Fix(action, finding.namespace, name, finding, revision=finding.revision))
            continue
        vm = by_key.get((finding.namespace, name))
        matcher = ((vm or {}).get("spec") or {}).get(finding.key) or {}
        target = _live_target(finding.namespace, finding.key, matcher, live, kinds)
        if target:
            left.append(NotFixed(finding, target))
            continue
        plan.append(Fix(action, finding.namespace, name, finding, key=finding.key, revision=finding.revision))
    return plan, left


def _live_target(
    namespace: str,
    key: str,
    matcher: Mapping[str, Any],
    live: Mapping[tuple[str, str, str], Json],
    listed: frozenset[str],
) -> str:
    """Why clearing ``matcher``'s reference would not help ("" when it would: its object exists)."""
    from .expand.resolve import ResolveError, matcher_kind

    if not matcher.get("name"):
        return f"spec.{key} names no object (inferFromVolume): virt-controller could store no new copy"
    try:
        kind = matcher_kind(key, str(matcher.get("kind") or ""))
    except ResolveError as exc:
        return str(exc)
    target = f"{kind.lower()}/{matcher['name']}"
    if kind not in listed:
        return f"{target} could not be read, so doctor cannot tell whether virt-controller could store a new copy"
    if (kind, namespace if "Cluster" not in kind else "", str(matcher["name"])) not in live:
        return f"{target} does not exist either: recreate it, or switch the VM to another {key}, then run --fix again"
    return ""
