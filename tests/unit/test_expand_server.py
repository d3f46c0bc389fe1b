"""``expand --server`` against a named test double of KubeVirt's expand subresources (tests/doubles), which
answers with KubeVirt's own expansion (hack/kubevirtref): the request paths and bodies, the printed answer, and
KubeVirt's errors as the plugin reports them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.doubles.kubevirt_expand import KubeVirtExpandDouble

pytestmark = pytest.mark.differential

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "hack" / "kubevirtref" / "build.sh"
IT = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi", "overcommitPercent": 25}}
PREF = {"devices": {"preferredDiskBus": "virtio", "preferredInterfaceModel": "virtio"}}


@pytest.fixture(scope="module")
def kubevirtref() -> Path:
    if shutil.which("go") is None:
        pytest.skip("Go is not installed: KubeVirt's reference expansion (hack/kubevirtref) cannot be built")
    built = subprocess.run(["bash", str(BUILD_SCRIPT)], check=True, capture_output=True, text=True, timeout=1800)
    return Path(built.stdout.strip().splitlines()[-1])


def _vm(name: str, template: dict | None = None) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name},
        "spec": {
            "instancetype": {"name": "c2"},
            "preference": {"name": "p"},
            "template": {
                "spec": template
                or {"domain": {"devices": {}}, "volumes": [{"name": "root", "containerDisk": {"image": "img:1"}}]}
            },
        },
    }


def test_server_expansion_matches_the_local_one(kubevirtref, tmp_path) -> None:
    manifest = tmp_path / "vm.yaml"
    manifest.write_text(yaml.safe_dump(_vm("vm")))
    (tmp_path / "it.yaml").write_text(
        yaml.safe_dump({"kind": "VirtualMachineClusterInstancetype", "metadata": {"name": "c2"}, "spec": IT})
    )
    (tmp_path / "p.yaml").write_text(
        yaml.safe_dump({"kind": "VirtualMachineClusterPreference", "metadata": {"name": "p"}, "spec": PREF})
    )
    stored = {**_vm("stored"), "metadata": {"name": "stored", "namespace": "ns"}}
    with KubeVirtExpandDouble(kubevirtref, {("ns", "stored"): stored}, IT, PREF) as double:
        environ = {"HOME": "/nonexistent", "KUBECONFIG": str(double.kubeconfig(tmp_path / "kubeconfig"))}
        remote = run_cli(["expand", "-f", str(manifest), "--server", "-o", "json"], environ=environ)
        by_name = run_cli(["expand", "vm/stored", "--server"], environ=environ)
        requests = list(double.requests)
    local = run_cli(
        [
            "expand",
            "-f",
            str(manifest),
            "--instancetype-file",
            str(tmp_path / "it.yaml"),
            "--preference-file",
            str(tmp_path / "p.yaml"),
            "-o",
            "json",
            "--skip-checks",
        ]
    )
    assert (remote.exit_code, remote.stderr) == (0, "")
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    assert (by_name.exit_code, by_name.stderr) == (0, "")
    assert yaml.safe_load(by_name.stdout)["spec"]["template"]["spec"]["domain"]["resources"]["requests"] == {
        "memory": "1536Mi"
    }
    assert requests == [
        ("PUT", "/apis/subresources.kubevirt.io/v1/namespaces/ns/expand-vm-spec"),
        ("GET", "/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/stored"),
        ("GET", "/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/stored/expand-spec"),
    ]


def test_server_errors(kubevirtref, tmp_path) -> None:
    manifest = tmp_path / "vm.yaml"
    conflicting = _vm("vm", {"domain": {"devices": {}, "cpu": {"sockets": 2}}})
    manifest.write_text(yaml.safe_dump(conflicting))
    other_namespace = tmp_path / "other.yaml"
    other_namespace.write_text(yaml.safe_dump({**_vm("vm"), "metadata": {"name": "vm", "namespace": "elsewhere"}}))
    stored = {**conflicting, "metadata": {"name": "stored", "namespace": "ns"}}
    with KubeVirtExpandDouble(kubevirtref, {("ns", "stored"): stored}, IT, PREF) as double:
        environ = {"HOME": "/nonexistent", "KUBECONFIG": str(double.kubeconfig(tmp_path / "kubeconfig"))}
        conflict = run_cli(["expand", "-f", str(manifest), "--server"], environ=environ)
        stored_conflict = run_cli(["expand", "vm/stored", "--server"], environ=environ)
        missing = run_cli(["expand", "vm/missing", "--server"], environ=environ)
        wrong_namespace = run_cli(["expand", "-f", str(other_namespace), "--server", "-n", "ns"], environ=environ)
    message = "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type"
    assert (conflict.exit_code, conflict.stdout, conflict.stderr) == (1, "", f"error: {message}\n")
    assert (stored_conflict.exit_code, stored_conflict.stderr) == (1, f"error: Internal error occurred: {message}\n")
    assert (missing.exit_code, missing.stderr) == (
        1,
        'Error from server (NotFound): virtualmachines.kubevirt.io "missing" not found\n',
    )
    assert wrong_namespace.exit_code == 0  # the VM's own namespace is used for the request
