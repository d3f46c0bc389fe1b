"""``inferFromVolume`` resolved against the cluster: the look-up the resolver needs, and its outcome in words.

:mod:`..instancetype.infer` is pure; this module gives it its :data:`~..instancetype.infer.Lookup` over a
:class:`~..kube.client.Client` (one GET per object, remembered for the run), explains a denial, and reads the
defaults one volume or one image yields. Used by ``infer``, ``create vm``'s pre-flight and ``label``'s
message. (``label`` itself is :mod:`.labeling`.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ForbiddenError, PluginError, UsageError
from ..golang.strconv import go_quote
from ..instancetype import infer

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session


def _resources() -> dict[str, Resource]:
    from ..kube import resources

    return {
        infer.PVC: resources.PERSISTENT_VOLUME_CLAIMS,
        infer.DATA_VOLUME: resources.DATA_VOLUMES,
        infer.DATA_SOURCE: resources.DATA_SOURCES,
        infer.VOLUME_SNAPSHOT: resources.VOLUME_SNAPSHOTS,
    }


class InferenceRejected(PluginError):
    """Admission would deny the VirtualMachine; the message is KubeVirt's, word for word."""


def explain_rejection(result: Any) -> str:
    """KubeVirt's message for a rejected inference, then what the plugin knows: the VM's volume, every object
    read on the way, the label that was missing, and the ``kubectl instancetype label`` command that fixes it."""
    error = result.error or ""
    outcome = next((o for o in result.outcomes if o.action == "rejected" and o.resolution is not None), None)
    if outcome is None:
        return error
    resolution = outcome.resolution
    if resolution.chain and resolution.chain[-1].note:
        return error  # a GET failed: KubeVirt's message names the object already
    read = " -> ".join(link.text() for link in resolution.chain) or "nothing"
    text = f"{error} ({outcome.matcher}.inferFromVolume {go_quote(outcome.volume)}: read {read})"
    label = infer.MATCHERS[outcome.matcher][0]
    last = resolution.chain[-1] if resolution.chain else None
    if label in error and last is not None and not last.note:
        target = infer.LABELLED_VOLUME_SHORT_NAMES.get(last.kind)
        flag = "--default-instancetype" if outcome.matcher == "instancetype" else "--default-preference"
        if target:
            text += (
                f"; label the {last.kind} with the {outcome.matcher} to use: kubectl instancetype label "
                f"{target}/{last.name} -n {last.namespace} {flag} NAME"
            )
        else:
            text += f"; the {last.kind} carries no labels the plugin can set: set {label} on it with kubectl label"
    return text


class InferenceForbidden(PluginError):
    """The user may not read an object on the chain: the plugin cannot tell what the server would do."""


def virt_api_user(client: Client) -> str:
    from .cluster_facts import virt_api_user as user

    return user(client)


def cluster_lookup(client: Client) -> infer.Lookup:
    """The resolver's look-up over ``client``: GET each object once per run.

    A failed GET becomes :class:`~..instancetype.infer.LookupFailed` with the server's message, as client-go
    hands it to KubeVirt, except a 403: KubeVirt reads with its own service account, so the user's RBAC says
    nothing about admission and the command stops with :class:`InferenceForbidden` instead. Connection failures
    propagate as they are.
    """
    by_kind = _resources()
    seen: dict[tuple[str, str, str], Mapping[str, Any] | infer.LookupFailed] = {}

    def lookup(kind: str, namespace: str, name: str) -> Mapping[str, Any]:
        key = (kind, namespace, name)
        if key not in seen:
            resource = by_kind[kind]
            if kind == infer.VOLUME_SNAPSHOT and _virt_api_may_not_read(client, resource, namespace, name):
                # KubeVirt reads with its own service account; the API server refuses it as it would here.
                refused = infer.LookupFailed(
                    # apimachinery NewForbidden "%s %q is forbidden: %v"; apiserver responsewriters' RBAC reason
                    f"{resource.qualified} {go_quote(name)} is forbidden: User {go_quote(virt_api_user(client))} "
                    f"cannot get resource {go_quote(resource.plural)} in API group {go_quote(resource.group)} in "
                    f"the namespace {go_quote(namespace)}"
                )
                seen[key] = refused
                raise refused
            try:
                # An empty namespace is requested without a namespace segment, as client-go does.
                seen[key] = client.get(resource, name, namespace or None)
            except ForbiddenError as exc:
                raise InferenceForbidden(
                    f"cannot infer: {exc.message} (KubeVirt reads volumes with its own service account; "
                    "ask for get access to follow the chain here)"
                ) from exc
            except APIError as exc:
                seen[key] = infer.LookupFailed(_client_go_message(exc, resource, name), not_found=exc.code == 404)
        found = seen[key]
        if isinstance(found, infer.LookupFailed):
            raise found
        return found

    return lookup


