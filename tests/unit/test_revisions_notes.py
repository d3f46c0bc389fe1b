"""``revisions`` says in words what a "-" or a stale reference in its table means."""

from __future__ import annotations

from typing import Any

from kubectl_instancetype.errors import NotFoundError
from kubectl_instancetype.usecases.revisions import matcher_revision

NS = "demo"
REV_LABELS = {
    "instancetype.kubevirt.io/object-generation": "1",
    "instancetype.kubevirt.io/object-kind": "VirtualMachineClusterInstancetype",
    "instancetype.kubevirt.io/object-version": "v1beta1",
}


class StoredObjects:
    """A client double answering GET from a dict keyed by (resource name, object name)."""

    def __init__(self, objects: dict[tuple[str, str], Any]) -> None:
        self.objects = objects

    def get(self, resource: Any, name: str, namespace: str | None) -> Any:
        try:
            return self.objects[(resource.plural, name)]
        except KeyError:
            raise NotFoundError(404, f'{resource.plural} "{name}" not found', "NotFound") from None


def _vm(matcher: dict, status: dict | None = None) -> dict:
    return {"metadata": {"name": "vm1", "namespace": NS}, "spec": {"instancetype": matcher}, "status": status or {}}


def _type(name: str) -> dict:
    return {"metadata": {"name": name, "generation": 1}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}


def _revision(stored_for: str) -> dict:
    return {
        "metadata": {"name": "rev1", "labels": {**REV_LABELS, "instancetype.kubevirt.io/object-name": stored_for}},
        "data": {"apiVersion": "instancetype.kubevirt.io/v1beta1", "spec": _type(stored_for)["spec"]},
    }


def test_no_revision_yet_is_explained() -> None:
    client = StoredObjects({("virtualmachineclusterinstancetypes", "u1.small"): _type("u1.small")})
    report = matcher_revision(client, _vm({"name": "u1.small"}), "instancetype")  # type: ignore[arg-type]
    assert report is not None
    assert (report.revision, report.stored_generation, report.changed) == ("-", "-", "-")
    assert len(report.notes) == 1
    assert report.notes[0].startswith('no revision stored yet for virtualmachineclusterinstancetype "u1.small"')


def test_a_status_reference_stored_for_another_name_is_explained() -> None:
    client = StoredObjects(
        {
            ("virtualmachineclusterinstancetypes", "u1.large"): _type("u1.large"),
            ("controllerrevisions", "rev1"): _revision("u1.small"),
        }
    )
    vm = _vm({"name": "u1.large"}, {"instancetypeRef": {"controllerRevisionRef": {"name": "rev1"}}})
    report = matcher_revision(client, vm, "instancetype")  # type: ignore[arg-type]
    assert report is not None
    assert report.recorded_in == "status (stale: for u1.small)"
    assert report.notes == [
        'revision "rev1" in status.instancetypeRef was stored for virtualmachineclusterinstancetype "u1.small", '
        'not for "u1.large" that spec.instancetype names now (the matcher was switched): KubeVirt ignores it and '
        'stores a revision for "u1.large" at its next sync of the VM'
    ]


def test_a_missing_revision_and_a_missing_object_are_explained() -> None:
    client = StoredObjects({})
    vm = _vm({"name": "gone", "revisionName": "rev-x"})
    report = matcher_revision(client, vm, "instancetype")  # type: ignore[arg-type]
    assert report is not None
    assert (report.live_generation, report.stored_generation) == ("not found", "not found")
    assert report.notes == [
        'virtualmachineclusterinstancetype "gone" no longer exists: only the stored revision (if any) still '
        "describes it",
        'ControllerRevision "rev-x" named by spec.instancetype.revisionName does not exist (deleted, or not yet '
        "written)",
    ]


def test_a_matcher_still_inferring_is_explained() -> None:
    report = matcher_revision(StoredObjects({}), _vm({"inferFromVolume": "root"}), "instancetype")  # type: ignore[arg-type]
    assert report is not None
    assert report.name == "(inferFromVolume root)"
    assert 'inferred from volume "root"' in report.notes[0]
