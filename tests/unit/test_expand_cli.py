"""``kubectl instancetype expand`` offline: flags, inputs, outputs and failures, no cluster involved."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from kubectl_instancetype.catalog import DEFAULT_VERSION
from kubectl_instancetype.cli.main import run
from kubectl_instancetype.env import Environment
from tests.conftest import EXPAND_IT, EXPAND_PREF, expand_vm, run_cli


@pytest.fixture
def files(tmp_path):
    def write(name: str, *docs: dict) -> str:
        path = tmp_path / name
        path.write_text(yaml.safe_dump_all(docs))
        return str(path)

    return write


# no cluster is configured in these tests: one line says what was checked without KubeVirt's verdict
OFFLINE_NOTE = (
    "checked offline (no kubeconfig): instance type and preference rules, input devices, interface bindings and "
    "launch security firmware only\n"
)


def _stdin_run(args: list[str], text: str):
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(stdin=io.StringIO(text), stdout=stdout, stderr=stderr, environ={"HOME": "/nonexistent"})
    return run(args, env), stdout.getvalue(), stderr.getvalue()


def test_same_file_documents_need_no_cluster(files) -> None:
    result = run_cli(["expand", "-f", files("all.yaml", EXPAND_IT, EXPAND_PREF, expand_vm())])
    assert (result.exit_code, result.stderr) == (0, OFFLINE_NOTE)
    expanded = yaml.safe_load(result.stdout)
    assert "instancetype" not in expanded["spec"]
    assert expanded["spec"]["template"]["spec"]["domain"]["cpu"] == {"cores": 1, "sockets": 2, "threads": 1}


def test_files_override_and_stdin_json(files) -> None:
    argv = [
        "expand",
        "-f",
        "-",
        "--instancetype-file",
        files("it.yaml", EXPAND_IT),
        "--preference-file",
        files("p.yaml", EXPAND_PREF),
    ]
    code, out, err = _stdin_run([*argv, "-o", "json"], json.dumps(expand_vm()))
    assert (code, err) == (0, OFFLINE_NOTE)
    assert json.loads(out)["spec"]["template"]["spec"]["domain"]["memory"] == {"guest": "2Gi"}
    assert out.startswith('{\n    "apiVersion"')
    # a bare spec works as an instance type file too
    code, out, _ = _stdin_run(
        ["expand", "-f", "-", "--instancetype-file", files("spec.yaml", EXPAND_IT["spec"])],
        json.dumps(expand_vm(preference=False)),
    )
    assert code == 0


def test_several_documents(files) -> None:
    path = files("two.yaml", EXPAND_IT, EXPAND_PREF, expand_vm("a"), expand_vm("b"))
    result = run_cli(["expand", "-f", path])
    assert [doc["metadata"]["name"] for doc in yaml.safe_load_all(result.stdout)] == ["a", "b"]
    listed = json.loads(run_cli(["expand", "-f", path, "-o", "json"]).stdout)
    assert listed["kind"] == "List" and len(listed["items"]) == 2
    explained = run_cli(["expand", "-f", path, "--explain"]).stdout
    assert explained.startswith("virtualmachine/a\nFIELD")


def test_conflicts_print_nothing_on_stdout(files) -> None:
    vm = expand_vm(template={"domain": {"devices": {}, "cpu": {"sockets": 1, "threads": 2}}})
    result = run_cli(["expand", "-f", files("c.yaml", EXPAND_IT, EXPAND_PREF, vm)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines() == [
        OFFLINE_NOTE.strip(),
        "error: VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
        "error: VM field(s) spec.template.spec.domain.cpu.threads conflicts with selected instance type",
    ]


def test_requirements_and_skip_checks(files) -> None:
    small = {**EXPAND_IT, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}
    path = files("r.yaml", small, EXPAND_PREF, expand_vm())
    result = run_cli(["expand", "-f", path])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == OFFLINE_NOTE + (
        "error: spec.instancetype: failure checking preference requirements: insufficient CPU resources of 1 vCPU "
        "provided by instance type, preference requires 2 vCPU; the smallest instance types of the "
        f"common-instancetypes {DEFAULT_VERSION} catalog that satisfy preference p: u1.2xmedium, d1.2xmedium, cx1.large\n"
    )
    assert run_cli(["expand", "-f", path, "--skip-checks"]).exit_code == 0


def test_diff(files) -> None:
    out = run_cli(["expand", "-f", files("d.yaml", EXPAND_IT, EXPAND_PREF, expand_vm()), "--diff"]).stdout
    assert out.startswith("--- virtualmachine/vm spec.template.spec\n+++ virtualmachine/vm expanded\n")
    assert "+  cpu:\n" in out and "-  devices: {}\n" in out and "+    interfaces:\n" in out


def test_explain_rows(files) -> None:
    vm = expand_vm(
        template={"domain": {"devices": {}}, "volumes": [{"name": "root", "containerDisk": {"image": "img"}}]}
    )
    rows = [
        line.split()
        for line in run_cli(
            ["expand", "-f", files("e.yaml", EXPAND_IT, EXPAND_PREF, vm), "--explain"]
        ).stdout.splitlines()
    ]
    assert rows[0] == ["FIELD", "VALUE", "SOURCE"]
    table = {row[0]: (row[1], row[2]) for row in rows[1:]}
    assert table["spec.template.spec.domain.cpu.sockets"] == ("2", "instancetype")
    assert table["spec.template.spec.domain.devices.disks[0].disk.bus"] == ("virtio", "preference")
    assert table["spec.template.spec.volumes[0].containerDisk.imagePullPolicy"] == ("Always", "default")
    assert table["spec.template.spec.domain.machine.type"] == ("q35", "default")


def test_cluster_default_flags(files) -> None:
    path = files("f.yaml", EXPAND_IT, EXPAND_PREF, expand_vm())
    out = yaml.safe_load(
        run_cli(
            ["expand", "-f", path, "--default-architecture", "arm64", "--default-network-interface", "masquerade"]
        ).stdout
    )
    spec = out["spec"]["template"]["spec"]
    assert (spec["architecture"], spec["domain"]["machine"]["type"]) == ("arm64", "virt")
    assert spec["domain"]["devices"]["interfaces"] == [{"masquerade": {}, "name": "default"}]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["expand"], "error: a VirtualMachine (vm/NAME) or a file (-f FILE) must be given, but not both\n"),
        (
            ["expand", "vm/x", "-f", "a.yaml"],
            "error: a VirtualMachine (vm/NAME) or a file (-f FILE) must be given, but not both\n",
        ),
        (["expand", "pod/x"], 'error: expand takes a VirtualMachine: vm/NAME, not "pod/x"\n'),
        (
            ["expand", "vm/x", "-o", "wide"],
            "error: not supported output format defined: wide (use yaml, json, or a kubectl template: "
            "jsonpath=..., go-template=..., custom-columns=...)\n",
        ),
        (["expand", "vm/x", "--diff", "--explain"], "error: --diff and --explain cannot be used together\n"),
        (
            ["expand", "vm/x", "--server", "--instancetype-file", "a"],
            "error: --server expands with the cluster's objects; it cannot use --instancetype-file or --preference-file\n",
        ),
        (
            ["expand", "-f", "/nonexistent/vm.yaml"],
            'error: the path "/nonexistent/vm.yaml" does not exist\n',
        ),
    ],
)
def test_usage_errors(args, message) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", message)


def test_file_without_vm_and_missing_cluster(files) -> None:
    result = run_cli(["expand", "-f", files("n.yaml", EXPAND_IT)])
    assert result.stderr.startswith("error: error decoding VirtualMachine: no VirtualMachine in ")
    # the preference is neither local nor given: the cluster is needed, and there is no kubeconfig
    result = run_cli(
        ["expand", "-f", files("m.yaml", EXPAND_IT, expand_vm())],
        environ={"HOME": "/nonexistent", "KUBECONFIG": "/nonexistent/config"},
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ")


def test_vm_without_matchers_is_printed_unchanged(files) -> None:
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "plain"},
        "spec": {"template": {"spec": {"domain": {"devices": {}}}}},
    }
    result = run_cli(["expand", "-f", files("p.yaml", vm)])
    # as KubeVirt answers it: the typed VM encoded again, with the structs Go always writes
    template = {"metadata": {}, "spec": {"domain": {"devices": {}, "resources": {}}}}
    assert yaml.safe_load(result.stdout) == {**vm, "spec": {"template": template}, "status": {}}


def test_an_offline_requirements_failure_names_the_catalogs_smallest_fitting_types(files) -> None:
    """Everything local, no cluster is contacted: the embedded catalog stands in for the cluster's types."""
    tiny = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "tiny"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    needs_two = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterPreference",
        "metadata": {"name": "needs-two"},
        "spec": {"requirements": {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}},
    }
    vm = expand_vm(template={"domain": {"devices": {}}})
    vm["spec"]["instancetype"], vm["spec"]["preference"] = {"name": "tiny"}, {"name": "needs-two"}
    result = run_cli(["expand", "-f", files("all.yaml", tiny, needs_two, vm)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == OFFLINE_NOTE + (
        "error: spec.instancetype: failure checking preference requirements: insufficient CPU resources of 1 vCPU "
        "provided by instance type, preference requires 2 vCPU; the smallest instance types of the "
        f"common-instancetypes {DEFAULT_VERSION} "
        "catalog that satisfy preference needs-two: u1.2xmedium, d1.2xmedium, cx1.large\n"
    )


def test_a_template_left_empty_is_kubectls_error_before_any_request() -> None:
    result = run_cli(["expand", "vm/x", "-o", "jsonpath="], environ={"HOME": "/nonexistent", "KUBECONFIG": "/nope"})
    assert (result.exit_code, result.stderr) == (1, "error: template format specified but no template given\n")


def test_launcher_pod_offline_uses_kubevirts_defaults_and_says_so(files) -> None:
    from kubectl_instancetype.usecases.launcher_inputs import OFFLINE_WARNING

    path = files("all.yaml", EXPAND_IT, EXPAND_PREF, expand_vm())
    result = run_cli(["expand", "-f", path, "--launcher-pod", "-o", "json"])
    assert (result.exit_code, result.stderr.splitlines()[0]) == (0, OFFLINE_WARNING)
    pod = json.loads(result.stdout)
    assert (pod["kind"], pod["metadata"]["namespace"], pod["status"]["qosClass"]) == ("Pod", "default", "Burstable")
    assert [c["name"] for c in pod["spec"]["containers"]] == ["compute"]
    arm = run_cli(["expand", "-f", path, "--launcher-pod", "--default-architecture", "arm64", "-o", "json"])
    assert json.loads(arm.stdout)["spec"]["nodeSelector"]["kubernetes.io/arch"] == "arm64"


@pytest.mark.parametrize("flag", ["--diff", "--explain"])
def test_launcher_pod_takes_no_diff_or_explain(files, flag) -> None:
    result = run_cli(["expand", "-f", files("vm.yaml", expand_vm()), "--launcher-pod", flag])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: --launcher-pod cannot be used with {flag}\n"
