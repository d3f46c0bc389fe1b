"""``kubectl instancetype convert`` on the command line: input handling and its one-line errors."""

from __future__ import annotations

import io
import json

import pytest

from kubectl_instancetype.cli.main import run
from kubectl_instancetype.env import Environment
from tests.conftest import CONVERT_GOLDEN as GOLDEN
from tests.conftest import run_cli

SMALL = GOLDEN / "flavor-small-virtio"


def test_stdin_dash_reads_standard_input() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    env = Environment(
        stdin=io.StringIO((SMALL / "input.yaml").read_text()),
        stdout=stdout,
        stderr=stderr,
        environ={"HOME": "/nonexistent"},
    )
    assert run(["convert", "-f", "-"], env) == 0
    assert stdout.getvalue() == (SMALL / "expected-output.yaml").read_text()


def test_no_cluster_is_needed_without_apply_or_from_cluster() -> None:
    result = run_cli(["convert", "-f", str(SMALL / "input.yaml")], environ={"KUBECONFIG": "/nonexistent/config"})
    assert (result.exit_code, result.stdout) == (0, (SMALL / "expected-output.yaml").read_text())


@pytest.mark.parametrize(
    "content,args,message",
    [
        (None, [], 'error: the path "{path}" does not exist\n'),
        (
            "a: [1,\n",
            [],
            # kubectl v1.36.3's words for the same file
            "error: error parsing {path}: error converting YAML to JSON: yaml: line 1: did not find expected node "
            "content\n",
        ),
        (
            "- 1\n- 2\n",
            [],
            'error: unable to decode "{path}": a number (1) is not an object with apiVersion and kind\n',
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
            [],
            'error: cannot convert Service "web" (v1): convert reads flavor.kubevirt.io/v1alpha1 flavors and '
            "preferences, instancetype.kubevirt.io instance types and preferences, kubevirt.io VirtualMachines and "
            "VirtualMachineInstancePresets\n",
        ),
        (
            "",
            ["-o", "wide"],
            'error: unable to match a printer suitable for the output format "wide", allowed formats are: '
            "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,template,templatefile,yaml\n",
        ),
        ("", ["--vms", "x", "--from-cluster"], "error: --vms and --from-cluster cannot be used together\n"),
        (
            "",
            ["--memory", "lots"],
            "error: invalid argument 'lots' for --memory: quantities must match the regular expression\n",
        ),
    ],
)
def test_errors_are_one_line(tmp_path, content, args, message) -> None:
    path = tmp_path / "input.yaml"
    if content is not None:
        path.write_text(content)
    result = run_cli(["convert", "-f", str(path), *args])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == message.format(path=path)


def test_a_directory_is_read_like_kubectl_reads_one(tmp_path) -> None:
    """Its .json/.yaml/.yml files in name order; other files are skipped."""
    (tmp_path / "b.yaml").write_text((SMALL / "input.yaml").read_text())
    (tmp_path / "a.json").write_text(
        '{"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": "VirtualMachinePreference",'
        ' "metadata": {"name": "first"}, "spec": {}}'
    )
    (tmp_path / "notes.txt").write_text("not yaml: [")
    result = run_cli(["convert", "-f", str(tmp_path), "-o", "json"])
    assert result.exit_code == 0, result.stderr
    names = [item["metadata"]["name"] for item in json.loads(result.stdout)["items"]]
    assert names == ["first", "small", "virtio", "example"]


def test_subdirectories_are_skipped_as_kubectl_skips_them_without_recursive(tmp_path) -> None:
    # k8s.io/cli-runtime/pkg/resource/visitor.go ExpandPathsToFileVisitors: filepath.SkipDir below the top.
    (tmp_path / "sub.yaml").mkdir()
    (tmp_path / "sub.yaml" / "small.yaml").write_text((SMALL / "input.yaml").read_text())
    result = run_cli(["convert", "-f", str(tmp_path)])
    assert (result.exit_code, result.stderr) == (1, "error: no objects passed to convert\n")


