"""``lint TYPE/NAME`` and ``lint --all`` against the control plane (the real CRD schema keeps the deprecated
fields: KubeVirt v1.9.0 still serves them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.controlplane

NS = "lint-test"


@pytest.fixture(scope="module")
def legacy(control_plane) -> Iterator[str]:
    control_plane.ensure_namespace(NS)
    preference = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {"name": "legacy", "namespace": NS},
        "spec": {"cpu": {"preferredCPUTopology": "preferSpread"}, "preferSpreadSocketToCoreRatio": 4},
    }
    control_plane.apply(preference)
    yield "legacy"
    control_plane.delete(preference)  # the control plane is shared: list -A counts every preference


def test_one_object(cli, legacy) -> None:
    result = cli("lint", f"vmpref/{legacy}", "-n", NS)
    assert result.exit_code == 1
    assert [row.split()[1] for row in result.stdout.splitlines()[1:]] == [
        "spec.cpu.preferredCPUTopology",
        "spec.preferSpreadSocketToCoreRatio",
    ]
    fixed = cli("lint", f"vmpref/{legacy}", "-n", NS, "--fix")
    assert fixed.exit_code == 0, fixed.stderr
    assert "preferredCPUTopology: spread" in fixed.stdout and "ratio: 4" in fixed.stdout
    assert "resourceVersion" not in fixed.stdout and "uid:" not in fixed.stdout


def test_all_in_scope(cli, legacy) -> None:
    result = cli("lint", "--all", "-n", NS)
    assert result.exit_code == 1
    assert {row.split()[0] for row in result.stdout.splitlines()[1:]} == {"virtualmachinepreference/legacy"}
    missing = cli("lint", "vmpref/absent", "-n", NS)
    assert missing.exit_code == 1
    assert missing.stderr == (
        'Error from server (NotFound): virtualmachinepreferences.instancetype.kubevirt.io "absent" not found\n'
    )


def test_all_namespaces_alone_is_all(cli, legacy) -> None:
    """kubectl's -A alone (issue 29: it wanted --all): every object of every namespace, as --all -A."""
    alone = cli("lint", "-A")
    assert (alone.exit_code, alone.stdout) == (1, cli("lint", "--all", "-A").stdout)
    rows = {tuple(row.split()[:1]) for row in alone.stdout.splitlines()[1:]}
    assert ("virtualmachinepreference/legacy",) in rows
