"""Cluster data is data, not terminal control: objects on the real API server carrying ESC, BEL, CR, backspace
and the C1 CSI (``\\x9b``) in the fields the API server does not validate (a preference's architecture, a VM's
matcher names and revision names) are printed by every command with those characters escaped, visibly."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.controlplane

NAMESPACE = "hostile"
# set the window title, clear the screen, ring the bell, move back, CSI as one C1 byte
HOSTILE = "x\x1b]0;owned\x07\x1b[2J\r\b\x9b31m"
SHOWN = "x^[]0;owned\\a^[[2J\\r\\b\\u009b31m"
GO_SHOWN = "x\\x1b]0;owned\\a\\x1b[2J\\r\\b\\u009b31m"  # Go's %q, where KubeVirt's and kubectl's messages quote
YAML_SHOWN = "x\\e]0;owned\\a\\e[2J\\r\\b\\x9B31m"  # a YAML document quotes with YAML's escapes
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # every C0 and C1 control but the newline


@pytest.fixture
def hostile(plain_plane):
    # objects written for a plane where no KubeVirt runs (a revisionName naming no revision, an unknown
    # architecture): on the KubeVirt plane the webhooks and virt-controller change what expand shows
    control_plane = plain_plane
    control_plane.ensure_namespace(NAMESPACE)
    objects = [
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePreference",
            # the API server validates names and labels, not annotation values nor this field
            "metadata": {"name": "hostile", "namespace": NAMESPACE, "annotations": {"note": HOSTILE}},
            "spec": {"preferredArchitecture": HOSTILE},
        },
        _vm("arch", {"name": "u1.nano"}, {"name": "hostile", "kind": "VirtualMachinePreference"}),
        _vm("named", {"name": "u1." + HOSTILE}, None),
        _vm("pinned", {"name": "u1.nano", "revisionName": "rev-" + HOSTILE}, None),
    ]
    for obj in objects:
        control_plane.apply(obj)
    yield
    for obj in objects:
        control_plane.delete(obj)


def _vm(name: str, instancetype: dict, preference: dict | None) -> dict:
    spec = {
        "runStrategy": "Halted",
        "instancetype": instancetype,
        "template": {"spec": {"domain": {"devices": {}}, "volumes": [{"name": "r", "containerDisk": {"image": "i"}}]}},
    }
    if preference:
        spec["preference"] = preference
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def _case(args: list[str], forms: list[str]):
    return pytest.param(args, forms, id=" ".join(args[:3]))


@pytest.mark.parametrize(
    ("args", "forms"),
    [
        # a table cell: kubectl's escape; a message quoting a name: Go's %q; a YAML document: YAML's escapes
        _case(["list", "preferences", "--namespaced", "-o", "wide"], [SHOWN]),
        _case(["expand", "vm/arch", "--explain"], [SHOWN]),
        _case(["expand", "vm/arch", "--diff"], [YAML_SHOWN]),
        _case(["expand", "vm/named"], [GO_SHOWN]),
        _case(["infer", "vm/named"], [SHOWN]),
        _case(["infer", "vm/named", "-o", "wide", "--explain"], [SHOWN]),
        _case(["revisions", "vm/pinned"], [SHOWN, GO_SHOWN]),
        _case(["revisions", "vm/named"], [SHOWN, GO_SHOWN]),
        _case(["switch", "vm/named", "--instancetype", "u1.small", "--dry-run", "--skip-checks"], [GO_SHOWN]),
        _case(["describe", "vmp/hostile"], [SHOWN]),
    ],
)
def test_control_characters_from_the_cluster_are_escaped(plain_cli, hostile, args, forms) -> None:
    cli = plain_cli
    result = cli(*args, "-n", NAMESPACE)
    printed = result.stdout + result.stderr
    assert not CONTROL.search(printed), repr(printed)
    for form in forms:
        assert form in printed, repr(printed)
