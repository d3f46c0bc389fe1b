"""``expand -f`` streams: each VM is converted, expanded and printed in turn, in exactly the forms the whole
output had (one document or ``---``-separated ones, one JSON object or a ``kind: List``, --explain tables under
names), VMs may name an instance type written after them, and a VM that fails is named at the end. The large
case runs in a subprocess under an address-space limit: 30,000 VMs must not need memory in proportion
(bench figures for 100,000 are in docs/errors.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from kubectl_instancetype.output.printers import as_list
from tests.conftest import EXPAND_IT as IT
from tests.conftest import EXPAND_PREF as PREF
from tests.conftest import expand_vm, run_cli

VM_TEXT = """apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-{i}
spec:
  instancetype:
    name: c2
  preference:
    name: p
  template:
    spec:
      domain:
        devices: {{}}
"""


def write(tmp_path: Path, *docs: dict) -> str:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def singles(tmp_path: Path, names: list[str], *flags: str) -> list[str]:
    outputs = []
    for name in names:
        one = write(tmp_path, expand_vm(name), IT, PREF)
        result = run_cli(["expand", "-f", one, *flags])
        assert result.exit_code == 0, result.stderr
        outputs.append(result.stdout)
    return outputs


def test_several_vms_print_as_the_whole_output_did(tmp_path: Path) -> None:
    names = ["a", "b", "c"]
    parts_yaml = singles(tmp_path, names)
    parts_json = singles(tmp_path, names, "-o", "json")
    path = write(tmp_path, expand_vm("a"), expand_vm("b"), expand_vm("c"), IT, PREF)  # the types come after the VMs
    as_yaml = run_cli(["expand", "-f", path])
    assert (as_yaml.exit_code, as_yaml.stdout) == (0, "---\n".join(parts_yaml))
    as_json = run_cli(["expand", "-f", path, "-o", "json"])
    expected = as_list([json.loads(part) for part in parts_json])
    assert as_json.stdout == json.dumps(expected, indent=4, sort_keys=True, ensure_ascii=False) + "\n"
    one = run_cli(["expand", "-f", write(tmp_path, expand_vm("a"), IT, PREF), "-o", "json"])
    assert one.stdout == parts_json[0]


def test_explain_of_several_vms_names_each(tmp_path: Path) -> None:
    path = write(tmp_path, expand_vm("a"), expand_vm("b"), IT, PREF)
    result = run_cli(["expand", "-f", path, "--explain"])
    blocks = result.stdout.split("\n\n")
    assert blocks[0].startswith("virtualmachine/a\nFIELD") and blocks[1].startswith("virtualmachine/b\nFIELD")
    single = run_cli(["expand", "-f", write(tmp_path, expand_vm("a"), IT, PREF), "--explain"])
    assert single.stdout.startswith("FIELD")


def test_a_failing_vm_is_named_at_the_end_after_the_others_are_printed(tmp_path: Path) -> None:
    broken = expand_vm("broken")
    broken["spec"]["instancetype"]["kind"] = "Nonsense"
    path = write(tmp_path, expand_vm("a"), broken, IT, PREF)
    result = run_cli(["expand", "-f", path])
    assert result.exit_code == 1
    assert [document["metadata"]["name"] for document in yaml.safe_load_all(result.stdout)] == ["a"]
    # KubeVirt's words (kubevirt.io/kubevirt/pkg/instancetype/find, unexpectedKindFmt)
    assert result.stderr == (
        "checked offline (no kubeconfig): instance type and preference rules, input devices, interface bindings and "
        "launch security firmware only\n"
        "error: virtualmachine/broken: got unexpected kind in InstancetypeMatcher: Nonsense\n"
    )


def test_30000_vms_stream_in_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    with path.open("w") as out:
        out.write(yaml.safe_dump(IT) + "---\n" + yaml.safe_dump(PREF))
        for index in range(30_000):
            out.write("---\n" + VM_TEXT.format(i=index))
    # the input is 6 MB; holding every VM expanded took 13 KB each (1.3 GB for 100,000), 390 MB here
    limit = 256 << 20
    code = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
        "from kubectl_instancetype.cli.main import main; sys.exit(main())"
    )
    with (tmp_path / "out.yaml").open("wb") as sink:
        result = subprocess.run(
            [sys.executable, "-c", code, "expand", "-f", str(path)],
            stdout=sink,
            stderr=subprocess.PIPE,
            timeout=900,
            check=False,
            env={**os.environ, "HOME": "/nonexistent", "KUBECONFIG": ""},
        )
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    with (tmp_path / "out.yaml").open() as printed:
        assert sum(1 for line in printed if line == "---\n") == 29_999
