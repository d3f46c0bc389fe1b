"""Expand the embedded compact common-instancetypes catalog into full KubeVirt API objects.

The package data (``data/common-instancetypes-<version>.json``) holds the facts of one upstream
release in the project's own compact form, written by ``hack/gen_catalog.py``. This module turns it
back into ``instancetype.kubevirt.io/v1beta1`` objects equal to the release bundle's objects, except for
the annotations the catalog deliberately does not carry.

Metadata kept and dropped
-------------------------
* Kept: every label, and these short annotations, because they are what users search and read in a
  listing: ``instancetype.kubevirt.io/displayName`` (instance type series), ``openshift.io/display-name``
  (the guest OS name of a preference), ``openshift.io/provider-display-name``, ``iconClass`` and ``tags``.
* Dropped: ``instancetype.kubevirt.io/description`` (multi-line upstream prose, not facts) and
  ``openshift.io/documentation-url`` / ``openshift.io/support-url`` (links, with a quoting quirk upstream).
* Added: ``instancetype.kubevirt.io/common-instancetypes-version: <tag>`` on every object, as the upstream
  release build stamps it (plain kustomize renders lack it).

Compact form (``format`` 1)
---------------------------
``labels``
    Labels on every object (the vendor label).
``instancetypes.<series>``
    ``labels``, ``annotations`` and ``spec`` shared by the series, and ``sizes``: per size name only
    ``cpu``, ``memory`` and, when set, ``hugepages`` (page size) and ``maxSockets``. The object is
    ``<series>.<size>``; ``cpu``/``memory``/``size``/``hugepages`` labels are derived from the size.
``preferences.annotations``
    Annotations on every preference (the provider display name).
``preferences.blocks``
    Named spec fragments shared by several preferences (Windows Hyper-V/clock, virtio devices, ...).
``preferences.items.<name>``
    ``os`` (the ``os-type`` label and ``spec.annotations[vm.kubevirt.io/os]``), ``displayName``, ``icon``,
    ``tags``, optional ``arch`` (``arch``, ``preferred-architecture`` and ``required-architecture`` labels,
    ``spec.preferredArchitecture`` and ``spec.requirements.architecture``), optional ``requirements``
    (``cpu``/``memory``: ``spec.requirements`` and the ``required-*`` labels), ``use`` (block names), the
    remaining ``spec`` and, if any, other ``labels``.

Objects are built on the first :func:`load_catalog` call (nothing is read at import time) and kept for
the life of the process. They are shared: treat them as read-only and deep-copy before changing one.
"""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.instancetype import kinds

KubeObject = dict[str, Any]

API_VERSION = kinds.API_VERSION
CLUSTER_INSTANCETYPE_KIND = kinds.CLUSTER_INSTANCETYPE.kind
CLUSTER_PREFERENCE_KIND = kinds.CLUSTER_PREFERENCE.kind
INSTANCETYPE_KIND = kinds.INSTANCETYPE.kind
PREFERENCE_KIND = kinds.PREFERENCE.kind

DEFAULT_VERSION = "v1.7.0"
# The releases shipped as package data; hack/gen_catalog.py writes one file per entry.
VERSIONS = ("v1.7.0",)
DATA_FORMAT = 1

_PREFIX = "instancetype.kubevirt.io/"
LABEL_VERSION = _PREFIX + "common-instancetypes-version"
LABEL_CPU = _PREFIX + "cpu"
LABEL_MEMORY = _PREFIX + "memory"
LABEL_SIZE = _PREFIX + "size"
LABEL_HUGEPAGES = _PREFIX + "hugepages"
LABEL_OS_TYPE = _PREFIX + "os-type"
LABEL_ARCH = _PREFIX + "arch"
LABEL_PREFERRED_ARCH = _PREFIX + "preferred-architecture"
LABEL_REQUIRED_ARCH = _PREFIX + "required-architecture"
LABEL_REQUIRED_CPU = _PREFIX + "required-cpu"
LABEL_REQUIRED_MEMORY = _PREFIX + "required-memory"
ANNOTATION_DISPLAY_NAME = "openshift.io/display-name"
ANNOTATION_ICON = "iconClass"
ANNOTATION_TAGS = "tags"
SPEC_OS_ANNOTATION = "vm.kubevirt.io/os"

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class UnknownCatalogVersionError(UsageError, LookupError):
    """No embedded catalog exists for the requested common-instancetypes version."""

    def __init__(self, version: str):
        super().__init__(
            f'no embedded common-instancetypes catalog for version "{version}" (available: {", ".join(VERSIONS)})'
        )
        self.version = version


