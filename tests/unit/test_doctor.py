"""``doctor``'s pure rules (instancetype/doctor.py) on the objects KubeVirt v1.9.0's virt-controller writes."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_instancetype.instancetype import doctor as rules
from kubectl_instancetype.instancetype.expand.revisions import controller_revision

NS = "demo"
TYPE_KIND = "VirtualMachineClusterInstancetype"


def _type(name: str = "u1.small", generation: int = 1, memory: str = "2Gi", labels: dict | None = None) -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": TYPE_KIND,
        "metadata": {"name": name, "uid": f"uid-{name}", "generation": generation, "labels": labels or {}},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": memory}},
    }


def _vm(name: str = "vm1", revision: str = "", spec_revision: str = "", type_name: str = "u1.small") -> dict:
    matcher: dict[str, Any] = {"name": type_name, "kind": TYPE_KIND}
    if spec_revision:
        matcher["revisionName"] = spec_revision
    status = {"instancetypeRef": {"name": type_name, "kind": TYPE_KIND, "controllerRevisionRef": {"name": revision}}}
    return {
        "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}"},
        "spec": {"instancetype": matcher},
        "status": status if revision else {},
    }


def _stored(vm: dict, obj: dict) -> dict:
    return controller_revision(vm, obj)


def _by_key(revisions: list[dict]) -> dict:
    return {(r["metadata"]["namespace"], r["metadata"]["name"]): r for r in revisions}


def test_a_missing_status_revision_is_an_error_with_the_status_patch() -> None:
    vm = _vm(revision="gone")
    [finding] = rules.missing_revisions([vm], {})
    assert (finding.severity, finding.check, finding.object) == ("error", "missing-revision", "virtualmachine/vm1")
    assert "ControllerRevision gone named by status.instancetypeRef does not exist" in finding.finding
    assert finding.action.endswith(
        "kubectl patch vm/vm1 -n demo --subresource=status --type=json -p "
        '\'[{"op":"remove","path":"/status/instancetypeRef/controllerRevisionRef"}]\''
    )


def test_a_missing_spec_revision_clears_revision_name_then_the_status_reference() -> None:
    vm = _vm(revision="pinned", spec_revision="pinned")
    [finding] = rules.missing_revisions([vm], {})
    assert "spec.instancetype.revisionName" in finding.finding
    first, second = finding.action.split(": ", 1)[1].split(" && ")
    assert first == (
        'kubectl patch vm/vm1 -n demo --type=json -p \'[{"op":"remove","path":"/spec/instancetype/revisionName"}]\''
    )
    assert "--subresource=status" in second


def test_an_existing_revision_is_no_finding() -> None:
    vm = _vm()
    revision = _stored(vm, _type())
    vm = _vm(revision=revision["metadata"]["name"])
    assert rules.missing_revisions([vm], _by_key([revision])) == []


def test_orphans_are_revisions_no_existing_vm_owns_or_names() -> None:
    kept, gone = _vm("kept"), _vm("gone")
    mine, orphan = _stored(kept, _type()), _stored(gone, _type())
    unowned = {**orphan, "metadata": {**orphan["metadata"], "name": "unowned", "ownerReferences": []}}
    pinned = {**unowned, "metadata": {**unowned["metadata"], "name": "pinned"}}
    other = {"metadata": {"name": "statefulset-rev", "namespace": NS}, "data": {}}
    kept = _vm("kept", revision=mine["metadata"]["name"], spec_revision="pinned")
    findings = rules.orphan_revisions([kept], [mine, orphan, unowned, pinned, other])
    assert [(f.object, f.finding) for f in findings] == [
        (
            f"controllerrevision/{orphan['metadata']['name']}",
            "owned by virtualmachine/gone, which no longer exists, and no VM names it",
        ),
        ("controllerrevision/unowned", "owned by no VirtualMachine, and no VM names it"),
    ]
    assert findings[1].action == "kubectl delete controllerrevision unowned -n demo"
    assert {f.severity for f in findings} == {"info"}


def test_identical_revisions_are_grouped_once() -> None:
    a, b, c = (_stored(_vm(name), _type()) for name in ("a", "b", "c"))
    changed = _stored(_vm("d"), _type(generation=2, memory="4Gi"))
    b["data"]["metadata"]["resourceVersion"] = "other"  # not part of the copy's meaning
    [finding] = rules.duplicate_revisions([c, changed, a, b])
    assert finding.object == f"controllerrevision/{a['metadata']['name']}"
    assert finding.finding == (
        f"2 other revision(s) hold the same copy: {b['metadata']['name']}, {c['metadata']['name']}"
    )


@pytest.mark.parametrize(
    ("live", "expected"),
    [
        (_type(), []),
        (_type(generation=2, memory="4Gi"), ["drift"]),
        (_type(generation=2, memory="2Gi"), []),  # a label change: the spec is the same
        (None, ["drift"]),
        (_type(labels={rules.DEPRECATED_LABEL: "true"}), ["deprecated"]),
    ],
)
def test_drift_and_deprecated(live: dict | None, expected: list[str]) -> None:
    vm = _vm()
    revision = _stored(vm, _type())
    vm = _vm(revision=revision["metadata"]["name"])
    objects = {(TYPE_KIND, "", "u1.small"): live} if live else {}
    if live is None:
        objects = {(TYPE_KIND, "", "other"): _type("other")}  # the kind was listed: u1.small is gone
    findings = rules.drift([vm], _by_key([revision]), objects)
    assert [f.check for f in findings] == expected
    assert all(f.severity == "warning" for f in findings)
    if expected == ["drift"] and live is not None:
        assert "(generation 1 -> 2)" in findings[0].finding
        assert findings[0].action.endswith("kubectl instancetype switch vm/vm1 -n demo --refresh")


def test_drift_is_not_judged_for_a_kind_that_was_not_listed() -> None:
    vm = _vm()
    revision = _stored(vm, _type())
    vm = _vm(revision=revision["metadata"]["name"])
    assert rules.drift([vm], _by_key([revision]), {}) == []


def test_a_revision_in_an_unserved_version_is_an_error_when_used() -> None:
    vm = _vm()
    revision = _stored(vm, _type())
    revision["data"]["apiVersion"] = "instancetype.kubevirt.io/v1alpha2"
    unused = {**revision, "metadata": {**revision["metadata"], "name": "unused"}}
    vm = _vm(revision=revision["metadata"]["name"])
    served = {TYPE_KIND: frozenset({"v1beta1"})}
    used_finding, unused_finding = rules.ordered(rules.unserved_revisions([vm], [revision, unused], served))
    assert (used_finding.severity, unused_finding.severity) == ("error", "warning")
    assert used_finding.finding == (
        f"holds a {TYPE_KIND} as instancetype.kubevirt.io/v1alpha2, which this cluster's CRD no longer serves: "
        "virtualmachine/vm1 cannot start or change"
    )
    assert "/status/instancetypeRef/controllerRevisionRef" in used_finding.action
    assert unused_finding.action == "no VM uses it: kubectl delete controllerrevision unused -n demo"
    assert rules.unserved_revisions([vm], [revision], {TYPE_KIND: frozenset({"v1alpha2", "v1beta1"})}) == []
    assert rules.unserved_revisions([vm], [revision], {}) == []  # the CRD was not read: not judged


def test_commands_quote_what_the_shell_would_split() -> None:
    vm = _vm(revision="gone")
    vm["metadata"]["namespace"] = "a b"
    [finding] = rules.missing_revisions([vm], {})
    assert "-n 'a b'" in finding.action


def _printed(report: Any) -> tuple[str, str]:
    import io

    from kubectl_instancetype.env import Environment
    from kubectl_instancetype.output.doctor import print_report

    out, err = io.StringIO(), io.StringIO()
    print_report(Environment(stdout=out, stderr=err, environ={}), "", report)
    return out.getvalue(), err.getvalue()


def test_every_namespace_gets_a_namespace_column_and_an_incomplete_check_never_says_no_problems() -> None:
    from kubectl_instancetype.usecases.doctor import DoctorReport

    finding = rules.Finding("info", "orphan-revision", NS, "controllerrevision/x", "owned by no VirtualMachine", "rm")
    out, err = _printed(DoctorReport(None, [finding], checked_vms=1, checked_revisions=1))
    assert out.splitlines()[0].split()[:3] == ["NAMESPACE", "SEVERITY", "OBJECT"]
    assert out.splitlines()[1].split()[:3] == [NS, "info", "controllerrevision/x"]
    assert err == ""
    out, err = _printed(DoctorReport(NS, [], ["cannot list x: forbidden"], ["every check on VMs"]))
    assert (out, err) == (
        "",
        "Warning: doctor could not check everything (cannot list x: forbidden), so these were not checked: every "
        "check on VMs: findings may be missing\n",
    )
    out, err = _printed(DoctorReport(NS, [], checked_vms=2, checked_revisions=3))
    assert err == f"2 VirtualMachine(s) and 3 ControllerRevision(s) in namespace {NS} checked: no problems found\n"


def test_a_revision_a_snapshot_owns_or_a_vmi_or_snapshot_content_names_is_no_orphan() -> None:
    gone = _vm("gone")
    snapshot_copy = _stored(gone, _type())
    snapshot_copy["metadata"]["ownerReferences"] = [
        {"apiVersion": "snapshot.kubevirt.io/v1beta1", "kind": "VirtualMachineSnapshot", "name": "s", "uid": "u"}
    ]
    started = {"metadata": {"name": "revision-start-vm-uid-gone-1", "namespace": NS}, "data": {}}
    copy = _stored(gone, _type())
    in_content = {**copy, "metadata": {**copy["metadata"], "name": "kept-by-content", "ownerReferences": []}}
    vmi = {
        "metadata": {"name": "gone", "namespace": NS},
        "status": {"virtualMachineRevisionName": started["metadata"]["name"]},
    }
    content = {
        "metadata": {"name": "c", "namespace": NS},
        "spec": {"source": {"virtualMachine": {"spec": {"instancetype": {"revisionName": "kept-by-content"}}}}},
    }
    named = rules.named_elsewhere([vmi], [content])
    assert named == {(NS, started["metadata"]["name"]), (NS, "kept-by-content")}
    assert rules.orphan_revisions([], [snapshot_copy, started, in_content], named) == []
    assert {f.revision for f in rules.orphan_revisions([], [snapshot_copy, started, in_content])} == {
        started["metadata"]["name"],
        "kept-by-content",
    }


def _crd(kind_plural: str, versions: list[dict], stored: list[str]) -> dict:
    return {
        "metadata": {"name": f"{kind_plural}.instancetype.kubevirt.io"},
        "spec": {"versions": versions},
        "status": {"storedVersions": stored},
    }


V1BETA1_ONLY = [{"name": "v1beta1", "served": True, "storage": True}]
V1_AND_DEPRECATED_V1BETA1 = [
    {"name": "v1beta1", "served": True, "storage": False, "deprecated": True},
    {"name": "v1", "served": True, "storage": True},
]


def test_kubevirt_1_9_crds_announce_nothing_and_a_deprecated_v1beta1_is_reported() -> None:
    vm = _vm()
    revision = _stored(vm, _type())
    vm = _vm(revision=revision["metadata"]["name"])
    today = {TYPE_KIND: rules.crd_versions(_crd("virtualmachineclusterinstancetypes", V1BETA1_ONLY, ["v1beta1"]))}
    assert today[TYPE_KIND].served == frozenset({"v1beta1"}) and not today[TYPE_KIND].deprecated
    assert rules.deprecated_versions([vm], [revision], today) == []
    crd = _crd("virtualmachineclusterinstancetypes", V1_AND_DEPRECATED_V1BETA1, ["v1beta1", "v1"])
    facts = rules.crd_versions(crd)
    assert (facts.storage, facts.deprecated, facts.stored) == ("v1", frozenset({"v1beta1"}), ("v1beta1", "v1"))
    stored, used = rules.deprecated_versions([vm], [revision], {TYPE_KIND: facts})
    assert (stored.check, stored.severity, stored.object) == (
        "deprecated-version",
        "warning",
        "customresourcedefinition/virtualmachineclusterinstancetypes.instancetype.kubevirt.io",
    )
    assert stored.action.startswith(
        "rewrite them as v1: kubectl get virtualmachineclusterinstancetypes -o json | kubectl replace -f -; then "
    )
    assert used.object == f"controllerrevision/{revision['metadata']['name']}"
    assert "/status/instancetypeRef/controllerRevisionRef" in used.action
    migrated = rules.crd_versions(_crd("virtualmachineclusterinstancetypes", V1_AND_DEPRECATED_V1BETA1, ["v1"]))
    assert [f.object for f in rules.deprecated_versions([vm], [revision], {TYPE_KIND: migrated})] == [used.object]


def test_fix_plan_clears_only_when_the_object_exists_and_deletes_orphans() -> None:
    broken, orphaned_vm = _vm("broken", revision="lost"), _vm("other")
    copy = _stored(orphaned_vm, _type())
    orphan = {**copy, "metadata": {**copy["metadata"], "name": "orphan"}}
    findings = rules.missing_revisions([broken], {}) + rules.orphan_revisions([broken], [orphan])
    drifted = rules.Finding("warning", "drift", NS, "virtualmachine/x", "changed", "switch")
    live = {(TYPE_KIND, "", "u1.small"): _type()}
    plan, left = rules.fix_plan([*findings, drifted], [broken], live, [TYPE_KIND])
    assert [(f.action, f.name, f.key, f.revision) for f in plan] == [
        (rules.CLEAR_REFERENCE, "broken", "instancetype", "lost"),
        (rules.DELETE_ORPHAN, "orphan", "", "orphan"),
    ]
    assert left == []
    plan, [gone] = rules.fix_plan(findings, [broken], {}, [TYPE_KIND])
    assert [f.action for f in plan] == [rules.DELETE_ORPHAN]
    assert gone.reason.startswith("virtualmachineclusterinstancetype/u1.small does not exist either")
    _, [unread] = rules.fix_plan(findings, [broken], {}, [])
    assert "could not be read" in unread.reason
