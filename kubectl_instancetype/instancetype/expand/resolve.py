"""Which instance type and preference specs a VM's matchers stand for, as KubeVirt finds them (``pkg/instancetype/infer``, ``pkg/instancetype/find``).

``infer`` rewrites ``inferFromVolume`` matchers from the volume's labels (``pkg/instancetype/infer``), which
KubeVirt's own expand does not do; ``find_spec`` follows a matcher to its ControllerRevision or live object
(``pkg/instancetype/find``). Both read objects through a ``fetch`` callable (kind, name, namespace) -> object,
or None when the server answers NotFound, so this module does no I/O itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .. import kinds as type_kinds
from ._tree import Json, clone
from .revisions import FROM_SPEC, revision_in_use, revision_matches

Fetch = Callable[[str, str, str], Json | None]

# kind -> how the API names the resource in a NotFound message
QUALIFIED = {
    **{kind.kind: kind.qualified_plural for kind in type_kinds.ALL},
    "ControllerRevision": "controllerrevisions.apps",
    "PersistentVolumeClaim": "persistentvolumeclaims",
    "DataVolume": "datavolumes.cdi.kubevirt.io",
    "DataSource": "datasources.cdi.kubevirt.io",
    "VolumeSnapshot": "volumesnapshots.snapshot.storage.k8s.io",
}


class ResolveError(Exception):
    """KubeVirt's error for a matcher that cannot be followed (its text is KubeVirt's message)."""


class IgnorableInferenceError(ResolveError):
    """An inference failure that ``inferFromVolumeFailurePolicy: Ignore`` turns into dropping the matcher."""


def _get(fetch: Fetch, kind: str, name: str, namespace: str) -> Json:
    if not name:
        raise ResolveError("resource name may not be empty")
    found = fetch(kind, name, namespace)
    if found is None:
        from ...golang.strconv import go_quote

        # apimachinery's NewNotFound: "%s %q not found" (a name with control characters shows Go's escapes)
        raise ResolveError(f"{QUALIFIED[kind]} {go_quote(name)} not found")
    return found


def matcher_kind(key: str, kind: str) -> str:
    """The API kind a matcher's ``kind`` names (empty = cluster-scoped; read by kinds.matcher_kind), or KubeVirt's
    unexpected-kind error."""
    found = type_kinds.matcher_kind(kind, key)
    if found is None:
        raise ResolveError(type_kinds.unexpected_kind(key, kind))
    return found.kind


def revision_spec(revision: Json) -> Json:
    """The spec stored in a ControllerRevision: a whole object (v1alpha2 and later) or v1alpha1's spec bytes."""
    data = revision.get("data") or {}
    spec = data.get("spec")
    if isinstance(spec, str):  # v1alpha1 SpecRevision: the spec as JSON bytes, base64 in the revision's JSON
        from ...errors import sentence
        from ...golang.encoding_base64 import CorruptInputError, std_decode

        try:
            decoded: Json = json.loads(std_decode(spec))
        except (CorruptInputError, ValueError) as exc:
            raise ResolveError(
                f"unable to decode the spec stored in ControllerRevision {revision.get('metadata', {}).get('name')}: "
                + (str(exc) if isinstance(exc, CorruptInputError) else sentence(exc))
            ) from exc
        return decoded
    if not isinstance(spec, dict):
        raise ResolveError(
            f"unable to decode the spec stored in ControllerRevision {revision.get('metadata', {}).get('name')}"
        )
    return spec


def find_spec(vm: Json, key: str, fetch: Fetch) -> tuple[Json | None, str]:
    """The spec the matcher ``spec.<key>`` of ``vm`` resolves to, and where it came from (for messages).

    KubeVirt's order: ``revisionName``; else the status ControllerRevision if it was stored for the
    matcher's current name; else the live (cluster) instance type or preference.
    """
    matcher = (vm.get("spec") or {}).get(key)
    if matcher is None:
        return None, ""
    namespace = str((vm.get("metadata") or {}).get("namespace") or "")
    revision_name, recorded_in = revision_in_use(vm, key)
    if revision_name:
        revision = _get(fetch, "ControllerRevision", revision_name, namespace)
        if recorded_in == FROM_SPEC or revision_matches(vm, key, revision):
            return revision_spec(revision), f"controllerrevision/{revision_name}"
    kind = matcher_kind(key, str(matcher.get("kind") or ""))
    name = str(matcher.get("name") or "")
    found = _get(fetch, kind, name, namespace if type_kinds.BY_KIND[kind].namespaced else "")
    return clone(found.get("spec") or {}), f"{kind.lower()}/{name}"


# --- inference ---------------------------------------------------------------------------------------------

_LABELS = {
    "instancetype": (
        "instancetype.kubevirt.io/default-instancetype",
        "instancetype.kubevirt.io/default-instancetype-kind",
    ),
    "preference": ("instancetype.kubevirt.io/default-preference", "instancetype.kubevirt.io/default-preference-kind"),
}


