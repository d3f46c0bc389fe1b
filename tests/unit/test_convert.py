"""``instancetype.convert``: the conversion rules and the preset mechanism's merge semantics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_instancetype.errors import InputError
from kubectl_instancetype.instancetype import convert as c
from kubectl_instancetype.instancetype.convert.cpu import topology_for
from kubectl_instancetype.instancetype.convert.report import merge_conflicts, merge_domain
from kubectl_instancetype.instancetype.convert.schema import PREFERENCE_FIELDS, TOPOLOGY_RENAMES
from kubectl_instancetype.instancetype.expand.topology import guest_topology


def one(obj: dict, **kwargs) -> tuple[list[dict], list[str]]:
    result = c.convert([obj], **kwargs)
    return result.objects, result.warnings


def alpha_preference(spec: dict, version: str = "instancetype.kubevirt.io/v1alpha1") -> dict:
    return {"apiVersion": version, "kind": "VirtualMachinePreference", "metadata": {"name": "p"}, "spec": spec}


def test_unknown_kind_is_an_error_naming_the_object() -> None:
    with pytest.raises(InputError) as info:
        c.convert([{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}])
    assert info.value.message.startswith('cannot convert Deployment "web" (apps/v1): convert reads')


def test_instancetype_group_kinds_outside_the_api_are_unknown() -> None:
    with pytest.raises(InputError) as caught:
        c.convert([{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineFlavor"}])
    assert str(caught.value) == (
        'cannot convert VirtualMachineFlavor "" (instancetype.kubevirt.io/v1alpha1): convert reads '
        "flavor.kubevirt.io/v1alpha1 flavors and preferences, instancetype.kubevirt.io instance types and "
        "preferences, kubevirt.io VirtualMachines and VirtualMachineInstancePresets"
    )


# ---------------------------------------------------------------------------------------------- alpha objects


@pytest.mark.parametrize("old,new", sorted(TOPOLOGY_RENAMES.items()))
@pytest.mark.parametrize(
    "version", ["flavor.kubevirt.io/v1alpha1", "instancetype.kubevirt.io/v1alpha2", "instancetype.kubevirt.io/v1beta1"]
)
def test_deprecated_topologies_get_their_short_names(old: str, new: str, version: str) -> None:
    objects, warnings = one(alpha_preference({"cpu": {"preferredCPUTopology": old}}, version))
    assert objects[0]["spec"] == {"cpu": {"preferredCPUTopology": new}}
    assert objects[0]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert warnings == []


def test_unknown_topology_is_reported_not_copied() -> None:
    objects, warnings = one(alpha_preference({"cpu": {"preferredCPUTopology": "preferNuma"}}))
    assert objects[0]["spec"] == {"cpu": {}}
    assert warnings == [
        "VirtualMachinePreference p: spec.cpu.preferredCPUTopology: unknown preferredCPUTopology preferNuma; "
        "not converted"
    ]


def test_alpha_instancetype_unset_values_stay_unset() -> None:
    """v1alpha1 "" / false meant unset; as v1beta1 pointers they would become settings (and VM conflicts)."""
    obj = {
        "apiVersion": "instancetype.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "t"},
        "spec": {
            "cpu": {"guest": 2, "model": "", "dedicatedCPUPlacement": False, "isolateEmulatorThread": False},
            "memory": {"guest": "1Gi"},
        },
    }
    objects, warnings = one(obj)
    assert objects[0]["spec"] == {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}}
    assert warnings == []


def test_unknown_fields_are_named_at_their_depth() -> None:
    objects, warnings = one(
        alpha_preference({"devices": {"preferredDiskBus": "sata", "preferredFloppy": True}, "x": 1})
    )
    assert objects[0]["spec"] == {"devices": {"preferredDiskBus": "sata"}}
    assert warnings == [
        "VirtualMachinePreference p: spec.devices.preferredFloppy: true has no field in "
        "instancetype.kubevirt.io/v1beta1; not converted",
        "VirtualMachinePreference p: spec.x: 1 has no field in instancetype.kubevirt.io/v1beta1; not converted",
    ]


KNOWN_PREFERENCE_FIELDS = [
    (section, child) for section, children in PREFERENCE_FIELDS.items() for child in sorted(children or ())
]


@given(
    known=st.lists(st.sampled_from(KNOWN_PREFERENCE_FIELDS), unique=True, max_size=8),
    unknown=st.lists(st.text("abcdefXYZ", min_size=3, max_size=8), unique=True, max_size=3),
)
def test_every_preference_field_is_converted_or_reported(known: list, unknown: list) -> None:
    spec: dict = {}
    for section, child in known:
        spec.setdefault(section, {})[child] = "virtio"
    for name in unknown:
        spec.setdefault("devices", {})[f"preferred{name}"] = True
    spec.get("cpu", {}).pop("preferredCPUTopology", None)  # has its own rules, tested above
    objects, warnings = one(alpha_preference(spec))
    out = objects[0]["spec"]
    rewritten = {("firmware", "preferredUseEfi"), ("firmware", "preferredUseSecureBoot")}  # lint's fixes
    for section, child in known:
        if (section, child) in rewritten:
            assert child not in out[section]
        elif section != "cpu" or child != "preferredCPUTopology":
            assert out[section][child] == "virtio"
    for name in unknown:
        assert any(f"spec.devices.preferred{name}:" in warning for warning in warnings)
    assert len([warning for warning in warnings if "is deprecated: written as" not in warning]) == len(unknown)


def test_server_metadata_is_dropped_and_references_reported() -> None:
    obj = alpha_preference({})
    obj["metadata"].update(
        uid="u",
        resourceVersion="1",
        ownerReferences=[{"kind": "X"}],
        annotations={"kubectl.kubernetes.io/last-applied-configuration": "{}", "keep": "me"},
    )
    objects, warnings = one(obj)
    assert objects[0]["metadata"] == {"name": "p", "annotations": {"keep": "me"}}
    assert warnings == ["VirtualMachinePreference p: metadata.ownerReferences refers to the old object; not converted"]


def test_instancetype_without_memory_needs_the_flag() -> None:
    obj = {
        "apiVersion": "flavor.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineFlavor",
        "metadata": {"name": "f"},
        "spec": {"cpu": {"guest": 1}},
    }
    with pytest.raises(InputError) as info:
        one(obj)
    assert info.value.message == (
        "VirtualMachineFlavor f: spec.memory.guest is required by instancetype.kubevirt.io/v1beta1: give it with --memory"
    )
    objects, _ = one(obj, default_memory="512Mi")
    assert objects[0]["spec"]["memory"] == {"guest": "512Mi"}


def test_profile_flavor_needs_memory() -> None:
    obj = {
        "apiVersion": "flavor.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineFlavor",
        "metadata": {"name": "f"},
        "profiles": [{"name": "a", "cpu": {"sockets": 2}}],
    }
    with pytest.raises(InputError, match="has no memory"):
        one(obj)


# ---------------------------------------------------------------------------------------------- VMs


def vm(spec: dict, api: str = "kubevirt.io/v1alpha3") -> dict:
    return {"apiVersion": api, "kind": "VirtualMachine", "metadata": {"name": "vm"}, "spec": spec, "status": {"x": 1}}


@pytest.mark.parametrize(
    "kind,new_kind",
    [
        ("VirtualMachineFlavor", "VirtualMachineInstancetype"),
        ("VirtualMachineClusterFlavor", "VirtualMachineClusterInstancetype"),
        ("", None),
    ],
)
def test_vm_flavor_matcher_becomes_instancetype(kind: str, new_kind: str | None) -> None:
    objects, warnings = one(vm({"flavor": {"name": "small", "kind": kind}, "running": False}))
    expected = {"name": "small"} | ({"kind": new_kind} if new_kind else {})
    assert objects[0] == {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm"},
        "spec": {"instancetype": expected, "runStrategy": "Halted"},
    }
    assert warnings == []


def test_vm_with_flavor_and_instancetype_keeps_the_instancetype() -> None:
    objects, warnings = one(vm({"flavor": {"name": "old"}, "instancetype": {"name": "new"}}))
    assert objects[0]["spec"] == {"instancetype": {"name": "new"}}
    assert warnings == [
        "VirtualMachine vm: spec.flavor: the VM also has spec.instancetype, which is kept; spec.flavor not converted"
    ]


def test_vm_without_profile_and_a_flavor_without_default() -> None:
    flavor = {
        "apiVersion": "flavor.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineClusterFlavor",
        "metadata": {"name": "std"},
        "profiles": [{"name": "a", "cpu": {"sockets": 1}}, {"name": "b", "cpu": {"sockets": 2}}],
    }
    result = c.convert([flavor, vm({"flavor": {"name": "std"}})], default_memory="1Gi")
    assert [obj["metadata"]["name"] for obj in result.objects] == ["std.a", "std.b", "vm"]
    assert result.warnings == [
        "VirtualMachine vm: spec.flavor: flavor std has no default profile; referencing instance type std"
    ]


def test_instancetype_matcher_revision_is_kept_with_a_warning() -> None:
    objects, warnings = one(vm({"instancetype": {"name": "it", "revisionName": "r1"}}, api="kubevirt.io/v1"))
    assert objects[0]["spec"]["instancetype"] == {"name": "it", "revisionName": "r1"}
    assert warnings[0].startswith("VirtualMachine vm: spec.instancetype.revisionName: r1 kept;")


def test_vm_profile_without_its_flavor_is_named_and_reported() -> None:
    objects, warnings = one(vm({"flavor": {"name": "std", "profile": "big"}}))
    assert objects[0]["spec"]["instancetype"] == {"name": "std.big"}
    assert "assuming instance type std.big" in warnings[0]


# ---------------------------------------------------------------------------------------------- topology


@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 8))
def test_topology_reproduces_the_preset_layout(sockets: int, cores: int, threads: int) -> None:
    counts = {key: value for key, value in (("sockets", sockets), ("cores", cores), ("threads", threads)) if value > 1}
    topology = topology_for(counts)
    if not counts:
        assert topology is None  # one vCPU: every topology gives 1/1/1, nothing to say
        return
    if topology is None:
        # Only layouts KubeVirt cannot express are refused: sockets x threads, or threads other than 2 in a mix.
        assert (sockets > 1 and threads > 1 and cores == 1) or (threads not in (1, 2) and len(counts) > 1)
        return
    assert guest_topology(sockets * cores * threads, {"cpu": topology}) == (sockets, cores, threads)


# ---------------------------------------------------------------------------------------------- presets


def preset(domain: dict, name: str = "p", selector: dict | None = None) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstancePreset",
        "metadata": {"name": name},
        "spec": {"selector": selector or {}, "domain": domain},
    }


def test_windows_preset_features_become_preferred_features() -> None:
    hyperv = {"relaxed": {}, "vapic": {}, "spinlocks": {"spinlocks": 8191}}
    objects, warnings = one(preset({"features": {"acpi": {}, "apic": {}, "hyperv": hyperv}}))
    assert objects == [
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": "p"},
            "spec": {"features": {"preferredAcpi": {}, "preferredApic": {}, "preferredHyperv": hyperv}},
        }
    ]
    assert warnings == [
        "VirtualMachineInstancePreset p: spec.domain.features.acpi: the preference's preferredAcpi overrides a VM's "
        "own setting (KubeVirt applies it unconditionally); the preset left VMs that set it alone"
    ]


def test_preset_with_cpu_and_memory_yields_an_instance_type() -> None:
    objects, _ = one(preset({"cpu": {"cores": 2, "threads": 2}, "memory": {"guest": "4Gi"}}))
    assert [obj["kind"] for obj in objects] == ["VirtualMachinePreference", "VirtualMachineInstancetype"]
    assert objects[0]["spec"] == {
        "cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "CoresThreads", "ratio": 2}}
    }
    assert objects[1]["spec"] == {"cpu": {"guest": 4}, "memory": {"guest": "4Gi"}}


def test_preset_cpu_quantity_counts_vcpus_rounded_up() -> None:
    objects, warnings = one(preset({"resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}}}))
    assert objects[-1]["spec"] == {"cpu": {"guest": 2}, "memory": {"guest": "1Gi"}}
    assert warnings == [
        "VirtualMachineInstancePreset p: spec.domain.resources.requests.cpu: 1500m: the instance type gives 2 vCPUs "
        "(cpu.guest) and sets no CPU request or limit",
        "VirtualMachineInstancePreset p: no preference-like settings; no VirtualMachinePreference written",
    ]


def test_preset_bios_firmware() -> None:
    objects, warnings = one(preset({"firmware": {"bootloader": {"bios": {"useSerial": True}}}}))
    assert objects[0]["spec"] == {"firmware": {"preferredUseBios": True, "preferredUseBiosSerial": True}}
    assert warnings == []


def test_preset_disks_with_different_buses_are_reported() -> None:
    disks = [{"name": "a", "disk": {"bus": "virtio"}}, {"name": "b", "disk": {"bus": "sata"}}]
    objects, warnings = one(preset({"devices": {"disks": disks}, "machine": {"type": "q35"}}))
    assert "preferredDiskBus" not in objects[0]["spec"].get("devices", {})
    assert any("spec.domain.devices.disks:" in warning for warning in warnings)


DEFAULT_FEATURES = {"cpu": {"cores": 4}}


@pytest.mark.parametrize(
    "vmi,conflicts,applied",
    [
        ({"cpu": {"cores": 6}}, ['spec.cpu: {"cores":4} != {"cores":6}'], False),
        ({"cpu": {"cores": 4}}, [], True),
        ({}, [], True),
        ({"cpu": {"cores": 4, "sockets": 1}}, ['spec.cpu: {"cores":4} != {"cores":4,"sockets":1}'], False),
    ],
)
def test_default_features_merge(vmi: dict, conflicts: list, applied: bool) -> None:
    assert merge_conflicts(DEFAULT_FEATURES, vmi) == conflicts
    assert merge_domain(DEFAULT_FEATURES, vmi) is applied


def test_requests_compare_as_quantities() -> None:
    preset_domain = {"resources": {"requests": {"memory": "1Gi"}}}
    assert merge_conflicts(preset_domain, {"resources": {"requests": {"memory": "1024Mi"}}}) == []
    assert merge_conflicts(preset_domain, {"resources": {"requests": {"memory": "1G"}}}) == [
        "spec.resources.requests[memory]: 1Gi != 1G"
    ]
    assert merge_domain(preset_domain, {"resources": {"requests": {"memory": "1024Mi"}}}) is True


def test_requests_of_another_resource_are_skipped_silently_as_kubevirt_did() -> None:
    """A VMI with its own requests map gets none of the preset's, and no conflict names it."""
    vmi = {"resources": {"requests": {"cpu": "1"}}}
    preset_domain = {"resources": {"requests": {"memory": "1Gi"}}}
    assert merge_conflicts(preset_domain, vmi) == []
    assert merge_domain(preset_domain, vmi) is False


