"""Installing the embedded catalog on a cluster (server-side apply) and comparing the two.

``install`` lists what the cluster holds in the target scope first (one paged list per kind): that tells
created from existing objects, finds objects virt-operator manages (refused unless forced: the operator
would revert them), and gives the resourceVersions that tell ``unchanged`` from ``configured``. Each object is
then sent with server-side apply (field manager ``kubectl-instancetype``). An object
the cluster's schema cannot hold (an older KubeVirt: 1.8 has no ``preferredVideoType``) is reported with the
fields it lacks; with ``drop_unknown_fields`` it is applied without them. Once a field is known to be missing,
other objects that use it are not sent with it (or at all): one failed request per field, not per object.

``diff`` compares the catalog's fields (labels, annotations, spec) with the cluster's objects as yaml.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import APIError, PluginError
from .skew import CatalogItem

if TYPE_CHECKING:
    from ..catalog import Catalog
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session
    from .skew import Skew

FIELD_MANAGER = "kubectl-instancetype"
MANAGED_BY = "app.kubernetes.io/managed-by"
VIRT_OPERATOR = "virt-operator"
VENDOR_LABEL = "instancetype.kubevirt.io/vendor"
_UNKNOWN_FIELD = re.compile(r"(\.[A-Za-z0-9_.\-]+): field not declared in schema")
# Metadata a deployment adds (virt-operator, kubectl apply): not part of what the catalog says.
DEPLOYMENT_LABEL_PREFIXES = ("app.kubernetes.io/",)
DEPLOYMENT_ANNOTATION_PREFIXES = ("kubevirt.io/install-strategy-", "kubevirt.io/generation", "kubectl.kubernetes.io/")
# Upstream annotations the embedded catalog deliberately does not carry (see catalog/loader.py): a cluster
# deployed from the release bundle has them, and that is no difference worth showing.
NOT_CARRIED_ANNOTATIONS = (
    "instancetype.kubevirt.io/description",
    "openshift.io/documentation-url",
    "openshift.io/support-url",
)
SHOWN_NAMES = 3


@dataclass(frozen=True)
class Scope:
    """What to install or compare: which kinds, and the namespace for the namespaced kinds (None: cluster)."""

    namespace: str | None = None
    instancetypes: bool = True
    preferences: bool = True


def catalog_objects(catalog: Catalog, scope: Scope) -> list[CatalogItem]:
    """The catalog's objects of ``scope`` with their resources, instance types first."""
    from ..kube import resources

    source = catalog.namespaced(scope.namespace) if scope.namespace else catalog
    namespaced = scope.namespace is not None
    chosen: list[CatalogItem] = []
    if scope.instancetypes:
        resource = resources.INSTANCETYPES if namespaced else resources.CLUSTER_INSTANCETYPES
        chosen += [CatalogItem(resource, obj) for obj in source.instancetypes]
    if scope.preferences:
        resource = resources.PREFERENCES if namespaced else resources.CLUSTER_PREFERENCES
        chosen += [CatalogItem(resource, obj) for obj in source.preferences]
    return chosen


def existing_objects(
    client: Client, kinds: Iterable[Resource], namespace: str | None
) -> dict[tuple[str, str], dict[str, Any]]:
    """The cluster's objects of ``kinds`` in the scope, by (kind, name): one paged list per kind."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for resource in kinds:
        for page in client.list_pages(resource, namespace if resource.namespaced else None):
            for item in page.get("items") or ():
                found[(resource.kind, item["metadata"]["name"])] = item
    return found


def _labels(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _shown(names: list[str]) -> str:
    more = f", and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
    return ", ".join(names[:SHOWN_NAMES]) + more


def refuse_operator_managed(objects: list[CatalogItem], existing: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Raise when any target object exists and virt-operator manages it (the caller skips this with --force)."""
    managed = [
        item.shown
        for item in objects
        if _labels(existing.get((item.resource.kind, item.name)) or {}).get(MANAGED_BY) == VIRT_OPERATOR
    ]
    if managed:
        raise PluginError(
            f"{len(managed)} objects are managed by virt-operator ({MANAGED_BY}={VIRT_OPERATOR}), which would revert "
            f"changes to them: {_shown(managed)}; install into a namespace with --namespaced, or use --force to "
            "apply anyway"
        )


