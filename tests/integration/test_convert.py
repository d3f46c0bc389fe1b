"""``convert`` against the real control plane (KubeVirt v1.9.0's CRD schemas).

Every object the golden cases produce is POSTed with ``dryRun=All&fieldValidation=Strict``: the API server
must accept it (kubectl's ``apply --dry-run=server --validate=strict``). ``--apply`` and ``--from-cluster``
run the command end to end.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
import yaml

from kubectl_instancetype.kube.resources import BY_KIND
from kubectl_instancetype.usecases.manifests import parse_manifests
from tests.conftest import CONVERT_CASES as CASES
from tests.conftest import CONVERT_GOLDEN as GOLDEN
from tests.conftest import convert_case_argv as case_argv
from tests.conftest import run_cli

pytestmark = pytest.mark.controlplane

NAMESPACE = "convert-tests"
NAMES = (f"conv-{index}" for index in itertools.count())


@pytest.fixture
def namespace(control_plane) -> str:
    control_plane.ensure_namespace(NAMESPACE)
    return NAMESPACE


@pytest.fixture
def cleanup(control_plane) -> Iterator[list[dict]]:
    """Objects to delete after the test: other tests count what the shared control plane holds."""
    created: list[dict] = []
    yield created
    for obj in created:
        control_plane.delete(obj)


def preference_ref(name: str, namespace: str, kind: str = "VirtualMachinePreference") -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
    }


def strict_dry_run(control_plane, obj: dict, namespace: str) -> tuple[int, dict | None]:
    """POST ``obj`` with server-side dry run and strict field validation; (status, answer)."""
    resource = BY_KIND[obj["kind"]]
    # A fresh name: the control plane already holds the catalog, and dry-run creation checks existence too.
    metadata = {**obj["metadata"], "name": f"converted-{obj['metadata']['name']}"}
    if resource.namespaced:
        metadata["namespace"] = namespace
    obj = {**obj, "metadata": metadata}
    path = resource.path(namespace if resource.namespaced else None, dryRun="All", fieldValidation="Strict")
    return control_plane.request("POST", path, obj)


def converted(case: str) -> list[dict]:
    result = run_cli(case_argv(GOLDEN / case) + ["-o", "json"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["items"]


@pytest.mark.parametrize("case", CASES)
def test_every_converted_object_passes_strict_validation(control_plane, namespace, case) -> None:
    objects = converted(case)
    assert objects
    for obj in objects:
        status, answer = strict_dry_run(control_plane, obj, namespace)
        assert status == 201, f"{obj['kind']} {obj['metadata']['name']}: {status} {answer}"


def test_strict_validation_rejects_what_convert_leaves_out(control_plane, namespace) -> None:
    """The check above can fail: the unconverted alpha preference, relabelled v1beta1, is refused."""
    source = parse_manifests((GOLDEN / "alpha-objects" / "input.yaml").read_text())
    preference = next(obj for obj in source if obj["kind"] == "VirtualMachineClusterPreference")
    raw = {**preference, "apiVersion": "instancetype.kubevirt.io/v1beta1"}
    status, answer = strict_dry_run(control_plane, raw, namespace)
    assert status == 400
    assert 'unknown field "spec.preferredColour"' in answer["message"]


def test_apply_creates_the_converted_objects(cli, control_plane, namespace, tmp_path, cleanup) -> None:
    name = next(NAMES)
    cleanup += [
        preference_ref(name, namespace, "VirtualMachineInstancetype"),
        preference_ref(name, namespace, "VirtualMachinePreference"),
    ]
    source = tmp_path / "old.yaml"
    source.write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "flavor.kubevirt.io/v1alpha1",
                    "kind": "VirtualMachineFlavor",
                    "metadata": {"name": name},
                    "spec": {"cpu": {"guest": 2}, "memory": {"guest": "128Mi"}},
                },
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachineInstancePreset",
                    "metadata": {"name": name},
                    "spec": {"selector": {"matchLabels": {"os": name}}, "domain": {"features": {"acpi": {}}}},
                },
            ]
        )
    )
    result = cli("convert", "-f", str(source), "--apply", "-n", namespace)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"virtualmachineinstancetype.instancetype.kubevirt.io/{name} created\n"
        f"virtualmachinepreference.instancetype.kubevirt.io/{name} created\n"
    )
    meta = {"name": name, "namespace": namespace}
    instancetype = control_plane.get(
        {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype", "metadata": meta}
    )
    assert instancetype["spec"] == {"cpu": {"guest": 2}, "memory": {"guest": "128Mi"}}
    preference = control_plane.get(
        {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachinePreference", "metadata": meta}
    )
    assert preference["spec"] == {"features": {"preferredAcpi": {}}}


def test_apply_failure_says_what_exists(cli, control_plane, namespace, tmp_path, cleanup) -> None:
    first, existing, last = next(NAMES), next(NAMES), next(NAMES)
    cleanup += [preference_ref(name, namespace) for name in (first, existing, last)]
    control_plane.apply(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": existing, "namespace": namespace},
            "spec": {},
        }
    )
    source = tmp_path / "old.yaml"
    source.write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "instancetype.kubevirt.io/v1alpha2",
                    "kind": kind,
                    "metadata": {"name": name},
                    "spec": {"devices": {"preferredDiskBus": "virtio"}},
                }
                for kind, name in (
                    ("VirtualMachinePreference", first),
                    ("VirtualMachinePreference", existing),
                    ("VirtualMachinePreference", last),
                )
            ]
        )
    )
    # checked first (issue 29): the server's dry run finds the existing object; nothing is written
    result = cli("convert", "-f", str(source), "--apply", "-n", namespace)
    assert result.exit_code == 1
    prefix = "virtualmachinepreference.instancetype.kubevirt.io"
    assert result.stdout == (
        f"{prefix}/{existing}: Error from server (AlreadyExists): virtualmachinepreferences.instancetype.kubevirt.io "
        f'"{existing}" already exists\n'
    )
    assert result.stderr == (
        "error: 1 problem(s) found by checking every object first (listed above): nothing was created\n"
    )
    for name in (first, last):
        assert control_plane.get(preference_ref(name, namespace)) is None

    # a write that fails after the checks passed (another writer got there in between) says what exists
    from kubectl_instancetype.cli.options import ConnectionFlags
    from kubectl_instancetype.env import Environment
    from kubectl_instancetype.errors import PluginError
    from kubectl_instancetype.usecases.converting import ConvertRequest, convert

    control_plane.delete(preference_ref(existing, namespace))
    flags = ConnectionFlags(kubeconfig=str(control_plane.kubeconfig()), namespace=namespace)
    lines: list[str] = []

    def race(line: str) -> None:
        lines.append(line)
        if len(lines) == 1:
            control_plane.apply({**preference_ref(existing, namespace), "spec": {}})

    with flags.session(Environment()) as session, pytest.raises(PluginError) as caught:
        convert(session, ConvertRequest(filename=str(source), apply=True), created=race)
    assert lines == [f"{prefix}/{first} created"]
    assert caught.value.render() == (
        f'error: Error from server (AlreadyExists): virtualmachinepreferences.instancetype.kubevirt.io "{existing}" '
        f"already exists; {prefix}/{existing} was not created; written: {prefix}/{first}; "
        f"not attempted: {prefix}/{last}"
    )
    assert control_plane.get(preference_ref(last, namespace)) is None


def test_from_cluster_reports_against_the_namespace_vms(cli, control_plane, tmp_path, cleanup) -> None:
    namespace = "convert-presets"
    control_plane.ensure_namespace(namespace)
    for vm in parse_manifests((GOLDEN / "default-features-preset" / "vms.yaml").read_text()):
        vm["metadata"]["namespace"] = namespace
        control_plane.apply(vm)
        cleanup.append(vm)
    result = cli(
        "convert", "-f", str(GOLDEN / "default-features-preset" / "input.yaml"), "--from-cluster", "-n", namespace
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (GOLDEN / "default-features-preset" / "expected-output.yaml").read_text()
    assert result.stderr == (GOLDEN / "default-features-preset" / "expected-stderr").read_text()


def test_field_tables_match_kubevirt_schemas(control_plane) -> None:
    """The two-level field tables convert keeps are exactly the v1beta1 fields of the CRD schemas KubeVirt v1.9.0's
    virt-operator installs (the control plane serves them)."""
    from kubectl_instancetype.instancetype.convert import schema

    for kind, table in (
        ("virtualmachineinstancetype", schema.INSTANCETYPE_FIELDS),
        ("virtualmachinepreference", schema.PREFERENCE_FIELDS),
    ):
        crd = control_plane.get(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": f"{kind}s.instancetype.kubevirt.io"},
            }
        )
        version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta1")
        spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        assert set(spec) == set(table), kind
        for key, children in table.items():
            if children is not None:
                assert set(spec[key]["properties"]) == children, f"{kind} spec.{key}"


def test_presets_and_vms_of_one_file_apply_together(cli, control_plane, tmp_path, cleanup) -> None:
    """A preset next to the VMs it matches: the report comes from the file's own VMs, and --apply creates the
    preference and the VMs (the preference first) on the real API server."""
    namespace = "convert-one-file"
    control_plane.ensure_namespace(namespace)
    case = GOLDEN / "default-features-preset"
    both = tmp_path / "both.yaml"
    both.write_text((case / "input.yaml").read_text() + "\n---\n" + (case / "vms.yaml").read_text())
    result = cli("convert", "-f", str(both), "--apply", "-n", namespace)
    assert result.exit_code == 0, result.stderr
    # the report only: the converted VM has spec.runStrategy, so KubeVirt's admission no longer warns
    # "spec.running is deprecated, please use spec.runStrategy instead." (issue 29)
    assert result.stderr == (case / "expected-stderr").read_text()
    created = result.stdout.splitlines()
    assert created and all(line.endswith(" created") for line in created)
    kinds = [line.split("/")[0] for line in created]
    assert kinds.index("virtualmachinepreference.instancetype.kubevirt.io") < kinds.index("virtualmachine.kubevirt.io")
    for line in created:
        resource, name = line.removesuffix(" created").split("/")
        kind = {"virtualmachinepreference.instancetype.kubevirt.io": "VirtualMachinePreference"}.get(
            resource, "VirtualMachine"
        )
        api = "instancetype.kubevirt.io/v1beta1" if kind != "VirtualMachine" else "kubevirt.io/v1"
        obj = {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": namespace}}
        cleanup.append(obj)
        assert control_plane.get(obj) is not None


def test_a_file_that_converts_to_nothing_creates_nothing(cli, control_plane, tmp_path) -> None:
    lone = tmp_path / "small.yaml"
    lone.write_text((GOLDEN / "preset-vmis" / "input.yaml").read_text().split("\n---\n")[0])
    result = cli("convert", "-f", str(lone), "--apply", "-n", NAMESPACE)
    assert (result.exit_code, result.stdout) == (0, "")
    assert "Warning: nothing to write: VirtualMachineInstancePreset small-qemu (selector: kubevirt.io/size=small)" in (
        result.stderr
    )


def test_apply_names_what_to_remove_from_a_vm_that_conflicts_with_its_new_type(
    cli, control_plane, namespace, tmp_path, cleanup
) -> None:
    """A flavor VM whose own sockets conflict with the instance type it is converted to: the checks run
    KubeVirt's conflict rules with the batch's types (not stored yet) and say what to remove; nothing is written."""
    flavor, vm = next(NAMES), next(NAMES)
    cleanup += [preference_ref(flavor, namespace, "VirtualMachineInstancetype")]
    source = tmp_path / "old.yaml"
    source.write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "flavor.kubevirt.io/v1alpha1",
                    "kind": "VirtualMachineFlavor",
                    "metadata": {"name": flavor},
                    "spec": {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}},
                },
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachine",
                    "metadata": {"name": vm},
                    "spec": {
                        "running": False,
                        "flavor": {"name": flavor, "kind": "VirtualMachineFlavor"},
                        "template": {"spec": {"domain": {"cpu": {"sockets": 2}, "devices": {}}}},
                    },
                },
            ]
        )
    )
    result = cli("convert", "-f", str(source), "--apply", "-n", namespace)
    assert result.exit_code == 1
    assert result.stdout == (
        f"virtualmachine.kubevirt.io/{vm}: KubeVirt would deny it: VM field(s) spec.template.spec.domain.cpu.sockets "
        "conflicts with selected instance type; remove spec.template.spec.domain.cpu.sockets from the VM (its new "
        "instance type sets them)\n"
    )
    assert result.stderr.endswith(
        "error: 1 problem(s) found by checking every object first (listed above): nothing was created\n"
    )
    assert control_plane.get(preference_ref(flavor, namespace, "VirtualMachineInstancetype")) is None


def test_apply_rewrites_the_cluster_vms_a_preset_applied_to(cli, control_plane, tmp_path, cleanup) -> None:
    """--from-cluster --apply: the preference is created and the VM the preset applied to is patched to reference
    it (--keep-preset-vms leaves it)."""
    namespace = "convert-preset-apply"
    control_plane.ensure_namespace(namespace)
    vms = parse_manifests((GOLDEN / "windows-10-preset" / "vms.yaml").read_text())
    for vm in vms:
        vm["metadata"]["namespace"] = namespace
        control_plane.apply(vm)
        cleanup.append(vm)
    cleanup.append(preference_ref("windows-10", namespace))
    source = str(GOLDEN / "windows-10-preset" / "input.yaml")
    kept = cli("convert", "-f", source, "--from-cluster", "-n", namespace, "--keep-preset-vms")
    assert ": rewritten to reference " not in kept.stderr
    result = cli("convert", "-f", source, "--from-cluster", "-n", namespace, "--apply")
    assert (result.exit_code, result.stdout) == (
        0,
        "virtualmachinepreference.instancetype.kubevirt.io/windows-10 created\n"
        "virtualmachine.kubevirt.io/win10-vm patched\n",
    ), result.stderr
    assert (
        "VirtualMachine win10-vm: rewritten to reference spec.preference: VirtualMachinePreference windows-10 "
        "(patched with --apply)\n"
    ) in result.stderr
    stored = control_plane.get(
        {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "win10-vm", "namespace": namespace},
        }
    )
    assert stored["spec"]["preference"] == {"kind": "VirtualMachinePreference", "name": "windows-10"}
