"""``expand --server`` against KubeVirt's real virt-api (its ``expand-vm-spec`` and ``expand-spec`` subresources
through kube-apiserver's aggregation): the requests the plugin sends, the printed answer next to the offline
expansion, and KubeVirt's own errors as the plugin reports them. (The create-vm corpus, test_kubevirt_corpus.py,
compares ``expand -f --server -o json`` with the offline bytes on every admitted VM; a cluster without KubeVirt is
in test_expand.py.)"""

from __future__ import annotations

import json

import pytest
import yaml

from kubectl_instancetype.kube.transport import Transport
from tests.conftest import CATALOG_NAMESPACE

pytestmark = pytest.mark.controlplane

IT = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi", "overcommitPercent": 25}}
PREF = {"devices": {"preferredDiskBus": "virtio", "preferredInterfaceModel": "virtio"}}
CONFLICT = "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type"


def _vm(name: str, namespace: str | None = None, template: dict | None = None, instancetype: str = "c2") -> dict:
    metadata = {"name": name} | ({"namespace": namespace} if namespace else {})
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": metadata,
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"kind": "VirtualMachineInstancetype", "name": instancetype},
            "preference": {"kind": "VirtualMachinePreference", "name": "p"},
            "template": {
                "spec": template
                or {"domain": {"devices": {}}, "volumes": [{"name": "root", "containerDisk": {"image": "img:1"}}]}
            },
        },
    }


def _types(control_plane, namespace: str, instancetype: str = "c2") -> None:
    """A namespaced instance type and preference (cluster-scoped ones would show in other tests' lists)."""
    for kind, name, spec in (
        ("VirtualMachineInstancetype", instancetype, IT),
        ("VirtualMachinePreference", "p", PREF),
    ):
        control_plane.apply(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": kind,
                "metadata": {"name": name, "namespace": namespace},
                "spec": spec,
            }
        )


def _requests(spy) -> list[tuple[str, str]]:
    return [(call.args[1], call.args[2].split("?")[0]) for call in spy.call_args_list]


def test_server_expansion_matches_the_offline_one(cli, control_plane, namespace, tmp_path, mocker) -> None:
    _types(control_plane, namespace)
    manifest = tmp_path / "vm.yaml"
    manifest.write_text(yaml.safe_dump(_vm("vm")))
    spy = mocker.spy(Transport, "request")
    remote = cli("expand", "-f", str(manifest), "--server", "-n", namespace, "-o", "json")
    assert _requests(spy) == [("PUT", f"/apis/subresources.kubevirt.io/v1/namespaces/{namespace}/expand-vm-spec")]
    local = cli("expand", "-f", str(manifest), "-n", namespace, "-o", "json")
    assert (remote.exit_code, remote.stderr) == (0, "")
    assert (local.exit_code, local.stderr) == (0, "")
    # Byte for byte, the namespace too: expand-vm-spec writes the request's namespace into a VM that has none
    # (pkg/virt-api/rest/expand.go), and so does the offline expansion when it knows it (-n here).
    assert f'"namespace": "{namespace}"' in remote.stdout
    assert remote.stdout == local.stdout
    domain = json.loads(remote.stdout)["spec"]["template"]["spec"]["domain"]
    assert domain["resources"]["requests"] == {"memory": "1536Mi"}  # 2Gi guest, 25 % overcommit
    assert domain["devices"]["disks"] == [{"disk": {"bus": "virtio"}, "name": "root"}]

    # a stored VM by name: the VM itself, then KubeVirt's expand-spec of what is stored
    control_plane.apply(_vm("stored", namespace))
    spy.reset_mock()
    by_name = cli("expand", "vm/stored", "--server", "-n", namespace)
    assert (by_name.exit_code, by_name.stderr) == (0, "")
    assert _requests(spy) == [
        ("GET", f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/stored"),
        ("GET", f"/apis/subresources.kubevirt.io/v1/namespaces/{namespace}/virtualmachines/stored/expand-spec"),
    ]
    expanded = yaml.safe_load(by_name.stdout)
    assert expanded["spec"]["template"]["spec"]["domain"]["resources"]["requests"] == {"memory": "1536Mi"}
    offline = cli("expand", "vm/stored", "-n", namespace)
    assert offline.exit_code == 0, offline.stderr
    assert yaml.safe_load(offline.stdout)["spec"] == expanded["spec"]


def test_server_errors_are_kubevirts(cli, control_plane, namespace, tmp_path) -> None:
    _types(control_plane, namespace)
    conflicting = tmp_path / "conflict.yaml"
    conflicting.write_text(yaml.safe_dump(_vm("vm", template={"domain": {"devices": {}, "cpu": {"sockets": 2}}})))
    result = cli("expand", "-f", str(conflicting), "--server", "-n", namespace)
    # expand-vm-spec answers 400 BadRequest with the expander's error
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {CONFLICT}\n")

    # KubeVirt's webhook admits a VM whose instance type does not exist yet; once it does, the stored VM's
    # expand-spec answers 500 with the conflict (pkg/virt-api/rest/expand.go: errors.NewInternalError)
    control_plane.apply(_vm("stored", namespace, {"domain": {"devices": {}, "cpu": {"sockets": 2}}}, "later"))
    _types(control_plane, namespace, "later")
    result = cli("expand", "vm/stored", "--server", "-n", namespace)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: Internal error occurred: {CONFLICT}\n")

    result = cli("expand", "vm/missing", "--server", "-n", namespace)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        'Error from server (NotFound): virtualmachines.kubevirt.io "missing" not found\n',
    )


