"""A ``switch`` to what the VM already names says ``unchanged`` and sends no write (the real API server: the
VM's resourceVersion stays, and no PUT leaves the plugin); a pinned revision is kept."""

from __future__ import annotations

import pytest

from kubectl_instancetype.kube.transport import Transport
from tests.conftest import EXPAND_NS as NS
from tests.conftest import halted_vm

pytestmark = pytest.mark.controlplane


def test_a_no_op_switch_says_unchanged_and_sends_nothing(plain_cli, plain_plane, mocker) -> None:
    # a revisionName naming no revision: KubeVirt's webhook would deny the VM, so no KubeVirt runs here
    cli, control_plane = plain_cli, plain_plane
    control_plane.ensure_namespace(NS)
    vm = halted_vm("switch-unchanged", NS, {"name": "u1.small", "revisionName": "pinned-rev"}, {"name": "fedora"})
    control_plane.delete(vm)
    stored = control_plane.apply(vm)
    spy = mocker.spy(Transport, "request")
    try:
        for args, said in (
            (["--instancetype", "u1.small"], "unchanged"),
            (["--instancetype", "virtualmachineclusterinstancetype/u1.small", "--preference", "fedora"], "unchanged"),
            (["--instancetype", "u1.small", "--dry-run"], "unchanged (dry run)"),
        ):
            result = cli("switch", "vm/switch-unchanged", "-n", NS, "--skip-checks", *args)
            assert (result.exit_code, result.stdout, result.stderr) == (
                0,
                f"virtualmachine.kubevirt.io/switch-unchanged {said}\n",
                "",
            )
        assert [call.args[1] for call in spy.call_args_list] == ["GET"] * 3
        after = control_plane.get(vm)
        assert after["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
        assert after["spec"]["instancetype"] == {"name": "u1.small", "revisionName": "pinned-rev"}
    finally:
        control_plane.delete(vm)