class Catalog:
    """The instance types and preferences of one common-instancetypes release, as API objects.

    ``instancetypes`` and ``preferences`` are sorted by name, as the release bundles are. The cluster
    catalog returned by :func:`load_catalog` is cached and shared, so its objects are read-only;
    :meth:`namespaced` builds new objects. ``Catalog(raw)`` expands compact data (``raw`` as in the data
    file); outside this module only the generator's round-trip check needs that.
    """

    __slots__ = ("_instancetypes", "_preferences", "_raw", "instancetypes", "namespace", "preferences", "version")

    def __init__(self, raw: dict[str, Any], namespace: str | None = None):
        self.version: str = raw["version"]
        self.namespace = namespace
        self.instancetypes: list[KubeObject] = _expand_instancetypes(raw, namespace)
        self.preferences: list[KubeObject] = _expand_preferences(raw, namespace)
        # Kept so that namespaced() can expand again instead of deep-copying finished objects.
        self._raw = raw
        self._instancetypes = {o["metadata"]["name"]: o for o in self.instancetypes}
        self._preferences = {o["metadata"]["name"]: o for o in self.preferences}

    def __repr__(self) -> str:
        scope = f"namespace={self.namespace!r}" if self.namespace else "cluster"
        return (
            f"<Catalog common-instancetypes {self.version} {scope}: "
            f"{len(self.instancetypes)} instance types, {len(self.preferences)} preferences>"
        )

    def instancetype(self, name: str) -> KubeObject | None:
        """The instance type called ``name``, or ``None`` if this release has none by that name."""
        return self._instancetypes.get(name)

    def preference(self, name: str) -> KubeObject | None:
        """The preference called ``name``, or ``None`` if this release has none by that name."""
        return self._preferences.get(name)

    def namespaced(self, namespace: str) -> Catalog:
        """The same release as ``VirtualMachineInstancetype``/``VirtualMachinePreference`` objects in ``namespace``.

        Upstream ships the namespaced kinds with the same names, labels and specs as the cluster kinds.
        The objects are new on every call, so the caller may change them.
        """
        if not namespace:
            raise ValueError("a namespaced catalog needs a non-empty namespace")
        return Catalog(self._raw, namespace)


def load_catalog(version: str = DEFAULT_VERSION) -> Catalog:
    """The cluster-scoped catalog of common-instancetypes ``version`` (cached per version).

    Raises :class:`UnknownCatalogVersionError` for a version that is not embedded.
    """
    if version not in VERSIONS:
        raise UnknownCatalogVersionError(version)
    return read_catalog(version)


# Keyed by the version alone (lru_cache on load_catalog would hold separate entries for
# load_catalog() and load_catalog("v1.7.0")), so every caller shares one Catalog per release.
@cache
def read_catalog(version: str) -> Catalog:
    """The embedded catalog of ``version``, read and checked once (``load_catalog`` checks the version first)."""
    raw = json.loads(read_data(f"common-instancetypes-{version}.json"))
    if raw.get("format") != DATA_FORMAT or raw.get("version") != version:
        # Only a broken build can get here: the generator writes both fields.
        raise RuntimeError(
            f"embedded catalog for {version} has format {raw.get('format')!r} and version "
            f"{raw.get('version')!r}; expected format {DATA_FORMAT}: regenerate it with hack/gen_catalog.py"
        )
    return Catalog(raw)


def read_data(filename: str) -> bytes:
    """An embedded data file, from disk or through the package's loader (zip imports)."""
    try:
        with open(os.path.join(DATA_DIR, filename), "rb") as handle:
            return handle.read()
    except NotADirectoryError:
        # Imported from a zip archive (zipapp/zipimport): only the package's loader can read the data.
        # pkgutil is imported here because the normal, unpacked install never needs it.
        import pkgutil

        data = pkgutil.get_data(__package__, f"data/{filename}")
        if data is None:
            raise FileNotFoundError(filename) from None
        return data