def test_clock_offset_and_timer() -> None:
    preset_domain = {"clock": {"utc": {}, "timer": {"hpet": {"present": False}}}}
    assert merge_domain(preset_domain, {}) is True
    assert merge_conflicts(preset_domain, {"clock": {"timezone": "Europe/Rome"}}) == [
        'spec.clock.clockoffset: {"utc":{}} != {"timezone":"Europe/Rome"}'
    ]


def report(presets: list[dict], vms: list[dict]) -> list[str]:
    return c.report_presets(c.convert(presets).presets, vms)


def vm_with(labels: dict, domain: dict | None = None, **spec) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm"},
        "spec": {"template": {"metadata": {"labels": labels}, "spec": {"domain": domain or {}}}, **spec},
    }


def test_report_uses_the_template_labels_not_the_vm_labels() -> None:
    machine = vm_with({"os": "win"})
    machine["metadata"]["labels"] = {"os": "linux"}
    lines = report([preset({"features": {"acpi": {}}}, selector={"matchLabels": {"os": "win"}})], [machine])
    assert lines[0] == "VirtualMachineInstancePreset p matches vm"


def test_report_partial_application() -> None:
    domain = {"features": {"acpi": {}}, "cpu": {"cores": 2}}
    lines = report([preset(domain)], [vm_with({}, {"cpu": {"cores": 1}})])
    assert lines[1] == (
        "VirtualMachine vm: Some settings were not applied for VirtualMachineInstancePreset 'p': "
        'spec.cpu: {"cores":2} != {"cores":1}'
    )
    assert lines[2].startswith("VirtualMachine vm: should reference VirtualMachinePreference p")


