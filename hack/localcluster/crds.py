"""The CRDs the local control plane serves.

KubeVirt's own schemas are read as data from the Go module ``kubevirt.io/kubevirt`` (the ``CRDsValidation``
map in ``validations_generated.go``; importing that package fails at v1.9.0) and wrapped with the names,
scopes, short names and categories virt-operator gives them. CDI's DataVolume/DataSource and the
VolumeSnapshot CRDs are written here with open schemas, which is all the plugin needs of them.
The result is cached per KubeVirt version.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

KUBEVIRT_VERSION = "v1.9.0"
VALIDATIONS_FILE = "pkg/virt-operator/resource/generate/components/validations_generated.go"
_ENTRY = re.compile(r'^\t"([a-z]+)": `(.*?)`,$', re.S | re.M)

# kind -> (group, plural, singular, scope, short names, categories, versions, status subresource)
KUBEVIRT_KINDS = {
    "VirtualMachine": (
        "kubevirt.io",
        "virtualmachines",
        "virtualmachine",
        "Namespaced",
        ["vm", "vms"],
        ["all"],
        [("v1", True), ("v1alpha3", False)],
        True,
    ),
    "VirtualMachineInstancetype": (
        "instancetype.kubevirt.io",
        "virtualmachineinstancetypes",
        "virtualmachineinstancetype",
        "Namespaced",
        ["vminstancetype", "vminstancetypes", "vmf", "vmfs"],
        ["all"],
        [("v1beta1", True)],
        False,
    ),
    "VirtualMachineClusterInstancetype": (
        "instancetype.kubevirt.io",
        "virtualmachineclusterinstancetypes",
        "virtualmachineclusterinstancetype",
        "Cluster",
        ["vmclusterinstancetype", "vmclusterinstancetypes", "vmcf", "vmcfs"],
        [],
        [("v1beta1", True)],
        False,
    ),
    "VirtualMachinePreference": (
        "instancetype.kubevirt.io",
        "virtualmachinepreferences",
        "virtualmachinepreference",
        "Namespaced",
        ["vmpref", "vmprefs", "vmp", "vmps"],
        ["all"],
        [("v1beta1", True)],
        False,
    ),
    "VirtualMachineClusterPreference": (
        "instancetype.kubevirt.io",
        "virtualmachineclusterpreferences",
        "virtualmachineclusterpreference",
        "Cluster",
        ["vmcp", "vmcps"],
        [],
        [("v1beta1", True)],
        False,
    ),
}

VM_PRINTER_COLUMNS = [
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    {"name": "Status", "description": "Human Readable Status", "type": "string", "jsonPath": ".status.printableStatus"},
    {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Ready')].status"},
]

OPEN_SCHEMA = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def cache_root() -> Path:
    """``~/.cache/kubectl-instancetype`` (or ``$KUBECTL_INSTANCETYPE_CACHE``)."""
    base = os.environ.get("KUBECTL_INSTANCETYPE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kubectl-instancetype"
    )
    return Path(base)


def kubevirt_module_dir(version: str = KUBEVIRT_VERSION) -> Path:
    """Download (once) the KubeVirt Go module and return its directory in the module cache."""
    result = subprocess.run(
        ["go", "mod", "download", "-json", f"kubevirt.io/kubevirt@{version}"],
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    info = json.loads(result.stdout or "{}")
    if result.returncode != 0 or "Dir" not in info:
        raise RuntimeError(
            f"go mod download kubevirt.io/kubevirt@{version} failed: {info.get('Error') or result.stderr.strip()}"
        )
    return Path(info["Dir"])


def read_validations(module_dir: Path) -> dict[str, dict]:
    """Parse the ``CRDsValidation`` map: lowercase kind -> ``openAPIV3Schema`` (as data)."""
    import yaml

    text = (module_dir / VALIDATIONS_FILE).read_text()
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {kind: yaml.load(body, Loader=loader)["openAPIV3Schema"] for kind, body in _ENTRY.findall(text)}


def kubevirt_crds(validations: dict[str, dict]) -> list[dict]:
    """KubeVirt's CRDs for the kinds the plugin uses, with KubeVirt's real schemas."""
    crds = []
    for kind, (group, plural, singular, scope, short, categories, versions, status) in KUBEVIRT_KINDS.items():
        schema = validations[kind.lower()]
        spec_versions = []
        for name, storage in versions:
            version: dict = {"name": name, "served": True, "storage": storage, "schema": {"openAPIV3Schema": schema}}
            if status:
                version["subresources"] = {"status": {}}
            if kind == "VirtualMachine":
                version["additionalPrinterColumns"] = VM_PRINTER_COLUMNS
            spec_versions.append(version)
        names = {"kind": kind, "plural": plural, "singular": singular, "shortNames": short}
        if categories:
            names["categories"] = categories
        crds.append(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": f"{plural}.{group}", "labels": {"kubevirt.io": ""}},
                "spec": {
                    "group": group,
                    "names": names,
                    "scope": scope,
                    "versions": spec_versions,
                    "conversion": {"strategy": "None"},
                },
            }
        )
    return crds


def _open_crd(
    group: str, kind: str, plural: str, short: list[str], version: str, annotations: dict | None = None
) -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}", "annotations": annotations or {}},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(), "shortNames": short},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": OPEN_SCHEMA},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


def companion_crds() -> list[dict]:
    """CDI DataVolume/DataSource and VolumeSnapshot, written by the project (open schemas)."""
    return [
        _open_crd("cdi.kubevirt.io", "DataVolume", "datavolumes", ["dv", "dvs"], "v1beta1"),
        _open_crd("cdi.kubevirt.io", "DataSource", "datasources", ["das"], "v1beta1"),
        # A *.k8s.io group is protected: the apiserver wants the API review annotation.
        _open_crd(
            "snapshot.storage.k8s.io",
            "VolumeSnapshot",
            "volumesnapshots",
            ["vs"],
            "v1",
            {"api-approved.kubernetes.io": "https://github.com/kubernetes-csi/external-snapshotter/pull/419"},
        ),
    ]


def all_crds(version: str = KUBEVIRT_VERSION) -> list[dict]:
    """Every CRD of the local control plane, cached as JSON per KubeVirt version."""
    cached = cache_root() / "crds" / f"kubevirt-{version}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    crds = kubevirt_crds(read_validations(kubevirt_module_dir(version))) + companion_crds()
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_text(json.dumps(crds))
    tmp.replace(cached)
    return crds
