"""Default instance type and preference carried by a container(disk) image, as CDI reads them on registry imports.

containerdisk images carry ``INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE``, ``..._DEFAULT_PREFERENCE`` and the
``_KIND`` variants as environment variables of the image config; CDI turns them into the
``instancetype.kubevirt.io/default-*`` labels of what it imports. KubeVirt cannot infer from a ``containerDisk``
volume or a registry source at admission (KubeVirt issue #14722); the plugin reads the same variables itself.

Pure: image references (docker's normalisation), the registry's ``WWW-Authenticate`` challenge, picking a
platform from an image index, and reading the variables from a config. The HTTP side is :mod:`..oci`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .infer import INSTANCETYPE_KIND_LABEL, INSTANCETYPE_LABEL, PREFERENCE_KIND_LABEL, PREFERENCE_LABEL

NAME_VARIABLES = {
    "instancetype": "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE",
    "preference": "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE",
}

OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
MANIFEST_TYPES = (OCI_INDEX, DOCKER_LIST, OCI_MANIFEST, DOCKER_MANIFEST)
INDEX_TYPES = (OCI_INDEX, DOCKER_LIST)

DOCKER_HUB = "docker.io"
DOCKER_HUB_API = "registry-1.docker.io"
DOCKER_HUB_CONFIG_KEY = "https://index.docker.io/v1/"

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_PATH = re.compile(rf"^{_COMPONENT}(?:/{_COMPONENT})*$")
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")
_DIGEST = re.compile(r"^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$")
_DOMAIN = re.compile(r"^(?:[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?$")


class ImageError(ValueError):
    """A reference, manifest or config that cannot be used; the message says why."""


@dataclass(frozen=True)
class ImageReference:
    """A normalised image reference: ``registry/repository`` plus a tag or a digest."""

    registry: str  # as written (docker.io for Docker Hub)
    repository: str
    tag: str = ""
    digest: str = ""

    @property
    def api_host(self) -> str:
        """The host the distribution API is served on (Docker Hub's differs from its name)."""
        return DOCKER_HUB_API if self.registry == DOCKER_HUB else self.registry

    @property
    def reference(self) -> str:
        """The manifest reference to request: the digest when there is one, else the tag."""
        return self.digest or self.tag

    def __str__(self) -> str:
        out = f"{self.registry}/{self.repository}"
        if self.tag:
            out += f":{self.tag}"
        if self.digest:
            out += f"@{self.digest}"
        return out


def parse_reference(text: str) -> ImageReference:
    """Docker's normalisation (``ParseNormalizedNamed`` + default tag): ``fedora`` is
    ``docker.io/library/fedora:latest``; a first component with a dot or a port, or ``localhost``, is a registry.
    A ``docker://`` prefix (CDI's registry URL form) is accepted."""
    original = text
    if text.startswith("docker://"):
        text = text[len("docker://") :]
    if not text:
        raise ImageError("invalid reference format: the image reference is empty")
    name, _, digest = text.partition("@")
    tag = ""
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1 :]
    first, sep, rest = name.partition("/")
    if sep and ("." in first or ":" in first or first == "localhost" or first.startswith("[")):
        registry, path = first, rest
    else:
        registry, path = DOCKER_HUB, name
    if registry == "index.docker.io":
        registry = DOCKER_HUB
    if registry == DOCKER_HUB and "/" not in path:
        path = f"library/{path}"
    if path != path.lower():
        raise ImageError(f'invalid reference format: repository name (image "{original}") must be lowercase')
    if not _DOMAIN.match(registry) or not _PATH.match(path):
        raise ImageError(f'invalid reference format: "{original}"')
    if tag and not _TAG.match(tag):
        raise ImageError(f'invalid reference format: tag "{tag}" of "{original}"')
    if digest and not _DIGEST.match(digest):
        raise ImageError(f'invalid reference format: digest "{digest}" of "{original}"')
    if not tag and not digest:
        tag = "latest"
    return ImageReference(registry, path, tag, digest)


@dataclass(frozen=True)
class Challenge:
    """A ``WWW-Authenticate`` challenge: ``Bearer`` (with realm, service, scope) or ``Basic``."""

    scheme: str
    params: Mapping[str, str]


_PARAM = re.compile(r'\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?')


def parse_challenge(header: str) -> Challenge:
    """Parse one ``WWW-Authenticate`` header value (``Bearer realm="...",service="...",scope="..."``)."""
    scheme, _, rest = header.strip().partition(" ")
    params: dict[str, str] = {}
    for match in _PARAM.finditer(rest):
        quoted, bare = match.group(2), match.group(3)
        params[match.group(1).lower()] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare or ""
    return Challenge(scheme.lower(), params)