def test_report_vm_with_its_own_preference() -> None:
    lines = report([preset({"features": {"acpi": {}}})], [vm_with({}, preference={"name": "windows"})])
    assert lines[-1] == (
        "VirtualMachine vm: already references VirtualMachineClusterPreference windows: "
        "merge VirtualMachinePreference p into it"
    )


def test_report_two_applied_presets() -> None:
    presets = [preset({"features": {"acpi": {}}}, "a"), preset({"machine": {"type": "q35"}, "cpu": {"cores": 2}}, "b")]
    lines = report(presets, [vm_with({})])
    assert lines[-1] == "VirtualMachine vm: a VM references one preference: merge a, b into one and reference it"


def test_report_instance_type_only_for_vms_without_their_own_size() -> None:
    sized = preset({"cpu": {"cores": 2}, "memory": {"guest": "1Gi"}})
    lines = report([sized], [vm_with({}, {"memory": {"guest": "2Gi"}})])
    assert lines[-1].endswith("it sets CPU or memory itself, so instance type p would conflict")
    lines = report([sized], [vm_with({})])
    assert lines[-1] == (
        "VirtualMachine vm: should reference VirtualMachinePreference p (spec.preference: {kind: "
        "VirtualMachinePreference, name: p}) and VirtualMachineInstancetype p (spec.instancetype: {kind: "
        "VirtualMachineInstancetype, name: p})"
    )


