"""lint's rules and --fix on the deprecated and never-working shapes KubeVirt v1.9.0 knows."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_instancetype.instancetype import lint as lint_rules
from kubectl_instancetype.instancetype.expand import apply_to_template


def preference(spec: dict[str, Any], kind: str = "VirtualMachineClusterPreference") -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind, "metadata": {"name": "p"}, "spec": spec}


def instancetype(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "it"},
        "spec": spec,
    }


def rules(obj: dict[str, Any], candidates: Any = None) -> list[tuple[str, str]]:
    return [(f.path, f.rule) for f in lint_rules.lint(obj, candidates)]


@pytest.mark.parametrize(("old", "new"), sorted(lint_rules.DEPRECATED_TOPOLOGIES.items()))
def test_deprecated_topology_is_kubevirts_warning_and_fixed(old: str, new: str) -> None:
    obj = preference({"cpu": {"preferredCPUTopology": old}})
    (finding,) = lint_rules.lint(obj)
    assert (
        finding.message
        == f"PreferredCPUTopology {old} is deprecated for removal in a future release, please use {new} instead"
    )
    fixed, done = lint_rules.fix(obj)
    assert fixed["spec"]["cpu"]["preferredCPUTopology"] == new and done == [finding]
    assert lint_rules.lint(fixed) == []


def test_current_spellings_are_clean() -> None:
    obj = preference({"cpu": {"preferredCPUTopology": "spread"}, "firmware": {"preferredEfi": {"secureBoot": True}}})
    assert lint_rules.lint(obj) == []
    assert lint_rules.fix(obj) == (obj, [])


def _firmware_of(pref_spec: dict[str, Any], vm_firmware: dict[str, Any] | None = None) -> Any:
    vm = {"spec": {"template": {"spec": {"domain": {"firmware": vm_firmware} if vm_firmware else {}}}}}
    apply_to_template(vm, None, pref_spec)
    return vm["spec"]["template"]["spec"]["domain"].get("firmware", {}).get("bootloader")


@pytest.mark.parametrize(
    "firmware",
    [
        {"preferredUseEfi": True},
        {"preferredUseEfi": True, "preferredUseSecureBoot": True},
        {"preferredUseEfi": True, "preferredUseSecureBoot": False},
        {"preferredUseEfi": False},
        {"preferredUseEfi": True, "preferredEfi": {"persistent": True}},
    ],
)
def test_efi_fix_has_the_same_effect_on_a_vm(firmware: dict[str, Any]) -> None:
    """The fixed preference applies exactly as the original (KubeVirt's preference apply, our engine)."""
    obj = preference({"firmware": dict(firmware)})
    fixed, done = lint_rules.fix(obj)
    assert done and lint_rules.lint(fixed) == []
    assert "preferredUseEfi" not in fixed["spec"]["firmware"]
    assert _firmware_of(fixed["spec"]) == _firmware_of(obj["spec"])


def test_secure_boot_alone_is_reported_as_not_expressible() -> None:
    obj = preference({"firmware": {"preferredUseSecureBoot": True}})
    (finding,) = lint_rules.lint(obj)
    assert "v1 cannot express" in finding.message
    fixed, _ = lint_rules.fix(obj)
    assert fixed["spec"]["firmware"] == {}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"preferSpreadSocketToCoreRatio": 4}, {"cpu": {"spreadOptions": {"ratio": 4}}}),
        ({"preferSpreadSocketToCoreRatio": 0}, {}),
        (
            {"preferSpreadSocketToCoreRatio": 4, "cpu": {"spreadOptions": {"ratio": 3}}},
            {"cpu": {"spreadOptions": {"ratio": 3}}},
        ),
    ],
)
def test_legacy_spread_ratio(spec: dict[str, Any], expected: dict[str, Any]) -> None:
    fixed, done = lint_rules.fix(preference(spec))
    assert fixed["spec"] == expected and len(done) == 1


def test_instancetype_launch_security_is_kubevirts_warning_not_fixed() -> None:
    obj = instancetype({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "launchSecurity": {"sev": {}}})
    (finding,) = lint_rules.lint(obj)
    assert (
        finding.message
        == "launchSecurity is deprecated and will be removed in a future release. Use preference instead."
    )
    assert not finding.fixable and "preferredLaunchSecurity" in finding.replacement
    assert lint_rules.fix(obj) == (obj, [])


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"cpu": {"guest": 4, "maxSockets": 2}, "memory": {"guest": "1Gi"}}, [("spec.cpu.maxSockets", "never-works")]),
        ({"cpu": {"guest": 4, "maxSockets": 4}, "memory": {"guest": "1Gi"}}, []),
        (
            {"cpu": {"guest": 1}, "memory": {"guest": "4Gi", "maxGuest": "2Gi"}},
            [("spec.memory.maxGuest", "never-works")],
        ),
        (
            {
                "cpu": {"guest": 1},
                "memory": {"guest": "4Gi", "overcommitPercent": 50, "hugepages": {"pageSize": "2Mi"}},
            },
            [("spec.memory.overcommitPercent", "never-works")],
        ),
        (
            {"cpu": {"guest": 1}, "memory": {"guest": "4Gi", "overcommitPercent": 150}},
            [("spec.memory.overcommitPercent", "never-works")],
        ),
    ],
)
def test_instancetypes_that_never_work(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert rules(instancetype(spec)) == expected


def test_preference_no_candidate_satisfies() -> None:
    small = instancetype({"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}})
    large = instancetype({"cpu": {"guest": 4}, "memory": {"guest": "16Gi"}})
    needy = preference({"requirements": {"cpu": {"guest": 2}, "memory": {"guest": "4Gi"}}})
    assert rules(needy, [small]) == [("spec.requirements", "unsatisfiable")]
    assert rules(needy, [small, large]) == []
    assert rules(needy) == []  # no candidates given: not checked


def test_spread_preference_with_no_divisible_type() -> None:
    odd = instancetype({"cpu": {"guest": 3}, "memory": {"guest": "2Gi"}})
    spread = preference({"cpu": {"preferredCPUTopology": "spread"}})
    assert rules(spread, [odd]) == [("spec.requirements", "unsatisfiable")]


def test_architecture_contradiction() -> None:
    obj = preference({"preferredArchitecture": "arm64", "requirements": {"architecture": "amd64"}})
    (finding,) = lint_rules.lint(obj)
    assert finding.rule == "never-works"
    assert "preference requires architecture amd64 but arm64 is being requested" in finding.message


def test_other_kinds_are_ignored() -> None:
    assert lint_rules.lint({"kind": "VirtualMachine", "spec": {"preferSpreadSocketToCoreRatio": 2}}) == []


def test_the_real_catalog_is_clean() -> None:
    """common-instancetypes v1.7.0 uses only current spellings, and every preference has a fitting type."""
    from kubectl_instancetype.catalog.loader import load_catalog

    catalog = load_catalog()
    objects = [*catalog.instancetypes, *catalog.preferences]
    assert len(objects) > 100
    assert lint_rules.lint_all(objects, list(catalog.instancetypes)) == []
