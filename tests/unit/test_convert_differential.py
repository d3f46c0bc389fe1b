"""v1alpha1/v1alpha2 -> v1beta1: our conversion against KubeVirt's own (``kubevirt.io/api`` v1.5.0, the last release
that still had the alpha versions and their generated ``Convert_*`` functions; removed in v1.7).

The Go reference program below is built once per source hash into the plugin's cache (like hack/virtctl's goref):
with ``KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1`` (CI) the test builds it, otherwise it uses a cached build or skips.
It decodes each alpha spec into KubeVirt's alpha Go type, converts it with KubeVirt's conversion function and
prints the v1beta1 spec as JSON.

Our output differs from KubeVirt's on purpose in two ways, normalised here before comparing (docs/convert.md):
deprecated ``preferredCPUTopology`` spellings get their short names, and v1alpha* "unset" values (``model: ""``,
``dedicatedCPUPlacement: false``, ``isolateEmulatorThread: false``) stay unset instead of becoming v1beta1 pointers.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.instancetype import convert, kinds, lint
from kubectl_instancetype.instancetype.convert import schema

pytestmark = pytest.mark.differential

GO_MOD = """module convertref

go 1.26.0

require kubevirt.io/api v1.5.0

replace k8s.io/api => k8s.io/api v0.34.2

replace k8s.io/apimachinery => k8s.io/apimachinery v0.34.2
"""

MAIN_GO = """// convertref: KubeVirt's own v1alpha1/v1alpha2 -> v1beta1 spec conversion (kubevirt.io/api v1.5.0), as JSON.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"kubevirt.io/api/instancetype/v1alpha1"
	"kubevirt.io/api/instancetype/v1alpha2"
	"kubevirt.io/api/instancetype/v1beta1"
)

type object struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Spec       json.RawMessage `json:"spec"`
}

func convert(obj object) (interface{}, error) {
	instancetype := obj.Kind == "VirtualMachineInstancetype" || obj.Kind == "VirtualMachineClusterInstancetype"
	switch {
	case obj.APIVersion == "instancetype.kubevirt.io/v1alpha1" && instancetype:
		var in v1alpha1.VirtualMachineInstancetypeSpec
		var out v1beta1.VirtualMachineInstancetypeSpec
		if err := json.Unmarshal(obj.Spec, &in); err != nil {
			return nil, err
		}
		return &out, v1alpha1.Convert_v1alpha1_VirtualMachineInstancetypeSpec_To_v1beta1_VirtualMachineInstancetypeSpec(&in, &out, nil)
	case obj.APIVersion == "instancetype.kubevirt.io/v1alpha1":
		var in v1alpha1.VirtualMachinePreferenceSpec
		var out v1beta1.VirtualMachinePreferenceSpec
		if err := json.Unmarshal(obj.Spec, &in); err != nil {
			return nil, err
		}
		return &out, v1alpha1.Convert_v1alpha1_VirtualMachinePreferenceSpec_To_v1beta1_VirtualMachinePreferenceSpec(&in, &out, nil)
	case obj.APIVersion == "instancetype.kubevirt.io/v1alpha2" && instancetype:
		var in v1alpha2.VirtualMachineInstancetypeSpec
		var out v1beta1.VirtualMachineInstancetypeSpec
		if err := json.Unmarshal(obj.Spec, &in); err != nil {
			return nil, err
		}
		return &out, v1alpha2.Convert_v1alpha2_VirtualMachineInstancetypeSpec_To_v1beta1_VirtualMachineInstancetypeSpec(&in, &out, nil)
	case obj.APIVersion == "instancetype.kubevirt.io/v1alpha2":
		var in v1alpha2.VirtualMachinePreferenceSpec
		var out v1beta1.VirtualMachinePreferenceSpec
		if err := json.Unmarshal(obj.Spec, &in); err != nil {
			return nil, err
		}
		return &out, v1alpha2.Convert_v1alpha2_VirtualMachinePreferenceSpec_To_v1beta1_VirtualMachinePreferenceSpec(&in, &out, nil)
	}
	return nil, fmt.Errorf("unsupported %s %s", obj.APIVersion, obj.Kind)
}