def test_report_refuses_other_kinds() -> None:
    with pytest.raises(InputError) as info:
        report([preset({"features": {"acpi": {}}})], [{"kind": "Pod", "metadata": {"name": "x"}}])
    assert info.value.message == 'cannot match presets against Pod "x": give VirtualMachines or VirtualMachineInstances'


def test_report_names_settings_the_preference_would_override() -> None:
    domain = {"cpu": {"cores": 2}, "features": {"acpi": {}}}
    own = {"cpu": {"cores": 2}, "features": {"acpi": {"enabled": False}}}
    lines = report([preset(domain)], [vm_with({}, own)])
    assert lines[1] == (
        "VirtualMachine vm: Some settings were not applied for VirtualMachineInstancePreset 'p': "
        'spec.features: {"acpi":{}} != {"acpi":{"enabled":false}}'
    )
    assert lines[2].endswith('; the preference would override its features.acpi ({"enabled":false} -> {})')


def test_fields_only_reported_are_not_called_converted() -> None:
    objects, warnings = one(preset({"memory": {"guest": "1Gi"}, "machine": {"type": "q35"}}))
    assert objects[0]["spec"] == {"machine": {"preferredMachineType": "q35"}}
    assert warnings == [
        "VirtualMachineInstancePreset p: spec.domain.memory.guest: 1Gi: a preference cannot fix memory and the preset "
        "fixes no vCPU count for an instance type; not converted",
        "VirtualMachineInstancePreset p: spec.domain.machine: never applied by KubeVirt's preset mechanism; the "
        "converted objects will apply it",
    ]


