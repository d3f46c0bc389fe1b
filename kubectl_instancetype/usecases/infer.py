"""``infer``: what KubeVirt's admission makes of ``inferFromVolume`` for a VirtualMachine (from a file or the
cluster), the defaults one volume yields, or the defaults an image carries; through the Session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ..errors import InputError, UsageError
from ..golang.strconv import go_quote
from ..instancetype import infer
from .infer_resolve import ImageDefaults, VolumeDefaults, image_defaults, resolve_vm, resolve_volume_object

if TYPE_CHECKING:
    from ..kube.session import Session


@dataclass
class VMInference:
    """A VirtualMachine as given (from ``-f`` or the cluster), what admission's inference makes of it, and one
    warning per matcher admission drops (:func:`..inference.dropped_warnings`)."""

    given: dict[str, Any]
    result: infer.InferenceResult
    warnings: list[str] = field(default_factory=list)


VOLUME_KINDS = (infer.PVC, infer.DATA_VOLUME, infer.DATA_SOURCE, infer.VOLUME_SNAPSHOT)
IMAGE = "Image"  # infer image/REFERENCE: not a Kubernetes kind


@dataclass(frozen=True)
class InferRequest:
    """What ``infer`` resolves: the VirtualMachine of ``filename`` (``-`` reads ``stdin``), else the object
    ``kind``/``name`` (a stored VirtualMachine, a volume kind of :data:`VOLUME_KINDS`, or :data:`IMAGE` with
    the image reference as ``name``, read for ``platform``, over plain HTTP with ``insecure_registry``)."""

    kind: str = ""
    name: str = ""
    filename: str | None = None
    stdin: Any = None
    platform: str = "linux/amd64"
    insecure_registry: bool = False
    validation: str = "strict"  # kubectl's --validate for the -f VM's fields
    warn: Callable[[str], None] | None = None


def infer_target(session: Session, request: InferRequest) -> VMInference | VolumeDefaults | ImageDefaults:
    """``infer``: what admission's inference makes of a VirtualMachine (from ``-f`` or the cluster), the
    defaults one volume yields, or the defaults an image carries. What admission would reject raises
    :class:`..inference.InferenceRejected` with KubeVirt's message (and, for a VM, what fixes it)."""
    from .infer_resolve import InferenceRejected, dropped_warnings, explain_rejection

    if request.kind == IMAGE:
        return infer_image(session, request.name, request.platform, insecure=request.insecure_registry)
    if request.filename is not None or request.kind == "VirtualMachine":
        if request.filename is not None:
            vm_file = read_vm(request.filename, request.stdin, validation=request.validation, warn=request.warn)
            inference = infer_vm(session, vm_file)
        else:
            inference = infer_stored_vm(session, request.name)
        if inference.result.error is not None:
            raise InferenceRejected(explain_rejection(inference.result))
        inference.warnings = dropped_warnings(inference.result)
        return inference
    defaults = infer_volume(session, request.kind, request.name)
    for resolution in (defaults.instancetype, defaults.preference):
        if not resolution.ok and not resolution.ignorable:
            raise InferenceRejected(resolution.error or "")
    return defaults


@dataclass
class VMFile:
    """What ``infer -f`` reads: the one VirtualMachine, and the volumes written next to it (a PVC, DataVolume,
    DataSource or VolumeSnapshot, as ``expand -f`` reads the types next to its VMs), which the inference reads
    before the cluster's."""

    vm: dict[str, Any]
    volumes: list[dict[str, Any]] = field(default_factory=list)


def read_vm(
    filename: str, stdin: IO[str] | None, *, validation: str | None = None, warn: Callable[[str], None] | None = None
) -> VMFile:
    """The one VirtualMachine of ``filename`` (``-`` reads ``stdin``) and the volume objects beside it; the VM's
    fields checked against KubeVirt's schema as ``validation`` (kubectl's --validate) says."""
    from .manifests import read_manifests

    documents = read_manifests(filename, stdin, validation=validation, warn=warn)
    vms = [doc for doc in documents if isinstance(doc, dict) and doc.get("kind") == "VirtualMachine"]
    others = [doc for doc in documents if doc not in vms]
    if len(vms) != 1:
        found = f"{len(vms)} VirtualMachines" if vms else "no VirtualMachine"
        if not vms and len(documents) == 1 and isinstance(documents[0], dict):
            found = f"kind {go_quote(str(documents[0].get('kind')))}"
        raise InputError(
            f"expected one VirtualMachine in {filename}, found {found} (besides it the file may hold the "
            "PersistentVolumeClaims, DataVolumes, DataSources and VolumeSnapshots its inference reads)"
        )
    for doc in others:
        if not isinstance(doc, dict) or doc.get("kind") not in VOLUME_KINDS:
            kind = doc.get("kind") if isinstance(doc, dict) else type(doc).__name__
            metadata = (doc.get("metadata") or {}) if isinstance(doc, dict) else {}
            name = metadata.get("name", "") if isinstance(metadata, dict) else ""
            raise InputError(
                f"{filename}: {kind} {go_quote(str(name))}"
                " is not read by infer: besides the one VirtualMachine the file may hold PersistentVolumeClaims, "
                "DataVolumes, DataSources and VolumeSnapshots"
            )
    return VMFile(vms[0], others)


def infer_vm(session: Session, given: VMFile | dict[str, Any]) -> VMInference:
    """Resolve the inference of a VM from a file in its namespace, else ``-n``'s, else the context's. The
    file's own volumes are read first (an object without a namespace is in the VM's); the cluster is asked
    only for what the file lacks, so a file that holds the whole chain needs no cluster."""
    from ..errors import PluginError
    from .infer_resolve import file_then_cluster_lookup

    vm_file = given if isinstance(given, VMFile) else VMFile(given)
    vm = vm_file.vm
    own = (vm.get("metadata") or {}).get("namespace")
    flag = session.namespace_flag
    if own and flag and own != flag:
        # kubectl create -f's check
        raise UsageError(
            # cli-runtime visitor.go FilterNamespace: %q, %q, then '--namespace=%s'
            f"the namespace from the provided object {go_quote(own)} does not match the namespace {go_quote(flag)}. "
            f"You must pass '--namespace={own}' to perform this operation."
        )
    namespace = own or flag
    if not namespace:
        try:
            namespace = session.namespace
        except PluginError:
            if not vm_file.volumes:
                raise
            namespace = "default"  # kubectl's default; the cluster, if it is needed after all, says what is wrong
    request = {**vm, "metadata": {**(vm.get("metadata") or {}), "namespace": namespace}}
    lookup = file_then_cluster_lookup(session, vm_file.volumes, namespace)
    return VMInference(vm, infer.resolve_matchers(request, lookup))


def infer_stored_vm(session: Session, name: str) -> VMInference:
    """Resolve the inference of the stored VirtualMachine ``name``."""
    from ..kube.resources import VIRTUAL_MACHINES

    client = session.client()
    stored: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, session.namespace)
    return VMInference(stored, resolve_vm(client, stored, session.namespace))


def infer_volume(session: Session, kind: str, name: str) -> VolumeDefaults:
    """The defaults the volume ``kind``/``name`` of the session's namespace yields."""
    return resolve_volume_object(session.client(), kind, name, session.namespace)


def infer_image(session: Session, reference: str, platform: str, *, insecure: bool = False) -> ImageDefaults:
    """The defaults image ``reference`` carries (the config of ``platform``'s manifest)."""
    return image_defaults(session, reference, platform, insecure=insecure)
