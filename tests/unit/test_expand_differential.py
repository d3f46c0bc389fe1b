"""The expansion engine against KubeVirt's own: ``kubevirt.io/kubevirt@v1.9.0/pkg/instancetype/expand`` built by
``hack/kubevirtref/build.sh`` and run on generated cases.

The expansion is compared on the VMs as written (KubeVirt decodes each into its types itself, as expand-vm-spec
does): the expanded VMs must be the same bytes in JSON (keys sorted, as kubectl prints JSON), including what
only Go's JSON tags decide (an input's ``"type": ""``, ``features.acpi: {}``, omitempty zero values dropped,
canonical quantities), or both must fail with the same error text. The catalog test expands every
common-instancetypes instance type with every preference over the golden VMs. Skipped only when Go is not
installed.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.instancetype.expand import ClusterDefaults, admission_problems, expand_vm
from kubectl_instancetype.instancetype.expand.defaults import DEFAULT_CPU_REQUEST, DEFAULT_MACHINE_TYPES

pytestmark = pytest.mark.differential

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "hack" / "kubevirtref" / "build.sh"
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "expand"


@pytest.fixture(scope="module")
def kubevirtref() -> Path:
    if shutil.which("go") is None:
        pytest.skip("Go is not installed: KubeVirt's reference expansion (hack/kubevirtref) cannot be built")
    built = subprocess.run(["bash", str(BUILD_SCRIPT)], check=True, capture_output=True, text=True, timeout=1800)
    return Path(built.stdout.strip().splitlines()[-1])


def _run(binary: Path, mode: str, payload: list) -> list:
    done = subprocess.run(
        [str(binary), mode], input=json.dumps(payload), capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(done.stdout)


def _diff(want: object, got: object) -> str:
    import difflib

    lines = [json.dumps(x, indent=1, sort_keys=True).splitlines() for x in (want, got)]
    return "\n".join(difflib.unified_diff(*lines, "kubevirt", "ours", lineterm=""))


def _maybe(rng: random.Random, probability: float = 0.3) -> bool:
    return rng.random() < probability


def _vm(rng: random.Random) -> dict:
    domain: dict = {"devices": {}}
    spec: dict = {"domain": domain}
    volumes = []
    for index in range(rng.randint(0, 3)):
        kind = rng.choice(["containerDisk", "cloudInitNoCloud", "persistentVolumeClaim", "dataVolume"])
        source = {
            "containerDisk": {
                "image": rng.choice(["quay.io/c/fedora:latest", "quay.io/c/fedora", "reg/x:41", "r/x@sha256:ab"])
            },
            "cloudInitNoCloud": {"userData": "#cloud-config\n"},
            "persistentVolumeClaim": {"claimName": f"pvc{index}"},
            "dataVolume": {"name": f"dv{index}"},
        }[kind]
        volumes.append({"name": f"vol{index}", kind: source})
    if volumes:
        spec["volumes"] = volumes
    disks = []
    for volume in volumes:
        if _maybe(rng, 0.5):
            disk: dict = {"name": volume["name"]}
            target = rng.choice(["disk", "cdrom", "lun", None])
            if target:
                disk[target] = {"bus": rng.choice(["sata", "scsi"])} if _maybe(rng, 0.4) else {}
            if _maybe(rng, 0.2):
                disk["cache"] = "none"
            disks.append(disk)
    if disks:
        domain["devices"]["disks"] = disks
    if _maybe(rng, 0.3):
        domain["devices"]["interfaces"] = [{"name": "default", **({"masquerade": {}} if _maybe(rng) else {})}]
        spec["networks"] = [{"name": "default", "pod": {}}]
    if _maybe(rng, 0.1):
        domain["devices"]["autoattachPodInterface"] = False
    if _maybe(rng, 0.2):
        domain["devices"]["inputs"] = [{"name": "tablet", "type": "tablet"}]
    elif _maybe(rng, 0.1):
        domain["devices"]["inputs"] = [{"name": "in", "bus": "usb"}]  # no type: Go writes "type": ""
    if _maybe(rng, 0.1):
        domain["devices"]["panicDevices"] = [{}]
    if _maybe(rng, 0.15):
        domain["devices"]["rng"] = {}
    cpu: dict = {}
    for name in ("sockets", "cores", "threads"):
        if _maybe(rng, 0.1):
            cpu[name] = rng.randint(1, 4)
    if _maybe(rng, 0.1):
        cpu["model"] = "host-passthrough"
    if _maybe(rng, 0.1):
        cpu["dedicatedCpuPlacement"] = True
    if _maybe(rng, 0.1):
        cpu["features"] = [{"name": "vmx", "policy": "require"}]
    if cpu:
        domain["cpu"] = cpu
    memory: dict = {}
    if _maybe(rng, 0.15):
        memory["guest"] = rng.choice(["1Gi", "512Mi", "2G", "1024Mi"])
    if _maybe(rng, 0.05):
        memory["hugepages"] = {"pageSize": "2Mi"}
    if memory:
        domain["memory"] = memory
    resources: dict = {}
    for kind in ("requests", "limits"):
        for name in ("cpu", "memory"):
            if _maybe(rng, 0.07):
                resources.setdefault(kind, {})[name] = {
                    "cpu": rng.choice(["1", "500m", "2"]),
                    "memory": rng.choice(["1Gi", "768Mi"]),
                }[name]
    if resources:
        domain["resources"] = resources
    if _maybe(rng, 0.1):
        domain["features"] = {"smm": {"enabled": False}}
    elif _maybe(rng, 0.1):
        domain["features"] = {"apic": {"endOfInterrupt": False}}  # omitempty: Go writes apic: {}
    if _maybe(rng, 0.1):
        domain["firmware"] = {"bootloader": rng.choice([{"bios": {}}, {"efi": {}}])}
    if _maybe(rng, 0.1):
        domain["machine"] = {"type": "pc-q35-rhel9.4.0"}
    if _maybe(rng, 0.1):
        domain["clock"] = {"utc": {}}
    if _maybe(rng, 0.1):
        domain["ioThreadsPolicy"] = "auto"
    if _maybe(rng, 0.05):
        domain["devices"]["gpus"] = [{"name": "gpu1", "deviceName": "nvidia.com/A"}]
    if _maybe(rng, 0.1):
        spec["nodeSelector"] = {"zone": "a"}
    if _maybe(rng, 0.1):
        spec["schedulerName"] = "custom"
    if _maybe(rng, 0.1):
        spec["architecture"] = rng.choice(["amd64", "arm64", "s390x"])
    if _maybe(rng, 0.1):
        spec["terminationGracePeriodSeconds"] = 30
    if _maybe(rng, 0.1):
        spec["evictionStrategy"] = "LiveMigrate"
    template: dict = {"spec": spec}
    if _maybe(rng, 0.2):
        template["metadata"] = {"annotations": {"example.com/a": rng.choice(["1", "2"])}}
    vm_spec: dict = {"runStrategy": "Always", "template": template}
    if _maybe(rng, 0.9):
        vm_spec["instancetype"] = {"name": "it"}
    if _maybe(rng, 0.7):
        vm_spec["preference"] = {"name": "pref"}
    status = {"instancetypeRef": {"name": "it", "controllerRevisionRef": {"name": "vm-it-1"}}} if _maybe(rng) else {}
    if _maybe(rng, 0.1):
        status["ready"] = False
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm", "namespace": "ns"},
        "spec": vm_spec,
        "status": status,
    }


def _instancetype(rng: random.Random, catalog_specs: list[dict]) -> dict:
    if _maybe(rng, 0.4):
        return json.loads(json.dumps(rng.choice(catalog_specs)))
    spec: dict = {
        "cpu": {"guest": rng.choice([1, 2, 3, 4, 6, 8, 12, 16])},
        "memory": {"guest": rng.choice(["1Gi", "4Gi", "512Mi", "2G", "1536Mi", "3Gi", "1000M", "2e9", "1500000k"])},
    }
    if _maybe(rng):
        spec["memory"]["overcommitPercent"] = rng.choice([10, 15, 25, 50, 80, 100])
    if _maybe(rng, 0.1):
        spec["memory"]["hugepages"] = {"pageSize": "1Gi"}
    if _maybe(rng, 0.1):
        spec["memory"]["maxGuest"] = "8Gi"
    if _maybe(rng, 0.15):
        spec["cpu"]["model"] = rng.choice(["Haswell", ""])
    if _maybe(rng, 0.15):
        spec["cpu"]["dedicatedCPUPlacement"] = rng.choice([True, False])
    if _maybe(rng, 0.1):
        spec["cpu"]["isolateEmulatorThread"] = True
    if _maybe(rng, 0.1):
        spec["cpu"]["numa"] = {"guestMappingPassthrough": {}}
    if _maybe(rng, 0.1):
        spec["cpu"]["maxSockets"] = 8
    if _maybe(rng, 0.1):
        spec["nodeSelector"] = {"disk": "ssd"}
    if _maybe(rng, 0.1):
        spec["schedulerName"] = "it-scheduler"
    if _maybe(rng, 0.1):
        spec["ioThreadsPolicy"] = "shared"
    if _maybe(rng, 0.1):
        spec["ioThreads"] = {"supplementalPoolThreadCount": 4}
    if _maybe(rng, 0.1):
        spec["gpus"] = [{"name": "gpu0", "deviceName": "nvidia.com/B"}]
    if _maybe(rng, 0.1):
        spec["hostDevices"] = [{"name": "hd0", "deviceName": "vendor.com/X"}]
    if _maybe(rng, 0.2):
        spec["annotations"] = {"example.com/a": rng.choice(["1", "2"])}
    return spec


def _preference(rng: random.Random, catalog_specs: list[dict]) -> dict:
    if _maybe(rng, 0.4):
        return json.loads(json.dumps(rng.choice(catalog_specs)))
    spec: dict = {}
    if _maybe(rng, 0.6):
        topology = rng.choice(["sockets", "cores", "threads", "any", "spread", "preferSpread", "preferCores"])
        spec["cpu"] = {"preferredCPUTopology": topology}
        if "pread" in topology and _maybe(rng, 0.7):
            options: dict = {"across": rng.choice(["SocketsCores", "CoresThreads", "SocketsCoresThreads"])}
            if _maybe(rng):
                options["ratio"] = rng.choice([1, 2, 3, 4])
            spec["cpu"]["spreadOptions"] = options
    if _maybe(rng, 0.2):
        spec.setdefault("cpu", {})["preferredCPUFeatures"] = [{"name": "vmx", "policy": "optional"}, {"name": "pcid"}]
    devices: dict = {}
    for key, values in (
        ("preferredDiskBus", ["virtio", "sata"]),
        ("preferredCdromBus", ["sata", "scsi"]),
        ("preferredLunBus", ["scsi"]),
        ("preferredInterfaceModel", ["virtio", "e1000e"]),
        ("preferredInputBus", ["usb", "virtio"]),
        ("preferredInputType", ["tablet"]),
        ("preferredDiskCache", ["writeback"]),
        ("preferredDiskIO", ["native"]),
        ("preferredDiskDedicatedIoThread", [True, False]),
        ("preferredAutoattachGraphicsDevice", [True, False]),
        ("preferredAutoattachPodInterface", [False]),
        ("preferredAutoattachInputDevice", [True]),
        ("preferredDisableHotplug", [True, False]),
        ("preferredUseVirtioTransitional", [True]),
        ("preferredBlockMultiQueue", [True]),
        ("preferredRng", [{}]),
        ("preferredTPM", [{}, {"persistent": True}]),
        ("preferredInterfaceMasquerade", [{}]),
        ("preferredPanicDeviceModel", ["hyperv", "pvpanic"]),
        ("preferredVideoType", ["virtio", "vga"]),
        ("preferredDiskBlockSize", [{"matchVolume": {"enabled": True}}]),
    ):
        if _maybe(rng, 0.2):
            devices[key] = rng.choice(values)
    if devices or _maybe(rng, 0.1):
        spec["devices"] = devices
    if _maybe(rng, 0.4):
        features: dict = {}
        if _maybe(rng, 0.6):
            features["preferredAcpi"] = rng.choice([{}, {"enabled": False}])
        if _maybe(rng, 0.5):
            features["preferredSmm"] = {}
        if _maybe(rng, 0.3):
            features["preferredApic"] = {}
        if _maybe(rng, 0.3):
            features["preferredHyperv"] = {"relaxed": {}, "spinlocks": {"spinlocks": 8191}}
        spec["features"] = features
    if _maybe(rng, 0.4):
        firmware: dict = {}
        for key, values in (
            ("preferredUseBios", [True, False]),
            ("preferredUseBiosSerial", [True]),
            ("preferredUseEfi", [True, False]),
            ("preferredUseSecureBoot", [True, False]),
            ("preferredEfi", [{"secureBoot": True}, {"persistent": True}]),
        ):
            if _maybe(rng, 0.35):
                firmware[key] = rng.choice(values)
        spec["firmware"] = firmware
    if _maybe(rng, 0.2):
        spec["machine"] = {"preferredMachineType": "pc-q35-rhel9.6.0"}
    if _maybe(rng, 0.2):
        spec["clock"] = {"preferredClockOffset": {"utc": {}}, "preferredTimer": {"hpet": {"present": False}}}
    if _maybe(rng, 0.1):
        spec["preferredSubdomain"] = "sub"
    if _maybe(rng, 0.1):
        spec["preferredTerminationGracePeriodSeconds"] = 60
    if _maybe(rng, 0.15):
        spec["preferredArchitecture"] = rng.choice(["arm64", "amd64"])
    if _maybe(rng, 0.15):
        spec["annotations"] = {"example.com/a": "3", "example.com/p": "x"}
    if _maybe(rng, 0.05):
        spec["preferredLaunchSecurity"] = {"sev": {}}
    return spec


def _config(rng: random.Random) -> dict | None:
    """A KubeVirt CR spec.configuration with the settings the expansion depends on (None: KubeVirt's defaults)."""
    if not _maybe(rng, 0.35):
        return None
    config: dict = {}
    if _maybe(rng):
        config["machineType"] = "pc-q35-rhel9.6.0"
    if _maybe(rng):
        config["cpuRequest"] = rng.choice(["250m", "100m", "1"])
    if _maybe(rng):
        config["evictionStrategy"] = rng.choice(["LiveMigrate", "External", "None"])
    if _maybe(rng, 0.4):
        network: dict = {"defaultNetworkInterface": rng.choice(["bridge", "masquerade"])}
        if _maybe(rng):
            network["permitBridgeInterfaceOnPodNetwork"] = rng.choice([True, False])
        config["network"] = network
    if _maybe(rng):
        config["architectureConfiguration"] = {
            "arm64": {"machineType": "virt-rhel9"},
            "amd64": {"machineType": "q35-x"},
        }
    return config


def _defaults(case: dict) -> ClusterDefaults:
    """Our engine's cluster defaults for the case's KubeVirt configuration."""
    config = case.get("config") or {}
    network = config.get("network") or {}
    machine_types = dict(DEFAULT_MACHINE_TYPES)
    for arch, settings in (config.get("architectureConfiguration") or {}).items():
        machine_types[arch] = settings["machineType"]
    return ClusterDefaults(
        architecture=case["arch"],
        machine_type=config.get("machineType", ""),
        machine_types=machine_types,
        cpu_request=config.get("cpuRequest", DEFAULT_CPU_REQUEST),
        eviction_strategy=config.get("evictionStrategy", "None"),
        network_interface=network.get("defaultNetworkInterface", "bridge"),
        permit_bridge_interface_on_pod_network=network.get("permitBridgeInterfaceOnPodNetwork", True),
    )


def _cases(count: int) -> list[dict]:
    catalog = load_catalog()
    instancetypes = [item["spec"] for item in catalog.instancetypes]
    preferences = [item["spec"] for item in catalog.preferences]
    rng = random.Random(1409)
    cases = []
    for _ in range(count):
        vm = _vm(rng)
        case = {
            "vm": vm,
            "instancetype": _instancetype(rng, instancetypes) if "instancetype" in vm["spec"] else None,
            "preference": _preference(rng, preferences) if "preference" in vm["spec"] else None,
            "arch": rng.choice(["amd64", "amd64", "arm64", "s390x"]),
            "config": _config(rng),
        }
        # KubeVirt dereferences a nil domain.cpu when only a preference brings CPU features (a Go panic);
        # that input is left out here and the engine creates domain.cpu instead.
        if case["instancetype"] is None and (case["preference"] or {}).get("cpu", {}).get("preferredCPUFeatures"):
            vm["spec"]["template"]["spec"]["domain"].setdefault("cpu", {"model": "host-model"})
        cases.append(case)
    return cases


def _json_bytes(value: object) -> str:
    """The JSON text kubectl prints for a decoded object (keys sorted)."""
    return json.dumps(value, indent=4, sort_keys=True, ensure_ascii=False)


def _compare_expansions(kubevirtref: Path, cases: list[dict]) -> dict[str, int]:
    """Expand ``cases`` (VMs as written) with KubeVirt's code and ours; the same bytes, or the same error."""
    expected = _run(kubevirtref, "expand", cases)
    outcomes = {"expanded": 0, "conflicts": 0}
    for index, (case, want) in enumerate(zip(cases, expected, strict=True)):
        got = expand_vm(case["vm"], case["instancetype"], case["preference"], defaults=_defaults(case))
        context = f"case {index}: {json.dumps(case, sort_keys=True)}"
        if "error" in want:
            assert got.vm is None, context
            assert got.error == want["error"], context
            outcomes["conflicts"] += 1
        else:
            assert got.error is None, f"{context}\n{got.error}"
            if _json_bytes(got.vm) != _json_bytes(want["vm"]):
                pytest.fail(f"{context}\n{_diff(want['vm'], got.vm)}")
            outcomes["expanded"] += 1
    return outcomes


def test_same_expansion_as_kubevirt(kubevirtref: Path) -> None:
    outcomes = _compare_expansions(kubevirtref, _cases(600))
    # the generator must exercise both outcomes in earnest
    assert outcomes["expanded"] > 100 and outcomes["conflicts"] > 100, outcomes


def _golden_vms() -> list[dict]:
    """The VirtualMachines of tests/golden/expand (their input files) and of the create vm corpus
    (tests/corpus), matchers pointing at "it" and "pref"."""
    import yaml

    from tests.corpus.createvm import iter_manifests

    vms = []
    for _, manifest in iter_manifests("corpus"):
        manifest["spec"]["instancetype"] = {"name": "it"}
        manifest["spec"]["preference"] = {"name": "pref"}
        vms.append(manifest)
    for path in sorted(GOLDEN.glob("*/*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "VirtualMachine" and "expected" not in path.name:
                doc["spec"]["instancetype"] = {"name": "it", "kind": "VirtualMachineClusterInstancetype"}
                doc["spec"]["preference"] = {"name": "pref", "kind": "VirtualMachineClusterPreference"}
                vms.append(doc)
    return vms


def test_catalog_expansions_are_kubevirts_bytes(kubevirtref: Path) -> None:
    """Every common-instancetypes instance type with every preference, each over a golden VM in turn."""
    catalog = load_catalog()
    vms = _golden_vms()
    assert len(vms) >= 10, len(vms)
    cases = []
    for i, instancetype in enumerate(catalog.instancetypes):
        for j, preference in enumerate(catalog.preferences):
            vm = json.loads(json.dumps(vms[(i * len(catalog.preferences) + j) % len(vms)]))
            cases.append(
                {
                    "vm": vm,
                    "instancetype": instancetype["spec"],
                    "preference": preference["spec"],
                    "arch": "amd64",
                    "config": None,
                }
            )
    outcomes = _compare_expansions(kubevirtref, cases)
    assert outcomes["expanded"] > 1000, outcomes


def test_same_admission_denials_as_kubevirt(kubevirtref: Path) -> None:
    """VM admission's instance type checks (what ``create vm`` pre-flight and ``expand`` report): same causes."""
    cases = _cases(600)
    decoded = _run(kubevirtref, "roundtrip", [case["vm"] for case in cases])
    for case, vm in zip(cases, decoded, strict=True):
        case["vm"] = vm
    expected = _run(kubevirtref, "admit", cases)
    kinds = {"admitted": 0, "spread": 0, "conflicts": 0, "requirements": 0}
    for index, (case, want) in enumerate(zip(cases, expected, strict=True)):
        got = admission_problems(case["vm"], case["instancetype"], case["preference"], defaults=_defaults(case))
        context = f"case {index}: {json.dumps(case, sort_keys=True)}"
        assert [(problem.path, problem.error()) for problem in got] == [
            (cause.get("field", ""), cause["message"]) for cause in want
        ], context
        message = want[0]["message"] if want else ""
        kind = (
            "admitted"
            if not want
            else "spread"
            if "divisible" in message
            else "requirements"
            if message.startswith("failure checking")
            else "conflicts"
        )
        kinds[kind] += 1
    assert min(kinds.values()) >= 10, kinds