def test_an_unreadable_file_is_one_error_line(tmp_path) -> None:
    result = run_cli(["convert", "-f", str(tmp_path / "absent.yaml")])
    assert (result.exit_code, result.stderr) == (1, f'error: the path "{tmp_path / "absent.yaml"}" does not exist\n')


def test_invalid_preset_selector_fails_the_report(tmp_path) -> None:
    path = tmp_path / "preset.yaml"
    path.write_text(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstancePreset\nmetadata:\n  name: p\nspec:\n"
        "  selector:\n    matchExpressions:\n    - key: a\n      operator: Near\n      values: [b]\n"
        "  domain:\n    features:\n      apic: {}\n"
    )
    result = run_cli(["convert", "-f", str(path), "--vms", str(GOLDEN / "windows-10-preset" / "vms.yaml")])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == 'error: "Near" is not a valid label selector operator\n'


def test_vms_without_presets_say_so(tmp_path) -> None:
    result = run_cli(
        ["convert", "-f", str(SMALL / "input.yaml"), "--vms", str(GOLDEN / "windows-10-preset" / "vms.yaml")]
    )
    assert result.exit_code == 0
    assert result.stderr == (
        "no VirtualMachineInstancePresets in the input: nothing to match against VirtualMachines\n"
        "checked offline (no kubeconfig): instance type and preference rules, input devices, interface bindings "
        "and launch security firmware only\n"
    )


def test_an_empty_input_is_an_error() -> None:
    from tests.conftest import run_cli

    result = run_cli(["convert", "-f", "-"], stdin="")
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "error: no objects passed to convert\n")


@pytest.mark.parametrize("case", ["preset-vmis", "full-preset", "windows-10-preset", "default-features-preset"])
def test_presets_match_the_vms_of_the_same_file(tmp_path, case) -> None:
    """A preset next to the VMs or VMIs it matches reports as --vms with those VMs does; VMIs are not output."""
    both = tmp_path / "both.yaml"
    vms = (GOLDEN / case / "vms.yaml").read_text()
    both.write_text((GOLDEN / case / "input.yaml").read_text() + "\n---\n" + vms)
    result = run_cli(["convert", "-f", str(both)], environ={"KUBECONFIG": "/nonexistent/config"})
    separate = run_cli(
        ["convert", "-f", str(GOLDEN / case / "input.yaml"), "--vms", str(GOLDEN / case / "vms.yaml")],
        environ={"KUBECONFIG": "/nonexistent/config"},
    )
    # the converted VMs are checked offline here (no cluster): one line says so, last (the golden case has it too
    # when its --vms run outputs the rewritten VMs)
    expected = (GOLDEN / case / "expected-stderr").read_text()
    offline = "checked offline (no kubeconfig): "
    lines = result.stderr.splitlines(keepends=True)
    if "kind: VirtualMachine\n" in vms and offline not in expected:
        assert lines[-1].startswith(offline), result.stderr
        lines = lines[:-1]
    assert (result.exit_code, "".join(lines)) == (0, expected)
    converted_vms = run_cli(["convert", "-f", str(GOLDEN / case / "vms.yaml")], environ={"KUBECONFIG": "/x"})
    kept = run_cli(["convert", "-f", str(both), "--keep-preset-vms"], environ={"KUBECONFIG": "/x"})
    kept_separate = run_cli(
        [
            "convert",
            "-f",
            str(GOLDEN / case / "input.yaml"),
            "--vms",
            str(GOLDEN / case / "vms.yaml"),
            "--keep-preset-vms",
        ],
        environ={"KUBECONFIG": "/x"},
    )
    rewritten = [line for line in result.stderr.splitlines() if ": rewritten to reference " in line]
    assert kept.stderr.splitlines() == [line for line in result.stderr.splitlines() if line not in rewritten]
    if "kind: VirtualMachineInstance\n" in vms:
        assert result.stdout == separate.stdout
        assert not rewritten
    else:
        assert kept.stdout == kept_separate.stdout + "---\n" + converted_vms.stdout
        # the same VMs rewritten in place (same file) as added to the output (--vms)
        documents = set(result.stdout.split("---\n"))
        assert set(separate.stdout.split("---\n")) <= documents
        assert len(documents - set(kept.stdout.split("---\n"))) == len(rewritten)


