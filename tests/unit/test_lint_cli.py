"""``lint -f``: offline, in-process (the cluster modes are in tests/integration/test_lint.py)."""

from __future__ import annotations

import json

import yaml

from tests.conftest import run_cli

LEGACY = """\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: legacy
spec:
  cpu:
    preferredCPUTopology: preferCores
  firmware:
    preferredUseEfi: true
---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: sev
spec:
  cpu: {guest: 2}
  memory: {guest: 4Gi}
  launchSecurity: {sev: {}}
"""
CLEAN = """\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata: {name: fine}
spec:
  cpu: {preferredCPUTopology: cores}
"""


def test_findings_table_and_exit_status(tmp_path) -> None:
    path = tmp_path / "legacy.yaml"
    path.write_text(LEGACY)
    result = run_cli(["lint", "-f", str(path)])
    assert result.exit_code == 1
    assert result.stderr == "error: 3 finding(s) in 2 object(s); 2 can be fixed with --fix\n"
    rows = result.stdout.splitlines()
    assert rows[0].split() == ["OBJECT", "FIELD", "RULE", "PROBLEM", "REPLACEMENT"]
    assert [row.split()[:3] for row in rows[1:]] == [
        ["virtualmachineclusterpreference/legacy", "spec.cpu.preferredCPUTopology", "deprecated"],
        ["virtualmachineclusterpreference/legacy", "spec.firmware.preferredUseEfi", "deprecated"],
        ["virtualmachineclusterinstancetype/sev", "spec.launchSecurity", "deprecated"],
    ]


def test_fix_prints_applicable_objects_and_names_what_is_left() -> None:
    result = run_cli(["lint", "-f", "-", "--fix"], stdin=LEGACY)
    assert result.exit_code == 1
    fixed = list(yaml.safe_load_all(result.stdout))
    assert fixed[0]["spec"] == {"cpu": {"preferredCPUTopology": "cores"}, "firmware": {"preferredEfi": {}}}
    assert fixed[1]["spec"]["launchSecurity"] == {"sev": {}}
    assert "Warning: not fixed: virtualmachineclusterinstancetype/sev spec.launchSecurity" in result.stderr
    assert result.stderr.endswith("error: 1 finding(s) need a change --fix cannot make (listed above)\n")


def test_clean_input() -> None:
    result = run_cli(["lint", "-f", "-"], stdin=CLEAN)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "1 object(s) checked: no findings\n")
    fixed = run_cli(["lint", "-f", "-", "--fix"], stdin=CLEAN)
    assert fixed.exit_code == 0 and yaml.safe_load(fixed.stdout)["metadata"] == {"name": "fine"}


def test_json_document() -> None:
    result = run_cli(["lint", "-f", "-", "-o", "json"], stdin=LEGACY)
    document = json.loads(result.stdout)
    assert document["checked"] == 2
    assert document["candidatesFrom"].startswith("the file's instance types and common-instancetypes v")
    assert [f["fixable"] for f in document["findings"]] == [True, True, False]


def test_usage_errors() -> None:
    for args, message in (
        (["lint"], "lint takes one of -f FILE, TYPE/NAME or --all"),
        (["lint", "--all", "-f", "x"], "lint takes one of -f FILE, TYPE/NAME or --all"),
        (["lint", "pod/x"], "lint takes TYPE/NAME with TYPE one of"),
        (["lint", "-f", "-", "--fix", "-o", "json"], "--fix prints the corrected objects as YAML"),
        (["lint", "vmcp/x", "-A"], "-A lints the objects of every namespace: it cannot go with -f or TYPE/NAME"),
    ):
        result = run_cli(args, stdin=CLEAN)
        assert result.exit_code == 1 and result.stderr.startswith(f"error: {message}"), (args, result.stderr)
