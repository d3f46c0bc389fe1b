"""kubectl's templates on the reports of the live cluster (issue 22 §1): switch's plan, usage and revisions."""

from __future__ import annotations

import json

import pytest

from tests.conftest import halted_vm

pytestmark = pytest.mark.controlplane


def test_switch_plan_usage_and_revisions_through_templates(cli, control_plane, namespace) -> None:
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
    revisions = cli(
        "revisions", "vm/templated", "-n", namespace,
        "-o", 'jsonpath={range .items[*]}{.matcher}={.name}:{.changed}{" "}{end}',
    )  # fmt: skip
    assert (revisions.exit_code, revisions.stderr) == (0, "")
    assert revisions.stdout in (
        "instancetype=u1.small:no preference=fedora:no ",
        "instancetype=u1.small:- preference=fedora:- ",
    )
    as_json = cli("revisions", "vm/templated", "-n", namespace, "-o", "json")
    assert json.loads(as_json.stdout)["virtualMachine"] == {"name": "templated", "namespace": namespace}
