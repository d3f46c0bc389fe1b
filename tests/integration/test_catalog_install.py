"""``catalog install`` and ``catalog diff`` against real API servers.

Most tests use a second, empty plane with KubeVirt v1.8.0's own CRDs (printed by that version's virt-operator code,
hack/kubevirt/v1.8.0), whose preference schema has no ``devices.preferredVideoType``, which v1.7.0's
``windows.*.virtio`` preferences set. One test installs into a fresh namespace of the shared (KubeVirt v1.9.0)
plane, where every object is accepted.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest

from kubectl_instancetype.catalog import load_catalog
from tests.conftest import run_cli

pytestmark = pytest.mark.controlplane

CATALOG = load_catalog()
VIRTIO_VIDEO = sorted(
    obj["metadata"]["name"]
    for obj in CATALOG.preferences
    if ((obj["spec"].get("devices") or {}).get("preferredVideoType"))
)
CLUSTER_PREFERENCE = "virtualmachineclusterpreference.instancetype.kubevirt.io"
CLUSTER_INSTANCETYPE = "virtualmachineclusterinstancetype.instancetype.kubevirt.io"
PREFERENCES_PATH = "/apis/instancetype.kubevirt.io/v1beta1/virtualmachineclusterpreferences"


@pytest.fixture(scope="module")
def older_plane(control_plane, tmp_path_factory) -> Iterator:
    """An empty plane (API server and CRDs, no KubeVirt processes) with KubeVirt v1.8.0's CRDs."""
    from hack.localcluster import ControlPlane

    plane = ControlPlane(
        bin_dir=control_plane.bin_dir,
        workdir=tmp_path_factory.mktemp("older-plane"),
        kubevirt=False,
        kubevirt_version="v1.8.0",
    )
    plane.start()
    try:
        crd = plane.get(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "virtualmachineclusterpreferences.instancetype.kubevirt.io"},
            }
        )
        schema = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta1")["schema"]["openAPIV3Schema"]
        assert "preferredVideoType" not in schema["properties"]["spec"]["properties"]["devices"]["properties"]
        yield plane
    finally:
        plane.stop()


def run_on(plane, *args: str):
    return run_cli(list(args), environ={"HOME": "/nonexistent", "KUBECONFIG": str(plane.kubeconfig("admin"))})


def resource_versions(plane, path: str) -> dict[str, str]:
    status, answer = plane.request("GET", path)
    assert status == 200, answer
    return {item["metadata"]["name"]: item["metadata"]["resourceVersion"] for item in answer["items"]}


