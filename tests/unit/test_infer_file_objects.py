"""``infer -f`` reads the volumes written next to the VM (a DataSource, PVC or DataVolume) before the cluster's,
as ``expand -f`` reads the types next to its VMs; a file holding the whole chain needs no cluster."""

from __future__ import annotations

import json

import yaml

from tests.conftest import cdi_object, inference_vm, pvc_object, run_cli

IT_LABEL = "instancetype.kubevirt.io/default-instancetype"
PREF_LABEL = "instancetype.kubevirt.io/default-preference"
OFFLINE = {"KUBECONFIG": "/nonexistent/config", "HOME": "/nonexistent"}


def _file(tmp_path, *docs) -> str:
    path = tmp_path / "vm.yaml"
    path.write_text("---\n".join(yaml.safe_dump(doc) for doc in docs))
    return str(path)


def test_a_datavolume_datasource_and_pvc_in_the_file_resolve_without_a_cluster(tmp_path) -> None:
    vm = inference_vm({"name": "disk", "dataVolume": {"name": "root"}}, policy=None)
    vm["metadata"]["namespace"] = "demo"
    path = _file(
        tmp_path,
        cdi_object(
            "DataSource", "images", "fedora", {"source": {"pvc": {"name": "fedora-golden", "namespace": "images"}}}
        ),
        vm,
        cdi_object(
            "DataVolume", "demo", "root", {"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "images"}}
        ),
        pvc_object("images", "fedora-golden", {IT_LABEL: "u1.medium", PREF_LABEL: "fedora"}),
    )
    result = run_cli(["infer", "-f", path, "-o", "wide"], environ=OFFLINE)
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[1].split()[:3] == ["instancetype", "disk", "u1.medium"]
    assert lines[2].split()[:3] == ["preference", "disk", "fedora"]
    assert lines[1].endswith(
        "DataVolume demo/root -> DataSource images/fedora -> PersistentVolumeClaim images/fedora-golden -> labels"
    )


def test_objects_without_a_namespace_are_in_the_vms(tmp_path) -> None:
    vm = inference_vm({"name": "disk", "persistentVolumeClaim": {"claimName": "root"}}, policy=None)
    pvc = pvc_object("x", "root", {IT_LABEL: "u1.small", PREF_LABEL: "cirros"})
    del pvc["metadata"]["namespace"]
    result = run_cli(["infer", "-f", _file(tmp_path, vm, pvc), "-n", "demo", "-o", "json"], environ=OFFLINE)
    assert (result.exit_code, result.stderr) == (0, "")
    spec = json.loads(result.stdout)["spec"]
    assert (spec["instancetype"], spec["preference"]) == ({"name": "u1.small"}, {"name": "cirros"})


def test_other_kinds_and_two_vms_are_refused(tmp_path) -> None:
    vm = inference_vm({"name": "disk", "persistentVolumeClaim": {"claimName": "root"}})
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}}
    path = _file(tmp_path, vm, service)
    result = run_cli(["infer", "-f", path], environ=OFFLINE)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f'error: {path}: Service "web" is not read by infer: besides the one VirtualMachine the file may hold '
        "PersistentVolumeClaims, DataVolumes, DataSources and VolumeSnapshots\n"
    )
    two = run_cli(["infer", "-f", _file(tmp_path, vm, vm)], environ=OFFLINE)
    assert two.exit_code == 1
    assert two.stderr.startswith(f"error: expected one VirtualMachine in {path}, found 2 VirtualMachines")


def test_what_the_file_lacks_is_read_from_the_cluster(tmp_path) -> None:
    """With a PVC missing from the file the cluster is asked: here there is none, and the error says so."""
    vm = inference_vm({"name": "disk", "persistentVolumeClaim": {"claimName": "root"}}, policy=None)
    vm["metadata"]["namespace"] = "demo"
    other = pvc_object("demo", "other", {IT_LABEL: "u1.small"})
    result = run_cli(["infer", "-f", _file(tmp_path, vm, other)], environ=OFFLINE)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config\n"
    )
