"""How matchers resolve to specs (KubeVirt's pkg/instancetype/find and pkg/instancetype/infer), on in-memory objects."""

from __future__ import annotations

import base64
import json

import pytest

from kubectl_instancetype.instancetype.expand.resolve import (
    IgnorableInferenceError,
    ResolveError,
    find_spec,
    infer,
    matcher_kind,
    revision_spec,
)

NS = "ns"


def _objects(*objects: tuple[str, str, str, dict]):
    store = {(kind, name, namespace): obj for kind, name, namespace, obj in objects}
    calls: list[tuple[str, str, str]] = []

    def fetch(kind: str, name: str, namespace: str):
        calls.append((kind, name, namespace))
        return store.get((kind, name, namespace))

    fetch.calls = calls  # type: ignore[attr-defined]
    return fetch


def _revision(name: str, object_name: str, spec: dict) -> dict:
    return {
        "metadata": {"name": name, "labels": {"instancetype.kubevirt.io/object-name": object_name}},
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineClusterInstancetype",
            "spec": spec,
        },
    }


def _vm(
    instancetype: dict | None = None, preference: dict | None = None, status: dict | None = None, **template
) -> dict:
    spec: dict = {"template": {"spec": template or {}}}
    if instancetype is not None:
        spec["instancetype"] = instancetype
    if preference is not None:
        spec["preference"] = preference
    return {"metadata": {"name": "vm", "namespace": NS}, "spec": spec, **({"status": status} if status else {})}


LIVE = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}
STORED = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}


@pytest.mark.parametrize(
    ("key", "kind", "expected"),
    [
        ("instancetype", "", "VirtualMachineClusterInstancetype"),
        ("instancetype", "VirtualMachineClusterInstancetype", "VirtualMachineClusterInstancetype"),
        ("instancetype", "virtualmachineclusterinstancetypes", "VirtualMachineClusterInstancetype"),
        ("instancetype", "virtualmachineinstancetype", "VirtualMachineInstancetype"),
        ("instancetype", "VirtualMachineInstancetypes", "VirtualMachineInstancetype"),
        ("preference", "", "VirtualMachineClusterPreference"),
        ("preference", "VirtualMachinePreference", "VirtualMachinePreference"),
    ],
)
def test_matcher_kinds(key, kind, expected) -> None:
    assert matcher_kind(key, kind) == expected


def test_unexpected_kinds() -> None:
    with pytest.raises(ResolveError, match="^got unexpected kind in InstancetypeMatcher: vmcf$"):
        matcher_kind("instancetype", "vmcf")
    with pytest.raises(ResolveError, match="^got unexpected kind in PreferenceMatcher: VirtualMachineInstancetype$"):
        matcher_kind("preference", "VirtualMachineInstancetype")


def test_live_objects_by_scope() -> None:
    fetch = _objects(
        ("VirtualMachineClusterInstancetype", "u1", "", {"spec": LIVE}),
        ("VirtualMachinePreference", "fedora", NS, {"spec": {"preferredArchitecture": "amd64"}}),
    )
    vm = _vm({"name": "u1"}, {"name": "fedora", "kind": "VirtualMachinePreference"})
    assert find_spec(vm, "instancetype", fetch) == (LIVE, "virtualmachineclusterinstancetype/u1")
    assert find_spec(vm, "preference", fetch)[0] == {"preferredArchitecture": "amd64"}
    assert find_spec(_vm(), "instancetype", fetch) == (None, "")


def test_revision_name_wins_over_status_and_live() -> None:
    fetch = _objects(
        ("ControllerRevision", "pinned", NS, _revision("pinned", "u1", STORED)),
        ("VirtualMachineClusterInstancetype", "u1", "", {"spec": LIVE}),
    )
    vm = _vm(
        {"name": "u1", "revisionName": "pinned"}, status={"instancetypeRef": {"controllerRevisionRef": {"name": "x"}}}
    )
    assert find_spec(vm, "instancetype", fetch) == (STORED, "controllerrevision/pinned")
    assert fetch.calls == [("ControllerRevision", "pinned", NS)]


def test_status_revision_only_for_the_current_name() -> None:
    fetch = _objects(
        ("ControllerRevision", "vm-u1-v1beta1-uid-1", NS, _revision("vm-u1-v1beta1-uid-1", "u1", STORED)),
        ("VirtualMachineClusterInstancetype", "u1", "", {"spec": LIVE}),
        ("VirtualMachineClusterInstancetype", "u2", "", {"spec": {"cpu": {"guest": 4}, "memory": {"guest": "4Gi"}}}),
    )
    status = {"instancetypeRef": {"name": "u1", "controllerRevisionRef": {"name": "vm-u1-v1beta1-uid-1"}}}
    assert find_spec(_vm({"name": "u1"}, status=status), "instancetype", fetch)[0] == STORED
    # switched to u2: the stored revision is for u1, so the live u2 is used
    assert find_spec(_vm({"name": "u2"}, status=status), "instancetype", fetch)[0]["cpu"]["guest"] == 4