def test_the_vms_own_namespace_is_the_requests(cli, control_plane, namespace, tmp_path, mocker) -> None:
    """A manifest naming its namespace is expanded there, whatever -n says (expand-vm-spec refuses a VM whose
    namespace is not the request's: "VM namespace must be empty or NS")."""
    _types(control_plane, namespace)
    manifest = tmp_path / "vm.yaml"
    manifest.write_text(yaml.safe_dump(_vm("vm", namespace)))
    spy = mocker.spy(Transport, "request")
    result = cli("expand", "-f", str(manifest), "--server", "-n", CATALOG_NAMESPACE)
    assert (result.exit_code, result.stderr) == (0, "")
    assert _requests(spy) == [("PUT", f"/apis/subresources.kubevirt.io/v1/namespaces/{namespace}/expand-vm-spec")]
    assert yaml.safe_load(result.stdout)["metadata"]["namespace"] == namespace


def test_the_server_expands_what_admission_would_deny(cli, control_plane, namespace, tmp_path) -> None:
    """KubeVirt v1.9's expand checks conflicts only (pkg/instancetype/expand): a preference's requirements are
    admission's (the VM webhook), so expand-vm-spec expands a VM that an instance type too small for its
    preference would have denied. Offline, the plugin checks them as admission does (--skip-checks: as the
    server)."""
    _types(control_plane, namespace)
    control_plane.apply(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": "needs4", "namespace": namespace},
            "spec": {**PREF, "requirements": {"cpu": {"guest": 4}}},
        }
    )
    vm = _vm("vm")
    vm["spec"]["preference"]["name"] = "needs4"
    manifest = tmp_path / "vm.yaml"
    manifest.write_text(yaml.safe_dump(vm))
    server = cli("expand", "-f", str(manifest), "--server", "-n", namespace, "-o", "json")
    assert (server.exit_code, server.stderr) == (0, "")
    assert json.loads(server.stdout)["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"] == 2

    offline = cli("expand", "-f", str(manifest), "-n", namespace, "-o", "json")
    assert (offline.exit_code, offline.stdout) == (1, "")
    # KubeVirt's own verdict (a server-side dry run), then the types that would do (the plane's catalog, shared
    # with other tests)
    assert offline.stderr.startswith(
        'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '
        "failure checking preference requirements: insufficient CPU resources of 2 vCPU "
        "provided by instance type, preference requires 4 vCPU; the smallest instance types that satisfy "
        "preference vmp/needs4: "
    ), offline.stderr
    assert offline.stderr.endswith(" (kubectl instancetype recommend --preference vmp/needs4)\n")
    unchecked = cli("expand", "-f", str(manifest), "-n", namespace, "-o", "json", "--skip-checks")
    assert (unchecked.exit_code, unchecked.stderr, unchecked.stdout) == (0, "", server.stdout)
