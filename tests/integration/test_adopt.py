"""``adopt`` against the control plane: the cluster's instance types and preferences, the proof, --apply."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import EXPAND_NS as NS

pytestmark = pytest.mark.controlplane


def _flat(name: str) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "runStrategy": "Halted",
            "template": {
                "metadata": {"annotations": {"vm.kubevirt.io/os": "fedora"}},
                "spec": {
                    "domain": {"cpu": {"sockets": 2}, "memory": {"guest": "8Gi"}, "devices": {}},
                    "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
                },
            },
        },
    }


def test_adopt_a_stored_vm_then_apply(cli, control_plane) -> None:
    control_plane.ensure_namespace(NS)
    import secrets

    name = f"adopt-me-{secrets.token_hex(3)}"
    vm = control_plane.apply(_flat(name))
    shown = cli("adopt", f"vm/{name}", "-n", NS)
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"virtualmachine/{name}: instancetype u1.large, preference fedora"
    assert "spec.template.spec.domain.cpu.sockets" in lines[1] and "spec.template.spec.domain.memory.guest" in lines[1]
    assert lines[2].startswith("  proof: ") and "field(s) of the expanded spec change" in lines[2]
    assert lines[-1] == "(candidates: the cluster's instance types and preferences)"

    refused = cli("adopt", f"vm/{name}", "-n", NS, "--apply")
    assert refused.exit_code == 1
    assert "nothing was written (--allow-changes writes it anyway)" in refused.stderr
    stored = control_plane.get(vm)
    assert "instancetype" not in stored["spec"]

    applied = cli("adopt", f"vm/{name}", "-n", NS, "--apply", "--allow-changes")
    assert applied.exit_code == 0, applied.stderr
    assert applied.stdout.splitlines()[-1] == f"virtualmachine.kubevirt.io/{name} adopted"
    stored = control_plane.get(vm)
    assert stored["spec"]["instancetype"] == {"name": "u1.large"}
    assert stored["spec"]["preference"] == {"name": "fedora"}
    assert "cpu" not in stored["spec"]["template"]["spec"]["domain"]
    again = cli("adopt", f"vm/{name}", "-n", NS)
    assert again.exit_code == 1 and "use switch to change them" in again.stdout


def test_adopt_files_as_yaml(cli, tmp_path) -> None:
    path = tmp_path / "vms.yaml"
    path.write_text(yaml.safe_dump_all([_flat("a"), _flat("b")]))
    result = cli("adopt", "-f", str(path), "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    document = yaml.safe_load(result.stdout)
    assert [item["spec"]["instancetype"] for item in document["items"]] == [{"name": "u1.large"}] * 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "adopt takes vm/NAME or -f FILE"),
        (["-f", "x.yaml", "--apply"], "--apply writes stored VMs"),
        (["vm/x", "--allow-changes"], "--allow-changes goes with --apply"),
        (["pod/x"], 'adopt takes a VirtualMachine: vm/NAME, not "pod/x"'),
    ],
)
def test_usage_errors(cli, args, message) -> None:
    result = cli("adopt", *args)
    assert result.exit_code == 1 and result.stderr.startswith(f"error: {message}"), result.stderr