@dataclass(frozen=True)
class Platform:
    """``os/architecture[/variant]``."""

    os: str
    architecture: str
    variant: str = ""

    def __str__(self) -> str:
        return "/".join(part for part in (self.os, self.architecture, self.variant) if part)


def parse_platform(text: str) -> Platform:
    """``linux/amd64``, ``linux/arm64/v8``; an architecture alone means linux."""
    parts = text.split("/")
    if len(parts) == 1 and parts[0]:
        return Platform("linux", parts[0])
    if 2 <= len(parts) <= 3 and all(parts):
        return Platform(parts[0], parts[1], parts[2] if len(parts) == 3 else "")
    raise ImageError(f'invalid platform "{text}": expected os/architecture[/variant], e.g. linux/amd64')


def select_manifest(index: Mapping[str, Any], platform: Platform) -> str:
    """The digest of the manifest for ``platform`` in an image index (the variant counts when asked for)."""
    available = []
    for entry in index.get("manifests") or []:
        if not isinstance(entry, Mapping):
            continue
        spec = entry.get("platform") or {}
        candidate = Platform(str(spec.get("os", "")), str(spec.get("architecture", "")), str(spec.get("variant", "")))
        if candidate.os == "unknown":
            continue  # attestation manifests of buildx
        available.append(str(candidate))
        if (candidate.os, candidate.architecture) == (platform.os, platform.architecture) and (
            not platform.variant or candidate.variant == platform.variant
        ):
            return str(entry.get("digest", ""))
    listed = ", ".join(available) or "none"
    raise ImageError(f"no image for {platform} in the image index (available: {listed})")


@dataclass(frozen=True)
class ImageDefault:
    """What the image gives one matcher: ``name``/``kind`` or, when its variable is missing, a ``problem``."""

    name: str = ""
    kind: str = ""
    problem: str = ""

    @property
    def ok(self) -> bool:
        """True when the image names a type for this matcher."""
        return not self.problem


KUBEVIRT_ENV_PREFIX = "KUBEVIRT_IO_"
KUBEVIRT_LABEL_PREFIX = "kubevirt.io/"


def env_to_label(variable: str) -> str:
    """CDI's name mapping (``envToLabel``): ``INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE_KIND`` becomes
    ``instancetype.kubevirt.io/default-preference-kind``: the words before ``KUBEVIRT_IO_`` are joined with dots,
    those after it with dashes, all lowercased."""
    before, _, after = variable.partition(KUBEVIRT_ENV_PREFIX)
    label = ""
    words = before.removesuffix("_").split("_")
    if words and words[0]:
        label += ".".join(words) + "."
    return (label + KUBEVIRT_LABEL_PREFIX + "-".join(after.split("_"))).lower()


def labels_from_config(config: Mapping[str, Any]) -> dict[str, str]:
    """The labels CDI derives from an image config's ``Env`` (``envsToLabels``): every ``NAME=VALUE`` whose name
    contains ``KUBEVIRT_IO_``; a later entry for the same label wins."""
    labels: dict[str, str] = {}
    for item in _mapping(config.get("config")).get("Env") or []:
        if not isinstance(item, str):
            continue
        name, found, value = item.partition("=")
        if not found or KUBEVIRT_ENV_PREFIX not in name:
            continue
        labels[env_to_label(name)] = value
    return labels


def defaults_from_config(config: Mapping[str, Any]) -> dict[str, ImageDefault]:
    """``{"instancetype": ..., "preference": ...}`` as a volume CDI imported from this image would yield them
    (the same label reading as KubeVirt's: the name label present, the kind label or ``""``)."""
    labels = labels_from_config(config)
    out = {}
    for matcher, (name_label, kind_label) in (
        ("instancetype", (INSTANCETYPE_LABEL, INSTANCETYPE_KIND_LABEL)),
        ("preference", (PREFERENCE_LABEL, PREFERENCE_KIND_LABEL)),
    ):
        if name_label in labels:
            out[matcher] = ImageDefault(labels[name_label], labels.get(kind_label, ""))
        else:
            variable = NAME_VARIABLES[matcher]
            out[matcher] = ImageDefault(problem=f"the image config has no {variable} environment variable")
    return out


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def credentials_key_candidates(registry: str) -> Sequence[str]:
    """The ``auths`` keys of a docker/podman auth file that may hold ``registry``'s credentials."""
    if registry == DOCKER_HUB:
        return (DOCKER_HUB_CONFIG_KEY, "index.docker.io", DOCKER_HUB, "https://index.docker.io/v1")
    return (registry, f"https://{registry}", f"http://{registry}", f"https://{registry}/v1/", f"https://{registry}/v2/")
