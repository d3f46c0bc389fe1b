#!/usr/bin/env python3
"""Write (or verify) the embedded common-instancetypes catalog from an upstream release's bundles.

Regenerate the package data after a new upstream release::

    python3 hack/gen_catalog.py BUNDLE_DIR            # e.g. .../common-instancetypes/v1.7.0

BUNDLE_DIR holds the release's YAML bundles: either the release assets
(``common-clusterinstancetypes-bundle-vX.Y.Z.yaml``, ...) or ``kubectl kustomize`` renders of the four entry
points (``VirtualMachineClusterInstancetypes.yaml``, ...). Every ``*.yaml`` file in it is read and objects
are grouped by kind. The version is taken from the objects' ``common-instancetypes-version`` label, else
from ``--version``, else from the directory name. The output is
``kubectl_instancetype/catalog/data/common-instancetypes-<version>.json``; a new version must also be added
to ``VERSIONS`` in ``kubectl_instancetype/catalog/loader.py``. Only the cluster-scoped kinds are compacted:
upstream builds the namespaced ones from the same sources, and ``--check`` confirms that.

Verify the committed data against the bundles (a developer tool; the unit tests never read bundles)::

    python3 hack/gen_catalog.py --check BUNDLE_DIR

The check fails unless (1) regenerating would write exactly the committed file and (2) the loader's
objects, cluster-scoped and namespaced, equal the bundles' objects without the annotations the catalog
drops (``loader.py`` lists them), with the ``common-instancetypes-version`` label stamped on bundle
objects that lack it, as the upstream release build does.

The compact form is documented in ``kubectl_instancetype/catalog/loader.py``. When a release does not fit
it (releases before v1.2.0 have no ``size`` label, for one), the generator stops with an error that names
the first object and field that would not expand back, and writes nothing. The named preference blocks
are defined in :data:`BLOCKS` below; a preference uses every block its spec contains.
Needs PyYAML (the project's own dependency) to read bundles.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
from collections.abc import Iterator
from typing import Any

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The checkout's package, never an installed copy: --check must judge the committed data file.
sys.path.insert(0, REPO_ROOT)

from kubectl_instancetype.catalog import loader  # noqa: E402
from kubectl_instancetype.catalog.loader import (  # noqa: E402
    ANNOTATION_DISPLAY_NAME,
    ANNOTATION_ICON,
    ANNOTATION_TAGS,
    LABEL_ARCH,
    LABEL_CPU,
    LABEL_HUGEPAGES,
    LABEL_MEMORY,
    LABEL_OS_TYPE,
    LABEL_PREFERRED_ARCH,
    LABEL_REQUIRED_ARCH,
    LABEL_REQUIRED_CPU,
    LABEL_REQUIRED_MEMORY,
    LABEL_SIZE,
    LABEL_VERSION,
    SPEC_OS_ANNOTATION,
    Catalog,
    KubeObject,
)
from kubectl_instancetype.golang.quantity import parse_quantity  # noqa: E402

DROPPED_ANNOTATIONS = frozenset(
    {
        "instancetype.kubevirt.io/description",
        "openshift.io/documentation-url",
        "openshift.io/support-url",
    }
)

_WINDOWS_HYPERV = {
    "frequencies": {},
    "ipi": {},
    "reenlightenment": {},
    "relaxed": {},
    "reset": {},
    "runtime": {},
    "spinlocks": {"spinlocks": 8191},
    "synic": {},
    "synictimer": {"direct": {}},
    "tlbflush": {},
    "vapic": {},
    "vpindex": {},
}

# Spec fragments that several preferences share, named by the project. Written into the data file
# (only those in use), so the loader needs no knowledge of them.
BLOCKS: dict[str, dict[str, Any]] = {
    "virtio": {"devices": {"preferredDiskBus": "virtio", "preferredInterfaceModel": "virtio"}},
    "rng": {"devices": {"preferredRng": {}}},
    "tablet-virtio": {
        "devices": {
            "preferredAutoattachInputDevice": True,
            "preferredInputBus": "virtio",
            "preferredInputType": "tablet",
        }
    },
    # KubeVirt needs SMM for EFI Secure Boot, so upstream always sets the two together.
    "secureboot": {"features": {"preferredSmm": {}}, "firmware": {"preferredEfi": {"secureBoot": True}}},
    "persistent-tpm-efi": {
        "devices": {"preferredTPM": {"persistent": True}},
        "firmware": {"preferredEfi": {"persistent": True}},
    },
    "spread-4": {
        "cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}
    },
    "windows": {
        "clock": {
            "preferredClockOffset": {"utc": {}},
            "preferredTimer": {
                "hpet": {"present": False},
                "hyperv": {},
                "pit": {"tickPolicy": "delay"},
                "rtc": {"tickPolicy": "catchup"},
            },
        },
        "devices": {"preferredAutoattachInputDevice": True},
        "features": {"preferredAcpi": {}, "preferredApic": {}, "preferredHyperv": _WINDOWS_HYPERV},
        "preferredTerminationGracePeriodSeconds": 3600,
    },
}

# Dicts nested deeper than this are written on one line: one line per size, per item field, per label.
_INLINE_DEPTH = 4


class FormatError(Exception):
    """The bundles hold something the compact format cannot express: extend the format and the loader."""


# ---------------------------------------------------------------------------------------------------
# reading bundles


def read_bundles(bundle_dir: str) -> dict[str, list[KubeObject]]:
    """Every object in ``bundle_dir/*.yaml``, grouped by kind, each kind sorted by name.

    The all-in-one bundle repeats the per-kind ones, so equal duplicates are merged; unequal ones fail.
    """
    import yaml  # only this dev tool reads YAML; the plugin's catalog is JSON

    yaml_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    by_kind: dict[str, dict[str, KubeObject]] = {}
    files = sorted(f for f in os.listdir(bundle_dir) if f.endswith((".yaml", ".yml")))
    if not files:
        raise FormatError(f"no *.yaml bundles in {bundle_dir}")
    for filename in files:
        with open(os.path.join(bundle_dir, filename), encoding="utf-8") as handle:
            for obj in yaml.load_all(handle, Loader=yaml_loader):
                if not obj:
                    continue
                named = by_kind.setdefault(obj["kind"], {})
                name = obj["metadata"]["name"]
                if name in named and named[name] != obj:
                    raise FormatError(f"{filename}: {obj['kind']} {name} differs from an earlier copy")
                named[name] = obj
    return {kind: [named[n] for n in sorted(named)] for kind, named in by_kind.items()}


def detect_version(objects: list[KubeObject], bundle_dir: str, override: str | None) -> str:
    """The release tag: the objects' version label, else ``override``, else the directory name."""
    stamped = {o["metadata"].get("labels", {}).get(LABEL_VERSION) for o in objects}
    stamped.discard(None)
    if len(stamped) > 1:
        raise FormatError(f"the bundles mix versions: {sorted(stamped)}")
    if stamped:
        version = stamped.pop()
        if override and override != version:
            raise FormatError(f"--version {override}, but the bundles are labelled {version}")
    else:
        version = override or os.path.basename(os.path.normpath(bundle_dir))
    if not re.fullmatch(r"v\d+\.\d+\.\d+", version):
        raise FormatError(f"{version!r} is not a release tag vX.Y.Z: pass --version")
    return version


# ---------------------------------------------------------------------------------------------------
# compacting


def compact(instancetypes: list[KubeObject], preferences: list[KubeObject], version: str) -> dict[str, Any]:
    """The compact catalog of the cluster-scoped ``instancetypes`` and ``preferences`` of ``version``.

    Raises :class:`FormatError` if the result would not expand back to the same objects.
    """
    everything = [*instancetypes, *preferences]
    for obj in everything:
        label = obj["metadata"].get("labels", {}).get(LABEL_VERSION, version)
        if obj.get("apiVersion") != loader.API_VERSION or label != version:
            raise FormatError(f"{obj['metadata']['name']}: apiVersion {obj.get('apiVersion')}, version label {label}")
    label_sets = [set(_labels(o).items()) for o in everything]
    common = dict(sorted(set.intersection(*label_sets))) if label_sets else {}
    data = {
        "format": loader.DATA_FORMAT,
        "version": version,
        "labels": common,
        "instancetypes": _compact_instancetypes(instancetypes, common),
        "preferences": _compact_preferences(preferences, common),
    }
    expanded = Catalog(data)
    _require_equal(expected_objects(instancetypes, version), expanded.instancetypes, "instance types")
    _require_equal(expected_objects(preferences, version), expanded.preferences, "preferences")
    return data


def _labels(obj: KubeObject) -> dict[str, str]:
    return {k: v for k, v in obj["metadata"].get("labels", {}).items() if k != LABEL_VERSION}


def _kept_annotations(obj: KubeObject) -> dict[str, str]:
    return {k: v for k, v in obj["metadata"].get("annotations", {}).items() if k not in DROPPED_ANNOTATIONS}


def _take_label(labels: dict[str, str], key: str, expected: str | None, name: str) -> None:
    """Remove a label the loader derives, after making sure the derivation gives its value."""
    value = labels.pop(key, None)
    if value != expected:
        raise FormatError(f"{name}: label {key}={value!r}, but the loader would derive {expected!r}")


def _pop_path(tree: dict[str, Any], *path: str) -> Any:
    """Pop ``tree[path[0]][path[1]]...`` (``None`` if absent) and drop the dicts that this leaves empty."""
    head, rest = path[0], path[1:]
    if not rest:
        return tree.pop(head, None)
    child = tree.get(head)
    if not isinstance(child, dict):
        return None
    value = _pop_path(child, *rest)
    if value is not None and not child:
        del tree[head]
    return value


def _compact_instancetypes(instancetypes: list[KubeObject], common: dict[str, str]) -> dict[str, Any]:
    series: dict[str, dict[str, Any]] = {}
    for obj in instancetypes:
        name = obj["metadata"]["name"]
        series_name, _, size = name.partition(".")
        if not size:
            raise FormatError(f"{name}: not <series>.<size>")
        spec = copy.deepcopy(obj["spec"])
        labels = {k: v for k, v in _labels(obj).items() if k not in common}
        facts: dict[str, Any] = {"cpu": _pop_path(spec, "cpu", "guest"), "memory": _pop_path(spec, "memory", "guest")}
        hugepages = _pop_path(spec, "memory", "hugepages", "pageSize")
        max_sockets = _pop_path(spec, "cpu", "maxSockets")
        if hugepages is not None:
            facts["hugepages"] = hugepages
        if max_sockets is not None:
            facts["maxSockets"] = max_sockets
        _take_label(labels, LABEL_CPU, str(facts["cpu"]), name)
        _take_label(labels, LABEL_MEMORY, facts["memory"], name)
        _take_label(labels, LABEL_SIZE, size, name)
        _take_label(labels, LABEL_HUGEPAGES, hugepages, name)
        shared = {"labels": labels, "annotations": _kept_annotations(obj), "spec": spec}
        entry = series.setdefault(series_name, {**shared, "sizes": {}})
        if any(entry[key] != value for key, value in shared.items()):
            raise FormatError(f"{name} differs from series {series_name} in more than cpu/memory/hugepages/maxSockets")
        entry["sizes"][size] = facts
    # Smallest first, as people read a size table; the loader sorts objects by name anyway.
    for entry in series.values():
        entry["sizes"] = dict(
            sorted(entry["sizes"].items(), key=lambda kv: (kv[1]["cpu"], parse_quantity(kv[1]["memory"]), kv[0]))
        )
    return series


def _contains(spec: dict[str, Any], fragment: dict[str, Any]) -> bool:
    for key, want in fragment.items():
        if key not in spec:
            return False
        have = spec[key]
        if isinstance(want, dict) and want and isinstance(have, dict):
            if not _contains(have, want):
                return False
        elif have != want:
            return False
    return True


def _remove(spec: dict[str, Any], fragment: dict[str, Any]) -> None:
    for key, want in fragment.items():
        if key not in spec:
            continue  # an earlier block that overlaps this one took it already
        if isinstance(want, dict) and want and isinstance(spec[key], dict):
            _remove(spec[key], want)
            if not spec[key]:
                del spec[key]
        else:
            del spec[key]


def _compact_preferences(preferences: list[KubeObject], common: dict[str, str]) -> dict[str, Any]:
    items: dict[str, dict[str, Any]] = {}
    shared_annotations: list[dict[str, str]] = []
    used_blocks: set[str] = set()
    for obj in preferences:
        name = obj["metadata"]["name"]
        spec = copy.deepcopy(obj["spec"])
        labels = {k: v for k, v in _labels(obj).items() if k not in common}
        annotations = _kept_annotations(obj)
        os_type = _pop_path(spec, "annotations", SPEC_OS_ANNOTATION)
        _take_label(labels, LABEL_OS_TYPE, os_type, name)
        try:
            item: dict[str, Any] = {
                "os": os_type,
                "displayName": annotations.pop(ANNOTATION_DISPLAY_NAME),
                "icon": annotations.pop(ANNOTATION_ICON),
                "tags": annotations.pop(ANNOTATION_TAGS),
            }
        except KeyError as missing:
            raise FormatError(f"{name}: no {missing} annotation") from None
        shared_annotations.append(annotations)
        arch = _pop_path(spec, "preferredArchitecture")
        if arch is not None:
            item["arch"] = arch
        _take_label(labels, LABEL_ARCH, arch, name)
        _take_label(labels, LABEL_PREFERRED_ARCH, arch, name)
        _take_label(labels, LABEL_REQUIRED_ARCH, arch, name)
        if _pop_path(spec, "requirements", "architecture") != arch:
            raise FormatError(f"{name}: requirements.architecture differs from preferredArchitecture")
        requirements = {
            "cpu": _pop_path(spec, "requirements", "cpu", "guest"),
            "memory": _pop_path(spec, "requirements", "memory", "guest"),
        }
        cpu = requirements["cpu"]
        _take_label(labels, LABEL_REQUIRED_CPU, None if cpu is None else str(cpu), name)
        _take_label(labels, LABEL_REQUIRED_MEMORY, requirements["memory"], name)
        requirements = {k: v for k, v in requirements.items() if v is not None}
        if requirements:
            item["requirements"] = requirements
        use = [block for block, fragment in BLOCKS.items() if _contains(spec, fragment)]
        for block in use:
            _remove(spec, BLOCKS[block])
        used_blocks.update(use)
        if use:
            item["use"] = use
        if spec:
            item["spec"] = spec
        if labels:
            item["labels"] = labels
        items[name] = item
    first = shared_annotations[0] if shared_annotations else {}
    if any(a != first for a in shared_annotations):
        raise FormatError("preferences differ in annotations the format keeps only once for all of them")
    return {
        "annotations": first,
        "blocks": {block: BLOCKS[block] for block in BLOCKS if block in used_blocks},
        "items": items,
    }


# ---------------------------------------------------------------------------------------------------
# comparing


def expected_objects(objects: list[KubeObject], version: str, *, namespaced: bool = False) -> list[KubeObject]:
    """What the loader must produce for bundle ``objects``: dropped annotations removed, version stamped."""
    result = []
    for obj in objects:
        obj = copy.deepcopy(obj)
        metadata = obj["metadata"]
        metadata["annotations"] = _kept_annotations(obj)
        metadata.setdefault("labels", {}).setdefault(LABEL_VERSION, version)
        if namespaced:
            metadata.pop("namespace", None)
        result.append(obj)
    return result


def differences(expected: Any, actual: Any, path: str = "") -> Iterator[str]:
    """Human-readable paths where ``actual`` differs from ``expected``."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys()):
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                yield f"{where}: missing (expected {expected[key]!r})"
            elif key not in expected:
                yield f"{where}: unexpected {actual[key]!r}"
            else:
                yield from differences(expected[key], actual[key], where)
    elif expected != actual or type(expected) is not type(actual):
        yield f"{path}: {actual!r} != expected {expected!r}"


def _compare(expected: list[KubeObject], actual: list[KubeObject], what: str) -> list[str]:
    names = [o["metadata"]["name"] for o in expected]
    actual_names = [o["metadata"]["name"] for o in actual]
    if names != actual_names:
        missing = sorted(set(names) - set(actual_names))
        extra = sorted(set(actual_names) - set(names))
        return [f"{what}: names or order differ (missing {missing}, extra {extra})"]
    return [f"{what} {n}: {d}" for n, e, a in zip(names, expected, actual) for d in differences(e, a)]


def _require_equal(expected: list[KubeObject], actual: list[KubeObject], what: str) -> None:
    problems = _compare(expected, actual, what)
    if problems:
        raise FormatError("the compact form does not expand back:\n  " + "\n  ".join(problems[:20]))


# ---------------------------------------------------------------------------------------------------
# writing


def render(data: dict[str, Any]) -> str:
    """The data file text: stable, diff-friendly JSON with one line per size, item field and label."""
    return _render(data, 0) + "\n"


def _render(value: Any, depth: int) -> str:
    if isinstance(value, dict) and value and depth < _INLINE_DEPTH:
        inner = "  " * (depth + 1)
        lines = [f"{inner}{json.dumps(key)}: {_render(item, depth + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(lines) + "\n" + "  " * depth + "}"
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def data_path(version: str) -> str:
    """Where the package data file of ``version`` lives in this checkout."""
    return os.path.join(REPO_ROOT, "kubectl_instancetype", "catalog", "data", f"common-instancetypes-{version}.json")


def generate(bundles: dict[str, list[KubeObject]], bundle_dir: str, version: str | None = None) -> tuple[str, str]:
    """Build the data file text from the objects of ``bundle_dir``; returns (version, text)."""
    instancetypes = bundles.get(loader.CLUSTER_INSTANCETYPE_KIND, [])
    preferences = bundles.get(loader.CLUSTER_PREFERENCE_KIND, [])
    if not instancetypes or not preferences:
        raise FormatError(f"{bundle_dir}: needs both cluster-scoped kinds; found {sorted(bundles)}")
    version = detect_version([*instancetypes, *preferences], bundle_dir, version)
    return version, render(compact(instancetypes, preferences, version))


def check(bundle_dir: str, version: str | None = None) -> list[str]:
    """Problems with the committed data of the release in ``bundle_dir`` (empty if it is right)."""
    bundles = read_bundles(bundle_dir)
    version, text = generate(bundles, bundle_dir, version)
    path = data_path(version)
    if not os.path.exists(path):
        return [f"{path} is missing: run hack/gen_catalog.py {bundle_dir}"]
    problems = []
    with open(path, encoding="utf-8") as handle:
        if handle.read() != text:
            problems.append(f"{path} is stale: run hack/gen_catalog.py {bundle_dir}")
    catalog = loader.load_catalog(version)
    for kind, actual in (
        (loader.CLUSTER_INSTANCETYPE_KIND, catalog.instancetypes),
        (loader.CLUSTER_PREFERENCE_KIND, catalog.preferences),
    ):
        problems += _compare(expected_objects(bundles[kind], version), actual, kind)
    namespaced = catalog.namespaced("gen-catalog-check")
    for kind, actual in (
        (loader.INSTANCETYPE_KIND, namespaced.instancetypes),
        (loader.PREFERENCE_KIND, namespaced.preferences),
    ):
        if kind not in bundles:
            problems.append(f"{bundle_dir}: no {kind} bundle to check the namespaced kinds against")
            continue
        for obj in actual:
            if obj["metadata"].pop("namespace", None) != "gen-catalog-check":
                problems.append(f"{kind} {obj['metadata']['name']}: metadata.namespace not set")
        problems += _compare(expected_objects(bundles[kind], version, namespaced=True), actual, kind)
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle_dir", metavar="BUNDLE_DIR", help="directory with the release's YAML bundles")
    parser.add_argument("--check", action="store_true", help="verify the committed data instead of writing it")
    parser.add_argument("--version", help="release tag, if neither the labels nor the directory name tell it")
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = check(args.bundle_dir, args.version)
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                return 1
            print(f"ok: embedded catalog matches {args.bundle_dir}")
            return 0
        version, text = generate(read_bundles(args.bundle_dir), args.bundle_dir, args.version)
    except FormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    path = data_path(version)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {os.path.relpath(path, REPO_ROOT)}")
    if version not in loader.VERSIONS:
        print(f"note: add {version!r} to VERSIONS in kubectl_instancetype/catalog/loader.py", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
