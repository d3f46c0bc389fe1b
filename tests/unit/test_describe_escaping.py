"""``describe`` writes what the cluster holds as data: annotations, labels and preference values with control
characters are shown escaped, as kubectl's describe PrefixWriter writes through ``printers.WriteEscaped``
(k8s.io/kubectl/pkg/describe/describe.go), and a tab or newline in a value cannot shift or add a column."""

from __future__ import annotations

import re

from kubectl_instancetype.output.describe import render_description
from kubectl_instancetype.usecases.describe import Described

HOSTILE = "x\x1b]0;owned\x07\x1b[2J\r\b\x9b31m"
SHOWN = "x^[]0;owned\\a^[[2J\\r\\b\\u009b31m"
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def test_annotations_and_preference_values_are_escaped() -> None:
    preference = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {
            "name": "hostile",
            "namespace": "ns",
            "annotations": {"note": HOSTILE, "tabbed": "a\tb"},
            "labels": {"team": "x"},
        },
        "spec": {"preferredArchitecture": HOSTILE},
    }
    page = render_description(Described(preference, "preferences", "ns", vms=[]), 0.0)
    assert not CONTROL.search(page), repr(page)
    assert f"note: {SHOWN}" in page
    assert "tabbed: a\\tb" in page
    assert SHOWN in page.split("note:")[1]
    assert sum(SHOWN in line for line in page.splitlines()) == 2, page  # the annotation and the architecture