def _from_labels(obj: Json, labels: tuple[str, str]) -> tuple[str, str]:
    found = (obj.get("metadata") or {}).get("labels") or {}
    if labels[0] not in found:
        raise IgnorableInferenceError(f"unable to find required {labels[0]} label on the volume")
    return str(found[labels[0]]), str(found.get(labels[1]) or "")


def _from_pvc(fetch: Fetch, name: str, namespace: str, labels: tuple[str, str]) -> tuple[str, str]:
    return _from_labels(_get(fetch, "PersistentVolumeClaim", name, namespace), labels)


def _from_snapshot(fetch: Fetch, name: str, namespace: str, labels: tuple[str, str]) -> tuple[str, str]:
    return _from_labels(_get(fetch, "VolumeSnapshot", name, namespace), labels)


def _from_data_source(fetch: Fetch, name: str, namespace: str, labels: tuple[str, str]) -> tuple[str, str]:
    source = _get(fetch, "DataSource", name, namespace)
    try:
        return _from_labels(source, labels)
    except IgnorableInferenceError:
        pass
    spec_source = (source.get("spec") or {}).get("source") or {}
    if spec_source.get("pvc") is not None:
        pvc = spec_source["pvc"]
        return _from_pvc(fetch, pvc.get("name", ""), pvc.get("namespace") or namespace, labels)
    if spec_source.get("snapshot") is not None:
        snapshot = spec_source["snapshot"]
        return _from_snapshot(fetch, snapshot.get("name", ""), snapshot.get("namespace") or namespace, labels)
    raise IgnorableInferenceError(
        "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC or DataVolumeSourceSnapshot"
    )


def _from_data_volume_spec(fetch: Fetch, spec: Json, namespace: str, labels: tuple[str, str]) -> tuple[str, str]:
    source = spec.get("source") or {}
    if source.get("pvc") is not None:
        return _from_pvc(fetch, source["pvc"].get("name", ""), source["pvc"].get("namespace") or namespace, labels)
    if source.get("snapshot") is not None:
        snapshot = source["snapshot"]
        return _from_snapshot(fetch, snapshot.get("name", ""), snapshot.get("namespace") or namespace, labels)
    ref = spec.get("sourceRef")
    if ref is not None:
        if ref.get("kind") == "DataSource":
            return _from_data_source(fetch, ref.get("name", ""), ref.get("namespace") or namespace, labels)
        raise IgnorableInferenceError(
            f"unable to infer defaults from DataVolumeSourceRef as Kind {ref.get('kind', '')} is not supported"
        )
    raise IgnorableInferenceError("unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported")


def _from_volume(vm: Json, volume_name: str, labels: tuple[str, str], fetch: Fetch) -> tuple[str, str]:
    namespace = str((vm.get("metadata") or {}).get("namespace") or "")
    spec = vm.get("spec") or {}
    for volume in ((spec.get("template") or {}).get("spec") or {}).get("volumes") or []:
        if volume.get("name") != volume_name:
            continue
        if volume.get("persistentVolumeClaim") is not None:
            return _from_pvc(fetch, volume["persistentVolumeClaim"].get("claimName", ""), namespace, labels)
        if volume.get("dataVolume") is not None:
            dv_name = volume["dataVolume"].get("name", "")
            for template in spec.get("dataVolumeTemplates") or []:
                if (template.get("metadata") or {}).get("name") == dv_name:
                    return _from_data_volume_spec(fetch, template.get("spec") or {}, namespace, labels)
            data_volume = fetch("DataVolume", dv_name, namespace) if dv_name else None
            if data_volume is None:
                # a garbage-collected DataVolume leaves its PVC of the same name
                return _from_pvc(fetch, dv_name, namespace, labels)
            try:
                return _from_labels(data_volume, labels)
            except IgnorableInferenceError:
                return _from_data_volume_spec(fetch, data_volume.get("spec") or {}, namespace, labels)
        raise IgnorableInferenceError(f"unable to infer defaults from volume {volume_name} as type is not supported")
    raise ResolveError(f"unable to find volume {volume_name} to infer defaults")


def infer(vm: Any, fetch: Fetch) -> Json:
    """A copy of ``vm`` with its ``inferFromVolume`` matchers replaced as KubeVirt's VM mutating webhook replaces them.

    Success: the matcher becomes ``{name, kind}`` (and an instance type matcher with policy ``Ignore`` drops
    ``domain.memory``). An ignorable failure with policy ``Ignore`` removes the matcher; any other failure
    raises :class:`ResolveError` with KubeVirt's message.
    """
    result: Json = clone(vm)
    spec = result.get("spec") or {}
    for key in ("instancetype", "preference"):
        matcher = spec.get(key)
        if not matcher or not matcher.get("inferFromVolume"):
            continue
        ignore = matcher.get("inferFromVolumeFailurePolicy") == "Ignore"
        try:
            name, kind = _from_volume(result, str(matcher["inferFromVolume"]), _LABELS[key], fetch)
        except IgnorableInferenceError:
            if not ignore:
                raise
            spec.pop(key)
            continue
        if key == "instancetype" and ignore:
            ((spec.get("template") or {}).get("spec") or {}).get("domain", {}).pop("memory", None)
        spec[key] = {"name": name, **({"kind": kind} if kind else {})}
    return result
