"""``usage``: the VMs, VirtualMachinePools, VirtualMachineTemplates and ControllerRevisions that use each instance
type and preference, read from the cluster (one paged list per kind), and what deleting one would break.

Pools and templates are read when the cluster serves them (``pool.kubevirt.io/v1beta1``; ``template.kubevirt.io``
at the version its discovery document prefers); a kind the user may not list is left out with one warning.

A cluster-scoped instance type or preference is used from every namespace, so a delete check of one looks in all
of them, whatever ``-n`` says (the other views keep ``-n``'s scope, as kubectl's do). When RBAC refuses a list across all namespaces, each namespace the user
may see is listed on its own; what stays unread is recorded (:attr:`UsageReport.unread`), and a delete check
that did not read everything gives no verdict. KubeVirt v1.9.0 has no deletion protection of its own: its
instance type webhooks (virt-operator's components/webhooks.go) admit CREATE and UPDATE only, and a
VirtualMachineInstance holds its expanded spec, so the users are VMs, pools, templates and ControllerRevisions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..instancetype.usage import Target, Totals, Use
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session

KEYS = ("instancetype", "preference")
UNREAD_SHOWN = 5  # namespaces named in the one error line (the warning names them all)


@dataclass
class UsageReport:
    """Every target in scope (or the one asked about), every use of them, the totals, and what was not read."""

    targets: list[Target]
    uses: list[Use]
    totals: dict[Target, Totals]
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # kinds the cluster does not serve
    only: Target | None = None  # the one target asked about
    # what could not be read: "virtualmachines.kubevirt.io in namespaces a, b", "VMs whose inferFromVolume ..."
    unread: list[str] = field(default_factory=list)

    def uses_of(self, target: Target) -> list[Use]:
        """The uses of one target."""
        return [use for use in self.uses if use.target == target]


def _items(client: Client, resource: Resource, namespace: str | None, **query: Any) -> Iterator[dict[str, Any]]:
    for page in client.list_pages(resource, namespace if resource.namespaced else None, **query):
        yield from page.get("items") or ()


def _template_resource(client: Client) -> Resource | None:
    """``virtualmachinetemplates`` at the version ``template.kubevirt.io`` prefers, None when not served."""
    from ..errors import NotFoundError
    from ..kube.resources import Resource

    try:
        group = client.api_group("template.kubevirt.io")
    except NotFoundError:
        return None
    version = str(((group or {}).get("preferredVersion") or {}).get("version") or "")
    if not version:
        return None
    return Resource("template.kubevirt.io", version, "virtualmachinetemplates", "VirtualMachineTemplate", True)


@dataclass(frozen=True)
class UsageRequest:
    """What ``usage`` reads: every instance type and preference in the session's namespace (``all_namespaces``:
    in all of them) and cluster-wide, or the one ``kind``/``name`` (a ControllerRevision: who still needs it)."""

    kind: str | None = None
    name: str = ""
    all_namespaces: bool = False
    check_delete: bool = False  # a verdict: a cluster-scoped object is looked for in every namespace


@dataclass(frozen=True)
class RevisionUsers:
    """The VMs that resolve through ControllerRevision ``name``."""

    name: str
    users: list[str]


def usage(session: Session, request: UsageRequest) -> UsageReport | RevisionUsers:
    """``usage``: who uses which instance types and preferences, or who needs one ControllerRevision."""
    from ..instancetype.usage import Target

    if request.kind == "ControllerRevision":
        return RevisionUsers(request.name, revision_users(session, request.name))
    only = None
    if request.kind:
        only = Target(request.kind, "" if "Cluster" in request.kind else session.namespace, request.name)
    # a cluster-scoped type is used from every namespace: a delete check of one looks everywhere
    everywhere = request.all_namespaces or (request.check_delete and only is not None and not only.namespace)
    return collect(session, None if everywhere else session.namespace, only)


def collect(session: Session, namespace: str | None, only: Target | None = None) -> UsageReport:
    """Read the cluster (``namespace`` None: all namespaces) and list who uses what; ``only`` limits the
    report to one target."""
    from ..errors import APIError, ForbiddenError, NotFoundError
    from ..instancetype import usage as domain
    from ..instancetype.expand.resolve import ResolveError, infer
    from ..instancetype.expand.revisions import OBJECT_KIND_LABEL, revision_in_use
    from ..kube import resources
    from .revisions import cluster_fetch

    client = session.client()
    warnings: list[str] = []
    skipped: list[str] = []
    unread: list[str] = []
    visible: list[list[str] | None] = []  # the namespaces the user may list, once asked (None: may not)

    def namespaces() -> list[str] | None:
        if not visible:
            try:
                visible.append(sorted(client.list_names(resources.NAMESPACES)))
            except ForbiddenError:
                visible.append(None)
        return visible[0]

    def read(resource: Resource, scope: str | None, users: bool = True, **query: Any) -> list[dict[str, Any]]:
        """Every object of ``resource`` in ``scope`` (None: every namespace) the user may list; what RBAC
        refuses is a warning and, for the kinds that can use a type (``users``), an entry of ``unread``."""
        try:
            return list(_items(client, resource, scope, **query))
        except NotFoundError:
            skipped.append(resource.plural)
            return []
        except ForbiddenError as exc:
            if scope is not None or not resource.namespaced:
                warnings.append(f"cannot list {resource.qualified}: {exc.message}; they are left out")
                if users:
                    unread.append(f"{resource.qualified} in namespace {scope}")
                return []
            refusal = exc.message
        # refused across all namespaces: each namespace the user may see, one list each (as RBAC may allow)
        names = namespaces()
        if names is None:
            warnings.append(
                f"cannot list {resource.qualified}: {refusal}; nor the namespaces to read them one by one; "
                "they are left out"
            )
            if users:
                unread.append(f"{resource.qualified} in any namespace")
            return []
        found: list[dict[str, Any]] = []
        refused: list[str] = []
        for name in names:
            try:
                found += _items(client, resource, name, **query)
            except NotFoundError:
                continue  # a namespace deleted meanwhile
            except ForbiddenError:
                refused.append(name)
        if refused:
            where = f"namespace{'s' if len(refused) > 1 else ''} {', '.join(refused)}"
            warnings.append(f"cannot list {resource.qualified} in {where}: forbidden; they are left out")
            if users:
                shown = (
                    where
                    if len(refused) <= UNREAD_SHOWN
                    else (f"namespaces {', '.join(refused[:UNREAD_SHOWN])} and {len(refused) - UNREAD_SHOWN} more")
                )
                unread.append(f"{resource.qualified} in {shown}")
        return found

    # the targets and their live generations and specs
    live: dict[Target, dict[str, Any]] = {}
    for resource in (
        resources.CLUSTER_INSTANCETYPES,
        resources.CLUSTER_PREFERENCES,
        resources.INSTANCETYPES,
        resources.PREFERENCES,
    ):
        for obj in read(resource, namespace, users=False):
            metadata = obj.get("metadata") or {}
            target = domain.Target(resource.kind, str(metadata.get("namespace") or ""), str(metadata["name"]))
            live[target] = obj
    revisions: dict[tuple[str, str], dict[str, Any]] = {}
    for revision in read(resources.CONTROLLER_REVISIONS, namespace, label_selector=OBJECT_KIND_LABEL):
        metadata = revision.get("metadata") or {}
        revisions[(str(metadata.get("namespace")), str(metadata["name"]))] = revision

    fetch = cluster_fetch(client)
    uses: list[domain.Use] = []

    def add_matchers(vm: dict[str, Any], user_kind: str, user_name: str, ns: str, via_root: str, **extra: Any) -> None:
        spec = vm.get("spec") or {}
        resolved = vm
        if any((spec.get(key) or {}).get("inferFromVolume") for key in KEYS):
            try:
                resolved = infer({**vm, "metadata": {**(vm.get("metadata") or {}), "namespace": ns}}, fetch)
            except (ResolveError, APIError) as exc:
                warnings.append(f"{user_kind.lower()}/{user_name}: inferFromVolume cannot be resolved: {exc}")
                unread.append(f"what {user_kind.lower()}/{user_name} ({ns}) infers from its volume")
                return
        for key in KEYS:
            matcher = (resolved.get("spec") or {}).get(key)
            if not matcher:
                continue
            target = domain.target_of(matcher, key, ns)
            if target is None:
                continue
            original = spec.get(key) or {}
            via = f"{via_root}.{key}"
            if original.get("inferFromVolume"):
                via += f" (inferFromVolume {original['inferFromVolume']})"
            revision_name = revision_in_use(vm, key)[0] if user_kind == "VirtualMachine" else ""
            revision = revisions.get((ns, revision_name)) if revision_name else None
            stored = domain.stored_copy(revision) if revision else None
            live_obj = live.get(target)
            live_generation = int((live_obj or {}).get("metadata", {}).get("generation") or 0) or None
            sized: Any = None
            if key == "instancetype":
                sized = (revision or {}).get("data", {}).get("spec") if revision else (live_obj or {}).get("spec")
            vcpus, memory = domain.guest_size(sized)
            use = domain.Use(
                target=target,
                user_kind=user_kind,
                user_name=user_name,
                namespace=ns,
                via=via,
                revision=revision_name,
                revision_generation=stored[1] if stored else None,
                live_generation=live_generation,
                vcpus=vcpus,
                memory=memory,
                **extra,
            )
            uses.append(domain.Use(**{**use.__dict__, "breaks": domain.delete_consequence(use, revision is not None)}))

    for vm in read(resources.VIRTUAL_MACHINES, namespace):
        metadata = vm.get("metadata") or {}
        running = bool((vm.get("status") or {}).get("created"))
        add_matchers(vm, "VirtualMachine", metadata["name"], str(metadata.get("namespace")), "spec", running=running)
    for pool in read(resources.VIRTUAL_MACHINE_POOLS, namespace):
        metadata = pool.get("metadata") or {}
        spec = pool.get("spec") or {}
        template = (spec.get("virtualMachineTemplate") or {}).get("spec") or {}
        replicas = int(str(spec.get("replicas"))) if spec.get("replicas") is not None else 1
        add_matchers(
            {"spec": template},
            "VirtualMachinePool",
            metadata["name"],
            str(metadata.get("namespace")),
            "spec.virtualMachineTemplate.spec",
            replicas=replicas,
        )
    template_resource = _template_resource(client)
    if template_resource is None:
        skipped.append("virtualmachinetemplates")
    else:
        for template in read(template_resource, namespace):
            metadata = template.get("metadata") or {}
            vm = domain.substitute(
                (template.get("spec") or {}).get("virtualMachine") or {}, domain.template_parameters(template)
            )
            add_matchers(
                vm if isinstance(vm, dict) else {},
                "VirtualMachineTemplate",
                metadata["name"],
                str(metadata.get("namespace")),
                "spec.virtualMachine.spec",
                replicas=0,
            )
    for (ns, name), revision in revisions.items():
        found = domain.stored_copy(revision)
        if found is None:
            continue
        target, generation = found
        live_obj = live.get(target)
        owner = next(
            (ref for ref in (revision["metadata"].get("ownerReferences") or []) if ref.get("kind") == "VirtualMachine"),
            None,
        )
        vcpus, memory = domain.guest_size(
            (revision.get("data") or {}).get("spec") if target.key == "instancetype" else None
        )
        uses.append(
            domain.Use(
                target=target,
                user_kind="ControllerRevision",
                user_name=name,
                namespace=ns,
                via=f"copy held for vm/{owner['name']}" if owner else "copy",
                revision=name,
                revision_generation=generation,
                live_generation=int((live_obj or {}).get("metadata", {}).get("generation") or 0) or None,
                replicas=0,
                vcpus=vcpus,
                memory=memory,
            )
        )
    targets = sorted(live)
    if only is not None:
        targets = [only]
        uses = [use for use in uses if use.target == only]
    uses.sort(key=lambda use: (use.target, _USER_ORDER.get(use.user_kind, 9), use.namespace, use.user_name))
    return UsageReport(targets, uses, domain.totals(uses), warnings, sorted(set(skipped)), only, unread)


_USER_ORDER = {"VirtualMachine": 0, "VirtualMachinePool": 1, "VirtualMachineTemplate": 2, "ControllerRevision": 3}


def revision_users(session: Session, name: str) -> list[str]:
    """The VMs that resolve through ControllerRevision ``name`` (revisionName, status ref, or their start
    revision pins it): deleting it sends them back to the live object."""
    from ..instancetype.expand.revisions import is_start_revision, pinned_revisions
    from ..kube.resources import CONTROLLER_REVISIONS, VIRTUAL_MACHINES

    client, namespace = session.client(), session.namespace
    starts = [
        rev
        for rev in _items(client, CONTROLLER_REVISIONS, namespace)
        if is_start_revision(str(rev["metadata"]["name"]))
    ]
    return [
        str(vm["metadata"]["name"])
        for vm in _items(client, VIRTUAL_MACHINES, namespace)
        if name in pinned_revisions(vm, starts)
    ]
