"""Differential test: our inferFromVolume resolver against KubeVirt v1.9.0's own ``pkg/instancetype/infer``.

``hack/inferref`` wraps KubeVirt's handler with a real client-go client; both sides run on the same VMs against
the same local control plane (the volumes of test_infer.py in two namespaces) and must agree on every matcher
after inference, on whether memory was removed, on the error text and on whether it is ignorable.

The binary comes from ``hack/inferref/build.sh`` (cached per KubeVirt version, rebuilt when main.go or go.sum
change). It is built when ``KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1`` or when a build is already cached (then the
script only checks the stamp); otherwise the test skips.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.kube.client import connect
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
from kubectl_instancetype.usecases.infer_resolve import resolve_vm
from tests.conftest import (
    INFER_A as A,
)
from tests.conftest import (
    INFER_B as B,
)
from tests.conftest import (
    dv_volume,
    pvc_volume,
)
from tests.conftest import (
    inference_vm as vm_manifest,
)

pytestmark = [pytest.mark.controlplane, pytest.mark.differential]

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "hack" / "inferref" / "build.sh"
KUBEVIRT_VERSION = (REPO / "hack" / "inferref" / "KUBEVIRT_VERSION").read_text().strip()


def _cached() -> bool:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kubectl-instancetype" / "inferref"
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return any(cache.glob(f"{KUBEVIRT_VERSION}-*-{platform.system().lower()}-{arch}/inferref"))


@pytest.fixture(scope="module")
def inferref() -> Path:
    if not shutil.which("go"):
        pytest.skip("Go is not installed: cannot build hack/inferref")
    if os.environ.get("KUBECTL_INSTANCETYPE_BUILD_VIRTCTL") != "1" and not _cached():
        pytest.skip("hack/inferref not built (run hack/inferref/build.sh or set KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1)")
    result = subprocess.run(["bash", str(BUILD_SCRIPT)], capture_output=True, text=True, check=False, timeout=1800)
    if result.returncode != 0:
        pytest.fail(f"building hack/inferref failed: {result.stderr[-2000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def template(name: str, spec: dict, labels: dict | None = None) -> dict:
    metadata: dict = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"metadata": metadata, "spec": spec}


SOURCE_REF = {"kind": "DataSource", "name": "fedora", "namespace": B}

# (id, volume, dataVolumeTemplates)
VOLUMES = [
    ("pvc labelled", pvc_volume("fedora"), None),
    ("pvc unlabelled", pvc_volume("plain"), None),
    ("pvc instance type only, namespaced kind", pvc_volume("only-instancetype"), None),
    ("pvc labels with empty values", pvc_volume("empty-name"), None),
    ("pvc missing", pvc_volume("missing"), None),
    ("pvc in another namespace is not followed", pvc_volume("fedora-pvc"), None),
    ("dv labelled", dv_volume("dv-labelled"), None),
    ("dv sourceRef to another namespace", dv_volume("dv-ref"), None),
    ("dv sourceRef without namespace", dv_volume("dv-ref-local"), None),
    ("dv own preference, pvc source", dv_volume("dv-pvc"), None),
    ("dv http source", dv_volume("dv-http"), None),
    ("dv garbage collected, pvc left", dv_volume("gone-dv"), None),
    ("dv and pvc gone", dv_volume("nothing-here"), None),
    ("dvt pvc source", dv_volume("t"), [template("t", {"source": {"pvc": {"name": "rhel-pvc", "namespace": B}}})]),
    ("dvt pvc source without namespace", dv_volume("t"), [template("t", {"source": {"pvc": {"name": "fedora"}}})]),
    ("dvt snapshot", dv_volume("t"), [template("t", {"source": {"snapshot": {"name": "fedora-snap", "namespace": B}}})]),
    ("dvt unlabelled snapshot", dv_volume("t"), [template("t", {"source": {"snapshot": {"name": "plain-snap", "namespace": B}}})]),
    ("dvt sourceRef DataSource -> pvc", dv_volume("t"), [template("t", {"sourceRef": SOURCE_REF})]),
    ("dvt sourceRef DataSource -> snapshot", dv_volume("t"), [template("t", {"sourceRef": {**SOURCE_REF, "name": "snap"}})]),
    ("dvt sourceRef labelled DataSource", dv_volume("t"), [template("t", {"sourceRef": {**SOURCE_REF, "name": "labelled"}})]),
    ("dvt sourceRef DataSource without source", dv_volume("t"), [template("t", {"sourceRef": {**SOURCE_REF, "name": "empty"}})]),
    ("dvt sourceRef dangling DataSource", dv_volume("t"), [template("t", {"sourceRef": {**SOURCE_REF, "name": "dangling"}})]),
    ("dvt sourceRef DataSource missing", dv_volume("t"), [template("t", {"sourceRef": {**SOURCE_REF, "namespace": A}})]),
    ("dvt sourceRef nil namespace", dv_volume("t"), [template("t", {"sourceRef": {"kind": "DataSource", "name": "local"}})]),
    ("dvt sourceRef empty namespace", dv_volume("t"), [template("t", {"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": ""}})]),
    ("dvt registry source, labels ignored", dv_volume("t"), [template("t", {"source": {"registry": {"url": "docker://quay.io/containerdisks/fedora:41"}}}, {"instancetype.kubevirt.io/default-instancetype": "u1.small"})]),
    ("dvt sourceRef other kind", dv_volume("t"), [template("t", {"sourceRef": {"kind": "DataImportCron", "name": "x"}})]),
    ("dvt wins over the labelled dv", dv_volume("dv-labelled"), [template("dv-labelled", {"source": {"blank": {}}})]),
    ("containerdisk volume", {"name": "disk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}, None),
]  # fmt: skip

CASES = [
    (f"{name} / {policy or 'no policy'}", volume, templates, policy)
    for name, volume, templates in VOLUMES
    for policy in (None, "Ignore", "Reject")
]


def manifests() -> list[dict]:
    out = []
    for _, volume, templates, policy in CASES:
        manifest = vm_manifest(volume, policy=policy, templates=templates)
        manifest["metadata"]["namespace"] = A
        out.append(manifest)
    return out


def _inferred(spec: dict) -> dict:
    """What inference decides: the two matchers and the template's memory."""
    domain = ((spec.get("template") or {}).get("spec") or {}).get("domain") or {}
    return {
        "instancetype": spec.get("instancetype"),
        "preference": spec.get("preference"),
        "memory": domain.get("memory"),
    }


