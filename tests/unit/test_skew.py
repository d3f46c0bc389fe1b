"""Catalog skew against CRD schemas: the pruning walk, and the real case of common-instancetypes v1.7.0's
preferredVideoType on a KubeVirt that predates it."""

from __future__ import annotations

import copy
from typing import Any

from kubectl_instancetype.instancetype.skew import pruned_fields, version_schema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "properties": {
                "devices": {"type": "object", "properties": {"preferredDiskBus": {"type": "string"}}},
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                "cpu": {
                    "type": "object",
                    "properties": {
                        "preferredCPUFeatures": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                        }
                    },
                },
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        },
    },
}
CRD = {"spec": {"versions": [{"name": "v1beta1", "served": True, "schema": {"openAPIV3Schema": SCHEMA}}]}}


def test_known_fields_survive() -> None:
    obj = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterPreference",
        "metadata": {"name": "x", "labels": {"a": "b"}},
        "spec": {
            "devices": {"preferredDiskBus": "virtio"},
            "annotations": {"k": "v"},
            "cpu": {"preferredCPUFeatures": [{"name": "x"}]},
            "free": {"anything": {"goes": 1}},
        },
    }
    assert pruned_fields(obj, SCHEMA) == []


def test_unknown_fields_are_listed_with_paths() -> None:
    obj = {
        "spec": {
            "devices": {"preferredDiskBus": "virtio", "preferredVideoType": "virtio"},
            "cpu": {"preferredCPUFeatures": [{"name": "x", "policy": "require"}]},
            "newTop": 1,
        },
        "extra": True,
    }
    assert pruned_fields(obj, SCHEMA) == [
        "spec.devices.preferredVideoType",
        "spec.cpu.preferredCPUFeatures[0].policy",
        "spec.newTop",
        "extra",
    ]


def test_version_schema() -> None:
    assert version_schema(CRD, "v1beta1") == SCHEMA
    assert version_schema(CRD, "v1") is None
    unserved = copy.deepcopy(CRD)
    unserved["spec"]["versions"][0]["served"] = False
    assert version_schema(unserved, "v1beta1") is None


def test_common_instancetypes_on_kubevirt_v1_8_loses_preferred_video_type() -> None:
    """KubeVirt's own CRD schemas (CRDsValidation of v1.8.0 and v1.9.0, read from the Go module): the embedded
    common-instancetypes v1.7.0 loses preferredVideoType on v1.8.0 (nine virtio Windows preferences) and
    nothing on v1.9.0."""
    import pytest

    from hack.localcluster.crds import kubevirt_module_dir, read_validations
    from kubectl_instancetype.catalog.loader import load_catalog

    catalog = load_catalog()
    lost: dict[str, dict[str, list[str]]] = {}
    for version in ("v1.8.0", "v1.9.0"):
        try:
            validations = read_validations(kubevirt_module_dir(version))
        except RuntimeError as exc:  # no Go toolchain or module cache
            pytest.skip(str(exc))
        found: dict[str, list[str]] = {}
        for kind, objects in (
            ("virtualmachineclusterinstancetype", catalog.instancetypes),
            ("virtualmachineclusterpreference", catalog.preferences),
        ):
            for obj in objects:
                for path in pruned_fields(obj, validations[kind]):
                    found.setdefault(path, []).append(obj["metadata"]["name"])
        lost[version] = found
    assert list(lost["v1.8.0"]) == ["spec.devices.preferredVideoType"]
    assert len(lost["v1.8.0"]["spec.devices.preferredVideoType"]) == 9
    assert all(name.startswith("windows.") for name in lost["v1.8.0"]["spec.devices.preferredVideoType"])
    assert lost["v1.9.0"] == {}
