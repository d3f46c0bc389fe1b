"""``infer`` against the real control plane: labelled PVCs, DataVolumes, DataSources and VolumeSnapshots in two
namespaces, VMs from files, stdin and the cluster, resolved and unresolved, and RBAC."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from kubectl_instancetype.cli.main import run
from kubectl_instancetype.env import Environment
from tests.conftest import (
    INFER_A as A,
)
from tests.conftest import (
    INFER_B as B,
)
from tests.conftest import (
    INFER_OBJECTS as OBJECTS,
)
from tests.conftest import (
    dv_volume,
    pvc_volume,
)
from tests.conftest import (
    inference_vm as vm_manifest,
)

pytestmark = pytest.mark.controlplane


@pytest.fixture(scope="module")
def volumes(control_plane, virt_api_reads_snapshots) -> None:
    for namespace in (A, B):
        control_plane.ensure_namespace(namespace)
    for obj in OBJECTS:
        control_plane.apply(obj)


def run_with_stdin(control_plane, args: list[str], stdin: str):
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(
        stdin=io.StringIO(stdin),
        stdout=stdout,
        stderr=stderr,
        environ={"HOME": "/nonexistent", "KUBECONFIG": str(control_plane.kubeconfig())},
    )
    return run(args, env), stdout.getvalue(), stderr.getvalue()


def test_infer_pvc_table(cli, volumes) -> None:
    result = cli("infer", "pvc/fedora", "-n", A)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "MATCHER        NAME        KIND     RESULT",
        "instancetype   u1.medium   <none>   inferred",
        "preference     fedora      <none>   inferred",
    ]


@pytest.mark.parametrize(
    "args,expected_chain",
    [
        (
            ["dv/dv-ref", "-n", A],
            f"DataVolume {A}/dv-ref -> DataSource {B}/fedora -> PersistentVolumeClaim {B}/fedora-pvc -> labels",
        ),
        (["dv", "dv-labelled", "-n", A], f"DataVolume {A}/dv-labelled -> labels"),
        (["dv/gone-dv", "-n", A], f"DataVolume {A}/gone-dv (not found) -> PersistentVolumeClaim {A}/gone-dv -> labels"),
        (["das/snap", "-n", B], f"DataSource {B}/snap -> VolumeSnapshot {B}/fedora-snap -> labels"),
        (["volumesnapshot/fedora-snap", "-n", B], f"VolumeSnapshot {B}/fedora-snap -> labels"),
    ],
)
def test_infer_volume_explain(cli, volumes, args, expected_chain) -> None:
    result = cli("infer", *args, "--explain")
    assert (result.exit_code, result.stderr) == (0, "")
    assert f"instancetype: {expected_chain}" in result.stdout.splitlines()


def test_infer_volume_wide_shows_each_matchers_chain(cli, volumes) -> None:
    # the DataVolume's own preference label wins; its instance type comes from its source PVC
    result = cli("infer", "dv/dv-pvc", "-n", A, "-o", "wide")
    assert result.exit_code == 0, result.stderr
    rows = [line.split(None, 4) for line in result.stdout.splitlines()]
    assert rows[0] == ["MATCHER", "NAME", "KIND", "RESULT", "CHAIN"]
    assert rows[1] == [
        "instancetype",
        "n1.medium",
        "<none>",
        "inferred",
        f"DataVolume {A}/dv-pvc -> PersistentVolumeClaim {B}/rhel-pvc -> labels",
    ]
    assert rows[2] == ["preference", "centos", "<none>", "inferred", f"DataVolume {A}/dv-pvc -> labels"]


def test_infer_volume_yaml(cli, volumes) -> None:
    result = cli("infer", "datasource/fedora", "-n", B, "-o", "yaml")
    assert (result.exit_code, result.stderr) == (0, "")
    assert yaml.safe_load(result.stdout) == {
        "instancetype": {"name": "u1.large", "kind": ""},
        "preference": {"name": "fedora", "kind": "virtualmachineclusterpreference"},
        "chain": [
            {"kind": "DataSource", "namespace": B, "name": "fedora"},
            {"kind": "PersistentVolumeClaim", "namespace": B, "name": "fedora-pvc"},
        ],
    }


def test_infer_volume_missing_label_is_reported_not_fatal(cli, volumes) -> None:
    result = cli("infer", "pvc/only-instancetype", "-n", A, "-o", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["preference"] is None
    assert json.loads(result.stdout)["instancetype"] == {"name": "cx1.large", "kind": "virtualmachineinstancetype"}
    assert result.stderr == (
        "Warning: preference: unable to find required instancetype.kubevirt.io/default-preference label on the volume\n"
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (["pvc/missing", "-n", A], 'persistentvolumeclaims "missing" not found'),
        (["das/dangling", "-n", B], 'persistentvolumeclaims "nothing" not found'),
        (["datasource/fedora", "-n", A], 'datasources.cdi.kubevirt.io "fedora" not found'),
        (["vs/nothing", "-n", B], 'volumesnapshots.snapshot.storage.k8s.io "nothing" not found'),
    ],
)
def test_infer_volume_not_found_fails(cli, volumes, args, message) -> None:
    result = cli("infer", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {message}\n")


def test_infer_vm_file_yaml_is_the_admitted_vm(cli, volumes, tmp_path) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(vm_manifest(dv_volume("dv-ref"))))
    result = cli("infer", "-f", str(path), "-n", A, "-o", "yaml")
    assert (result.exit_code, result.stderr) == (0, "")
    admitted = yaml.safe_load(result.stdout)
    assert admitted["spec"]["instancetype"] == {"name": "u1.large"}
    assert admitted["spec"]["preference"] == {"name": "fedora", "kind": "virtualmachineclusterpreference"}
    assert "memory" not in admitted["spec"]["template"]["spec"]["domain"]  # removed under Ignore
    assert "namespace" not in admitted["metadata"]


def test_infer_vm_table_and_wide(cli, volumes, tmp_path) -> None:
    templates = [
        {"metadata": {"name": "disk-dv"}, "spec": {"sourceRef": {"kind": "DataSource", "name": "snap", "namespace": B}}}
    ]
    manifest = vm_manifest(dv_volume("disk-dv"), policy=None, templates=templates)
    path = tmp_path / "vm.json"
    path.write_text(json.dumps(manifest))
    result = cli("infer", "-f", str(path), "-n", A)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "MATCHER        VOLUME   NAME         KIND     POLICY   RESULT",
        "instancetype   disk     cx1.medium   <none>   Reject   inferred",
        "preference     disk     fedora       <none>   Reject   inferred",
    ]
    wide = cli("infer", "-f", str(path), "-n", A, "-o", "wide")
    chain = f"DataVolumeTemplate {A}/disk-dv -> DataSource {B}/snap -> VolumeSnapshot {B}/fedora-snap -> labels"
    assert wide.stdout.splitlines()[1].endswith(chain)


def test_infer_vm_from_stdin(control_plane, volumes) -> None:
    manifest = yaml.safe_dump(vm_manifest(pvc_volume("fedora")))
    code, stdout, stderr = run_with_stdin(control_plane, ["infer", "-f", "-", "-n", A, "-o", "json"], manifest)
    assert (code, stderr) == (0, "")
    assert json.loads(stdout)["spec"]["instancetype"] == {"name": "u1.medium"}


def test_ignorable_failure_under_ignore_drops_the_matchers(cli, volumes, tmp_path) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(vm_manifest(dv_volume("dv-http"))))
    result = cli("infer", "-f", str(path), "-n", A, "-o", "yaml")
    assert result.exit_code == 0
    admitted = yaml.safe_load(result.stdout)
    assert "instancetype" not in admitted["spec"] and "preference" not in admitted["spec"]
    assert admitted["spec"]["template"]["spec"]["domain"]["memory"] == {"guest": "512Mi"}
    lines = result.stderr.splitlines()
    assert lines[0] == (
        "Warning: instancetype: unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported; "
        "with inferFromVolumeFailurePolicy Ignore the server drops spec.instancetype and creates the VirtualMachine "
        "without an instance type (spec.template.spec.domain.memory is kept)"
    )
    assert len(lines) == 2 and lines[1].startswith("Warning: preference: unable to infer defaults from DataVolumeSpec")


@pytest.mark.parametrize(
    "volume,policy,message",
    [
        (pvc_volume("plain"), None, "unable to find required instancetype.kubevirt.io/default-instancetype label on the volume"),
        (pvc_volume("missing"), "Ignore", 'persistentvolumeclaims "missing" not found'),
        (dv_volume("dv-gone-too"), "Ignore", 'persistentvolumeclaims "dv-gone-too" not found'),
    ],
)  # fmt: skip
def test_rejected_vm_fails_with_kubevirts_message(cli, volumes, tmp_path, volume, policy, message) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(vm_manifest(volume, policy=policy)))
    result = cli("infer", "-f", str(path), "-n", A)
    assert (result.exit_code, result.stdout) == (1, "")
    # KubeVirt's message first, word for word; then what was read (and, for a missing label, the fix)
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1
    if "label on the volume" in message:
        assert result.stderr.endswith(f"kubectl instancetype label pvc/plain -n {A} --default-instancetype NAME\n")


def test_infer_stored_vm(cli, control_plane, volumes) -> None:
    # KubeVirt's mutating webhook infers on admission: the stored VM names what it inferred, and infer shows it
    # as given (what the file said is answered by the -f tests).
    manifest = vm_manifest(dv_volume("dv-labelled"), name="stored-infer")
    control_plane.apply({**manifest, "metadata": {"name": "stored-infer", "namespace": A}})
    result = cli("infer", "vm/stored-infer", "-n", A, "--explain")
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[1].split() == ["instancetype", "<none>", "u1.2xlarge", "<none>", "<none>", "given"]
    assert lines[2].split() == ["preference", "<none>", "windows.11", "<none>", "<none>", "given"]
    missing = cli("infer", "vm/nothing", "-n", A)
    assert (missing.exit_code, missing.stderr) == (
        1,
        'Error from server (NotFound): virtualmachines.kubevirt.io "nothing" not found\n',
    )


def test_named_matchers_are_shown_as_given(cli, volumes, tmp_path) -> None:
    manifest = vm_manifest(pvc_volume("fedora"))
    manifest["spec"]["instancetype"] = {"name": "u1.small"}
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(manifest))
    result = cli("infer", "-f", str(path), "-n", A)
    assert result.stdout.splitlines()[1].split() == ["instancetype", "<none>", "u1.small", "<none>", "<none>", "given"]


def test_matcher_validation_message(cli, volumes, tmp_path) -> None:
    manifest = vm_manifest(pvc_volume("fedora"))
    manifest["spec"]["preference"]["name"] = "fedora"
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(manifest))
    result = cli("infer", "-f", str(path), "-n", A)
    assert (result.exit_code, result.stderr) == (
        1,
        "error: Name already set, should be cleared before setting inferFromVolume\n",
    )


def test_file_namespace_conflicts_with_flag(cli, volumes, tmp_path) -> None:
    manifest = vm_manifest(pvc_volume("fedora"))
    manifest["metadata"]["namespace"] = B
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(manifest))
    result = cli("infer", "-f", str(path), "-n", A)
    assert result.exit_code == 1
    assert result.stderr == (
        f'error: the namespace from the provided object "{B}" does not match the namespace "{A}". '
        f"You must pass '--namespace={B}' to perform this operation.\n"
    )
    # without -n the file's namespace is the VM's
    own = cli("infer", "-f", str(path))
    assert (own.exit_code, own.stderr) == (1, 'error: persistentvolumeclaims "fedora" not found\n')


def test_forbidden_reads_say_so(cli, volumes) -> None:
    result = cli("infer", "pvc/fedora", "-n", A, user="mallory")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith('error: cannot infer: persistentvolumeclaims "fedora" is forbidden: User "mallory"')
    assert "KubeVirt reads volumes with its own service account" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args,message",
    [
        ([], "error: you must specify -f FILE or TYPE/NAME (vm, pvc, dv, datasource, volumesnapshot)\n"),
        (["configmap/x"], 'error: the server doesn\'t have a resource type "configmap" to infer from (vm, pvc, dv, datasource, volumesnapshot)\n'),
        (["pvc/x", "-f", "vm.yaml"], "error: specify either -f FILE or TYPE/NAME, not both\n"),
        (["-f", "/nonexistent/vm.yaml"], 'error: the path "/nonexistent/vm.yaml" does not exist\n'),
        (["pvc/x", "-o", "name"], 'error: unable to match a printer suitable for the output format "name", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,template,templatefile,wide,yaml\n'),
    ],
)  # fmt: skip
def test_usage_errors(cli, args, message) -> None:
    result = cli("infer", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)


def test_infer_vm_file_with_its_datasource(cli, volumes, tmp_path) -> None:
    """A DataVolume template naming a DataSource written next to the VM: the DataSource comes from the file, the
    PVC it points at from the cluster."""
    from tests.conftest import cdi_object

    source = cdi_object("DataSource", A, "in-file", {"source": {"pvc": {"name": "fedora-pvc", "namespace": B}}})
    templates = [{"metadata": {"name": "root-dv"}, "spec": {"sourceRef": {"kind": "DataSource", "name": "in-file"}}}]
    manifest = vm_manifest(dv_volume("root-dv"), policy=None, templates=templates)
    path = tmp_path / "vm-and-source.yaml"
    path.write_text(yaml.safe_dump(manifest) + "---\n" + yaml.safe_dump(source))
    result = cli("infer", "-f", str(path), "-n", A, "-o", "wide")
    assert (result.exit_code, result.stderr) == (0, "")
    chain = (
        f"DataVolumeTemplate {A}/root-dv -> DataSource {A}/in-file -> PersistentVolumeClaim {B}/fedora-pvc -> labels"
    )
    assert result.stdout.splitlines()[1].split()[:3] == ["instancetype", "disk", "u1.large"]
    assert result.stdout.splitlines()[1].endswith(chain)
    assert cli("infer", "datasource/in-file", "-n", A).exit_code == 1  # the cluster does not hold it