def test_install_on_an_older_schema_then_drop_unknown_fields_then_idempotent(older_plane) -> None:
    assert VIRTIO_VIDEO and all(name.startswith("windows.") and name.endswith(".virtio") for name in VIRTIO_VIDEO)

    first = run_on(older_plane, "catalog", "install")
    assert first.exit_code == 1
    lines = first.stdout.splitlines()
    expected_applied = len(CATALOG.instancetypes) + len(CATALOG.preferences) - len(VIRTIO_VIDEO)
    assert len(lines) == expected_applied
    assert f"{CLUSTER_INSTANCETYPE}/u1.medium created" in lines
    assert f"{CLUSTER_PREFERENCE}/windows.10 created" in lines
    assert not any("virtio created" in line and "windows" in line for line in lines)
    assert first.stderr == (
        "Warning: this cluster's KubeVirt does not know spec.devices.preferredVideoType: 9 catalog object(s) "
        f"would lose it ({', '.join(VIRTIO_VIDEO[:3])} and 6 more)\n"
        "error: the cluster's schema lacks fields the catalog uses, so these objects were not applied: "
        f"spec.devices.preferredVideoType ({', '.join(VIRTIO_VIDEO)}); rerun with --drop-unknown-fields to apply "
        "them without those fields (or upgrade KubeVirt)\n"
    )
    assert set(resource_versions(older_plane, PREFERENCES_PATH)).isdisjoint(VIRTIO_VIDEO)

    second = run_on(older_plane, "catalog", "install", "--drop-unknown-fields")
    assert second.exit_code == 0, second.stderr
    verbs = dict(line.rsplit(" ", 1) for line in second.stdout.splitlines())
    assert {verbs[f"{CLUSTER_PREFERENCE}/{name}"] for name in VIRTIO_VIDEO} == {"created"}
    assert set(verbs.values()) == {"created", "unchanged"}
    assert list(verbs.values()).count("created") == len(VIRTIO_VIDEO)
    assert second.stderr.splitlines() == [
        f"Warning: {CLUSTER_PREFERENCE}/{name}: applied without spec.devices.preferredVideoType "
        "(not in the cluster's schema)"
        for name in VIRTIO_VIDEO
    ]
    stored = older_plane.get(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineClusterPreference",
            "metadata": {"name": VIRTIO_VIDEO[0]},
        }
    )
    assert stored["spec"]["devices"]["preferredDiskBus"] == "virtio"
    assert "preferredVideoType" not in stored["spec"]["devices"]

    before = resource_versions(older_plane, PREFERENCES_PATH)
    third = run_on(older_plane, "catalog", "install", "--drop-unknown-fields")
    assert third.exit_code == 0, third.stderr
    assert {line.rsplit(" ", 1)[1] for line in third.stdout.splitlines()} == {"unchanged"}
    assert resource_versions(older_plane, PREFERENCES_PATH) == before

    # what differs now is exactly the field the older schema cannot hold
    diff = run_on(older_plane, "catalog", "diff", "--preferences-only", "--exit-code")
    assert diff.exit_code == 1
    assert [line for line in diff.stdout.splitlines() if line.startswith("+++ ")] == [
        f"+++ catalog-v1.7.0/{CLUSTER_PREFERENCE}/{name}" for name in VIRTIO_VIDEO
    ]
    changed = [line for line in diff.stdout.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert set(changed) == {"+    preferredVideoType: virtio"}
    assert run_on(older_plane, "catalog", "diff", "--instancetypes-only", "--exit-code").exit_code == 0
    assert diff.stderr == first.stderr.splitlines(keepends=True)[0]
    strict = run_on(older_plane, "catalog", "diff", "--preferences-only", "--strict")
    assert strict.exit_code == 1
    assert strict.stderr.splitlines()[-1] == (
        "error: 9 catalog object(s) would lose fields this cluster's KubeVirt does not know (listed above)"
    )


def test_strict_install_writes_nothing_when_fields_would_be_lost(older_plane) -> None:
    older_plane.ensure_namespace("strict")
    result = run_on(older_plane, "catalog", "install", "--namespaced", "-n", "strict", "--strict")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines()[-1] == (
        "error: 9 catalog object(s) would lose fields this cluster's KubeVirt does not know: "
        f"spec.devices.preferredVideoType ({', '.join(VIRTIO_VIDEO[:3])} and 6 more); nothing was applied "
        "(--drop-unknown-fields applies them without the fields)"
    )
    status, answer = older_plane.request(
        "GET", "/apis/instancetype.kubevirt.io/v1beta1/namespaces/strict/virtualmachineinstancetypes"
    )
    assert status == 200 and answer["items"] == []
    both = run_on(older_plane, "catalog", "install", "--strict", "--drop-unknown-fields")
    assert both.stderr == "error: --strict refuses what --drop-unknown-fields would apply: give one of them\n"


def test_refuses_objects_virt_operator_manages(older_plane) -> None:
    older_plane.ensure_namespace("operated")
    managed = copy.deepcopy(CATALOG.namespaced("operated").instancetype("u1.small"))
    managed["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "virt-operator"
    older_plane.apply(managed)

    refused = run_on(older_plane, "catalog", "install", "--namespaced", "-n", "operated", "--instancetypes-only")
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == (
        "error: 1 objects are managed by virt-operator (app.kubernetes.io/managed-by=virt-operator), which would "
        "revert changes to them: virtualmachineinstancetype.instancetype.kubevirt.io/u1.small; install into a "
        "namespace with --namespaced, or use --force to apply anyway\n"
    )
    path = "/apis/instancetype.kubevirt.io/v1beta1/namespaces/operated/virtualmachineinstancetypes"
    assert list(resource_versions(older_plane, path)) == ["u1.small"]  # nothing was sent

    forced = run_on(
        older_plane, "catalog", "install", "--namespaced", "-n", "operated", "--instancetypes-only", "--force"
    )
    assert forced.exit_code == 0, forced.stderr
    verbs = dict(line.rsplit(" ", 1) for line in forced.stdout.splitlines())
    # the harness created it (another field manager): our manager now co-owns it, a change
    assert verbs.pop("virtualmachineinstancetype.instancetype.kubevirt.io/u1.small") == "configured"
    assert set(verbs.values()) == {"created"} and len(verbs) == len(CATALOG.instancetypes) - 1


def test_dry_runs_write_nothing(older_plane) -> None:
    older_plane.ensure_namespace("dry")
    path = "/apis/instancetype.kubevirt.io/v1beta1/namespaces/dry/virtualmachineinstancetypes"
    server = run_on(
        older_plane, "catalog", "install", "--namespaced", "-n", "dry", "--instancetypes-only", "--dry-run=server"
    )
    assert server.exit_code == 0, server.stderr
    assert (
        server.stdout.splitlines()[0]
        == "virtualmachineinstancetype.instancetype.kubevirt.io/cx1.2xlarge created (server dry run)"
    )
    client = run_on(older_plane, "catalog", "install", "--namespaced", "-n", "dry", "--instancetypes-only", "--dry-run")
    assert client.exit_code == 0, client.stderr
    assert {line.split(" ", 1)[1] for line in client.stdout.splitlines()} == {"created (dry run)"}
    assert resource_versions(older_plane, path) == {}


def test_install_into_a_namespace_of_a_kubevirt_1_9_schema(control_plane, cli, namespace) -> None:
    try:
        first = cli("catalog", "install", "--namespaced", "-n", namespace, "--preferences-only")
        assert (first.exit_code, first.stderr) == (0, "")
        assert len(first.stdout.splitlines()) == len(CATALOG.preferences)
        assert {line.rsplit(" ", 1)[1] for line in first.stdout.splitlines()} == {"created"}
        stored = control_plane.get(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": "VirtualMachinePreference",
                "metadata": {"name": VIRTIO_VIDEO[0], "namespace": namespace},
            }
        )
        assert stored["spec"]["devices"]["preferredVideoType"] == "virtio"
        assert stored["metadata"]["managedFields"][0]["manager"] == "kubectl-instancetype"
        assert stored["metadata"]["managedFields"][0]["operation"] == "Apply"
        again = cli("catalog", "install", "--namespaced", "-n", namespace, "--preferences-only")
        assert {line.rsplit(" ", 1)[1] for line in again.stdout.splitlines()} == {"unchanged"}
        diff = cli("catalog", "diff", "--namespaced", "-n", namespace, "--preferences-only", "--exit-code")
        assert (diff.exit_code, diff.stdout, diff.stderr) == (
            0,
            "",
            f"No differences: the cluster's {len(CATALOG.preferences)} object(s) match common-instancetypes "
            f"{CATALOG.version}\n",
        )
    finally:
        # the shared control plane's other tests count every namespace's preferences
        for obj in CATALOG.namespaced(namespace).preferences:
            control_plane.delete(obj)


def test_usage_errors(cli) -> None:
    result = cli("catalog", "install", "--instancetypes-only", "--preferences-only")
    assert (result.exit_code, result.stderr) == (
        1,
        "error: --instancetypes-only and --preferences-only cannot be used together\n",
    )


def test_conflicting_fields_need_force(older_plane) -> None:
    older_plane.ensure_namespace("conflicts")
    changed = copy.deepcopy(CATALOG.namespaced("conflicts").instancetype("u1.nano"))
    changed["spec"]["cpu"]["guest"] = 3  # owned by the harness's own field manager now
    older_plane.apply(changed)
    args = ("catalog", "install", "--namespaced", "-n", "conflicts", "--instancetypes-only")
    refused = run_on(older_plane, *args)
    assert refused.exit_code == 1
    line = refused.stderr
    assert line.startswith(
        "error: virtualmachineinstancetype.instancetype.kubevirt.io/u1.nano: Error from server (Conflict): "
    )
    assert ".spec.cpu.guest" in line and "(use --force to take these fields over); applied before that: " in line
    assert line.endswith("; not applied: virtualmachineinstancetype.instancetype.kubevirt.io/u1.nano and 2 more\n")
    assert line.count("\n") == 1
    forced = run_on(older_plane, *args, "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "virtualmachineinstancetype.instancetype.kubevirt.io/u1.nano configured" in forced.stdout.splitlines()
    stored = older_plane.get(changed)
    assert stored["spec"]["cpu"]["guest"] == 1