def _virt_api_may_not_read(client: Client, resource: Resource, namespace: str, name: str) -> bool:
    """True only when the cluster says virt-api may not read the object (a review that cannot be asked is no
    answer: the look-up goes on). Only VolumeSnapshots are asked about: KubeVirt v1.9.0 follows them without
    granting itself access (pkg/virt-operator/resource/generate/rbac/apiserver.go has no rule for them)."""
    from .cluster_facts import virt_api_may_get

    return virt_api_may_get(client, resource.group, resource.plural, namespace, name) is False


def file_then_cluster_lookup(session: Session, objects: list[dict[str, Any]], namespace: str) -> infer.Lookup:
    """The resolver's look-up over ``objects`` (from a file; one without a namespace is in ``namespace``), then
    the session's cluster, connected only when an object is not in the file."""
    local = {
        (
            str(obj.get("kind")),
            str((obj.get("metadata") or {}).get("namespace") or namespace),
            str((obj.get("metadata") or {}).get("name") or ""),
        ): obj
        for obj in objects
    }
    cluster: list[infer.Lookup] = []

    def lookup(kind: str, at: str, name: str) -> Mapping[str, Any]:
        found = local.get((kind, at, name))
        if found is not None:
            return found
        if not cluster:
            cluster.append(cluster_lookup(session.client()))
        return cluster[0](kind, at, name)

    return lookup


GENERIC_NOT_FOUND = "the server could not find the requested resource"


def _client_go_message(exc: APIError, resource: Resource, name: str) -> str:
    """The error text client-go gives KubeVirt for a failed GET.

    A 404 from a path no handler serves comes as plain text ("404 page not found") outside the core group (a
    namespaced CRD requested without a namespace, a group that is not installed); client-go then builds the
    generic message with the request appended, ``... (get datasources.cdi.kubevirt.io NAME)``. The core group
    answers such paths with a ``Status`` (no details), whose message client-go uses as it is.
    """
    if exc.code == 404 and resource.group and not exc.name and exc.message == GENERIC_NOT_FOUND:
        return f"{exc.message} (get {resource.qualified} {name})"
    return exc.message


def resolve_vm(client: Client, vm: Mapping[str, Any], namespace: str) -> infer.InferenceResult:
    """Inference as the VM mutating webhook would run it for ``vm`` created in ``namespace``."""
    from .cluster_facts import follows_volume_snapshots

    request = {**vm, "metadata": {**(vm.get("metadata") or {}), "namespace": namespace}}
    return infer.resolve_matchers(request, cluster_lookup(client), snapshots=lambda: follows_volume_snapshots(client))


def dropped_warnings(result: infer.InferenceResult) -> list[str]:
    """One line per matcher admission drops (an ignorable failure under ``Ignore``): what the server will do."""
    lines = []
    for outcome in result.outcomes:
        if outcome.action != "dropped" or outcome.resolution is None:
            continue
        what = "an instance type" if outcome.matcher == "instancetype" else "a preference"
        memory = " (spec.template.spec.domain.memory is kept)" if outcome.matcher == "instancetype" else ""
        lines.append(
            f"{outcome.matcher}: {outcome.resolution.error}; with inferFromVolumeFailurePolicy Ignore the server "
            f"drops spec.{outcome.matcher} and creates the VirtualMachine without {what}{memory}"
        )
    return lines


