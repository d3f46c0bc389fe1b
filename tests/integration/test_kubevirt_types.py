"""Instance types and preferences written by the plugin meet KubeVirt's real instancetype.kubevirt.io webhooks:
``create instancetype|preference``, ``derive``, ``catalog install`` and ``convert --apply`` are admitted, a
denial is KubeVirt's, and the webhooks' warnings reach the user as kubectl shows them."""

from __future__ import annotations

import pytest
import yaml

pytestmark = pytest.mark.controlplane


def test_create_and_derive_are_admitted(cli, namespace) -> None:
    created = cli("create", "instancetype", "--cpu", "2", "--memory", "2Gi", "--name", "custom", "-n", namespace)
    assert (created.exit_code, created.stdout) == (
        0,
        "virtualmachineinstancetype.instancetype.kubevirt.io/custom created\n",
    )
    derived = cli("derive", "u1.medium", "--name", "u1.medium.6g", "--memory", "6Gi", "-n", namespace)
    assert derived.exit_code == 0, derived.stderr
    assert derived.stdout == "virtualmachineinstancetype.instancetype.kubevirt.io/u1.medium.6g created\n"
    preference = cli("create", "preference", "--cpu-topology", "cores", "--name", "cores", "-n", namespace)
    assert preference.exit_code == 0, preference.stderr


def test_a_deprecated_topology_is_admitted_with_kubevirts_warning(cli, namespace) -> None:
    result = cli("create", "preference", "--cpu-topology", "preferCores", "--name", "old", "-n", namespace)
    assert result.exit_code == 0
    assert result.stderr == (
        "Warning: PreferredCPUTopology preferCores is deprecated for removal in a future release, "
        "please use cores instead\n"
    )


def test_catalog_install_is_admitted(cli, namespace) -> None:
    result = cli("catalog", "install", "--namespaced", "-n", namespace, "--dry-run=server")
    assert result.exit_code == 0, result.stderr
    assert "created (server dry run)" in result.stdout


def test_convert_apply_is_denied_with_kubevirts_message(cli, control_plane, namespace, tmp_path) -> None:
    manifest = tmp_path / "old.yaml"
    manifest.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "instancetype.kubevirt.io/v1alpha2",
                "kind": "VirtualMachineInstancetype",
                "metadata": {"name": "hugepages-overcommit", "namespace": namespace},
                "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi", "hugepages": {"pageSize": "2Mi"}}},
            }
        )
    )
    admitted = cli("convert", "-f", str(manifest), "--apply", "-n", namespace)
    assert admitted.exit_code == 0, admitted.stderr
    doc = yaml.safe_load(manifest.read_text())
    doc["apiVersion"] = "instancetype.kubevirt.io/v1beta1"
    doc["metadata"]["name"] = "denied"
    doc["spec"]["memory"]["overcommitPercent"] = 50
    manifest.write_text(yaml.safe_dump(doc))
    denied = cli("convert", "-f", str(manifest), "--apply", "-n", namespace)
    assert denied.exit_code == 1
    # checked with a server-side dry run before anything is written: KubeVirt's words, then nothing written
    assert denied.stdout == (
        "virtualmachineinstancetype.instancetype.kubevirt.io/denied: Error from server (Invalid): admission webhook "
        '"virtualmachineinstancetype-validator.instancetype.kubevirt.io" denied the request: '
        "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together.\n"
    )
    assert denied.stderr == (
        "error: 1 problem(s) found by checking every object first (listed above): nothing was created\n"
    )
