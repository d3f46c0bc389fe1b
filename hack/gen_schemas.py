#!/usr/bin/env python3
"""Write (or check) the KubeVirt CRD schemas the plugin validates ``-f`` files against
(``kubectl_instancetype/golang/data/kubevirt-<version>-schemas.json``, read by ``golang/structural.py``).

    python3 hack/gen_schemas.py           # from the CRDs virt-operator installs (hack/kubevirt's kubevirt-manifests)
    python3 hack/gen_schemas.py --check   # fails when the committed file is not what those CRDs say

``make schemas`` runs the first. Only what validation reads is kept (types, properties, items,
additionalProperties, required, enum, pattern, bounds, nullable, int-or-string, preserve-unknown-fields,
embedded-resource): no descriptions. The namespaced and cluster-scoped kinds share one schema when theirs are
the same. Needs Go (the kubevirt-manifests binary is built once per version and cached, as the test plane builds it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kubectl_instancetype.golang.gojson import DATA_DIR  # noqa: E402
from kubectl_instancetype.golang.structural import KEYWORDS, SCHEMAS  # noqa: E402

TARGET = Path(DATA_DIR) / f"{SCHEMAS}.json"
KINDS = (
    "VirtualMachine",
    "VirtualMachineInstancetype",
    "VirtualMachineClusterInstancetype",
    "VirtualMachinePreference",
    "VirtualMachineClusterPreference",
)


def _strip(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strip(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":
            out[key] = {name: _strip(item) for name, item in value.items()}
        elif key in ("enum", "required"):
            out[key] = value
        elif key in KEYWORDS:
            out[key] = _strip(value)
    return out


def from_crds(crds: list[dict[str, Any]]) -> str:
    """The data file's text for the CRDs' served storage versions of :data:`KINDS`."""
    by_kind: dict[str, tuple[str, Any]] = {}
    cel: set[str] = set()
    for crd in crds:
        kind = crd["spec"]["names"]["kind"]
        if kind not in KINDS:
            continue
        version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
        by_kind[kind] = (version["name"], _strip(version["schema"]["openAPIV3Schema"]))
        if _has_rules(version["schema"]["openAPIV3Schema"]):
            cel.add(kind)
    missing = [kind for kind in KINDS if kind not in by_kind]
    if missing:
        raise SystemExit(f"the CRDs lack {', '.join(missing)}")
    schemas: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for kind in KINDS:
        version, schema = by_kind[kind]
        key = next((name for name, known in schemas.items() if known == schema), kind)
        schemas.setdefault(key, schema)
        kinds[kind] = key
    versions = {kind: by_kind[kind][0] for kind in KINDS}
    data = {"versions": versions, "kinds": kinds, "schemas": schemas, "cel": sorted(cel)}
    return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"


def _has_rules(schema: Any) -> bool:
    """True when the schema has CEL rules anywhere (x-kubernetes-validations): the API server then adds a cause
    when a blocking error stopped it from checking them (apiextensions-apiserver strategy.go hasBlockingErr)."""
    if isinstance(schema, dict):
        return "x-kubernetes-validations" in schema or any(_has_rules(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_has_rules(item) for item in schema)
    return False


def generate() -> str:
    from hack.localcluster.crds import default_kubevirt_version, kubevirt_manifests

    objects = kubevirt_manifests(default_kubevirt_version())
    return from_crds([obj for obj in objects if obj.get("kind") == "CustomResourceDefinition"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file; write nothing")
    args = parser.parse_args()
    text = generate()
    if args.check:
        if TARGET.read_text() != text:
            print(f"{TARGET.relative_to(REPO)} differs from KubeVirt's CRDs: run make schemas", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(REPO)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
