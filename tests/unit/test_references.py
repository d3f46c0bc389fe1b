"""The references of the "referenced types exist" pre-flight (usecases/references.py; its did-you-mean is
golang/cobra.did_you_mean, tests/unit/test_cobra_suggestions.py); require_types itself runs against the real
control plane in tests/integration (create vm, derive, label, upload, switch)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype.kinds import matcher_kind
from kubectl_instancetype.usecases.references import TypeReference


@pytest.mark.parametrize(
    "kind,matcher,plural",
    [
        ("VirtualMachineClusterInstancetype", "instancetype", "virtualmachineclusterinstancetypes"),
        ("virtualmachineinstancetype", "instancetype", "virtualmachineinstancetypes"),
        ("virtualmachinepreferences", "preference", "virtualmachinepreferences"),
        ("VirtualMachineClusterPreference", "preference", "virtualmachineclusterpreferences"),
        ("", "preference", "virtualmachineclusterpreferences"),
    ],
)
def test_references_name_their_resource_in_any_spelling(kind: str, matcher: str, plural: str) -> None:
    assert TypeReference(matcher_kind(kind, matcher), "x").resource.plural == plural
