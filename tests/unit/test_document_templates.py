"""kubectl's template formats on the commands that print a report or objects as data (issue 22 §1: -o jsonpath,
go-template and custom-columns on every command that prints objects or rows): usage, lint and switch's plan print
a document, adopt the adopted VMs; each takes the templates as ``kubectl get`` does."""

from __future__ import annotations

import io

import pytest
import yaml

from kubectl_instancetype.env import Environment
from kubectl_instancetype.output.printers import print_document
from tests.conftest import run_cli

REPORT = {
    "apiVersion": "kubectl-instancetype/v1",
    "kind": "Usage",
    "items": [{"name": "u1.small", "totals": {"virtualMachines": 2}}, {"name": "u1.large", "totals": {}}],
}


def _printed(output: str) -> str:
    stdout = io.StringIO()
    print_document(Environment(stdout=stdout, stderr=io.StringIO(), environ={}), output, REPORT)
    return stdout.getvalue()


@pytest.mark.parametrize(
    "output,expected",
    [
        ("jsonpath={.items[*].name}", "u1.small u1.large"),
        ('jsonpath={range .items[*]}{.name}={.totals.virtualMachines}{"\\n"}{end}', "u1.small=2\nu1.large=\n"),
        ("go-template={{.kind}}:{{len .items}}", "Usage:2"),
        ("custom-columns=NAME:.name,VMS:.totals.virtualMachines", "NAME       VMS\nu1.small   2\nu1.large   <none>\n"),
        ("json", None),
        ("yaml", None),
    ],
)
def test_a_report_takes_kubectls_templates(output: str, expected: str | None) -> None:
    if expected is None:
        assert yaml.safe_load(_printed(output)) == REPORT
    else:
        assert _printed(output) == expected


@pytest.fixture
def files(tmp_path):
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


OFFLINE = {"HOME": "/nonexistent", "KUBECONFIG": "/nonexistent"}
FLAT_VM = """apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: flat}
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        cpu: {sockets: 1, cores: 1, threads: 1}
        memory: {guest: 4Gi}
        devices: {}
"""
OLD_TYPE = """apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: old}
spec: {cpu: {guest: 2}, memory: {guest: 2Gi}}
"""


def test_lint_and_adopt_print_through_templates(files) -> None:
    lint = run_cli(["lint", "-f", files("types.yaml", OLD_TYPE), "-o", "jsonpath={.kind}:{.checked}"], environ=OFFLINE)
    assert (lint.exit_code, lint.stdout, lint.stderr) == (0, "LintReport:1", "")
    vm = files("vm.yaml", FLAT_VM)
    adopted = run_cli(["adopt", "-f", vm, "--catalog", "-o", "jsonpath={.spec.instancetype.name}"], environ=OFFLINE)
    assert (adopted.exit_code, adopted.stdout, adopted.stderr) == (0, "u1.medium", "")
    named = run_cli(["adopt", "-f", vm, "--catalog", "-o", "name"], environ=OFFLINE)
    assert named.stdout == "virtualmachine.kubevirt.io/flat\n"
    columns = run_cli(["adopt", "-f", vm, "--catalog", "-o", "custom-columns=VM:.metadata.name"], environ=OFFLINE)
    assert columns.stdout == "VM\nflat\n"


@pytest.mark.parametrize("command", [["usage"], ["lint", "--all"], ["switch", "vm/x", "--instancetype", "u1.small"]])
def test_a_template_format_without_a_template_is_kubectls_error(command: list[str]) -> None:
    result = run_cli([*command, "-o", "jsonpath="], environ=OFFLINE)
    assert (result.exit_code, result.stderr) == (1, "error: template format specified but no template given\n")


def test_adopt_onto_a_preference_meets_its_requirements(files) -> None:
    """A given preference narrows the instance type to those meeting its requirements (KubeVirt's admission
    denies the others); a given pair that does not meet them is not adopted, with the smallest that do."""
    from kubectl_instancetype.catalog import DEFAULT_VERSION

    vm = files("vm.yaml", FLAT_VM)
    chosen = run_cli(
        ["adopt", "-f", vm, "--catalog", "--preference", "windows.11", "-o", "jsonpath={.spec}"], environ=OFFLINE
    )
    assert chosen.exit_code == 0, chosen.stderr
    assert '"instancetype":{"name":"u1.2xmedium"}' in chosen.stdout
    refused = run_cli(
        ["adopt", "-f", vm, "--catalog", "--instancetype", "u1.nano", "--preference", "windows.11"], environ=OFFLINE
    )
    assert (refused.exit_code, refused.stderr) == (1, "error: 1 of 1 VM(s) could not be adopted (see above)\n")
    assert refused.stdout.startswith(
        "virtualmachine/flat: not adopted: failure checking preference requirements: insufficient CPU resources of 1 "
        "vCPU provided by instance type, preference requires 2 vCPU; the smallest instance types of the "
        f"common-instancetypes {DEFAULT_VERSION} catalog that satisfy preference windows.11: u1.2xmedium, d1.2xmedium, "
        "cx1.large (kubectl instancetype recommend --catalog --preference windows.11)\n"
    )
