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
    users: dict[tuple[str, str], list[tuple[Json, str]]] = {}
    for vm in vms:
        for key in MATCHER_KEYS:
            name = revision_in_use(vm, key)[0]
            if name:
                users.setdefault((_key(vm)[0], name), []).append((vm, key))
    findings = []
    for revision in revisions:
        data = revision.get("data") or {}
        kind = str(data.get("kind") or _meta(revision).get("labels", {}).get(OBJECT_KIND_LABEL) or "")
        api_version = str(data.get("apiVersion") or "")
        if kind not in served or not api_version:
            continue
        version = api_version.rpartition("/")[2]
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


def orphan_revisions(vms: Iterable[Json], revisions: Iterable[Json]) -> list[Finding]:
    """Copies of instance types and preferences (and VM start revisions) that no existing VM owns nor uses: left
    by a VM deleted with ``--cascade=orphan`` or restored without its owner. Deleting them changes no VM."""
    vms = list(vms)
    uids = {str(_meta(vm).get("uid")) for vm in vms}
    revisions = list(revisions)
    used: set[tuple[str, str]] = set()
    for vm in vms:
        namespace = _key(vm)[0]
        used.update((namespace, name) for name in pinned_revisions(vm, revisions))
    findings = []
    for revision in revisions:
        namespace, name = _key(revision)
        if revision_target(revision) is None and not is_start_revision(name):
            continue  # not KubeVirt's: another controller's revision
        owners = [ref for ref in _meta(revision).get("ownerReferences") or () if ref.get("kind") == "VirtualMachine"]
        if any(str(ref.get("uid")) in uids for ref in owners) or (namespace, name) in used:
            continue
        gone = ", ".join(f"virtualmachine/{ref.get('name')}" for ref in owners)
        findings.append(
            Finding(
                INFO,
                "orphan-revision",
                namespace,
                f"controllerrevision/{name}",
                (f"owned by {gone}, which no longer exists" if gone else "owned by no VirtualMachine")
                + ", and no VM names it",
                f"kubectl delete controllerrevision {_shell_quote(name)} -n {_shell_quote(namespace)}",
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
