"""The one manifest reader of every ``-f`` (:mod:`kubectl_instancetype.usecases.manifests`)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.errors import InputError
from kubectl_instancetype.usecases.manifests import parse_manifests

# ---------------------------------------------------------------------------------------------- parsing


def test_parse_multi_document_yaml_with_empty_documents() -> None:
    text = "---\napiVersion: v1\nkind: A\n---\n---\napiVersion: v1\nkind: B\n...\n"
    assert [obj["kind"] for obj in parse_manifests(text)] == ["A", "B"]


def test_parse_json_and_nested_lists() -> None:
    text = '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "x/v1", "kind": "K"}]}]}'
    assert parse_manifests(text) == [{"apiVersion": "x/v1", "kind": "K"}]


def test_parse_typed_list_kinds() -> None:
    text = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineList\nitems:\n- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n"
    assert parse_manifests(text)[0]["kind"] == "VirtualMachine"


@pytest.mark.parametrize(
    "text,message",
    [
        ("a: [1, 2\n", "error parsing input as YAML or JSON (line 2, column 1)"),
        ("just text\n", "document 1: expected an object with apiVersion and kind, got just text"),
        ("apiVersion: v1\nkind: A\n---\nkind: B\n", "document 2: Object 'Kind' is missing or 'apiVersion' is missing"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_manifests(text)
    assert message in info.value.message


def test_unquoted_dates_stay_strings() -> None:
    text = "apiVersion: v1\nkind: A\nmetadata:\n  annotations:\n    since: 2022-10-01T10:00:00Z\n    day: 2022-10-01\n"
    assert parse_manifests(text)[0]["metadata"]["annotations"] == {
        "since": "2022-10-01T10:00:00Z",
        "day": "2022-10-01",
    }