def merge(*fragments: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge spec fragments into a new dict with keys sorted at every level.

    Later fragments win on a conflicting leaf. Values are copied, so the result shares nothing with the
    fragments. Keys are sorted to give the stable order of the upstream bundles (kustomize sorts them).
    """
    keys = sorted({key for fragment in fragments for key in fragment})
    result: dict[str, Any] = {}
    for key in keys:
        values = [fragment[key] for fragment in fragments if key in fragment]
        if all(isinstance(value, dict) for value in values):
            result[key] = merge(*values)
        else:
            result[key] = _copy(values[-1])
    return result


def _copy(value: Any) -> Any:
    # JSON values only: dicts (sorted like merge), lists and immutable scalars.
    if isinstance(value, dict):
        return merge(value)
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _new_object(kind: str, name: str, namespace: str | None, labels: dict, annotations: dict, spec: dict) -> KubeObject:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = dict(sorted(labels.items()))
    metadata["annotations"] = dict(sorted(annotations.items()))
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def _expand_instancetypes(raw: dict[str, Any], namespace: str | None) -> list[KubeObject]:
    kind = INSTANCETYPE_KIND if namespace else CLUSTER_INSTANCETYPE_KIND
    common = {**raw["labels"], LABEL_VERSION: raw["version"]}
    objects = []
    for series_name, series in raw["instancetypes"].items():
        for size, facts in series["sizes"].items():
            labels = {
                **common,
                **series["labels"],
                LABEL_CPU: str(facts["cpu"]),
                LABEL_MEMORY: facts["memory"],
                LABEL_SIZE: size,
            }
            per_size: dict[str, Any] = {"cpu": {"guest": facts["cpu"]}, "memory": {"guest": facts["memory"]}}
            if "hugepages" in facts:
                labels[LABEL_HUGEPAGES] = facts["hugepages"]
                per_size["memory"]["hugepages"] = {"pageSize": facts["hugepages"]}
            if "maxSockets" in facts:
                per_size["cpu"]["maxSockets"] = facts["maxSockets"]
            spec = merge(series["spec"], per_size)
            objects.append(_new_object(kind, f"{series_name}.{size}", namespace, labels, series["annotations"], spec))
    objects.sort(key=lambda o: o["metadata"]["name"])
    return objects


def _expand_preferences(raw: dict[str, Any], namespace: str | None) -> list[KubeObject]:
    kind = PREFERENCE_KIND if namespace else CLUSTER_PREFERENCE_KIND
    section = raw["preferences"]
    common = {**raw["labels"], LABEL_VERSION: raw["version"]}
    objects = []
    for name, item in section["items"].items():
        labels = {**common, **item.get("labels", {}), LABEL_OS_TYPE: item["os"]}
        derived: dict[str, Any] = {"annotations": {SPEC_OS_ANNOTATION: item["os"]}}
        requirements = item.get("requirements", {})
        if "cpu" in requirements:
            labels[LABEL_REQUIRED_CPU] = str(requirements["cpu"])
            derived.setdefault("requirements", {})["cpu"] = {"guest": requirements["cpu"]}
        if "memory" in requirements:
            labels[LABEL_REQUIRED_MEMORY] = requirements["memory"]
            derived.setdefault("requirements", {})["memory"] = {"guest": requirements["memory"]}
        if "arch" in item:
            arch = item["arch"]
            labels.update({LABEL_ARCH: arch, LABEL_PREFERRED_ARCH: arch, LABEL_REQUIRED_ARCH: arch})
            derived["preferredArchitecture"] = arch
            derived.setdefault("requirements", {})["architecture"] = arch
        annotations = {
            **section["annotations"],
            ANNOTATION_DISPLAY_NAME: item["displayName"],
            ANNOTATION_ICON: item["icon"],
            ANNOTATION_TAGS: item["tags"],
        }
        blocks = [section["blocks"][block] for block in item.get("use", [])]
        spec = merge(*blocks, derived, item.get("spec", {}))
        objects.append(_new_object(kind, name, namespace, labels, annotations, spec))
    objects.sort(key=lambda o: o["metadata"]["name"])
    return objects