@dataclass
class Outcome:
    """What happened to one object: its ``-o name`` form, kubectl apply's verb, and the fields dropped."""

    name: str
    verb: str
    dropped: list[str] = field(default_factory=list)


@dataclass
class InstallReport:
    """Every outcome, and the objects not applied because the cluster's schema lacks fields they use."""

    outcomes: list[Outcome] = field(default_factory=list)
    # field path (".spec.devices.preferredVideoType") -> names of the objects that use it
    unknown_fields: dict[str, list[str]] = field(default_factory=dict)

    def unknown_fields_message(self) -> str:
        """One line naming the missing fields and the objects that were not applied."""
        parts = [f"{path.lstrip('.')} ({', '.join(names)})" for path, names in self.unknown_fields.items()]
        return (
            "the cluster's schema lacks fields the catalog uses, so these objects were not applied: "
            + "; ".join(parts)
            + "; rerun with --drop-unknown-fields to apply them without those fields (or upgrade KubeVirt)"
        )


def unknown_fields(error: APIError) -> list[str]:
    """The field paths a server-side apply was refused for (the API server's "field not declared in schema")."""
    return _UNKNOWN_FIELD.findall(error.message)


def _path_keys(path: str) -> list[str] | None:
    keys = path.lstrip(".").split(".")
    return keys if all(keys) else None


def has_field(obj: dict[str, Any], path: str) -> bool:
    """True when ``obj`` has a value at the dotted ``path`` (``.spec.devices.preferredVideoType``)."""
    node: Any = obj
    for key in _path_keys(path) or []:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def drop_field(obj: dict[str, Any], path: str) -> bool:
    """Remove the dotted ``path`` from ``obj`` (emptied parents stay, as ``{}`` is valid); False if absent."""
    keys = _path_keys(path)
    if not keys or not has_field(obj, path):
        return False
    node = obj
    for key in keys[:-1]:
        node = node[key]
    del node[keys[-1]]
    return True


def _normalised(obj: dict[str, Any]) -> dict[str, Any]:
    """An object without what every write changes (resourceVersion, managedFields times)."""
    result = copy.deepcopy(obj)
    metadata = result.get("metadata") or {}
    metadata.pop("resourceVersion", None)
    for entry in metadata.get("managedFields") or []:
        entry.pop("time", None)
    return result


def _contains(whole: Any, part: Any) -> bool:
    """True when every leaf of ``part`` is in ``whole`` with the same value."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            key in whole and _contains(whole[key], value) for key, value in part.items()
        )
    return bool(whole == part)


def apply_verb(
    existing: dict[str, Any] | None, answer: dict[str, Any] | None, desired: dict[str, Any], dry_run: str
) -> str:
    """kubectl apply's word for one object: ``created``, ``unchanged`` or ``configured`` (``existing`` is the
    object before, ``answer`` the server's answer to the apply)."""
    if existing is None:
        return "created"
    if dry_run == "client":
        wanted = {
            "metadata": {k: desired["metadata"].get(k) or {} for k in ("labels", "annotations")},
            "spec": desired.get("spec") or {},
        }
        return "unchanged" if _contains(existing, wanted) else "configured"
    if dry_run == "server":
        return "unchanged" if _normalised(existing) == _normalised(answer or {}) else "configured"
    old = (existing.get("metadata") or {}).get("resourceVersion")
    new = ((answer or {}).get("metadata") or {}).get("resourceVersion")
    return "unchanged" if old == new else "configured"


