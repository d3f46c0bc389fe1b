"""``create vm --infer-from-image``: the defaults a containerdisk image carries, written as explicit matchers.

KubeVirt cannot infer from ``containerDisk`` volumes or registry imports (KubeVirt issue #14722), although
containerdisk images carry their defaults as environment variables (CDI copies them to labels on registry
imports). The image's config is read through the OCI distribution API (the Session's :mod:`..oci.client`) and the VM
gets ``spec.instancetype``/``spec.preference`` as ``{name, kind}``. An instance type brings its own memory,
so the VM's ``domain.memory`` is removed with it, as virtctl does when ``--instancetype`` is given.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..kube.session import Session

MATCHERS = ("instancetype", "preference")


@dataclass(frozen=True)
class ImageVolume:
    """A volume of the VM whose source is an image: its name and the image reference."""

    volume: str
    image: str


def image_volumes(manifest: Mapping[str, Any]) -> list[ImageVolume]:
    """The containerdisk volumes and registry imports of ``manifest``, boot disk first (lowest bootOrder,
    then the order of ``volumes``), as the first boot disk is where virtctl infers from."""
    spec = manifest.get("spec") or {}
    template = (spec.get("template") or {}).get("spec") or {}
    registry_urls = {}
    for entry in spec.get("dataVolumeTemplates") or []:
        registry = (((entry or {}).get("spec") or {}).get("source") or {}).get("registry") or {}
        url = str(registry.get("url") or "")
        if url:
            registry_urls[str((entry.get("metadata") or {}).get("name") or "")] = url.removeprefix("docker://")
    boot_order = {
        str(disk.get("name")): int(disk["bootOrder"])
        for disk in (template.get("domain") or {}).get("devices", {}).get("disks") or []
        if isinstance(disk, dict) and isinstance(disk.get("bootOrder"), int)
    }
    found = []
    for index, volume in enumerate(template.get("volumes") or []):
        name = str(volume.get("name") or "")
        image = (volume.get("containerDisk") or {}).get("image")
        if image is None and (volume.get("dataVolume") or {}).get("name") in registry_urls:
            image = registry_urls[volume["dataVolume"]["name"]]
        if image:
            found.append((boot_order.get(name, 1 << 31), index, ImageVolume(name, str(image))))
    found.sort(key=lambda entry: (entry[0], entry[1]))  # boot order, then the order of volumes
    return [volume for _, _, volume in found]


def apply_image_defaults(
    session: Session,
    manifest: dict[str, Any],
    *,
    from_volumes: Mapping[str, str],
    insecure: bool = False,
    report: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """A copy of ``manifest`` with explicit matchers from the image of its boot disk (or the volume named in
    ``from_volumes[matcher]``, from ``--infer-instancetype-from``/``--infer-preference-from``).

    A matcher the user gave by name (``--instancetype``, ``--preference``) is kept. Raises :class:`UsageError`
    when the VM has no image volume, or the image carries neither default.
    """
    from .infer_resolve import image_defaults

    result = copy.deepcopy(manifest)
    spec = result.setdefault("spec", {})
    volumes = image_volumes(result)
    if not volumes:
        raise UsageError("--infer-from-image needs a --volume-containerdisk or a --volume-import type:registry volume")
    by_name = {volume.volume: volume for volume in volumes}
    read: dict[str, Any] = {}
    found_any = False
    for matcher in MATCHERS:
        current = spec.get(matcher)
        if isinstance(current, dict) and current.get("name"):
            continue  # named explicitly
        wanted = from_volumes.get(matcher)
        volume = by_name.get(wanted) if wanted else volumes[0]
        if volume is None:
            raise UsageError(f"--infer-{matcher}-from {wanted}: the volume has no image to infer from")
        if volume.image not in read:
            read[volume.image] = image_defaults(session, volume.image, insecure=insecure)
        defaults = read[volume.image].matcher(matcher)
        if defaults is None:
            spec.pop(matcher, None)  # an inferFromVolume on a containerdisk would only fail at admission
            if report is not None:
                report(f"Warning: image {volume.image} carries no default {matcher}")
            continue
        found_any = True
        spec[matcher] = defaults
        if report is not None:
            kind = defaults.get("kind") or f"virtualmachinecluster{matcher}"
            report(
                f"Inferred {matcher}: {defaults['name']} ({kind}) from image {volume.image} (volume {volume.volume})"
            )
        if matcher == "instancetype":
            domain = ((spec.get("template") or {}).get("spec") or {}).get("domain")
            if isinstance(domain, dict):
                domain.pop("memory", None)
    if not found_any and not any(isinstance(spec.get(m), dict) and spec[m].get("name") for m in MATCHERS):
        images = ", ".join(sorted(read))
        raise UsageError(f"image {images} carries no default instance type or preference")
    return result
