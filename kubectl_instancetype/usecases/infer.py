"""``infer``: what KubeVirt's admission makes of ``inferFromVolume`` for a VirtualMachine (from a file or the
cluster), the defaults one volume yields, or the defaults an image carries; through the Session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from ..errors import InputError, UsageError
from ..instancetype import infer
from .inference import ImageDefaults, VolumeDefaults, image_defaults, resolve_vm, resolve_volume_object

if TYPE_CHECKING:
    from ..kube.session import Session


@dataclass
class VMInference:
    """A VirtualMachine as given (from ``-f`` or the cluster) and what admission's inference makes of it."""

    given: dict[str, Any]
    result: infer.InferenceResult


def read_vm(filename: str, stdin: IO[str]) -> dict[str, Any]:
    """The one VirtualMachine of ``filename`` (``-`` reads ``stdin``)."""
    from .manifests import read_manifests

    documents = read_manifests(filename, stdin)
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise InputError(f"expected one VirtualMachine in {filename}, found {len(documents)} documents")
    vm: dict[str, Any] = documents[0]
    if vm.get("kind") != "VirtualMachine":
        raise InputError(f"expected a VirtualMachine in {filename}, found kind {vm.get('kind')!r}")
    return vm


def infer_vm(session: Session, vm: dict[str, Any]) -> VMInference:
    """Resolve the inference of ``vm`` (from a file) in its namespace, else ``-n``'s, else the context's."""
    own = (vm.get("metadata") or {}).get("namespace")
    flag = session.namespace_flag
    if own and flag and own != flag:
        # kubectl create -f's check
        raise UsageError(
            f'the namespace from the provided object "{own}" does not match the namespace "{flag}". '
            f"You must pass '--namespace={own}' to perform this operation."
        )
    return VMInference(vm, resolve_vm(session.client(), vm, own or session.namespace))


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