def install(
    client: Client,
    objects: list[CatalogItem],
    existing: dict[tuple[str, str], dict[str, Any]],
    *,
    dry_run: str = "none",
    force: bool = False,
    drop_unknown_fields: bool = False,
    report: Callable[[Outcome], None] = lambda outcome: None,
    known_missing: Iterable[str] = (),
) -> InstallReport:
    """Apply ``objects`` (``dry_run``: none, client or server); ``report`` receives each outcome as it happens.
    ``known_missing``: field paths (``spec.devices.preferredVideoType``) the cluster's schema is known to lack.

    A failure or an interruption part way (RBAC forbidding one kind, a conflict, Ctrl-C) ends in one
    :class:`PluginError` that says what was applied before it and what was not (as ``convert --apply`` does).
    """
    result = InstallReport()
    done: list[str] = []  # the -o name of every object handled, in order
    sending: list[tuple[CatalogItem, dict[str, Any]]] = []  # the object whose apply is on the wire, and its body
    try:
        missing = ["." + path.lstrip(".") for path in known_missing]
        _install(client, objects, existing, result, done, dry_run, force, drop_unknown_fields, report, missing, sending)
    except KeyboardInterrupt:
        doubt = _settle(client, sending, existing, result, done)
        raise PluginError(f"interrupted; {_what_exists(result, objects, done, doubt)}") from None
    except PluginError as exc:
        # a server's refusal (an APIError) applied nothing; a connection that failed on the way may have
        doubt = "" if isinstance(exc, APIError) else _settle(client, sending, existing, result, done)
        raise PluginError(
            f"{exc.render().removeprefix('error: ')}; {_what_exists(result, objects, done, doubt)}"
        ) from exc
    return result


def _settle(
    client: Client,
    sending: list[tuple[CatalogItem, dict[str, Any]]],
    existing: dict[tuple[str, str], dict[str, Any]],
    result: InstallReport,
    done: list[str],
) -> str:
    """Find out whether the apply that was on the wire when the run was cut took effect: the server may have
    applied it before the answer was read. The object is read back; when it holds what was sent it is counted
    as applied (created, configured or unchanged, as kubectl apply would have said), otherwise as not applied.
    Returns a sentence about the object when that could not be found out, else ''."""
    if not sending:
        return ""
    item, body = sending[0]
    namespace = item.obj["metadata"].get("namespace")
    try:
        now = client.read_back(item.resource, item.name, namespace)
    except (PluginError, KeyboardInterrupt) as exc:
        why = "interrupted again" if isinstance(exc, KeyboardInterrupt) else exc.render().removeprefix("error: ")
        done.append(item.shown)
        return f"{item.shown} may or may not have been applied (reading it back failed: {why})"
    before = existing.get((item.resource.kind, item.name))
    wanted = {
        "metadata": {key: body["metadata"].get(key) or {} for key in ("labels", "annotations")},
        "spec": body.get("spec") or {},
    }
    if now is not None and _contains(now, wanted):
        outcome = Outcome(item.shown, apply_verb(before, now, body, "none"), [])
        result.outcomes.append(outcome)
        done.append(item.shown)
    return ""


def _what_exists(result: InstallReport, objects: list[CatalogItem], done: list[str], doubt: str = "") -> str:
    """``applied: 3 created, 1 unchanged; not applied: <first> and 40 more`` (``nothing was applied``); ``doubt``
    names an object whose apply may or may not have taken effect."""
    counts: dict[str, int] = {}
    for outcome in result.outcomes:
        counts[outcome.verb] = counts.get(outcome.verb, 0) + 1
    applied = ", ".join(f"{count} {verb}" for verb, count in counts.items())
    handled = set(done)
    left = [item.shown for item in objects if item.shown not in handled]
    parts = [f"applied before that: {applied}" if applied else "nothing was applied"]
    skipped = sum(len(names) for names in result.unknown_fields.values())
    if skipped:
        parts.append(f"{skipped} left out for fields the cluster's schema lacks")
    if doubt:
        parts.append(doubt)
    if left:
        more = f" and {len(left) - 1} more" if len(left) > 1 else ""
        parts.append(f"not applied: {left[0]}{more}")
    return "; ".join(parts)


