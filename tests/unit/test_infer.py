"""The inferFromVolume resolver against every case and message of KubeVirt v1.9.0's
pkg/instancetype/infer (and its tests), table-driven, with look-ups answered from a dict."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.instancetype import infer
from kubectl_instancetype.instancetype.infer import LookupFailed, resolve_matchers, resolve_object, resolve_volume

IT, IT_KIND = infer.INSTANCETYPE_LABEL, infer.INSTANCETYPE_KIND_LABEL
PREF, PREF_KIND = infer.PREFERENCE_LABEL, infer.PREFERENCE_KIND_LABEL

QUALIFIED = {
    "PersistentVolumeClaim": "persistentvolumeclaims",
    "DataVolume": "datavolumes.cdi.kubevirt.io",
    "DataSource": "datasources.cdi.kubevirt.io",
    "VolumeSnapshot": "volumesnapshots.snapshot.storage.k8s.io",
}

BOTH = {IT: "u1.medium", IT_KIND: "virtualmachineclusterinstancetype", PREF: "fedora"}


def obj(labels: dict[str, str] | None = None, spec: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"metadata": {"labels": labels} if labels is not None else {}}
    if spec is not None:
        out["spec"] = spec
    return out


class Cluster:
    """A dict of objects keyed by (kind, namespace, name); records every look-up in order."""

    def __init__(self, objects: dict[tuple[str, str, str], dict[str, Any]], forbidden: tuple[str, ...] = ()):
        self.objects = objects
        self.forbidden = forbidden
        self.calls: list[tuple[str, str, str]] = []

    def __call__(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        self.calls.append((kind, namespace, name))
        if kind in self.forbidden:
            raise LookupFailed(f'{QUALIFIED[kind]} "{name}" is forbidden: User "u" cannot get resource')
        try:
            return self.objects[(kind, namespace, name)]
        except KeyError:
            raise LookupFailed(f'{QUALIFIED[kind]} "{name}" not found', not_found=True) from None


def vm(
    volumes: list[dict[str, Any]],
    *,
    templates: list[dict[str, Any]] | None = None,
    instancetype: dict[str, Any] | None = None,
    preference: dict[str, Any] | None = None,
    memory: bool = True,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {"spec": {"domain": {"devices": {}, **({"memory": {"guest": "512Mi"}} if memory else {})}}}
    }
    spec["template"]["spec"]["volumes"] = volumes
    if templates is not None:
        spec["dataVolumeTemplates"] = templates
    if instancetype is not None:
        spec["instancetype"] = instancetype
    if preference is not None:
        spec["preference"] = preference
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm", "namespace": "ns"},
        "spec": spec,
    }


PVC_VOLUME = {"name": "disk", "persistentVolumeClaim": {"claimName": "pvc"}}
DV_VOLUME = {"name": "disk", "dataVolume": {"name": "dv"}}


def dvt(spec: dict[str, Any], name: str = "dv", labels: dict[str, str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = labels
    return {"metadata": metadata, "spec": spec}


# (id, volumes, dataVolumeTemplates, objects, matcher, expected (name, kind) or (error, ignorable), expected look-ups)
CASES = [
    (
        "pvc",
        [PVC_VOLUME],
        None,
        {("PersistentVolumeClaim", "ns", "pvc"): obj(BOTH)},
        "instancetype",
        ("u1.medium", "virtualmachineclusterinstancetype"),
        [("PersistentVolumeClaim", "ns", "pvc")],
    ),
    (
        "pvc preference without kind label",
        [PVC_VOLUME],
        None,
        {("PersistentVolumeClaim", "ns", "pvc"): obj(BOTH)},
        "preference",
        ("fedora", ""),
        [("PersistentVolumeClaim", "ns", "pvc")],
    ),
    (
        "pvc label present but empty",
        [PVC_VOLUME],
        None,
        {("PersistentVolumeClaim", "ns", "pvc"): obj({IT: ""})},
        "instancetype",
        ("", ""),
        [("PersistentVolumeClaim", "ns", "pvc")],
    ),
    (
        "pvc without labels",
        [PVC_VOLUME],
        None,
        {("PersistentVolumeClaim", "ns", "pvc"): obj()},
        "instancetype",
        ("unable to find required instancetype.kubevirt.io/default-instancetype label on the volume", True),
        [("PersistentVolumeClaim", "ns", "pvc")],
    ),
    (
        "pvc missing preference label",
        [PVC_VOLUME],
        None,
        {("PersistentVolumeClaim", "ns", "pvc"): obj({IT: "u1.small"})},
        "preference",
        ("unable to find required instancetype.kubevirt.io/default-preference label on the volume", True),
        [("PersistentVolumeClaim", "ns", "pvc")],
    ),
    (
        "pvc not found",
        [PVC_VOLUME],
        None,
        {},
        "instancetype",
        ('persistentvolumeclaims "pvc" not found', False),
        [("PersistentVolumeClaim", "ns", "pvc")],
    ),
    (
        "volume missing from spec",
        [PVC_VOLUME],
        None,
        {},
        "instancetype:other",
        ("unable to find volume other to infer defaults", False),
        [],
    ),
    (
        "unsupported volume type",
        [{"name": "disk", "containerDisk": {"image": "quay.io/containerdisks/fedora"}}],
        None,
        {},
        "instancetype",
        ("unable to infer defaults from volume disk as type is not supported", True),
        [],
    ),
    (
        "dv labels first",
        [DV_VOLUME],
        None,
        {
            ("DataVolume", "ns", "dv"): obj(BOTH, {"source": {"pvc": {"name": "src", "namespace": "images"}}}),
        },
        "instancetype",
        ("u1.medium", "virtualmachineclusterinstancetype"),
        [("DataVolume", "ns", "dv")],
    ),
    (
        "dv without labels follows source.pvc in its namespace",
        [DV_VOLUME],
        None,
        {
            ("DataVolume", "ns", "dv"): obj(None, {"source": {"pvc": {"name": "src", "namespace": "images"}}}),
            ("PersistentVolumeClaim", "images", "src"): obj({PREF: "rhel.9", PREF_KIND: "virtualmachinepreference"}),
        },
        "preference",
        ("rhel.9", "virtualmachinepreference"),
        [("DataVolume", "ns", "dv"), ("PersistentVolumeClaim", "images", "src")],
    ),
    (
        "dv source.pvc without namespace is looked up with an empty namespace",
        [DV_VOLUME],
        None,
        {
            ("DataVolume", "ns", "dv"): obj(None, {"source": {"pvc": {"name": "src"}}}),
            ("PersistentVolumeClaim", "", "src"): obj({PREF: "x"}),
        },
        "preference",
        ("x", ""),
        [("DataVolume", "ns", "dv"), ("PersistentVolumeClaim", "", "src")],
    ),
    (
        "dv only preference label falls back for instancetype",
        [DV_VOLUME],
        None,
        {
            ("DataVolume", "ns", "dv"): obj(
                {PREF: "fedora"}, {"source": {"snapshot": {"name": "snap", "namespace": "ns"}}}
            ),
            ("VolumeSnapshot", "ns", "snap"): obj({IT: "cx1.large"}),
        },
        "instancetype",
        ("cx1.large", ""),
        [("DataVolume", "ns", "dv"), ("VolumeSnapshot", "ns", "snap")],
    ),
    (
        "dv garbage collected falls back to pvc of the same name",
        [DV_VOLUME],
        None,
        {("PersistentVolumeClaim", "ns", "dv"): obj(BOTH)},
        "instancetype",
        ("u1.medium", "virtualmachineclusterinstancetype"),
        [("DataVolume", "ns", "dv"), ("PersistentVolumeClaim", "ns", "dv")],
    ),
    (
        "dv and pvc both gone",
        [DV_VOLUME],
        None,
        {},
        "instancetype",
        ('persistentvolumeclaims "dv" not found', False),
        [("DataVolume", "ns", "dv"), ("PersistentVolumeClaim", "ns", "dv")],
    ),
    (
        "dv with unsupported source",
        [DV_VOLUME],
        None,
        {("DataVolume", "ns", "dv"): obj(None, {"source": {"http": {"url": "http://x"}}})},
        "instancetype",
        ("unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported", True),
        [("DataVolume", "ns", "dv")],
    ),
    (
        "dv sourceRef DataSource without namespace uses the VM namespace",
        [DV_VOLUME],
        None,
        {
            ("DataVolume", "ns", "dv"): obj(None, {"sourceRef": {"kind": "DataSource", "name": "fedora"}}),
            ("DataSource", "ns", "fedora"): obj(BOTH),
        },
        "preference",
        ("fedora", ""),
        [("DataVolume", "ns", "dv"), ("DataSource", "ns", "fedora")],
    ),
    (
        "dvt wins over an existing dv and its labels are ignored",
        [DV_VOLUME],
        [dvt({"source": {"pvc": {"name": "src", "namespace": "images"}}}, labels={IT: "from-template"})],
        {
            ("DataVolume", "ns", "dv"): obj({IT: "from-dv"}),
            ("PersistentVolumeClaim", "images", "src"): obj({IT: "from-pvc"}),
        },
        "instancetype",
        ("from-pvc", ""),
        [("PersistentVolumeClaim", "images", "src")],
    ),
    (
        "dvt snapshot",
        [DV_VOLUME],
        [dvt({"source": {"snapshot": {"name": "snap", "namespace": "images"}}})],
        {("VolumeSnapshot", "images", "snap"): obj(BOTH)},
        "instancetype",
        ("u1.medium", "virtualmachineclusterinstancetype"),
        [("VolumeSnapshot", "images", "snap")],
    ),
    (
        "dvt sourceRef DataSource labels first",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "os-images"}})],
        {
            ("DataSource", "os-images", "fedora"): obj(
                BOTH, {"source": {"pvc": {"name": "fedora-pvc", "namespace": "os-images"}}}
            ),
        },
        "instancetype",
        ("u1.medium", "virtualmachineclusterinstancetype"),
        [("DataSource", "os-images", "fedora")],
    ),
    (
        "dvt sourceRef DataSource then its pvc",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "os-images"}})],
        {
            ("DataSource", "os-images", "fedora"): obj(None, {"source": {"pvc": {"name": "p", "namespace": "other"}}}),
            ("PersistentVolumeClaim", "other", "p"): obj(BOTH),
        },
        "preference",
        ("fedora", ""),
        [("DataSource", "os-images", "fedora"), ("PersistentVolumeClaim", "other", "p")],
    ),
    (
        "dvt sourceRef DataSource then its snapshot",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "os-images"}})],
        {
            ("DataSource", "os-images", "fedora"): obj(
                None, {"source": {"snapshot": {"name": "s", "namespace": "os-images"}}}
            ),
            ("VolumeSnapshot", "os-images", "s"): obj(BOTH),
        },
        "preference",
        ("fedora", ""),
        [("DataSource", "os-images", "fedora"), ("VolumeSnapshot", "os-images", "s")],
    ),
    (
        "dvt sourceRef with an empty namespace is used as it is",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": ""}})],
        {},
        "preference",
        ('datasources.cdi.kubevirt.io "fedora" not found', False),
        [("DataSource", "", "fedora")],
    ),
    (
        "datasource without pvc or snapshot",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora"}})],
        {("DataSource", "ns", "fedora"): obj({}, {"source": {}})},
        "instancetype",
        (
            "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC or "
            "DataVolumeSourceSnapshot",
            True,
        ),
        [("DataSource", "ns", "fedora")],
    ),
    (
        "datasource not found",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora"}})],
        {},
        "instancetype",
        ('datasources.cdi.kubevirt.io "fedora" not found', False),
        [("DataSource", "ns", "fedora")],
    ),
    (
        "datasource pvc not found",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataSource", "name": "fedora"}})],
        {("DataSource", "ns", "fedora"): obj(None, {"source": {"pvc": {"name": "gone", "namespace": "ns"}}})},
        "instancetype",
        ('persistentvolumeclaims "gone" not found', False),
        [("DataSource", "ns", "fedora"), ("PersistentVolumeClaim", "ns", "gone")],
    ),
    (
        "snapshot not found",
        [DV_VOLUME],
        [dvt({"source": {"snapshot": {"name": "s", "namespace": "ns"}}})],
        {},
        "instancetype",
        ('volumesnapshots.snapshot.storage.k8s.io "s" not found', False),
        [("VolumeSnapshot", "ns", "s")],
    ),
    (
        "dvt sourceRef of another kind",
        [DV_VOLUME],
        [dvt({"sourceRef": {"kind": "DataImportCron", "name": "x"}})],
        {},
        "instancetype",
        ("unable to infer defaults from DataVolumeSourceRef as Kind DataImportCron is not supported", True),
        [],
    ),
    (
        "dvt registry source",
        [DV_VOLUME],
        [dvt({"source": {"registry": {"url": "docker://quay.io/containerdisks/fedora:41"}}})],
        {},
        "instancetype",
        ("unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported", True),
        [],
    ),
    (
        "dvt blank source with a sourceRef falls through to the sourceRef",
        [DV_VOLUME],
        [dvt({"source": {"blank": {}}, "sourceRef": {"kind": "DataSource", "name": "d"}})],
        {("DataSource", "ns", "d"): obj({IT: "n1"})},
        "instancetype",
        ("n1", ""),
        [("DataSource", "ns", "d")],
    ),
    (
        "dvt of another name is not used",
        [DV_VOLUME],
        [dvt({"source": {"blank": {}}}, name="other")],
        {("DataVolume", "ns", "dv"): obj({IT: "n1"})},
        "instancetype",
        ("n1", ""),
        [("DataVolume", "ns", "dv")],
    ),
    (
        "forbidden GET is not ignorable",
        [DV_VOLUME],
        None,
        {},
        "forbidden-instancetype",
        ('datavolumes.cdi.kubevirt.io "dv" is forbidden: User "u" cannot get resource', False),
        [("DataVolume", "ns", "dv")],
    ),
]


@pytest.mark.parametrize(
    ("volumes", "templates", "objects", "matcher", "expected", "calls"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_resolve_volume(volumes, templates, objects, matcher, expected, calls):
    volume = "disk"
    forbidden: tuple[str, ...] = ()
    if ":" in matcher:
        matcher, volume = matcher.split(":")
    if matcher.startswith("forbidden-"):
        matcher, forbidden = matcher[len("forbidden-") :], ("DataVolume",)
    cluster = Cluster(objects, forbidden)
    machine = vm(volumes, templates=templates)
    before = copy.deepcopy(machine)
    resolution = resolve_volume(machine, volume, matcher, cluster)
    assert machine == before
    if isinstance(expected[1], bool):
        assert (resolution.error, resolution.ignorable) == expected
        assert not resolution.ok
    else:
        assert resolution.ok, resolution.error
        assert (resolution.name, resolution.kind) == expected
    assert cluster.calls == calls
    # the chain records every object read, in order (DataVolumeTemplates are read from the VM itself)
    assert [
        (link.kind, link.namespace, link.name) for link in resolution.chain if link.kind != "DataVolumeTemplate"
    ] == calls


def test_chain_text():
    cluster = Cluster(
        {
            ("DataVolume", "ns", "fedora"): obj(
                None, {"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "os-images"}}
            ),
            ("DataSource", "os-images", "fedora"): obj(BOTH),
        }
    )
    resolution = resolve_volume(
        vm([{"name": "disk", "dataVolume": {"name": "fedora"}}]), "disk", "instancetype", cluster
    )
    assert resolution.chain_text() == "DataVolume ns/fedora -> DataSource os-images/fedora -> labels"
    gone = resolve_volume(vm([DV_VOLUME]), "disk", "instancetype", Cluster({}))
    assert gone.chain_text() == "DataVolume ns/dv (not found) -> PersistentVolumeClaim ns/dv (not found)"
    unlabelled = resolve_volume(
        vm([PVC_VOLUME]), "disk", "preference", Cluster({("PersistentVolumeClaim", "ns", "pvc"): obj()})
    )
    assert unlabelled.chain_text() == (
        "PersistentVolumeClaim ns/pvc -> unable to find required instancetype.kubevirt.io/default-preference label on the volume"
    )
    template = resolve_volume(
        vm([DV_VOLUME], templates=[dvt({"source": {"registry": {"url": "docker://x"}}})]),
        "disk",
        "preference",
        Cluster({}),
    )
    assert template.chain_text().startswith("DataVolumeTemplate ns/dv -> unable to infer defaults from DataVolumeSpec")


LABELLED = {("PersistentVolumeClaim", "ns", "pvc"): obj(BOTH)}
UNLABELLED = {("PersistentVolumeClaim", "ns", "pvc"): obj()}


def matcher(policy: str | None = None) -> dict[str, Any]:
    out = {"inferFromVolume": "disk"}
    if policy:
        out["inferFromVolumeFailurePolicy"] = policy
    return out


# (id, instancetype matcher, preference matcher, objects, expected spec.instancetype, spec.preference,
#  memory kept, error)
OUTCOMES = [
    ("success under Reject keeps memory", matcher(), matcher(), LABELLED,
     {"name": "u1.medium", "kind": "virtualmachineclusterinstancetype"}, {"name": "fedora"}, True, None),
    ("success under Ignore drops memory", matcher("Ignore"), matcher("Ignore"), LABELLED,
     {"name": "u1.medium", "kind": "virtualmachineclusterinstancetype"}, {"name": "fedora"}, False, None),
    ("explicit Reject is Reject", matcher("Reject"), None, LABELLED,
     {"name": "u1.medium", "kind": "virtualmachineclusterinstancetype"}, None, True, None),
    ("preference success under Ignore keeps memory", None, matcher("Ignore"), LABELLED, None, {"name": "fedora"}, True, None),
    ("ignorable failure under Ignore drops both matchers", matcher("Ignore"), matcher("Ignore"), UNLABELLED,
     None, None, True, None),
    ("ignorable failure under Reject denies", matcher(), matcher("Ignore"), UNLABELLED, matcher(), matcher("Ignore"), True,
     "unable to find required instancetype.kubevirt.io/default-instancetype label on the volume"),
    ("preference failure after instance type success", matcher("Ignore"), matcher(), {
        ("PersistentVolumeClaim", "ns", "pvc"): obj({IT: "u1.small"})},
     {"name": "u1.small"}, matcher(), False,
     "unable to find required instancetype.kubevirt.io/default-preference label on the volume"),
    ("not found denies even under Ignore", matcher("Ignore"), matcher("Ignore"), {}, matcher("Ignore"), matcher("Ignore"),
     True, 'persistentvolumeclaims "pvc" not found'),
    ("named matchers are left alone", {"name": "u1.small"}, {"name": "fedora", "kind": "virtualmachinepreference"}, {},
     {"name": "u1.small"}, {"name": "fedora", "kind": "virtualmachinepreference"}, True, None),
    ("revisionName and policy are dropped on success", {**matcher("Ignore"), "revisionName": "r1"}, None, LABELLED,
     {"name": "u1.medium", "kind": "virtualmachineclusterinstancetype"}, None, False, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("instancetype", "preference", "objects", "want_it", "want_pref", "memory", "error"),
    [c[1:] for c in OUTCOMES],
    ids=[c[0] for c in OUTCOMES],
)
def test_resolve_matchers(instancetype, preference, objects, want_it, want_pref, memory, error):
    machine = vm([PVC_VOLUME], instancetype=instancetype, preference=preference)
    before = copy.deepcopy(machine)
    result = resolve_matchers(machine, Cluster(objects))
    assert machine == before
    assert result.error == error
    assert result.vm["spec"].get("instancetype") == want_it
    assert result.vm["spec"].get("preference") == want_pref
    assert ("memory" in result.vm["spec"]["template"]["spec"]["domain"]) is memory


def test_memory_removed_entirely_under_ignore():
    machine = vm([PVC_VOLUME], instancetype=matcher("Ignore"))
    machine["spec"]["template"]["spec"]["domain"]["memory"] = {
        "guest": "1Gi",
        "hugepages": {"pageSize": "2Mi"},
        "maxGuest": "2Gi",
    }
    result = resolve_matchers(machine, Cluster(LABELLED))
    assert "memory" not in result.vm["spec"]["template"]["spec"]["domain"]
    assert [o.action for o in result.outcomes] == ["inferred"]


def test_outcomes_report_actions():
    result = resolve_matchers(
        vm([PVC_VOLUME], instancetype=matcher("Ignore"), preference={"name": "x"}), Cluster(UNLABELLED)
    )
    assert [(o.matcher, o.volume, o.policy, o.action) for o in result.outcomes] == [
        ("instancetype", "disk", "Ignore", "dropped"),
        ("preference", "", "", "given"),
    ]
    assert result.outcomes[0].resolution is not None and result.outcomes[0].resolution.ignorable


def test_preference_not_evaluated_after_instancetype_denial():
    cluster = Cluster({})
    result = resolve_matchers(vm([PVC_VOLUME], instancetype=matcher(), preference=matcher()), cluster)
    assert result.error == 'persistentvolumeclaims "pvc" not found'
    assert len(cluster.calls) == 1
    assert [o.action for o in result.outcomes] == ["rejected"]


VALIDATION = [
    ({"kind": "virtualmachineinstancetype"}, None, "Either Name or InferFromVolume should be provided within the InstancetypeMatcher"),
    ({"inferFromVolume": "disk", "name": "x", "kind": "k"}, None,
     "Name already set, should be cleared before setting inferFromVolume, Kind already set, should be cleared before setting inferFromVolume"),
    (None, {"inferFromVolume": "disk", "inferFromVolumeFailurePolicy": "Sometimes"},
     "Invalid value 'Sometimes' for InferFromVolumeFailurePolicy"),
    (None, {}, "Either Name or InferFromVolume should be provided within the PreferenceMatcher"),
    ({"inferFromVolume": "disk", "name": "x"}, {}, "Name already set, should be cleared before setting inferFromVolume"),
]  # fmt: skip


@pytest.mark.parametrize(("instancetype", "preference", "message"), VALIDATION)
def test_matcher_validation(instancetype, preference, message):
    cluster = Cluster(LABELLED)
    result = resolve_matchers(vm([PVC_VOLUME], instancetype=instancetype, preference=preference), cluster)
    assert (result.error, result.error_reason) == (message, "Invalid")
    assert cluster.calls == []


@pytest.mark.parametrize(
    ("kind", "objects", "expected", "calls"),
    [
        ("PersistentVolumeClaim", {("PersistentVolumeClaim", "ns", "x"): obj(BOTH)}, "u1.medium", 1),
        ("VolumeSnapshot", {("VolumeSnapshot", "ns", "x"): obj(BOTH)}, "u1.medium", 1),
        ("DataSource", {("DataSource", "ns", "x"): obj(None, {"source": {"pvc": {"name": "p", "namespace": "o"}}}),
                        ("PersistentVolumeClaim", "o", "p"): obj(BOTH)}, "u1.medium", 2),
        ("DataVolume", {("PersistentVolumeClaim", "ns", "x"): obj(BOTH)}, "u1.medium", 2),
        ("DataVolume", {("DataVolume", "ns", "x"): obj(BOTH)}, "u1.medium", 1),
    ],
)  # fmt: skip
def test_resolve_object(kind, objects, expected, calls):
    cluster = Cluster(objects)
    resolution = resolve_object(kind, "ns", "x", "instancetype", cluster)
    assert resolution.name == expected
    assert len(cluster.calls) == calls


def test_resolve_object_rejects_other_kinds():
    with pytest.raises(ValueError, match="^cannot infer from a ConfigMap$"):
        resolve_object("ConfigMap", "ns", "x", "instancetype", Cluster({}))


label_values = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-", max_size=20)


@given(
    labels=st.dictionaries(st.sampled_from([IT, IT_KIND, PREF, PREF_KIND, "other"]), label_values),
    policy=st.sampled_from([None, "Ignore", "Reject"]),
)
def test_labels_property(labels, policy):
    """Whatever the labels, a PVC either yields exactly its labels or KubeVirt's missing-label error, and the
    policy decides between dropping the matcher and denying admission."""
    machine = vm([PVC_VOLUME], instancetype=matcher(policy), preference=matcher(policy))
    result = resolve_matchers(machine, Cluster({("PersistentVolumeClaim", "ns", "pvc"): obj(labels)}))
    for name in ("instancetype", "preference"):
        name_label, kind_label = infer.MATCHERS[name]
        got = result.vm["spec"].get(name)
        if name_label in labels:
            want = {k: v for k, v in (("name", labels[name_label]), ("kind", labels.get(kind_label, ""))) if v}
            if result.error is None or name == "instancetype":
                assert got == want
        elif policy == "Ignore":
            assert got is None
        else:
            assert result.error == f"unable to find required {name_label} label on the volume"
            break


def test_lines_for_create_vm() -> None:
    from kubectl_instancetype.usecases.infer_resolve import dropped_warnings, resolved_lines

    labelled = {("PersistentVolumeClaim", "ns", "pvc"): obj({IT: "u1.medium", PREF_KIND: "x"})}
    result = resolve_matchers(
        vm([PVC_VOLUME], instancetype=matcher("Ignore"), preference=matcher("Ignore")), Cluster(labelled)
    )
    assert resolved_lines(result) == [
        "instancetype: u1.medium (virtualmachineclusterinstancetype) from volume disk: PersistentVolumeClaim ns/pvc -> labels"
    ]
    assert dropped_warnings(result) == [
        "preference: unable to find required instancetype.kubevirt.io/default-preference label on the volume; with "
        "inferFromVolumeFailurePolicy Ignore the server drops spec.preference and creates the VirtualMachine without a "
        "preference"
    ]


# ---- KubeVirt before v1.9: no VolumeSnapshot is followed (pkg/instancetype/infer/volume.go at v1.8.0) --------


def test_before_v1_9_a_snapshot_source_is_unsupported_and_never_read() -> None:
    cluster = Cluster({("VolumeSnapshot", "ns", "snap"): obj(BOTH)})
    template = {"metadata": {"name": "root"}, "spec": {"source": {"snapshot": {"name": "snap", "namespace": "ns"}}}}
    machine = vm([{"name": "root", "dataVolume": {"name": "root"}}], templates=[template])
    machine["metadata"]["namespace"] = "ns"
    older = resolve_volume(machine, "root", "instancetype", cluster, snapshots=lambda: False)
    assert (older.error, older.ignorable) == (infer.UNSUPPORTED_DATA_VOLUME_SOURCE, True)
    assert cluster.calls == []
    newer = resolve_volume(machine, "root", "instancetype", cluster)
    assert (newer.name, newer.error) == ("u1.medium", None)


def test_before_v1_9_a_data_source_without_pvc_fails_with_the_older_message() -> None:
    cluster = Cluster(
        {("DataSource", "ns", "ds"): obj({}, {"source": {"snapshot": {"name": "snap", "namespace": "ns"}}})}
    )
    older = resolve_object("DataSource", "ns", "ds", "instancetype", cluster, snapshots=lambda: False)
    assert (older.error, older.ignorable) == (infer.MISSING_DATA_SOURCE_PVC, True)
    asked = []
    resolve_object("DataSource", "ns", "ds", "instancetype", cluster, snapshots=lambda: asked.append(1) or True)
    assert asked == [1]