func main() {
	var objects []object
	if err := json.NewDecoder(os.Stdin).Decode(&objects); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	specs := []interface{}{}
	for _, obj := range objects {
		spec, err := convert(obj)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		specs = append(specs, spec)
	}
	_ = json.NewEncoder(os.Stdout).Encode(specs)
}
"""


def _build_dir() -> Path:
    from hack.localcluster.crds import cache_root

    digest = hashlib.sha256((GO_MOD + MAIN_GO).encode()).hexdigest()[:12]
    return cache_root() / "convertref" / digest


@pytest.fixture(scope="module")
def convertref() -> Path:
    directory = _build_dir()
    binary = directory / "convertref"
    if not binary.exists() and os.environ.get("KUBECTL_INSTANCETYPE_BUILD_VIRTCTL") == "1":
        if not shutil.which("go"):
            pytest.skip("Go is not installed: cannot build the KubeVirt conversion reference")
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "go.mod").write_text(GO_MOD)
        (directory / "main.go").write_text(MAIN_GO)
        for command in (["go", "mod", "tidy"], ["go", "build", "-o", "convertref", "."]):
            subprocess.run(command, cwd=directory, check=True, capture_output=True, timeout=1200)
    if not binary.exists():
        pytest.skip(
            "the KubeVirt conversion reference is not built (set KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1 to build it)"
        )
    return binary


CPU_MODELS = ["", "host-passthrough", "Haswell-noTSX"]
MEMORY = ["128Mi", "1Gi", "2Gi", "1536Mi", "64M"]
INSTANCETYPE_OPTIONAL = {
    "numa": {"guestMappingPassthrough": {}},
    "realtime": {"mask": "0-1"},
}
PREFERENCE_POOL = {
    "clock": [
        {"preferredClockOffset": {"utc": {"offsetSeconds": 30}}},
        {"preferredTimer": {"hpet": {"present": False}, "rtc": {"tickPolicy": "catchup"}}},
    ],
    "devices": [
        {"preferredDiskBus": "virtio", "preferredInterfaceModel": "virtio"},
        {"preferredAutoattachGraphicsDevice": False, "preferredAutoattachMemBalloon": True},
        {"preferredCdromBus": "sata", "preferredLunBus": "scsi", "preferredDiskCache": "writeback"},
        {"preferredDiskIO": "native", "preferredDiskDedicatedIoThread": True, "preferredRng": {}},
        {"preferredTPM": {}, "preferredSoundModel": "ich9", "preferredInputBus": "usb", "preferredInputType": "tablet"},
        {"preferredDiskBlockSize": {"custom": {"logical": 512, "physical": 4096}}, "preferredBlockMultiQueue": True},
        {"preferredNetworkInterfaceMultiQueue": True, "preferredUseVirtioTransitional": False},
        {"preferredDisableHotplug": True, "preferredAutoattachSerialConsole": False},
    ],
    "features": [
        {"preferredAcpi": {}, "preferredApic": {"enabled": True}},
        {"preferredHyperv": {"relaxed": {}, "vapic": {}, "spinlocks": {"spinlocks": 8191}}},
        {"preferredKvm": {"hidden": True}, "preferredPvspinlock": {"enabled": False}, "preferredSmm": {}},
    ],
    "firmware": [
        {"preferredUseBios": True, "preferredUseBiosSerial": True},
        {"preferredUseEfi": True, "preferredUseSecureBoot": True},
    ],
    "machine": [{"preferredMachineType": "pc-q35-rhel8.6.0"}],
    "cpu": [{"preferredCPUTopology": value} for value in ("preferSockets", "preferCores", "preferThreads")] + [{}],
}


def _cases() -> list[dict]:
    rng = random.Random(16)
    cases = []
    for index in range(300):
        version = rng.choice(["v1alpha1", "v1alpha2"])
        if index % 2:
            cpu = {"guest": rng.randint(1, 16), "model": rng.choice(CPU_MODELS)}
            for key in ("dedicatedCPUPlacement", "isolateEmulatorThread"):
                if rng.random() < 0.5:
                    cpu[key] = rng.random() < 0.5
            for key, value in INSTANCETYPE_OPTIONAL.items():
                if rng.random() < 0.3:
                    cpu[key] = value
            memory: dict = {"guest": rng.choice(MEMORY)}
            if rng.random() < 0.3:
                memory["hugepages"] = {"pageSize": rng.choice(["2Mi", "1Gi"])}
            spec: dict = {"cpu": cpu, "memory": memory}
            if rng.random() < 0.3:
                spec["gpus"] = [{"name": "gpu1", "deviceName": "nvidia.com/GP102GL_Tesla_P40"}]
            if rng.random() < 0.3:
                spec["hostDevices"] = [{"name": "dev1", "deviceName": "intel.com/qat"}]
            if rng.random() < 0.3:
                spec["ioThreadsPolicy"] = rng.choice(["shared", "auto"])
            if rng.random() < 0.2:
                spec["launchSecurity"] = {"sev": {}}
            kind = rng.choice(["VirtualMachineInstancetype", "VirtualMachineClusterInstancetype"])
        else:
            spec = {}
            for section, choices in PREFERENCE_POOL.items():
                if rng.random() < 0.5:
                    spec[section] = copy.deepcopy(rng.choice(choices))
            if version == "v1alpha2" and rng.random() < 0.3:
                spec["volumes"] = {"preferredStorageClassName": "fast"}
            kind = rng.choice(["VirtualMachinePreference", "VirtualMachineClusterPreference"])
        cases.append(
            {
                "apiVersion": f"instancetype.kubevirt.io/{version}",
                "kind": kind,
                "metadata": {"name": f"case-{index}"},
                "spec": spec,
            }
        )
    return cases


def _normalise_kubevirt(spec: dict, kind: str) -> dict:
    """KubeVirt's output with the plugin's three deliberate differences applied: an empty CPU model and false CPU
    flags left out, the topology renames, and lint's same-effect fixes (convert's output passes lint, issue 29)."""
    fixed, _ = lint.fix({"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind, "spec": copy.deepcopy(spec)})
    spec = fixed["spec"]
    if kind in kinds.INSTANCETYPE_KINDS:
        cpu = spec["cpu"]
        if cpu.get("model") == "":
            del cpu["model"]
        for key in ("dedicatedCPUPlacement", "isolateEmulatorThread"):
            if cpu.get(key) is False:
                del cpu[key]
    else:
        topology = (spec.get("cpu") or {}).get("preferredCPUTopology")
        if topology in schema.TOPOLOGY_RENAMES:
            spec["cpu"]["preferredCPUTopology"] = schema.TOPOLOGY_RENAMES[topology]
    return spec


def test_alpha_specs_convert_as_kubevirt_converts_them(convertref: Path) -> None:
    cases = _cases()
    answer = subprocess.run(
        [str(convertref)], input=json.dumps(cases), capture_output=True, text=True, check=True, timeout=60
    )
    kubevirt = json.loads(answer.stdout)
    result = convert.convert(cases)
    # The only warnings are lint's same-effect rewrites, each named (convert's _undeprecate).
    assert [w for w in result.warnings if " is deprecated: written as " not in w] == []
    assert len(result.objects) == len(kubevirt)
    for case, ours, theirs in zip(cases, result.objects, kubevirt, strict=True):
        assert ours["spec"] == _normalise_kubevirt(theirs, ours["kind"]), case
