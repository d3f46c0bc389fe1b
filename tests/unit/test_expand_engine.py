"""Table tests of the expansion engine (kubectl_instancetype/instancetype/expand) on KubeVirt's own vectors and
messages (kubevirt.io/kubevirt pkg/instancetype/apply, pkg/instancetype/preference, their tests)."""

from __future__ import annotations

import copy

import pytest

from kubectl_instancetype.instancetype.expand import ClusterDefaults, expand_vm, lookup, preflight
from kubectl_instancetype.instancetype.expand.memory import overcommitted_request
from kubectl_instancetype.instancetype.expand.topology import check_spread, guest_topology


def _vm(template_spec: dict | None = None, *, instancetype: bool = True, preference: bool = True, **extra) -> dict:
    spec: dict = {"runStrategy": "Always", "template": {"spec": template_spec or {"domain": {"devices": {}}}}}
    if instancetype:
        spec["instancetype"] = {"name": "it"}
    if preference:
        spec["preference"] = {"name": "pref"}
    spec.update(extra)
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"}, "spec": spec}


def _it(guest: int = 2, memory: str = "2Gi", **extra) -> dict:
    return {"cpu": {"guest": guest}, "memory": {"guest": memory}, **extra}


def _spread(ratio: int | None = None, across: str | None = None) -> dict:
    options = {key: value for key, value in (("ratio", ratio), ("across", across)) if value is not None}
    return {"cpu": {"preferredCPUTopology": "spread", **({"spreadOptions": options} if options else {})}}


# --- 6.2 topology -------------------------------------------------------------------------------------------