def _install(
    client: Client,
    objects: list[CatalogItem],
    existing: dict[tuple[str, str], dict[str, Any]],
    result: InstallReport,
    done: list[str],
    dry_run: str,
    force: bool,
    drop_unknown_fields: bool,
    report: Callable[[Outcome], None],
    missing: list[str],  # field paths the cluster's schema lacks, known or learnt
    sending: list[tuple[CatalogItem, dict[str, Any]]],
) -> None:
    for item in objects:
        resource, desired, name, shown = item.resource, item.obj, item.name, item.shown
        namespace = desired["metadata"].get("namespace")
        body = desired
        dropped: list[str] = []
        unknown = [path for path in missing if has_field(desired, path)]
        answer: dict[str, Any] | None = None
        while True:
            if unknown and not drop_unknown_fields:
                for path in unknown:
                    result.unknown_fields.setdefault(path, []).append(name)
                break
            if unknown:
                body = copy.deepcopy(body) if body is desired else body
                for path in unknown:
                    if drop_field(body, path):
                        dropped.append(path.lstrip("."))
            if dry_run == "client":
                break
            try:
                if dry_run == "none":
                    sending[:] = [(item, body)]
                answer = server_side_apply(
                    client, resource, name, namespace, body, dry_run=dry_run == "server", force=force
                )
                break
            except APIError as exc:
                sending.clear()  # the server answered: a refusal applied nothing
                paths = [path for path in unknown_fields(exc) if path not in missing]
                if not paths or not all(_path_keys(path) for path in paths):
                    if exc.code == 409:
                        raise PluginError(f"{shown}: {exc.render()} (use --force to take these fields over)") from exc
                    raise
                missing.extend(paths)
                unknown = paths
        if unknown and not drop_unknown_fields:
            done.append(shown)  # not applied, and said so by unknown_fields_message
            continue
        outcome = Outcome(shown, apply_verb(existing.get((resource.kind, name)), answer, body, dry_run), dropped)
        result.outcomes.append(outcome)
        done.append(shown)
        sending.clear()  # answered and counted: no longer in doubt
        report(outcome)


def server_side_apply(
    client: Client,
    resource: Resource,
    name: str,
    namespace: str | None,
    body: dict[str, Any],
    *,
    dry_run: bool = False,
    force: bool = False,
) -> dict[str, Any]:
    """One server-side apply as field manager ``kubectl-instancetype``. The API server refuses a field its
    schema lacks whatever ``fieldValidation`` says (500, "field not declared in schema"), so none is sent."""
    return client.apply(resource, name, namespace, body, field_manager=FIELD_MANAGER, force=force, dry_run=dry_run)


# -- diff -------------------------------------------------------------------------------------------


def comparable(obj: dict[str, Any]) -> dict[str, Any]:
    """What the catalog says of an object: kind, name, namespace, labels and annotations (without deployment
    metadata and the upstream annotations the catalog does not carry) and spec; what the server adds is left out."""
    metadata = obj.get("metadata") or {}
    shown: dict[str, Any] = {"name": metadata.get("name")}
    if metadata.get("namespace"):
        shown["namespace"] = metadata["namespace"]
    labels = {k: v for k, v in (metadata.get("labels") or {}).items() if not k.startswith(DEPLOYMENT_LABEL_PREFIXES)}
    annotations = {
        k: v
        for k, v in (metadata.get("annotations") or {}).items()
        if not k.startswith(DEPLOYMENT_ANNOTATION_PREFIXES) and k not in NOT_CARRIED_ANNOTATIONS
    }
    if labels:
        shown["labels"] = labels
    if annotations:
        shown["annotations"] = annotations
    return {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "metadata": shown,
        "spec": obj.get("spec") or {},
    }


def diff(
    catalog: Catalog,
    objects: list[CatalogItem],
    existing: dict[tuple[str, str], dict[str, Any]],
    kinds: Iterable[Resource],
) -> list[str]:
    """Unified diffs (one string per differing object), cluster -> catalog, in catalog order, then the
    vendor objects the catalog no longer has."""
    import difflib

    from ..golang.goyaml import dump

    def lines(obj: dict[str, Any] | None) -> list[str]:
        return dump(comparable(obj)).splitlines(keepends=True) if obj is not None else []

    label = f"catalog-{catalog.version}"
    diffs: list[str] = []
    wanted: set[tuple[str, str]] = set()
    for item in objects:
        key = (item.resource.kind, item.name)
        wanted.add(key)
        current, desired, shown = existing.get(key), item.obj, item.shown
        text = "".join(
            difflib.unified_diff(
                lines(current),
                lines(desired),
                f"cluster/{shown}" if current is not None else "/dev/null",
                f"{label}/{shown}",
            )
        )
        if text:
            diffs.append(text)
    by_kind = {resource.kind: resource for resource in kinds}
    for (kind, name), current in sorted(existing.items()):
        if (kind, name) in wanted or kind not in by_kind or _labels(current).get(VENDOR_LABEL) != "kubevirt.io":
            continue
        shown = by_kind[kind].name_of(name)
        diffs.append("".join(difflib.unified_diff(lines(current), [], f"cluster/{shown}", "/dev/null")))
    return diffs


