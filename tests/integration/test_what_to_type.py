"""Errors that say what to type, on the real control plane (issue 22 §3): a type named in the wrong scope names the
kind that holds the name and spells the reference as each command takes it (``--instancetype vmf/NAME``, the kind
flag of ``label`` and ``upload``, ``derive``'s SOURCE); a requirements failure names the smallest instance types
that satisfy the preference, in every command where one surfaces (``switch`` is in test_revisions.py, ``create
vm`` in test_create.py)."""

from __future__ import annotations

import itertools

import pytest
import yaml

from tests.conftest import IT_LABEL, PREF_LABEL, api_exists, pvc_object

pytestmark = pytest.mark.controlplane

NAMES = (f"what-to-type-{index}" for index in itertools.count())
STOPPED = "a VirtualMachine naming it stays stopped until it exists"
WINDOWS_HINT = (
    "the smallest instance types that satisfy preference windows.11: u1.2xmedium, d1.2xmedium, cx1.large "
    "(kubectl instancetype recommend --preference windows.11)"
)
CPU_DENIAL = (
    "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by instance type, "
    "preference requires 2 vCPU"
)


@pytest.fixture
def only_here(control_plane, namespace) -> str:
    """A namespaced instance type and preference named ``only-here`` in ``namespace`` (no cluster ones)."""
    for kind in ("VirtualMachineInstancetype", "VirtualMachinePreference"):
        spec = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}} if kind.endswith("Instancetype") else {}
        control_plane.apply(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": kind,
                "metadata": {"name": "only-here", "namespace": namespace},
                "spec": spec,
            }
        )
    return "only-here"


def test_create_vm_spells_the_namespaced_kind(cli, namespace, only_here) -> None:
    result = cli(
        "create", "vm", "-n", namespace, "--instancetype", only_here, "--preference", only_here, "--dry-run=client"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        f'Warning: virtualmachineclusterinstancetype "only-here" not found (a VirtualMachineInstancetype named '
        f'"only-here" exists in namespace "{namespace}": use --instancetype vmf/only-here): {STOPPED}\n'
        f'Warning: virtualmachineclusterpreference "only-here" not found (a VirtualMachinePreference named '
        f'"only-here" exists in namespace "{namespace}": use --preference vmp/only-here): {STOPPED}\n'
    )
    spelled = cli(
        "create", "vm", "-n", namespace, "--instancetype", "vmf/only-here", "--preference", "vmp/only-here",
        "--dry-run=client",
    )  # fmt: skip
    assert (spelled.exit_code, spelled.stderr) == (0, "")


def test_label_spells_the_kind_flag(cli, control_plane, namespace, only_here) -> None:
    volume = next(NAMES)
    control_plane.apply(pvc_object(namespace, volume))
    result = cli("label", f"pvc/{volume}", "-n", namespace, "--default-preference", only_here)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f'error: virtualmachineclusterpreference "only-here" not found (a VirtualMachinePreference named "only-here" '
        f'exists in namespace "{namespace}": use --default-preference only-here --default-preference-kind '
        "virtualmachinepreference) (--skip-checks labels anyway)\n"
    )
    spelled = cli(
        "label", f"pvc/{volume}", "-n", namespace, "--default-preference", only_here,
        "--default-preference-kind", "virtualmachinepreference",
    )  # fmt: skip
    assert (spelled.exit_code, spelled.stdout) == (0, f"persistentvolumeclaim/{volume} labeled\n")
    cluster = cli(
        "label", f"pvc/{volume}", "-n", namespace, "--default-instancetype", "u1.medium",
        "--default-instancetype-kind", "vmf",
    )  # fmt: skip
    assert cluster.stderr == (
        f'error: virtualmachineinstancetype "u1.medium" not found in namespace "{namespace}" (a '
        'VirtualMachineClusterInstancetype named "u1.medium" exists: use --default-instancetype u1.medium without '
        "--default-instancetype-kind) (--skip-checks labels anyway)\n"
    )


