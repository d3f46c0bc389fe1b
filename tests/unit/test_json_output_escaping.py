"""``-o json`` writes no terminal control character: JSON escapes C0 itself, and the plugin writes DEL and the C1
controls (``\\x9b`` is CSI on 8-bit terminals) as ``\\u00XX`` too, where Go's encoding/json (kubectl) writes them
raw. The JSON value read back is the same."""

from __future__ import annotations

import io
import json
import re

from kubectl_instancetype.env import Environment
from kubectl_instancetype.output.printers import print_objects
from tests.conftest import run_cli

HOSTILE = "x\x1b]0;owned\x07\x9b31m\x7f é"
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def test_convert_json_output() -> None:
    text = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: t\n"
    text += f"  annotations:\n    note: {json.dumps(HOSTILE)}\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
    result = run_cli(["convert", "-f", "-", "-o", "json"], stdin=text)
    assert result.exit_code == 0, result.stderr
    assert not CONTROL.search(result.stdout), repr(result.stdout)
    assert "\\u009b31m\\u007f é" in result.stdout
    assert json.loads(result.stdout)["items"][0]["metadata"]["annotations"]["note"] == HOSTILE


def test_the_printers_json() -> None:
    stdout = io.StringIO()
    env = Environment(stdout=stdout, stderr=io.StringIO(), environ={})
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "annotations": {"a": HOSTILE}}}
    print_objects(env, "json", [obj], ["configmap/c"], single=True)
    assert not CONTROL.search(stdout.getvalue()), repr(stdout.getvalue())
    assert json.loads(stdout.getvalue()) == obj