def resolved_lines(result: infer.InferenceResult) -> list[str]:
    """One line per inferred matcher, for a command to print before it creates the VM:
    ``instancetype: u1.medium (virtualmachineclusterinstancetype) from volume disk: PersistentVolumeClaim ns/x -> labels``
    (an empty kind is shown as the cluster-scoped kind KubeVirt reads it as)."""
    lines = []
    for outcome in result.outcomes:
        if outcome.action != "inferred" or outcome.resolution is None:
            continue
        cluster = (
            "virtualmachineclusterinstancetype"
            if outcome.matcher == "instancetype"
            else "virtualmachineclusterpreference"
        )
        lines.append(
            f"{outcome.matcher}: {outcome.name} ({outcome.kind or cluster}) from volume {outcome.volume}: "
            f"{outcome.resolution.chain_text()}"
        )
    return lines


@dataclass(frozen=True)
class VolumeDefaults:
    """What one volume yields for both matchers."""

    kind: str
    namespace: str
    name: str
    instancetype: infer.Resolution
    preference: infer.Resolution

    def as_dict(self) -> dict[str, Any]:
        """``{instancetype: {name, kind}, preference: {name, kind}, chain: [...]}`` (null where none is found);
        the chain lists every object read, for either matcher, in order."""
        chain: list[infer.Link] = []
        for resolution in (self.instancetype, self.preference):
            for link in resolution.chain:
                if link not in chain:
                    chain.append(link)

        def pair(resolution: infer.Resolution) -> dict[str, str] | None:
            return {"name": resolution.name, "kind": resolution.kind} if resolution.ok else None

        return {
            "instancetype": pair(self.instancetype),
            "preference": pair(self.preference),
            "chain": [link.as_dict() for link in chain],
        }


def resolve_volume_object(client: Client, kind: str, name: str, namespace: str) -> VolumeDefaults:
    """The defaults ``kind/name`` (a PVC, DataVolume, DataSource or VolumeSnapshot) yields, as a VM volume
    naming it would get them."""
    from .cluster_facts import follows_volume_snapshots

    lookup = cluster_lookup(client)

    def snapshots() -> bool:
        return follows_volume_snapshots(client)

    return VolumeDefaults(
        kind,
        namespace,
        name,
        infer.resolve_object(kind, namespace, name, "instancetype", lookup, snapshots=snapshots),
        infer.resolve_object(kind, namespace, name, "preference", lookup, snapshots=snapshots),
    )


# ---- images (beyond KubeVirt) --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageDefaults:
    """What an image gives each matcher, with the config read (for its labels and the digests)."""

    image: Any  # oci.client.ImageConfig
    defaults: Mapping[str, Any]  # matcher -> imagedefaults.ImageDefault

    def matcher(self, name: str) -> dict[str, str] | None:
        """``{name, kind}`` for ``spec.instancetype`` / ``spec.preference`` (kind only when the image names one),
        or None when the image carries no default for it."""
        found = self.defaults[name]
        if not found.ok:
            return None
        return {"name": found.name, **({"kind": found.kind} if found.kind else {})}


def image_defaults(
    session: Session, text: str, platform: str = "linux/amd64", *, insecure: bool = False
) -> ImageDefaults:
    """Read the defaults of image ``text`` through the session's OCI client (``create vm --infer-from-image`` and
    ``infer image`` share this)."""
    from ..instancetype import imagedefaults

    try:
        reference = imagedefaults.parse_reference(text)
        chosen = imagedefaults.parse_platform(platform)
    except imagedefaults.ImageError as exc:
        raise UsageError(str(exc)) from exc
    image = session.read_image_config(reference, chosen, insecure=insecure)
    return ImageDefaults(image, imagedefaults.defaults_from_config(image.config))