@dataclass(frozen=True)
class Selection:
    """What ``catalog install``/``diff`` work on: the release (None: the newest), the kinds, and whether the
    namespaced kinds are meant (in the session's namespace) rather than the cluster-scoped ones."""

    version: str | None = None
    namespaced: bool = False
    instancetypes: bool = True
    preferences: bool = True


@dataclass(frozen=True)
class Selected:
    """The catalog release, its objects the selection names (with their resources), their kinds, and the
    cluster's objects of those kinds by (kind, name)."""

    catalog: Catalog
    objects: list[CatalogItem]
    kinds: list[Resource]
    existing: dict[tuple[str, str], dict[str, Any]]


def _selected(session: Session, selection: Selection) -> Selected:
    from ..catalog import DEFAULT_VERSION, load_catalog

    catalog = load_catalog(selection.version or DEFAULT_VERSION)
    client = session.client()
    scope = Scope(
        namespace=session.namespace if selection.namespaced else None,
        instancetypes=selection.instancetypes,
        preferences=selection.preferences,
    )
    objects = catalog_objects(catalog, scope)
    kinds = list(dict.fromkeys(item.resource for item in objects))
    return Selected(catalog, objects, kinds, existing_objects(client, kinds, scope.namespace))


def install_catalog(
    session: Session,
    selection: Selection,
    *,
    dry_run: str = "none",
    force: bool = False,
    drop_unknown_fields: bool = False,
    report: Callable[[Outcome], None] = lambda outcome: None,
    strict: bool = False,
    skew_report: Callable[[Skew], None] = lambda skew: None,
) -> InstallReport:
    """``catalog install``: read what exists and the CRD schemas, refuse virt-operator's objects unless
    ``force``, refuse any object the schema would prune when ``strict``, apply the rest (:func:`install`);
    ``report`` receives each outcome as it happens, ``skew_report`` the schema comparison first."""
    from .skew import schema_skew

    selected = _selected(session, selection)
    objects, existing = selected.objects, selected.existing
    skew = schema_skew(session, objects)
    skew_report(skew)
    if strict and skew.fields:
        raise PluginError(
            f"{skew.objects} catalog object(s) would lose fields this cluster's KubeVirt does not know: "
            f"{skew.message()}; nothing was applied (--drop-unknown-fields applies them without the fields)"
        )
    if not force:
        refuse_operator_managed(objects, existing)
    return install(
        session.client(),
        objects,
        existing,
        dry_run=dry_run,
        force=force,
        drop_unknown_fields=drop_unknown_fields,
        report=report,
        known_missing=list(skew.fields),
    )


@dataclass(frozen=True)
class CatalogDiff:
    """What ``catalog diff`` found: a unified diff per object that differs between the cluster and the catalog,
    and the fields the cluster's CRD schemas would drop from the catalog's objects."""

    diffs: list[str]
    skew: Skew
    compared: int = 0  # the catalog objects compared
    version: str = ""  # the catalog release


def diff_catalog(session: Session, selection: Selection) -> CatalogDiff:
    """``catalog diff``: compare the selected catalog objects with the cluster's copies and its CRD schemas."""
    from .skew import schema_skew

    selected = _selected(session, selection)
    return CatalogDiff(
        diff(selected.catalog, selected.objects, selected.existing, selected.kinds),
        schema_skew(session, selected.objects),
        len(selected.objects),
        selected.catalog.version,
    )
