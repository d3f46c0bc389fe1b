"""golang/gojson.py: what a Go Unmarshal -> Marshal of kubevirt.io/api's v1.VirtualMachine writes, from the field
table generated from the Go types (hack/kubevirtref/gotypes); the table is regenerated and compared when Go is
installed. The expansion's bytes against KubeVirt's own are tests/unit/test_expand_differential.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_instancetype.golang.gojson import load_table, roundtrip

REPO = Path(__file__).resolve().parents[2]


def _vm(domain: dict, **spec: object) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm"},
        "spec": {"template": {"spec": {"domain": domain, **spec}}},
    }


def _domain(vm: dict) -> dict:
    return vm["spec"]["template"]["spec"]["domain"]


def test_a_field_without_omitempty_is_always_written() -> None:
    got = roundtrip(_vm({"devices": {"inputs": [{"name": "i", "bus": "usb"}]}}))
    assert _domain(got)["devices"]["inputs"] == [{"bus": "usb", "name": "i", "type": ""}]


def test_omitempty_drops_zero_values_and_never_a_struct() -> None:
    got = roundtrip(_vm({"features": {"apic": {"endOfInterrupt": False}}, "devices": {"disks": []}}))
    assert _domain(got)["features"] == {"acpi": {}, "apic": {}}  # acpi is a FeatureState struct: always written
    assert _domain(got)["devices"] == {}  # an empty slice with omitempty
    assert _domain(got)["resources"] == {}
    assert got["status"] == {} and got["spec"]["template"]["metadata"] == {}


def test_nulls_pointers_quantities_and_unknown_fields() -> None:
    vm = _vm(
        {"memory": {"guest": "1024Mi", "hugepages": None}, "cpu": {"sockets": None}, "unknownField": 1, "devices": {}},
        terminationGracePeriodSeconds=None,
    )
    vm["metadata"]["creationTimestamp"] = None  # omitzero
    got = roundtrip(vm)
    assert _domain(got)["memory"] == {"guest": "1Gi"}
    assert _domain(got)["cpu"] == {}
    assert "unknownField" not in _domain(got)
    assert "terminationGracePeriodSeconds" not in got["spec"]["template"]["spec"]
    assert got["metadata"] == {"name": "vm"}
    assert vm["spec"]["template"]["spec"]["domain"]["memory"]["guest"] == "1024Mi"  # the input is not changed


def test_the_table_knows_go_s_tags() -> None:
    table = load_table()
    assert table.root == "VirtualMachine"
    assert ("type", 0, "string") in table.types["Input"]
    assert ("endOfInterrupt", 1, "bool") in table.types["FeatureAPIC"]
    assert ("creationTimestamp", 3, "Time") in table.types["ObjectMeta"]


def test_the_committed_table_is_what_the_go_types_say() -> None:
    if shutil.which("go") is None:
        pytest.skip("Go is not installed: the table cannot be regenerated")
    done = subprocess.run(
        [sys.executable, str(REPO / "hack" / "gen_gotypes.py"), "--check"], capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stderr