@pytest.fixture(scope="module")
def reference(inferref, control_plane, volumes) -> list[dict]:
    # KubeVirt's code reads as virt-api reads, with its service account (its RBAC is part of the answer)
    virt_api = control_plane.workdir / "kubeconfig-kubevirt-apiserver"
    kubeconfig = virt_api if virt_api.exists() else control_plane.kubeconfig()
    result = subprocess.run(
        [str(inferref), str(kubeconfig)],
        input=json.dumps(manifests()),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout)
    assert len(answers) == len(CASES)
    return answers


@pytest.fixture(scope="module")
def volumes(control_plane, virt_api_reads_snapshots) -> None:
    from tests.conftest import INFER_OBJECTS as OBJECTS

    for namespace in (A, B):
        control_plane.ensure_namespace(namespace)
    for obj in OBJECTS:
        control_plane.apply(obj)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case[0] for case in CASES])
def test_same_result_as_kubevirt(reference, control_plane, index) -> None:
    go = reference[index]
    options = ConnectionOptions(kubeconfig=str(control_plane.kubeconfig()))
    with connect(options, {"HOME": "/nonexistent"}, "/nonexistent") as client:
        ours = resolve_vm(client, manifests()[index], A)
    assert ours.error == go["error"]
    if ours.error is not None:
        failed = [o for o in ours.outcomes if o.action == "rejected"]
        ignorable = bool(failed and failed[0].resolution and failed[0].resolution.ignorable)
        assert ignorable == go["ignorable"]
    assert _inferred(ours.vm["spec"]) == _inferred(go["spec"])


def test_cases_cover_every_outcome(reference) -> None:
    """The table exercises successes, drops, ignorable and hard denials on the Go side too."""
    errors = [answer["error"] for answer in reference]
    assert any(error is None for error in errors)
    assert any(answer["ignorable"] for answer in reference)
    assert any(error and not answer["ignorable"] for error, answer in zip(errors, reference))
    assert any(answer["error"] is None and answer["spec"].get("instancetype") is None for answer in reference)
