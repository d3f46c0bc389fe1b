"""kubectl's templates on the reports of the live cluster (issue 22 §1): switch's plan and usage."""

from __future__ import annotations

import pytest

from tests.conftest import halted_vm

pytestmark = pytest.mark.controlplane


def test_switch_plan_and_usage_through_templates(cli, control_plane, namespace) -> None:
    control_plane.apply(halted_vm("templated", namespace, {"name": "u1.small"}, {"name": "fedora"}))
    plan = cli(
        "switch", "vm/templated", "-n", namespace, "--instancetype", "u1.medium", "--plan",
        "-o", 'jsonpath={range .matchers[*]}{.matcher}: {.from} -> {.to}{"\\n"}{end}',
    )  # fmt: skip
    assert (plan.exit_code, plan.stdout, plan.stderr) == (0, "instancetype: u1.small -> u1.medium\n", "")
    usage = cli(
        "usage", "vmcf/u1.small", "-A", "-o", "go-template={{range .items}}{{.name}} {{.totals.virtualMachines}}{{end}}"
    )
    assert usage.exit_code == 0, usage.stderr
    name, count = usage.stdout.split()
    assert name == "u1.small" and int(count) >= 1