def test_upload_spells_the_kind_flag(cli, control_plane, namespace, only_here, upload_image) -> None:
    name = next(NAMES)
    result = cli(
        "upload", "pvc", name, "-n", namespace, "--size", "1Gi", "--image-path", str(upload_image),
        "--uploadproxy-url", "https://127.0.0.1:1", "--insecure", "--default-instancetype", only_here,
    )  # fmt: skip
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        'error: virtualmachineclusterinstancetype "only-here" not found (a VirtualMachineInstancetype named '
        f'"only-here" exists in namespace "{namespace}": use --default-instancetype only-here '
        "--default-instancetype-kind virtualmachineinstancetype); nothing was created (--skip-checks uploads anyway)\n"
    )
    assert not api_exists(control_plane, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}")


def test_derive_spells_the_source(cli, namespace, only_here) -> None:
    result = cli("derive", only_here, "--name", "x", "-n", namespace, "--dry-run=server")
    assert result.stderr == (
        'error: virtualmachineclusterinstancetype "only-here" not found (a VirtualMachineInstancetype named '
        f'"only-here" exists in namespace "{namespace}": use vmf/only-here)\n'
    )
    spelled = cli("derive", f"vmf/{only_here}", "--name", "x", "-n", namespace, "--dry-run=server", "-o", "name")
    assert (spelled.exit_code, spelled.stdout) == (0, "virtualmachineinstancetype.instancetype.kubevirt.io/x\n")


# ---- a requirements failure names the smallest fitting types -------------------------------------------------


def test_label_refuses_default_types_that_never_work_together(cli, control_plane, namespace) -> None:
    volume = next(NAMES)
    control_plane.apply(pvc_object(namespace, volume))
    refused = (
        f"error: a VirtualMachine inferring its instance type and preference from pvc/{volume} would be denied: "
        f"{CPU_DENIAL}; {WINDOWS_HINT}; nothing was labeled (--skip-checks labels anyway)\n"
    )
    both = cli(
        "label", f"pvc/{volume}", "-n", namespace, "--default-instancetype", "u1.nano", "--default-preference",
        "windows.11",
    )  # fmt: skip
    assert (both.exit_code, both.stdout, both.stderr) == (1, "", refused)
    # the instance type the volume already names counts too
    assert cli("label", f"pvc/{volume}", "-n", namespace, "--default-instancetype", "u1.nano").exit_code == 0
    later = cli("label", f"pvc/{volume}", "-n", namespace, "--default-preference", "windows.11")
    assert (later.exit_code, later.stderr) == (1, refused)
    labels = control_plane.get(pvc_object(namespace, volume))["metadata"]["labels"]
    assert labels.get(IT_LABEL) == "u1.nano" and PREF_LABEL not in labels
    skipped = cli("label", f"pvc/{volume}", "-n", namespace, "--default-preference", "windows.11", "--skip-checks")
    assert (skipped.exit_code, skipped.stderr) == (0, "")


def test_upload_refuses_default_types_that_never_work_together(cli, control_plane, namespace, upload_image) -> None:
    name = next(NAMES)
    result = cli(
        "upload", "dv", name, "-n", namespace, "--size", "1Gi", "--image-path", str(upload_image),
        "--uploadproxy-url", "https://127.0.0.1:1", "--insecure",
        "--default-instancetype", "u1.nano", "--default-preference", "windows.11",
    )  # fmt: skip
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: a VirtualMachine inferring its instance type and preference from dv/{name} would be denied: "
        f"{CPU_DENIAL}; {WINDOWS_HINT}; nothing was created (--skip-checks uploads anyway)\n"
    )
    assert not api_exists(control_plane, f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{namespace}/datavolumes/{name}")


def test_expand_of_a_vm_naming_cluster_types(cli, namespace, tmp_path) -> None:
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "small-windows"},
        "spec": {
            "instancetype": {"name": "u1.nano"},
            "preference": {"name": "windows.11"},
            "template": {"spec": {"domain": {"devices": {}}}},
        },
    }
    path = tmp_path / "vm.yaml"
    path.write_text(yaml.safe_dump(vm))
    result = cli("expand", "-f", str(path), "-n", namespace)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.endswith(f"{CPU_DENIAL}; {WINDOWS_HINT}\n"), result.stderr
