"""``expand --launcher-pod`` against the real virt-controller v1.9.0: every common-instancetypes v1.7.0 instance
type (with a representative preference that admits it), plus arm64, GPUs and host devices, a containerDisk, then
a changed KubeVirt configuration (cpuAllocationRatio, memoryOvercommit, additionalGuestMemoryOverheadRatio,
supportContainerResources, nodeSelectors, autoCPULimitNamespaceLabelSelector) in a namespace with a
``limits.memory`` / ``limits.cpu`` ResourceQuota. Each VM runs (runStrategy Always), virt-controller creates its
launcher pod (Pending: there are no nodes), and the plugin's prediction equals the pod's scheduling part, field
for field, after the API server's defaulting.

All VMs of a phase are created at once and their pods awaited together.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.instancetype.expand import admission_problems
from kubectl_instancetype.instancetype.launcherpod import scheduling_part

pytestmark = pytest.mark.controlplane

WAIT = 90.0
CATALOG = load_catalog()
# Tried in turn from a rotating start, so the series meet different preferences (Linux and Windows guests, EFI,
# TPM, HyperV, dedicated IO threads); the first one admission accepts is used. rt1 types take the realtime one.
PREFERENCES = (
    "fedora",
    "windows.2k19",
    "rhel.9",
    "ubuntu",
    "centos.stream9",
    "debian",
    "windows.10",
    "alpine",
    "cirros",
)
CHANGED_CONFIGURATION = {
    "developerConfiguration": {
        "cpuAllocationRatio": 3,
        "memoryOvercommit": 150,
        "nodeSelectors": {"example.com/pool": "vms"},
    },
    "additionalGuestMemoryOverheadRatio": "1.25",
    "supportContainerResources": [
        {"type": "guest-console-log", "resources": {"requests": {"cpu": "7m"}, "limits": {"memory": "90M"}}},
        {"type": "container-disk", "resources": {"limits": {"cpu": "20m"}}},
    ],
    "autoCPULimitNamespaceLabelSelector": {"matchLabels": {"launcher-test/auto-cpu": "true"}},
    # host devices need the HostDevices gate; with permittedHostDevices set, every GPU and host device is listed
    "permittedHostDevices": {
        "pciHostDevices": [
            {"pciVendorSelector": "8086:37C8", "resourceName": "intel.com/qat"},
            {"pciVendorSelector": "10DE:2236", "resourceName": "nvidia.com/GA102GL_A10"},
        ]
    },
}
CHANGED_GATES = ["HostDevices"]


def _spec(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(obj for obj in objects if obj["metadata"]["name"] == name)["spec"]


def _vm(name: str, instancetype: str, preference: str, template_spec: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name},
        "spec": {
            "runStrategy": "Always",
            "instancetype": {"name": instancetype},
            "preference": {"name": preference},
            "template": {"spec": template_spec or {"domain": {"devices": {}}}},
        },
    }


def _representative(instancetype: str, index: int) -> str:
    """The first preference admission accepts with ``instancetype``, starting at a rotating position."""
    candidates = list(PREFERENCES[index % len(PREFERENCES) :] + PREFERENCES[: index % len(PREFERENCES)])
    if instancetype.startswith("rt1."):
        candidates.insert(0, "rhel.9.realtime")
    spec = _spec(CATALOG.instancetypes, instancetype)
    for preference in candidates:
        vm = _vm("probe", instancetype, preference)
        if not admission_problems(vm, spec, _spec(CATALOG.preferences, preference)):
            return preference
    raise AssertionError(f"no preference of {PREFERENCES} admits {instancetype}")


def _catalog_vms() -> list[dict[str, Any]]:
    vms = []
    for index, instancetype in enumerate(sorted(obj["metadata"]["name"] for obj in CATALOG.instancetypes)):
        name = "vm-" + instancetype.replace(".", "-")
        vms.append(_vm(name, instancetype, _representative(instancetype, index)))
    return vms


def _extra_vms() -> list[dict[str, Any]]:
    disk = {"name": "rootdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}
    return [
        # arm64: the preference's architecture; 128Mi for UEFI pflash, no host-model affinity, machine type virt
        _vm("vm-arm64", "u1.medium", "fedora.arm64"),
        # GPUs by device plugin (GA: no feature gate, no permittedHostDevices): their resource names, and the
        # 1Gi VFIO overhead
        _vm(
            "vm-devices",
            "u1.medium",
            "fedora",
            {
                "domain": {
                    "devices": {
                        "gpus": [
                            {"name": "gpu1", "deviceName": "nvidia.com/GA102GL_A10"},
                            {"name": "gpu2", "deviceName": "nvidia.com/GA102GL_A10"},
                        ]
                    }
                }
            },
        ),
        # a containerDisk: an image-volume init container (the ImageVolume gate is Beta, so on)
        _vm("vm-disk", "cx1.medium", "fedora", {"domain": {"devices": {}}, "volumes": [disk]}),
        _vm("vm-disk-shared", "u1.small", "fedora", {"domain": {"devices": {}}, "volumes": [disk]}),
    ]


def _launcher_pods(plane, namespace: str) -> dict[str, dict[str, Any]]:
    """The namespace's virt-launcher pods by the name of the VMI that owns them."""
    code, answer = plane.request(
        "GET", f"/api/v1/namespaces/{namespace}/pods?labelSelector=kubevirt.io%3Dvirt-launcher"
    )
    assert code == 200, answer
    pods = {}
    for pod in (answer or {}).get("items") or []:
        owners = pod["metadata"].get("ownerReferences") or []
        if owners:
            pods[owners[0]["name"]] = pod
    return pods