def test_layout_without_a_topology_is_reported() -> None:
    objects, warnings = one(preset({"cpu": {"sockets": 2, "threads": 2}, "memory": {"guest": "1Gi"}}))
    assert objects[-1]["spec"]["cpu"] == {"guest": 4}
    assert warnings == [
        "VirtualMachineInstancePreset p: spec.domain.cpu: no preferredCPUTopology gives the layout sockets 2, "
        "threads 2; the instance type's vCPUs become sockets",
        "VirtualMachineInstancePreset p: spec.domain.memory: never applied by KubeVirt's preset mechanism; the "
        "converted objects will apply it",
        "VirtualMachineInstancePreset p: no preference-like settings; no VirtualMachinePreference written",
    ]


PRESET_LEAVES = [
    (("cpu", "cores"), 7),
    (("cpu", "sockets"), 3),
    (("cpu", "threads"), 2),
    (("cpu", "model"), "Haswell-noTSX"),
    (("cpu", "features"), [{"name": "pcid-x", "policy": "require"}]),
    (("memory", "guest"), "1536Mi"),
    (("resources", "requests", "memory"), "2560Mi"),
    (("resources", "requests", "cpu"), "2500m"),
    (("resources", "limits", "cpu"), "5"),
    (("features", "acpi"), {"enabled": False}),
    (("features", "hyperv", "relaxed"), {"enabled": True}),
    (("features", "smm", "enabled"), True),
    (("features", "hypervPassthrough", "enabled"), True),
    (("firmware", "bootloader", "bios", "useSerial"), True),
    (("firmware", "serial", "x"), "serial-77"),
    (("firmware", "uuid"), "uuid-77"),
    (("clock", "utc", "offsetSeconds"), 77),
    (("clock", "timer", "hpet", "present"), False),
    (("machine", "type"), "pc-q35-77"),
    (("devices", "autoattachGraphicsDevice"), False),
    (("devices", "watchdog", "name"), "wd-77"),
    (("devices", "rng"), {}),
    (("devices", "sound", "name"), "snd-77"),
    (("devices", "video", "type"), "virtio-77"),
    (("devices", "disks"), [{"name": "d-77", "disk": {"bus": "sata"}}]),
    (("ioThreadsPolicy",), "auto"),
    (("chassis", "asset"), "asset-77"),
]


