"""Strict fields for -f (usecases/fieldcheck.py over golang/structural.py and KubeVirt's embedded CRD schemas):
the API server's words for unknown fields and schema violations, kubectl's --validate values, the did-you-mean,
and the commands that read -f refusing what the server refuses. The real kube-apiserver's bytes for the same
objects are tests/integration/test_admission_verdict.py; the embedded schemas against the CRDs virt-operator
installs: test_the_embedded_schemas_are_kubevirts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.errors import InputError, UsageError
from kubectl_instancetype.golang.structural import load_schemas, strict_decoding_message, unknown_fields, validate
from kubectl_instancetype.usecases.fieldcheck import check, enforce, validation_directive
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parents[2]
PREF = {
    "apiVersion": "instancetype.kubevirt.io/v1beta1",
    "kind": "VirtualMachineClusterPreference",
    "metadata": {"name": "typo"},
    "spec": {"devices": {"preferedDiskBus": "virtio"}, "cpu": {"preferredCPUTopology": "sockets"}},
}
VM = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm"},
    "spec": {
        "runStrategy": "Halted",
        "template": {"containerDisk": {}, "spec": {"domain": {"devices": {}}}},
    },
}


def test_unknown_fields_in_the_servers_words() -> None:
    schema = load_schemas()["VirtualMachine"]
    vm = {**VM, "metadata": {"name": "vm", "labelz": {}}, "spec": {**VM["spec"], "zzz": 1, "aaa": 2}}
    paths = [item.path for item in unknown_fields(vm, schema)]
    # metadata's first (a strict decode of ObjectMeta), then the pruned paths sorted (PruneWithOptions)
    assert paths == ["metadata.labelz", "spec.aaa", "spec.template.containerDisk", "spec.zzz"]
    assert strict_decoding_message("VirtualMachine", "v1", unknown_fields(VM, schema)) == (
        'VirtualMachine in version "v1" cannot be handled as a VirtualMachine: strict decoding error: '
        'unknown field "spec.template.containerDisk"'
    )


def test_preserve_unknown_fields_and_additional_properties_keep_what_they_keep() -> None:
    schema = load_schemas()["VirtualMachine"]
    vm = {
        **VM,
        "spec": {
            "runStrategy": "Halted",
            "template": {
                "metadata": {"anything": {"goes": 1}},  # x-kubernetes-preserve-unknown-fields
                "spec": {"domain": {"devices": {}, "resources": {"requests": {"example.com/gpu": "1"}}}},
            },
        },
    }
    assert unknown_fields(vm, schema) == [] and validate(vm, schema) == []


def test_a_did_you_mean_when_a_known_field_is_close() -> None:
    problems = check(PREF, "p.yaml")
    assert problems is not None and problems.strict_line() == (
        "virtualmachineclusterpreference/typo in p.yaml: strict decoding error: unknown field "
        '"spec.devices.preferedDiskBus"; did you mean "spec.devices.preferredDiskBus"? '
        "(--validate=false drops unknown fields)"
    )


def test_types_required_and_enums() -> None:
    schema = load_schemas()["VirtualMachineInstancetype"]
    it = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "it"},
        "spec": {"cpu": {"guest": "two"}, "memory": {}},
    }
    assert [e.error() for e in validate(it, schema)] == [
        'spec.cpu.guest: Invalid value: "string": spec.cpu.guest in body must be of type integer: "string"',
        "spec.memory.guest: Required value",
    ]
    vm = {
        **VM,
        "spec": {"runStrategy": "Halted", "template": {"spec": {"domain": {"devices": {}, "rebootPolicy": "Never"}}}},
    }
    assert [e.error() for e in validate(vm, load_schemas()["VirtualMachine"], rules=True)] == [
        'spec.template.spec.domain.rebootPolicy: Unsupported value: "Never": supported values: "Reboot", "Terminate"',
        # the VM's schema has CEL rules the blocking error leaves unchecked (apiextensions' hasBlockingErr)
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
        "correct the existing errors to complete validation",
    ]


def test_every_catalog_object_passes() -> None:
    catalog = load_catalog()
    objects = [*catalog.instancetypes, *catalog.preferences]
    objects += [*catalog.namespaced("ns").instancetypes, *catalog.namespaced("ns").preferences]
    assert [check(obj, "catalog") for obj in objects] == [None] * len(objects)


@pytest.mark.parametrize(
    ("value", "directive"),
    [("strict", "strict"), ("true", "strict"), ("1", "strict"), ("T", "strict"), ("warn", "warn")]
    + [("ignore", "ignore"), ("false", "ignore"), ("0", "ignore"), ("False", "ignore")],
)
def test_kubectls_validate_values(value: str, directive: str) -> None:
    assert validation_directive(value) == directive


def test_a_bad_validate_value_in_kubectls_words() -> None:
    with pytest.raises(UsageError) as raised:
        validation_directive("Strict")
    assert raised.value.message == (
        'invalid - validate option "Strict"; must be one of: strict (or true), warn, ignore (or false)'
    )


def test_enforce_follows_the_directive() -> None:
    warned: list[str] = []
    with pytest.raises(InputError):
        enforce(PREF, "p.yaml", "strict", warned.append)
    enforce(PREF, "p.yaml", "warn", warned.append)
    enforce(PREF, "p.yaml", "ignore", warned.append)
    assert warned == ['unknown field "spec.devices.preferedDiskBus"']


def _write(tmp_path: Path, *docs: dict) -> str:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def test_expand_refuses_unknown_fields_unless_told(tmp_path: Path) -> None:
    it = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "it"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    vm = {**VM, "spec": {**VM["spec"], "instancetype": {"name": "it"}}}
    path = _write(tmp_path, it, vm)
    refused = run_cli(["expand", "-f", path])
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == (
        f'error: virtualmachine/vm in {path}: strict decoding error: unknown field "spec.template.containerDisk" '
        "(--validate=false drops unknown fields)\n"
    )
    for flag in ("--validate=false", "--validate=ignore"):
        ignored = run_cli(["expand", "-f", path, flag, "--offline"])
        assert ignored.exit_code == 0, ignored.stderr
        assert "containerDisk" not in ignored.stdout  # dropped, as Go's decoding drops it
    warned = run_cli(["expand", "-f", path, "--validate=warn", "--offline"])
    assert warned.exit_code == 0
    assert warned.stderr.splitlines()[0] == 'Warning: unknown field "spec.template.containerDisk"'
    bare = run_cli(["expand", "-f", path, "--validate", "--offline"])  # a bare --validate means strict
    assert bare.exit_code == 1 and "strict decoding error" in bare.stderr


@pytest.mark.parametrize("command", [["lint"], ["adopt", "--catalog"], ["infer"]])
def test_every_f_reader_refuses_them(tmp_path: Path, command: list[str]) -> None:
    path = _write(tmp_path, VM)
    result = run_cli([command[0], "-f", path, *command[1:]])
    assert result.exit_code == 1
    if command[0] == "lint":  # lint reports them as findings
        assert 'strict decoding error: unknown field "spec.template.containerDisk"' in result.stdout
    else:
        assert result.stderr.startswith(
            f'error: virtualmachine/vm in {path}: strict decoding error: unknown field "'
        ), result.stderr


@pytest.mark.parametrize(
    "doc",
    [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}},
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "revision": 1},
        {"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": {"name": "kubevirt"}, "spec": {}},
    ],
)
def test_lint_refuses_a_file_with_nothing_it_checks(tmp_path: Path, doc: dict) -> None:
    path = _write(tmp_path, doc)
    result = run_cli(["lint", "-f", path])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: {path} holds nothing lint checks (found: {doc['kind']}): lint checks VirtualMachineInstancetype, "
        "VirtualMachineClusterInstancetype, VirtualMachinePreference, VirtualMachineClusterPreference and "
        "VirtualMachine objects\n"
    )


def test_the_embedded_schemas_are_kubevirts() -> None:
    """hack/gen_schemas.py regenerates the embedded schemas from the CRDs kubevirt-manifests prints."""
    if shutil.which("go") is None:
        pytest.skip("Go is not installed: KubeVirt's manifests cannot be built")
    done = subprocess.run(
        [sys.executable, str(REPO / "hack" / "gen_schemas.py"), "--check"], capture_output=True, text=True, timeout=3600
    )
    assert done.returncode == 0, done.stderr