SPREAD_VECTORS = [
    # (ratio, across, vCPUs, sockets, cores, threads)
    *[(None, None, n, s, 2, 1) for n, s in ((2, 1), (4, 2), (6, 3), (8, 4))],
    *[(3, None, n, n // 3, 3, 1) for n in (3, 6, 9, 12)],
    *[(4, None, n, n // 4, 4, 1) for n in (4, 8, 12, 16)],
    *[(2, "SocketsCoresThreads", n, n // 4, 2, 2) for n in (4, 8, 12, 16)],
    *[(3, "SocketsCoresThreads", n, n // 6, 3, 2) for n in (6, 12, 18, 24)],
    *[(4, "SocketsCoresThreads", n, n // 8, 4, 2) for n in (8, 16, 24, 32)],
    *[(None, "CoresThreads", n, 1, n // 2, 2) for n in (2, 4, 6, 8)],
]


@pytest.mark.parametrize(("ratio", "across", "vcpus", "sockets", "cores", "threads"), SPREAD_VECTORS)
def test_spread_topology_vectors(ratio, across, vcpus, sockets, cores, threads) -> None:
    assert guest_topology(vcpus, _spread(ratio, across)) == (sockets, cores, threads)


@pytest.mark.parametrize(
    ("topology", "expected"),
    [
        (None, (4, 1, 1)),
        ("sockets", (4, 1, 1)),
        ("preferSockets", (4, 1, 1)),
        ("any", (4, 1, 1)),
        ("preferAny", (4, 1, 1)),
        ("cores", (1, 4, 1)),
        ("preferCores", (1, 4, 1)),
        ("threads", (1, 1, 4)),
        ("preferThreads", (1, 1, 4)),
        ("spread", (2, 2, 1)),
        ("preferSpread", (2, 2, 1)),
    ],
)
def test_preferred_topologies(topology, expected) -> None:
    preference = {"cpu": {"preferredCPUTopology": topology}} if topology else {}
    assert guest_topology(4, preference) == expected
    assert guest_topology(1, preference) == (1, 1, 1)
    assert guest_topology(4, None) == (4, 1, 1)


def test_spread_ratio_from_deprecated_field_and_truncation() -> None:
    assert guest_topology(6, {"cpu": {"preferredCPUTopology": "spread"}, "preferSpreadSocketToCoreRatio": 3}) == (
        2,
        3,
        1,
    )
    assert guest_topology(6, {**_spread(ratio=4), "preferSpreadSocketToCoreRatio": 3}) == (1, 4, 1)
    # expand does not check divisibility: Go's truncating division can leave zero sockets
    assert guest_topology(3, _spread(ratio=4)) == (0, 4, 1)


@pytest.mark.parametrize(
    ("vcpus", "ratio", "across", "message"),
    [
        (
            3,
            2,
            "SocketsCores",
            "3 vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio "
            "or Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the preference",
        ),
        (
            5,
            2,
            "CoresThreads",
            "5 vCPUs provided by the instance type are not divisible by the number of threads per core 2",
        ),
        (
            6,
            2,
            "SocketsCoresThreads",
            "6 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and "
            "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 2",
        ),
        (
            5,
            1,
            "SocketsCoresThreads",
            "5 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and "
            "Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 1",
        ),
        (4, 2, "SocketsCores", None),
        (8, 2, "SocketsCoresThreads", None),
        (6, 2, "CoresThreads", None),
    ],
)
def test_spread_divisibility(vcpus, ratio, across, message) -> None:
    conflict = check_spread(_it(vcpus), _spread(ratio, across))
    if message is None:
        assert conflict is None
    else:
        assert conflict is not None
        assert (conflict.path, conflict.error()) == ("instancetype.spec.cpu.guest", message)
    # not spread, or no instance type: nothing to check
    assert check_spread(_it(3), {"cpu": {"preferredCPUTopology": "cores"}}) is None
    assert check_spread(None, _spread(2)) is None


# --- 6.3 memory --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("guest", "percent", "expected"),
    [
        ("4Gi", 50, "2Gi"),
        ("4Gi", 25, "3Gi"),
        ("4Gi", 10, "3865470464"),
        ("1Gi", 10, "966367616"),
        ("1Gi", 15, "912680576"),
        ("512Mi", 15, "456340288"),
        ("512Mi", 80, "107374176"),
        ("128Mi", 80, "26843544"),
        ("8Gi", 10, "7549747Ki"),
        ("2Gi", 25, "1536Mi"),
        ("4Gi", 100, "0"),
        ("1G", 10, "900M"),
        ("1G", 80, "199999984"),
        ("1000", 50, "500"),
        ("1e9", 50, "500e6"),
    ],
)
def test_overcommit_vectors(guest, percent, expected) -> None:
    assert overcommitted_request(guest, percent) == expected


def test_overcommit_sets_requests_and_keeps_guest() -> None:
    result = expand_vm(
        _vm(), _it(memory="4Gi", memory_extra=None) | {"memory": {"guest": "4Gi", "overcommitPercent": 50}}, None
    )
    domain = result.vm["spec"]["template"]["spec"]["domain"]
    assert domain["memory"]["guest"] == "4Gi"
    assert domain["resources"]["requests"]["memory"] == "2Gi"
    assert result.provenance["spec.template.spec.domain.resources.requests.memory"] == "instancetype"


# --- 6.1 conflicts -----------------------------------------------------------------------------------------

P = "spec.template.spec."


@pytest.mark.parametrize(
    ("template", "instancetype", "paths"),
    [
        ({"nodeSelector": {}}, {"nodeSelector": {"a": "b"}}, ["nodeSelector"]),
        ({"schedulerName": "x"}, {"schedulerName": "y"}, ["schedulerName"]),
        (
            {"domain": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}},
            {},
            ["domain.resources.requests.cpu", "domain.resources.limits.cpu"],
        ),
        (
            {"domain": {"cpu": {"sockets": 1, "cores": 2, "threads": 1}}},
            {},
            ["domain.cpu.sockets", "domain.cpu.cores", "domain.cpu.threads"],
        ),
        ({"domain": {"cpu": {"model": "host-model"}}}, {"cpu": {"model": "Haswell"}}, ["domain.cpu.model"]),
        (
            {"domain": {"cpu": {"dedicatedCpuPlacement": True}}},
            {"cpu": {"dedicatedCPUPlacement": False}},
            ["domain.cpu.dedicatedCPUPlacement"],
        ),
        (
            {"domain": {"cpu": {"isolateEmulatorThread": True}}},
            {"cpu": {"isolateEmulatorThread": True}},
            ["domain.cpu.isolateEmulatorThread"],
        ),
        ({"domain": {"cpu": {"numa": {}}}}, {"cpu": {"numa": {"guestMappingPassthrough": {}}}}, ["domain.cpu.numa"]),
        ({"domain": {"cpu": {"realtime": {}}}}, {"cpu": {"realtime": {}}}, ["domain.cpu.realtime"]),
        # memory: only the first hit, in KubeVirt's order
        (
            {"domain": {"memory": {"guest": "1Gi"}, "resources": {"requests": {"memory": "1Gi"}}}},
            {},
            ["domain.memory.guest"],
        ),
        (
            {"domain": {"memory": {"hugepages": {"pageSize": "2Mi"}}}},
            {"memory": {"hugepages": {"pageSize": "1Gi"}}},
            ["domain.memory.hugepages"],
        ),
        ({"domain": {"memory": {"maxGuest": "4Gi"}}}, {"memory": {"maxGuest": "8Gi"}}, ["domain.memory.maxGuest"]),
        (
            {"domain": {"resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "1Gi"}}}},
            {},
            ["domain.resources.requests.memory"],
        ),
        ({"domain": {"resources": {"limits": {"memory": "1Gi"}}}}, {}, ["domain.resources.limits.memory"]),
        (
            {"domain": {"ioThreads": {"supplementalPoolThreadCount": 1}}},
            {"ioThreads": {"supplementalPoolThreadCount": 2}},
            ["domain.ioThreads.supplementalPoolThreadCount"],
        ),
        ({"domain": {"ioThreadsPolicy": "auto"}}, {"ioThreadsPolicy": "shared"}, ["domain.ioThreadsPolicy"]),
        ({"domain": {"launchSecurity": {}}}, {"launchSecurity": {"sev": {}}}, ["domain.launchSecurity"]),
        ({"domain": {"devices": {"gpus": [{"name": "a"}]}}}, {"gpus": [{"name": "b"}]}, ["domain.devices.gpus"]),
        (
            {"domain": {"devices": {"hostDevices": [{"name": "a"}]}}},
            {"hostDevices": [{"name": "b"}]},
            ["domain.devices.hostDevices"],
        ),
        # every step reports, in KubeVirt's order
        (
            {"schedulerName": "x", "domain": {"cpu": {"cores": 2}, "memory": {"guest": "1Gi"}}},
            {"schedulerName": "y"},
            ["schedulerName", "domain.cpu.cores", "domain.memory.guest"],
        ),
    ],
)
def test_conflicts(template, instancetype, paths) -> None:
    spec = _it()
    for key, value in instancetype.items():
        spec[key] = {**spec.get(key, {}), **value} if key in ("cpu", "memory") else value
    result = expand_vm(_vm(template), spec, {"devices": {"preferredDiskBus": "virtio"}})
    full = [P + path for path in paths]
    assert result.vm is None
    assert [problem.path for problem in result.problems] == full
    assert [problem.error() for problem in result.problems] == [
        f"VM field(s) {path} conflicts with selected instance type" for path in full
    ]
    assert result.error == f"VM field(s) {', '.join(full)} conflicts with selected instance type"


def test_no_conflict_for_false_flags_and_same_annotation() -> None:
    template = {"domain": {"cpu": {"dedicatedCpuPlacement": False, "maxSockets": 2}}}
    vm = _vm(template)
    vm["spec"]["template"]["metadata"] = {"annotations": {"a": "1"}}
    result = expand_vm(vm, _it(annotations={"a": "1", "b": "2"}, cpu={"guest": 2, "maxSockets": 4}), None)
    assert result.ok
    assert result.vm["spec"]["template"]["metadata"]["annotations"] == {"a": "1", "b": "2"}
    assert result.vm["spec"]["template"]["spec"]["domain"]["cpu"]["maxSockets"] == 4  # overwritten, not a conflict


def test_annotation_conflict_path_has_no_base() -> None:
    vm = _vm()
    vm["spec"]["template"]["metadata"] = {"annotations": {"a": "1"}}
    result = expand_vm(vm, _it(annotations={"a": "2"}), None)
    assert result.error == "VM field(s) annotations.a conflicts with selected instance type"


def test_conflicts_stop_the_preference() -> None:
    result = expand_vm(
        _vm({"domain": {"cpu": {"sockets": 2}, "devices": {}}}), _it(), {"devices": {"preferredDiskBus": "sata"}}
    )
    assert result.vm is None and result.provenance == {}


# --- 6.5 preferences ---------------------------------------------------------------------------------------


def _template(result) -> dict:
    assert result.ok, result.error
    return result.vm["spec"]["template"]["spec"]


def test_preference_fills_only_unset_fields_with_acpi_and_hotplug_exceptions() -> None:
    template = {
        "domain": {
            "devices": {"disks": [{"name": "a", "disk": {"bus": "sata"}}, {"name": "b"}], "disableHotplug": False},
            "features": {"acpi": {"enabled": False}, "smm": {"enabled": False}},
            "machine": {"type": "pc"},
            "clock": {"timezone": "Europe/Prague"},
        },
        "volumes": [{"name": "a", "emptyDisk": {"capacity": "1Gi"}}, {"name": "b", "emptyDisk": {"capacity": "1Gi"}}],
        "terminationGracePeriodSeconds": 0,
    }
    preference = {
        "devices": {"preferredDiskBus": "virtio", "preferredDisableHotplug": True},
        "features": {"preferredAcpi": {}, "preferredSmm": {}},
        "machine": {"preferredMachineType": "q35-x"},
        "clock": {"preferredClockOffset": {"utc": {}}},
        "preferredTerminationGracePeriodSeconds": 180,
    }
    spec = _template(expand_vm(_vm(template, instancetype=False), None, preference))
    domain = spec["domain"]
    assert [d["disk"]["bus"] for d in domain["devices"]["disks"]] == ["sata", "virtio"]
    assert domain["devices"]["disableHotplug"] is True  # always overwritten
    assert domain["features"] == {"acpi": {}, "smm": {"enabled": False}}  # acpi always overwritten
    assert domain["machine"]["type"] == "pc"
    assert domain["clock"] == {"timezone": "Europe/Prague"}  # no partial merge
    assert spec["terminationGracePeriodSeconds"] == 0


def test_defaults_come_before_preferences() -> None:
    template = {"domain": {"devices": {}}, "volumes": [{"name": "root", "containerDisk": {"image": "img:41"}}]}
    preference = {
        "devices": {
            "preferredDiskBus": "virtio",
            "preferredInterfaceModel": "virtio",
            "preferredInterfaceMasquerade": {},
        }
    }
    result = expand_vm(_vm(template), _it(1, "1Gi"), preference)
    devices = _template(result)["domain"]["devices"]
    assert devices["disks"] == [{"name": "root", "disk": {"bus": "virtio"}}]
    # the default interface already has a binding: masquerade never applies to it
    assert devices["interfaces"] == [{"name": "default", "bridge": {}, "model": "virtio"}]
    assert result.provenance[P + "domain.devices.disks[0]"] == "default"
    assert result.provenance[P + "domain.devices.disks[0].disk.bus"] == "preference"
    assert result.provenance[P + "networks[0]"] == "default"


def test_masquerade_preference_on_a_pod_interface_without_binding() -> None:
    template = {
        "domain": {"devices": {"interfaces": [{"name": "pod"}, {"name": "other"}]}},
        "networks": [{"name": "pod", "pod": {}}, {"name": "other", "multus": {"networkName": "n"}}],
    }
    devices = _template(expand_vm(_vm(template), _it(), {"devices": {"preferredInterfaceMasquerade": {}}}))["domain"][
        "devices"
    ]
    assert devices["interfaces"] == [{"name": "pod", "masquerade": {}}, {"name": "other"}]


@pytest.mark.parametrize(
    ("firmware", "vm_bootloader", "expected"),
    [
        ({"preferredUseEfi": True, "preferredUseSecureBoot": True}, None, {"efi": {"secureBoot": True}}),
        ({"preferredEfi": {"persistent": True}, "preferredUseSecureBoot": True}, None, {"efi": {"persistent": True}}),
        (
            {"preferredUseBios": True, "preferredUseBiosSerial": True, "preferredUseEfi": True},
            None,
            {"bios": {"useSerial": True}},
        ),
        ({"preferredEfi": {"secureBoot": False}}, {"bios": {}}, {"bios": {}}),
        ({}, None, {}),
    ],
)
def test_firmware(firmware, vm_bootloader, expected) -> None:
    template = {"domain": {"devices": {}, **({"firmware": {"bootloader": vm_bootloader}} if vm_bootloader else {})}}
    spec = _template(expand_vm(_vm(template), _it(), {"firmware": firmware}))
    assert spec["domain"]["firmware"]["bootloader"] == expected


def test_panic_devices_and_cpu_features() -> None:
    template = {
        "domain": {
            "devices": {"panicDevices": [{}, {"model": "isa"}]},
            "cpu": {"features": [{"name": "vmx", "policy": "disable"}]},
        }
    }
    preference = {
        "devices": {"preferredPanicDeviceModel": "pvpanic"},
        "cpu": {"preferredCPUFeatures": [{"name": "vmx"}, {"name": "pcid"}]},
    }
    domain = _template(expand_vm(_vm(template, instancetype=False), None, preference))["domain"]
    assert domain["devices"]["panicDevices"] == [{"model": "pvpanic"}, {"model": "isa"}]
    assert domain["cpu"]["features"] == [{"name": "vmx", "policy": "disable"}, {"name": "pcid"}]


# --- 8.2 expansion and VMI defaults --------------------------------------------------------------------------


def test_vm_without_matchers_is_returned_unchanged() -> None:
    """Unchanged as KubeVirt returns it: the typed VM encoded again (the structs Go always writes added)."""
    vm = _vm({"domain": {"devices": {}}}, instancetype=False, preference=False)
    result = expand_vm(vm, None, None)
    template = {"metadata": {}, "spec": {"domain": {"devices": {}, "resources": {}}}}
    assert result.vm == {**vm, "spec": {**vm["spec"], "template": template}, "status": {}}
    assert result.provenance == {}


def test_matchers_and_status_refs_are_removed() -> None:
    vm = _vm()
    vm["status"] = {"instancetypeRef": {"name": "it"}, "preferenceRef": {"name": "pref"}, "ready": False}
    result = expand_vm(vm, _it(), {})
    assert "instancetype" not in result.vm["spec"] and "preference" not in result.vm["spec"]
    assert result.vm["status"] == {}  # ready: false is Go's omitempty zero value
    assert vm["spec"]["instancetype"] == {"name": "it"}  # the input is not changed


@pytest.mark.parametrize(
    ("arch", "machine"), [("amd64", "q35"), ("arm64", "virt"), ("s390x", "s390-ccw-virtio"), ("ppc64le", "q35")]
)
def test_machine_type_per_architecture(arch, machine) -> None:
    spec = _template(expand_vm(_vm(), _it(), None, defaults=ClusterDefaults(architecture=arch)))
    assert (spec["architecture"], spec["domain"]["machine"]["type"]) == (arch, machine)
    preferred = _template(expand_vm(_vm(), _it(), {"preferredArchitecture": "arm64"}))
    assert (preferred["architecture"], preferred["domain"]["machine"]["type"]) == ("arm64", "virt")
    override = _template(expand_vm(_vm(), _it(), None, defaults=ClusterDefaults(machine_type="pc-q35-9")))
    assert override["domain"]["machine"]["type"] == "pc-q35-9"


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("quay.io/f:latest", "Always"),
        ("quay.io/f", "Always"),
        ("quay.io/f:41", "IfNotPresent"),
        ("f@sha256:00", "IfNotPresent"),
    ],
)
def test_container_disk_pull_policy(image, policy) -> None:
    template = {"domain": {"devices": {}}, "volumes": [{"name": "c", "containerDisk": {"image": image}}]}
    assert _template(expand_vm(_vm(template), _it(), None))["volumes"][0]["containerDisk"]["imagePullPolicy"] == policy


def test_defaults_without_instancetype() -> None:
    template = {"domain": {"devices": {}, "resources": {"limits": {"cpu": "3", "memory": "1536Mi"}}}}
    spec = _template(expand_vm(_vm(template, instancetype=False), None, {}))
    domain = spec["domain"]
    assert domain["resources"]["requests"] == {"cpu": "3"}
    assert domain["memory"] == {"guest": "1536Mi"}
    assert domain["cpu"] == {"sockets": 3, "cores": 1, "threads": 1}
    assert spec["evictionStrategy"] == "None"
    hugepages = _template(
        expand_vm(_vm({"domain": {"memory": {"hugepages": {"pageSize": "1Gi"}}}}, instancetype=False), None, {})
    )
    assert hugepages["domain"]["memory"]["guest"] == "1Gi"
    plain = _template(expand_vm(_vm(instancetype=False), None, {}))
    assert plain["domain"]["cpu"] == {"sockets": 1, "cores": 1, "threads": 1}


def test_cluster_defaults() -> None:
    defaults = ClusterDefaults(cpu_request="250m", eviction_strategy=None, network_interface="masquerade")
    spec = _template(expand_vm(_vm(), _it(), None, defaults=defaults))
    assert "evictionStrategy" not in spec
    assert spec["domain"]["devices"]["interfaces"] == [{"name": "default", "masquerade": {}}]
    # the instance type's CPU rules out VM CPU requests, but a cluster CPU request is a default, added after
    assert spec["domain"]["resources"]["requests"]["cpu"] == "250m"
    dedicated = _template(
        expand_vm(_vm(), _it(cpu={"guest": 2, "dedicatedCPUPlacement": True}), None, defaults=defaults)
    )
    assert "cpu" not in dedicated["domain"].get("resources", {}).get("requests", {})
    denied = expand_vm(_vm(), _it(), None, defaults=ClusterDefaults(permit_bridge_interface_on_pod_network=False))
    assert denied.vm is None and denied.error == "bridge interface is not enabled in kubevirt-config"
    slirp = expand_vm(_vm(), _it(), None, defaults=ClusterDefaults(network_interface="slirp"))
    assert slirp.error == "slirp interface is deprecated as of v1.3"
    own = _vm({"domain": {"devices": {"autoattachPodInterface": False}}})
    assert "networks" not in _template(expand_vm(own, _it(), None))


# --- checks (admission) -----------------------------------------------------------------------------------


def test_preflight_messages() -> None:
    assert preflight(_vm(), _it(3), _spread(2)) == [
        "3 vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or "
        "Spec.CPU.PreferSpreadOptions.Ratio of 2 provided by the preference"
    ]
    assert preflight(_vm({"domain": {"cpu": {"sockets": 1, "cores": 2}}}), _it(), None) == [
        "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
        "VM field(s) spec.template.spec.domain.cpu.cores conflicts with selected instance type",
    ]
    assert preflight(_vm(), _it(1, "1Gi"), {"requirements": {"cpu": {"guest": 2}}}) == [
        "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by instance type, "
        "preference requires 2 vCPU"
    ]
    assert preflight(_vm(), _it(2, "1Gi"), {"requirements": {"memory": {"guest": "2Gi"}}}) == [
        "failure checking preference requirements: insufficient Memory resources of 1Gi provided by instance type, "
        "preference requires 2Gi"
    ]
    assert preflight(_vm(), _it(4, "4Gi"), {"requirements": {"cpu": {"guest": 2}}}) == []
    assert preflight(_vm(instancetype=False, preference=False), None, None) == []


def test_expand_with_checks_reports_requirements_with_their_fields() -> None:
    vm = _vm({"domain": {"cpu": {"cores": 1}}}, instancetype=False)
    result = expand_vm(
        vm, None, {"cpu": {"preferredCPUTopology": "cores"}, "requirements": {"cpu": {"guest": 2}}}, check=True
    )
    assert result.vm is None
    assert [(p.path, p.error()) for p in result.problems] == [
        (
            "spec.template.spec.domain.cpu.cores",
            "failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by VirtualMachine, "
            "preference requires 2 vCPU provided as cores",
        )
    ]
    # without checks, KubeVirt's expand does not look at requirements
    assert expand_vm(copy.deepcopy(vm), None, {"requirements": {"cpu": {"guest": 2}}}).ok


def test_lookup() -> None:
    vm = {"spec": {"template": {"metadata": {"annotations": {"a.b/c": "1"}}, "spec": {"disks": [{"bus": "x"}]}}}}
    assert lookup(vm, "spec.template.metadata.annotations.a.b/c") == "1"
    assert lookup(vm, "spec.template.spec.disks[0].bus") == "x"
    assert lookup(vm, "spec.template.spec.disks[3].bus") is None