def test_a_lone_preset_that_converts_to_nothing_says_why(tmp_path) -> None:
    """The user guide's first preset (64M for kubevirt.io/size: small): no object, exit 0, one Warning saying what
    was found, its selector and how to see the VMs it matches."""
    lone = tmp_path / "small.yaml"
    lone.write_text((GOLDEN / "preset-vmis" / "input.yaml").read_text().split("\n---\n")[0])
    result = run_cli(["convert", "-f", str(lone)], environ={"KUBECONFIG": "/nonexistent/config"})
    assert (result.exit_code, result.stdout) == (0, "")
    lines = result.stderr.splitlines()
    assert lines[:2] == [
        "Warning: VirtualMachineInstancePreset small-qemu: spec.domain.resources.requests.memory: 64M: a preference "
        "cannot fix memory and the preset fixes no vCPU count for an instance type; not converted",
        "Warning: VirtualMachineInstancePreset small-qemu: no preference-like settings; no VirtualMachinePreference "
        "written",
    ]
    assert lines[2] == (
        "VirtualMachineInstancePreset small-qemu selects kubevirt.io/size=small: to see which VMs it matches and what "
        "each should reference, put them in the same input or pass --vms FILE or --from-cluster"
    )
    assert lines[3].startswith(
        "Warning: nothing to write: VirtualMachineInstancePreset small-qemu (selector: kubevirt.io/size=small) "
        "converted to no object; "
    )
    assert f"`kubectl instancetype convert -f {lone} --vms VMS.yaml` (or `--from-cluster`)" in lines[3]
    assert len(lines) == 4


def test_a_vmi_without_presets_is_refused_with_what_to_do(tmp_path) -> None:
    vmi = tmp_path / "vmi.yaml"
    vmi.write_text("apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\nmetadata:\n  name: tiny\nspec: {}\n")
    result = run_cli(["convert", "-f", str(vmi)], environ={"KUBECONFIG": "/nonexistent/config"})
    assert result.exit_code == 1
    assert result.stderr == (
        'error: cannot convert VirtualMachineInstance "tiny": convert reads VirtualMachineInstances only to match the '
        "VirtualMachineInstancePresets of the same input against them, and the input holds none; convert the "
        "VirtualMachine that starts it\n"
    )


class _NoCluster:
    """A Session stand-in for conversions that must not reach the cluster: any use fails the test."""

    def __getattr__(self, name: str):
        raise AssertionError(f"the session was used ({name})")


def test_the_conversion_is_handed_over_before_anything_is_written() -> None:
    from kubectl_instancetype.usecases.converting import ConvertRequest, convert

    seen = []
    request = ConvertRequest(filename=str(SMALL / "input.yaml"), offline=True)
    result = convert(_NoCluster(), request, converted=seen.append, created=seen.append)
    assert seen == [result.converted] and result.created == []
    assert result.converted.nothing_written is None and result.converted.conversion.objects


def test_apply_with_nothing_converted_writes_nothing(tmp_path) -> None:
    from kubectl_instancetype.usecases.converting import ConvertRequest, convert

    empty = tmp_path / "preset.yaml"
    empty.write_text(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstancePreset\nmetadata:\n  name: p\n"
        "spec:\n  selector:\n    matchLabels:\n      a: b\n"
    )
    seen = []
    result = convert(_NoCluster(), ConvertRequest(filename=str(empty), apply=True), converted=seen.append)
    assert seen == [result.converted] and result.created == []
    assert result.converted.nothing_written.startswith("nothing to write: VirtualMachineInstancePreset p ")