def _await_pods(plane, namespace: str, names: list[str]) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + WAIT
    while True:
        pods = _launcher_pods(plane, namespace)
        missing = [name for name in names if name not in pods]
        if not missing:
            return pods
        if time.monotonic() > deadline:
            _, events = plane.request("GET", f"/api/v1/namespaces/{namespace}/events")
            said = sorted(
                {
                    f"{e['involvedObject'].get('name')}: {e.get('message')}"
                    for e in (events or {}).get("items") or []
                    if e["involvedObject"].get("name") in missing and e.get("type") == "Warning"
                }
            )
            pytest.fail(f"virt-controller created no launcher pod for {missing} within {WAIT:g}s: {said}")
        time.sleep(0.5)


def _until_event(plane, namespace: str, name: str, text: str) -> str:
    """The message of the first Warning event about ``name`` that contains ``text``."""
    deadline = time.monotonic() + WAIT
    while True:
        _, events = plane.request("GET", f"/api/v1/namespaces/{namespace}/events")
        for event in (events or {}).get("items") or []:
            message = event.get("message") or ""
            if event["involvedObject"].get("name") == name and text in message:
                return str(message)
        if time.monotonic() > deadline:
            pytest.fail(f"no event about {name} says {text!r} within {WAIT:g}s")
        time.sleep(0.5)


def _actual(pod: dict[str, Any]) -> dict[str, Any]:
    part = scheduling_part(pod)
    part["metadata"].pop("name", None)
    return part