@given(st.lists(st.sampled_from(range(len(PRESET_LEAVES))), unique=True, min_size=1, max_size=10))
def test_every_preset_field_is_converted_or_reported(indexes: list[int]) -> None:
    """Nothing in a preset domain disappears: each field lands in an output object or a warning names it."""
    import json

    domain: dict = {}
    for index in indexes:
        path, value = PRESET_LEAVES[index]
        node = domain
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    objects, warnings = one(preset(domain))
    output = json.dumps([obj["spec"] for obj in objects])
    for index in indexes:
        path, value = PRESET_LEAVES[index]
        # A warning names the field itself (or, for a whole list or section, the parent it reports).
        candidates = {".".join(path[:depth]) for depth in range(min(2, len(path)), len(path) + 1)}
        named = any(f"spec.domain.{candidate}:" in warning for warning in warnings for candidate in candidates)
        # vCPU counts are folded into cpu.guest (or a topology), so their own value need not appear.
        kept = json.dumps(value) in output or (path[0] == "cpu" and path[1] in ("sockets", "cores", "threads"))
        assert named or kept, (path, value, warnings, output)


def test_the_input_objects_are_left_as_they_were() -> None:
    """convert copies the types and presets it edits and only reads VMs (which it does not copy): nothing the
    caller passed changes, even where the YAML reader handed two VMs the same aliased object."""
    import copy

    from kubectl_instancetype.usecases.manifests import read_manifests
    from tests.conftest import CONVERT_GOLDEN

    for case in sorted(path for path in CONVERT_GOLDEN.iterdir() if path.is_dir()):
        source = next(case.glob("input.*"))
        objects = read_manifests(str(source), None)
        vms = read_manifests(str(case / "vms.yaml"), None) if (case / "vms.yaml").exists() else []
        before = copy.deepcopy([objects, vms])
        conversion = c.convert(objects + vms, default_memory="1Gi")
        if conversion.presets:
            c.report_presets(conversion.presets, conversion.vms)
        assert [objects, vms] == before, case.name
    shared_spec = {"flavor": {"name": "small"}, "template": {"spec": {"domain": {"cpu": {"cores": 2}}}}}
    vms = [
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": f"vm-{i}"}, "spec": shared_spec}
        for i in range(2)
    ]
    before = copy.deepcopy(vms)
    c.convert(vms)
    assert vms == before


@pytest.mark.parametrize(
    ("spec", "expected", "warning"),
    [
        ({"running": True}, {"runStrategy": "Always"}, None),
        ({"running": False}, {"runStrategy": "Halted"}, None),
        (
            {"running": True, "runStrategy": "Manual"},
            {"runStrategy": "Manual"},
            "VirtualMachine vm: spec.running: true dropped: spec.runStrategy Manual is kept",
        ),
        ({"runStrategy": "RerunOnFailure"}, {"runStrategy": "RerunOnFailure"}, None),
    ],
)
def test_running_becomes_run_strategy(spec: dict, expected: dict, warning: str | None) -> None:
    """kubevirt.io/api VirtualMachine.RunStrategy(): running true is Always, false Halted."""
    from kubectl_instancetype.instancetype.convert import convert

    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"}, "spec": spec}
    conversion = convert([vm])
    assert conversion.objects[0]["spec"] == expected
    assert conversion.warnings == ([warning] if warning else [])