def test_revision_errors_and_v1alpha1_data() -> None:
    fetch = _objects()
    with pytest.raises(ResolveError, match='^controllerrevisions.apps "gone" not found$'):
        find_spec(_vm({"name": "u1", "revisionName": "gone"}), "instancetype", fetch)
    with pytest.raises(
        ResolveError, match='^virtualmachineclusterinstancetypes.instancetype.kubevirt.io "u9" not found$'
    ):
        find_spec(_vm({"name": "u9"}), "instancetype", fetch)
    with pytest.raises(ResolveError, match="^resource name may not be empty$"):
        find_spec(_vm({"inferFromVolume": "root"}), "instancetype", fetch)
    old = {
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1alpha1",
            "spec": base64.b64encode(json.dumps(LIVE).encode()).decode(),
        }
    }
    assert revision_spec(old) == LIVE


PVC_LABELS = {
    "instancetype.kubevirt.io/default-instancetype": "u1.medium",
    "instancetype.kubevirt.io/default-preference": "fedora",
    "instancetype.kubevirt.io/default-preference-kind": "VirtualMachinePreference",
}


def _infer_vm(policy: str | None = None, volume: dict | None = None, templates: list | None = None) -> dict:
    matcher = {"inferFromVolume": "root", **({"inferFromVolumeFailurePolicy": policy} if policy else {})}
    vm = _vm(
        matcher,
        dict(matcher),
        volumes=[{"name": "root", **(volume or {"persistentVolumeClaim": {"claimName": "disk"}})}],
        domain={"memory": {"guest": "512Mi"}},
    )
    if templates is not None:
        vm["spec"]["dataVolumeTemplates"] = templates
    return vm


def test_infer_from_pvc_labels() -> None:
    fetch = _objects(("PersistentVolumeClaim", "disk", NS, {"metadata": {"labels": PVC_LABELS}}))
    vm = infer(_infer_vm(), fetch)
    assert vm["spec"]["instancetype"] == {"name": "u1.medium"}
    assert vm["spec"]["preference"] == {"name": "fedora", "kind": "VirtualMachinePreference"}
    assert vm["spec"]["template"]["spec"]["domain"]["memory"] == {"guest": "512Mi"}  # Reject keeps memory
    ignored = infer(_infer_vm("Ignore"), fetch)
    assert "memory" not in ignored["spec"]["template"]["spec"]["domain"]  # Ignore drops it on success


def test_infer_through_data_volume_template_and_data_source() -> None:
    template = {
        "metadata": {"name": "dv"},
        "spec": {"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "os"}},
    }
    fetch = _objects(
        (
            "DataSource",
            "fedora",
            "os",
            {"metadata": {}, "spec": {"source": {"pvc": {"name": "golden", "namespace": "os"}}}},
        ),
        ("PersistentVolumeClaim", "golden", "os", {"metadata": {"labels": PVC_LABELS}}),
    )
    vm = infer(_infer_vm(volume={"dataVolume": {"name": "dv"}}, templates=[template]), fetch)
    assert vm["spec"]["instancetype"] == {"name": "u1.medium"}


def test_infer_garbage_collected_data_volume_reads_the_pvc() -> None:
    fetch = _objects(("PersistentVolumeClaim", "dv", NS, {"metadata": {"labels": PVC_LABELS}}))
    assert infer(_infer_vm(volume={"dataVolume": {"name": "dv"}}), fetch)["spec"]["instancetype"] == {
        "name": "u1.medium"
    }


@pytest.mark.parametrize(
    ("volume", "templates", "message"),
    [
        ({"containerDisk": {"image": "x"}}, None, "unable to infer defaults from volume root as type is not supported"),
        (
            {"dataVolume": {"name": "dv"}},
            [{"metadata": {"name": "dv"}, "spec": {"source": {"registry": {"url": "docker://x"}}}}],
            "unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported",
        ),
        (
            {"dataVolume": {"name": "dv"}},
            [{"metadata": {"name": "dv"}, "spec": {"sourceRef": {"kind": "Other", "name": "x"}}}],
            "unable to infer defaults from DataVolumeSourceRef as Kind Other is not supported",
        ),
        (None, None, "unable to find required instancetype.kubevirt.io/default-instancetype label on the volume"),
    ],
)
def test_ignorable_inference_failures(volume, templates, message) -> None:
    fetch = _objects(("PersistentVolumeClaim", "disk", NS, {"metadata": {"labels": {}}}))
    with pytest.raises(IgnorableInferenceError, match=f"^{message}$"):
        infer(_infer_vm(volume=volume, templates=templates), fetch)
    dropped = infer(
        _infer_vm("Ignore", volume=volume, templates=templates),
        _objects(("PersistentVolumeClaim", "disk", NS, {"metadata": {"labels": {}}})),
    )
    assert "instancetype" not in dropped["spec"] and "preference" not in dropped["spec"]


def test_hard_inference_failures_ignore_the_policy() -> None:
    with pytest.raises(ResolveError, match='^persistentvolumeclaims "disk" not found$'):
        infer(_infer_vm("Ignore"), _objects())
    vm = _infer_vm("Ignore")
    vm["spec"]["template"]["spec"]["volumes"][0]["name"] = "other"
    with pytest.raises(ResolveError, match="^unable to find volume root to infer defaults$"):
        infer(vm, _objects())