def _predict(cli, tmp_path, namespace: str, vms: list[dict[str, Any]], name: str) -> dict[str, dict[str, Any]]:
    """The plugin's predictions for ``vms`` from one ``expand -f --launcher-pod -o json`` run."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": vms}))
    result = cli("expand", "-f", str(path), "-n", namespace, "--launcher-pod", "-o", "json")
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    answer = json.loads(result.stdout)
    items = answer["items"] if answer.get("kind") == "List" else [answer]
    return {vm["metadata"]["name"]: item for vm, item in zip(vms, items, strict=True)}


def _compare(predicted: dict[str, dict[str, Any]], pods: dict[str, dict[str, Any]]) -> None:
    differing = {
        name: (predicted[name], _actual(pods[name])) for name in predicted if predicted[name] != _actual(pods[name])
    }
    assert differing == {}


def test_every_catalog_type_gets_the_predicted_launcher_pod(cli, control_plane, namespace, tmp_path) -> None:
    vms = _catalog_vms() + _extra_vms()
    assert len(vms) == 65 + 4
    control_plane.apply_all([{**vm, "metadata": {**vm["metadata"], "namespace": namespace}} for vm in vms], workers=8)
    predicted = _predict(cli, tmp_path, namespace, vms, "catalog")
    pods = _await_pods(control_plane, namespace, [vm["metadata"]["name"] for vm in vms])
    _compare(predicted, pods)
    # the cases the issue names are among them, with what makes them special
    compute = {name: pod["spec"]["containers"][0]["resources"] for name, pod in predicted.items()}
    assert compute["vm-cx1-large"]["requests"]["cpu"] == "3"  # 2 dedicated vCPUs + the emulator thread
    assert compute["vm-cx1-large"]["requests"]["hugepages-2Mi"] == "4Gi"
    assert predicted["vm-cx1-large"]["status"]["qosClass"] == "Guaranteed"
    assert compute["vm-m1-large"]["limits"]["hugepages-2Mi"] == "16Gi"
    assert predicted["vm-arm64"]["spec"]["nodeSelector"]["kubernetes.io/arch"] == "arm64"
    assert compute["vm-devices"]["requests"]["nvidia.com/GA102GL_A10"] == "2"
    # stored VMs predict the same through vm/NAME
    for name in ("vm-o1-medium", "vm-arm64"):
        result = cli("expand", f"vm/{name}", "-n", namespace, "--launcher-pod", "-o", "json")
        assert (result.exit_code, result.stderr) == (0, ""), result.stderr
        assert json.loads(result.stdout) == _actual(pods[name])


def test_a_changed_configuration_and_a_limits_quota_are_predicted(cli, control_plane, namespace, tmp_path) -> None:
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "limits", "namespace": namespace},
        "spec": {"hard": {"limits.memory": "1Ti", "limits.cpu": "1k", "pods": "100"}},
    }
    control_plane.apply(quota)
    labels = {"launcher-test/auto-cpu": "true", "alpha.kubevirt.io/auto-memory-limits-ratio": "1.5"}
    code, answer = control_plane.request(
        "PATCH",
        f"/api/v1/namespaces/{namespace}",
        {"metadata": {"labels": labels}},
        content_type="application/merge-patch+json",
    )
    assert code == 200, answer
    components = control_plane.components
    previous = json.loads(json.dumps(components.configuration))
    changed = {**previous, **CHANGED_CONFIGURATION}
    developer = {**(previous.get("developerConfiguration") or {}), **CHANGED_CONFIGURATION["developerConfiguration"]}
    developer["featureGates"] = [*developer.get("featureGates", []), *CHANGED_GATES]
    changed["developerConfiguration"] = developer
    components.configure(changed)
    try:
        # virt-controller reads the CR and the quota through informers: a canary VM's pod shows when both are seen
        canary = _vm("vm-canary", "u1.nano", "cirros")
        seen: tuple[Any, Any] = (None, None)
        for attempt in range(10):
            canary["metadata"]["name"] = f"vm-canary-{attempt}"
            control_plane.apply({**canary, "metadata": {**canary["metadata"], "namespace": namespace}})
            pod = _await_pods(control_plane, namespace, [canary["metadata"]["name"]])[canary["metadata"]["name"]]
            seen = (_actual(pod), _predict(cli, tmp_path, namespace, [canary], "canary")[canary["metadata"]["name"]])
            if seen[0] == seen[1]:
                break
        else:
            pytest.fail(f"the canary's pod never matched the prediction: {json.dumps(seen)}")
        vms = [
            _vm("vm-u1", "u1.medium", "fedora"),
            _vm("vm-o1", "o1.large", "fedora"),
            _vm("vm-win", "u1.2xmedium", "windows.2k19"),
            _vm(
                "vm-hostdev",
                "d1.medium",
                "fedora",
                {
                    "domain": {
                        "devices": {
                            "gpus": [{"name": "gpu1", "deviceName": "nvidia.com/GA102GL_A10"}],
                            "hostDevices": [
                                {"name": "hd1", "deviceName": "intel.com/qat"},
                                {"name": "hd2", "deviceName": "intel.com/qat"},
                            ],
                        }
                    }
                },
            ),
            _vm(
                "vm-disk",
                "u1.small",
                "fedora",
                {"domain": {"devices": {}}, "volumes": [{"name": "d", "containerDisk": {"image": "quay.io/x/y:1"}}]},
            ),
        ]
        # hugepages at memoryOvercommit 150: a page count that is not whole, which the API server refuses
        refused = _vm("vm-m1", "m1.large", "fedora")
        control_plane.apply_all(
            [{**vm, "metadata": {**vm["metadata"], "namespace": namespace}} for vm in [*vms, refused]]
        )
        path = tmp_path / "refused.json"
        path.write_text(json.dumps(refused))
        answer = cli("expand", "-f", str(path), "-n", namespace, "--launcher-pod")
        invalid = (
            '[spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "11453246122": 11453246122 is not '
            "positive integer multiple of hugepages-2Mi, spec.containers[0].resources.requests[hugepages-2Mi]: Invalid "
            'value: "11453246122": 11453246122 is not positive integer multiple of hugepages-2Mi]'
        )
        assert (answer.exit_code, answer.stdout) == (1, "")
        assert answer.stderr == f'error: Pod "virt-launcher-vm-m1-" is invalid: {invalid}\n'
        predicted = _predict(cli, tmp_path, namespace, vms, "changed")
        pods = _await_pods(control_plane, namespace, [vm["metadata"]["name"] for vm in vms])
        _compare(predicted, pods)
        compute = predicted["vm-u1"]["spec"]["containers"][0]["resources"]
        # 1 vCPU / 3: %g gives 333.3333333333333m, ParseQuantity 333333334n, the API server rounds up to 334m
        assert compute["requests"]["cpu"] == "334m"
        assert compute["limits"]["cpu"] == "1"  # the namespace selector's auto CPU limit
        assert "memory" in compute["limits"]  # the limits.memory quota's auto memory limit
        assert predicted["vm-u1"]["spec"]["nodeSelector"]["example.com/pool"] == "vms"
        said = _until_event(control_plane, namespace, "vm-m1", "is invalid: ")
        assert said.split("is invalid: ", 1)[1] == invalid
        hostdev = predicted["vm-hostdev"]["spec"]["containers"][0]["resources"]
        assert (hostdev["limits"]["intel.com/qat"], hostdev["requests"]["nvidia.com/GA102GL_A10"]) == ("2", "1")
    finally:
        components.configure(previous)
