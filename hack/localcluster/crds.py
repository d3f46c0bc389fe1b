"""KubeVirt's and CDI's own manifests, as their operators write them, and the CRDs the local plane serves.

``hack/kubevirt/build.sh`` builds ``kubevirt-manifests`` (virt-operator's CRDs, webhook configurations,
APIServices and RBAC from ``kubevirt.io/kubevirt/pkg/virt-operator/resource/generate``) per KubeVirt version and
``hack/cdi/build.sh`` builds ``cdi-manifests`` (CDI's operator's CRDs, RBAC, APIService and webhooks from
``kubevirt.io/containerized-data-importer/pkg/operator/resources``). Their output is read here; nothing is
reconstructed. The one CRD the project writes itself is VolumeSnapshot's (external-snapshotter's CRDs are not in
either module), with an open schema: the plugin only reads a snapshot's ``status.restoreSize`` and its source PVC.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import threading
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
KUBEVIRT_DIR = REPO_ROOT / "hack" / "kubevirt"
CDI_DIR = REPO_ROOT / "hack" / "cdi"
_BUILD_LOCK = threading.Lock()


def default_kubevirt_version() -> str:
    """``$KUBEVIRT_VERSION`` when set, else hack/kubevirt/KUBEVIRT_VERSION (v1.9.0)."""
    return os.environ.get("KUBEVIRT_VERSION") or (KUBEVIRT_DIR / "KUBEVIRT_VERSION").read_text().strip()


def supported_kubevirt_versions() -> list[str]:
    """The KubeVirt versions with a wrapper module in hack/kubevirt/."""
    return sorted(p.parent.name for p in KUBEVIRT_DIR.glob("v*/go.mod"))


def cache_root() -> Path:
    """``~/.cache/kubectl-instancetype`` (or ``$KUBECTL_INSTANCETYPE_CACHE``)."""
    base = os.environ.get("KUBECTL_INSTANCETYPE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kubectl-instancetype"
    )
    return Path(base)


_BUILT: dict[str, Path] = {}


def _build_once(key: str, script: Path, what: str, env: dict[str, str] | None = None) -> Path:
    """Run a build script once per process (threads wait for the first caller's result)."""
    from .controlplane import run_build

    with _BUILD_LOCK:
        if key not in _BUILT:
            _BUILT[key] = run_build(script, what, env)
        return _BUILT[key]


def kubevirt_bin_dir(version: str) -> Path:
    """Build (once per version; cached on disk) virt-api, virt-controller and kubevirt-manifests; their folder."""
    return _build_once(
        f"kubevirt-{version}", KUBEVIRT_DIR / "build.sh", f"KubeVirt {version}", {"KUBEVIRT_VERSION": version}
    )


def cdi_bin_dir() -> Path:
    """Build (once; cached on disk) cdi-apiserver and cdi-manifests; their folder."""
    return _build_once("cdi", CDI_DIR / "build.sh", "CDI")


def _run_manifests(binary: Path, namespace: str) -> list[dict]:
    """The binary's JSON List, kept next to it (its first start can take seconds on a loaded machine)."""
    cached = binary.with_name(f"{binary.name}-{namespace}.json")
    if cached.exists() and cached.stat().st_mtime >= binary.stat().st_mtime:
        return json.loads(cached.read_text())["items"]
    result = subprocess.run(
        [str(binary), "-namespace", namespace], capture_output=True, text=True, check=False, timeout=120
    )
    if result.returncode != 0:
        raise RuntimeError(f"{binary.name} failed: {result.stderr.strip()[-2000:]}")
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(result.stdout)
    tmp.replace(cached)
    return json.loads(result.stdout)["items"]


@functools.cache
def _kubevirt_manifests(version: str, namespace: str) -> str:
    return json.dumps(_run_manifests(kubevirt_bin_dir(version) / "kubevirt-manifests", namespace))


@functools.cache
def _cdi_manifests(namespace: str) -> str:
    return json.dumps(_run_manifests(cdi_bin_dir() / "cdi-manifests", namespace))


def kubevirt_manifests(version: str, namespace: str = "kubevirt") -> list[dict]:
    """What virt-operator installs for virt-api and virt-controller (a fresh copy on each call)."""
    return json.loads(_kubevirt_manifests(version, namespace))


def cdi_manifests(namespace: str = "cdi") -> list[dict]:
    """What CDI's operator writes for cdi-apiserver, and CDI's CRDs (a fresh copy on each call)."""
    return json.loads(_cdi_manifests(namespace))


def volume_snapshot_crd() -> dict:
    """external-snapshotter's VolumeSnapshot (snapshot.storage.k8s.io/v1), with an open schema."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        # A *.k8s.io group is protected: the apiserver wants the API review annotation.
        "metadata": {
            "name": "volumesnapshots.snapshot.storage.k8s.io",
            "annotations": {
                "api-approved.kubernetes.io": "https://github.com/kubernetes-csi/external-snapshotter/pull/419"
            },
        },
        "spec": {
            "group": "snapshot.storage.k8s.io",
            "names": {
                "kind": "VolumeSnapshot",
                "plural": "volumesnapshots",
                "singular": "volumesnapshot",
                "shortNames": ["vs"],
                "listKind": "VolumeSnapshotList",
            },
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


def all_crds(version: str | None = None) -> list[dict]:
    """Every CRD of the local plane: KubeVirt's (of ``version``), CDI's, and VolumeSnapshot."""
    version = version or default_kubevirt_version()
    objects = kubevirt_manifests(version) + cdi_manifests()
    return [o for o in objects if o["kind"] == "CustomResourceDefinition"] + [volume_snapshot_crd()]


# The schemas alone, without building anything: the ``CRDsValidation`` map of
# pkg/virt-operator/resource/generate/components/validations_generated.go in the Go module (for unit tests).
VALIDATIONS_FILE = "pkg/virt-operator/resource/generate/components/validations_generated.go"
_ENTRY = re.compile(r'^\t"([a-z]+)": `(.*?)`,$', re.S | re.M)


def kubevirt_module_dir(version: str | None = None) -> Path:
    """Download (once) the KubeVirt Go module and return its directory in the module cache."""
    version = version or default_kubevirt_version()
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
