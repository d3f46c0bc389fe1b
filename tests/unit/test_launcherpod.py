"""The virt-launcher pod's scheduling part (instancetype/launcherpod), table-driven on KubeVirt v1.9.0's rules.

Each expected value is worked out from the upstream code named in the case (pkg/virt-controller/services,
pkg/hypervisor/kvm GetMemoryOverhead); tests/integration/test_launcher_pod.py holds the same rendering against
the real virt-controller's pods.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.golang.fmt import format_float
from kubectl_instancetype.golang.strconv import go_parse_float
from kubectl_instancetype.instancetype.expand import ClusterDefaults, expand_vm
from kubectl_instancetype.instancetype.launcherpod import (
    ConfigError,
    LauncherConfig,
    NamespaceFacts,
    RenderError,
    pod_qos_class,
    render_launcher_pod,
    scheduling_part,
)
from kubectl_instancetype.instancetype.launcherpod.render import default_tolerations, memory_overhead

CATALOG = load_catalog()
DEVICES = {"devices.kubevirt.io/kvm": "1", "devices.kubevirt.io/tun": "1", "devices.kubevirt.io/vhost-net": "1"}
CONSOLE_LOG = {
    "name": "guest-console-log",
    "resources": {"limits": {"cpu": "15m", "memory": "60M"}, "requests": {"cpu": "5m", "memory": "35M"}},
    "restartPolicy": "Always",
}
CONSOLE_LOG_GUARANTEED = {
    "name": "guest-console-log",
    "resources": {"limits": {"cpu": "15m", "memory": "60M"}, "requests": {"cpu": "15m", "memory": "60M"}},
    "restartPolicy": "Always",
}
HOST_MODEL_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {"key": "node-labeller.kubevirt.io/obsolete-host-model", "operator": "DoesNotExist"}
                    ]
                }
            ]
        }
    }
}
TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]


def _spec(kind: str, name: str) -> dict[str, Any]:
    objects = CATALOG.instancetypes if kind == "instancetype" else CATALOG.preferences
    return next(obj for obj in objects if obj["metadata"]["name"] == name)["spec"]


def _vmi(instancetype: str, preference: str, template: dict[str, Any] | None = None, **defaults: Any) -> dict[str, Any]:
    """The expanded template spec of a VM of ``instancetype`` and ``preference`` (the catalog's)."""
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm", "namespace": "ns"},
        "spec": {
            "instancetype": {"name": instancetype},
            "preference": {"name": preference},
            "template": {"spec": template or {"domain": {"devices": {}}}},
        },
    }
    result = expand_vm(
        vm, _spec("instancetype", instancetype), _spec("preference", preference), defaults=ClusterDefaults(**defaults)
    )
    assert result.vm is not None, result.problems
    spec: dict[str, Any] = result.vm["spec"]["template"]["spec"]
    return spec


def _render(spec: dict[str, Any], config: LauncherConfig | None = None, **kwargs: Any) -> dict[str, Any]:
    return render_launcher_pod(spec, namespace="ns", name="vm", config=config or LauncherConfig(), **kwargs)


def _compute(pod: dict[str, Any]) -> dict[str, Any]:
    resources: dict[str, Any] = pod["spec"]["containers"][0]["resources"]
    return resources


def test_u1_medium_fedora_is_the_whole_pod() -> None:
    # 4Gi guest; overhead (GetMemoryOverhead): no request so no pagetables, 220Mi fixed, 8Mi per vCPU, 8Mi IO
    # thread, 32Mi video = 268Mi; CPU: 1 vCPU / cpuAllocationRatio 10 = "100m"
    assert _render(_vmi("u1.medium", "fedora")) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"generateName": "virt-launcher-vm-", "namespace": "ns"},
        "spec": {
            "affinity": HOST_MODEL_AFFINITY,
            "containers": [
                {
                    "name": "compute",
                    "resources": {
                        "limits": DEVICES,
                        "requests": {**DEVICES, "cpu": "100m", "ephemeral-storage": "50M", "memory": "4364Mi"},
                    },
                }
            ],
            "initContainers": [CONSOLE_LOG],
            "nodeSelector": {
                "kubernetes.io/arch": "amd64",
                "kubevirt.io/schedulable": "true",
                "machine-type.node.kubevirt.io/q35": "true",
            },
            "schedulerName": "default-scheduler",
            "tolerations": TOLERATIONS,
        },
        "status": {"qosClass": "Burstable"},
    }


# (instance type, preference, config, compute requests (cpu, memory, hugepages), compute limits, QoS)
CASES = [
    # 2 vCPUs: 268 + 8 = 276Mi
    ("u1.large", "fedora", LauncherConfig(), {"cpu": "200m", "memory": "8468Mi"}, {}, "Burstable"),
    # overcommitPercent 50: request 2Gi (the instance type's), pagetables ceil(2Gi/1000)*1000/512 = 4Mi
    ("o1.medium", "fedora", LauncherConfig(), {"cpu": "100m", "memory": "2320Mi"}, {}, "Burstable"),
    # dedicated CPUs + isolateEmulatorThread: 2 vCPUs + 1; hugepages 2Mi: the guest as hugepages, the memory
    # request is the overhead (268 + 8 + 100Mi for dedicated CPUs = 376Mi), the limit too (aligned)
    (
        "cx1.large",
        "fedora",
        LauncherConfig(),
        {"cpu": "3", "memory": "376Mi", "hugepages-2Mi": "4Gi"},
        {"cpu": "3", "memory": "376Mi", "hugepages-2Mi": "4Gi"},
        "Guaranteed",
    ),
    # hugepages without dedicated CPUs: m1.large is 2 vCPUs, 16Gi
    (
        "m1.large",
        "fedora",
        LauncherConfig(),
        {"cpu": "200m", "memory": "276Mi", "hugepages-2Mi": "16Gi"},
        {"hugepages-2Mi": "16Gi"},
        "Burstable",
    ),
    # 1Gi pages, dedicated, 4 vCPUs + 1 for the emulator thread
    (
        "n1.large",
        "fedora",
        LauncherConfig(),
        {"cpu": "5", "memory": "392Mi", "hugepages-1Gi": "8Gi"},
        {"cpu": "5", "memory": "392Mi", "hugepages-1Gi": "8Gi"},
        "Guaranteed",
    ),
    # cpuAllocationRatio 3: %g of 1/3*1000 is 333.3333333333333, parsed back rounded up to nano units (333333334n),
    # then by the API server to milli units (SetDefaults_ResourceList)
    (
        "u1.medium",
        "fedora",
        LauncherConfig(cpu_allocation_ratio=3),
        {"cpu": "334m", "memory": "4364Mi"},
        {},
        "Burstable",
    ),
    # 2 vCPUs at ratio 4: 0.5 -> "500m"; 8 vCPUs at ratio 5: 1.6 -> "1.6" -> 1600m
    (
        "u1.large",
        "fedora",
        LauncherConfig(cpu_allocation_ratio=4),
        {"cpu": "500m", "memory": "8468Mi"},
        {},
        "Burstable",
    ),
    (
        "u1.2xlarge",
        "fedora",
        LauncherConfig(cpu_allocation_ratio=5),
        {"cpu": "1600m", "memory": "33092Mi"},
        {},
        "Burstable",
    ),
    # memoryOvercommit 150: 4Gi * 100 / 150 = 2863311530 bytes (BinarySI, not a multiple of 1024: decimal) + 268Mi
    (
        "u1.medium",
        "fedora",
        LauncherConfig(memory_overcommit=150),
        {"cpu": "100m", "memory": "3144329898"},
        {},
        "Burstable",
    ),
    # additionalGuestMemoryOverheadRatio 1.5: 268Mi = 281018368 -> ScaledValue(Kilo) 281019 * 0.5 = 140509 (truncated) kB
    (
        "u1.medium",
        "fedora",
        LauncherConfig(additional_guest_memory_overhead_ratio="1.5"),
        {
            "cpu": "100m",
            "memory": "4716494664",
        },
        {},
        "Burstable",
    ),
]


@pytest.mark.parametrize(("instancetype", "preference", "config", "requests", "limits", "qos"), CASES)
def test_compute_resources(instancetype, preference, config, requests, limits, qos) -> None:
    pod = _render(_vmi(instancetype, preference), config)
    compute = _compute(pod)
    for name, value in requests.items():
        assert compute["requests"][name] == value, name
    for name, value in limits.items():
        assert compute["limits"][name] == value, name
    if not limits:
        assert set(compute["limits"]) == set(DEVICES)
    assert pod["status"]["qosClass"] == qos


def test_u1_2xlarge_request_is_32_gi_plus_overhead() -> None:
    # 8 vCPUs: 268 + 7 * 8 = 324Mi on 32Gi = 33092Mi
    assert _compute(_render(_vmi("u1.2xlarge", "fedora")))["requests"]["memory"] == "33092Mi"


def test_dedicated_pods_are_guaranteed_with_equal_support_containers() -> None:
    pod = _render(_vmi("cx1.large", "fedora"))
    assert pod["spec"]["initContainers"] == [CONSOLE_LOG_GUARANTEED]
    assert pod["spec"]["nodeSelector"]["kubevirt.io/cpumanager"] == "true"


def test_even_parity_adds_two_emulator_cpus_when_the_count_is_even() -> None:
    # cx1.xlarge: 4 vCPUs, even: 2 emulator thread CPUs with the annotation (copied from the CR with AlignCPUs)
    config = LauncherConfig(
        feature_gates=("AlignCPUs",), cr_annotations={"alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity": ""}
    )
    assert _compute(_render(_vmi("cx1.xlarge", "fedora"), config))["limits"]["cpu"] == "6"
    assert _compute(_render(_vmi("cx1.xlarge", "fedora")))["limits"]["cpu"] == "5"
    without_gate = LauncherConfig(cr_annotations={"alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity": ""})
    assert _compute(_render(_vmi("cx1.xlarge", "fedora"), without_gate))["limits"]["cpu"] == "5"


def test_arm64_adds_uefi_pflash_and_drops_the_host_model_affinity() -> None:
    pod = _render(_vmi("u1.medium", "fedora.arm64"))
    assert _compute(pod)["requests"]["memory"] == "4492Mi"  # 268 + 128Mi
    assert "affinity" not in pod["spec"]
    assert pod["spec"]["nodeSelector"] == {
        "kubernetes.io/arch": "arm64",
        "kubevirt.io/schedulable": "true",
        "machine-type.node.kubevirt.io/virt": "true",
    }


def test_default_architecture_comes_from_the_configuration() -> None:
    # a VM without an architecture (the linux preference sets none) on a cluster whose default is arm64
    spec = _vmi("u1.medium", "cirros", architecture=None)
    assert "architecture" not in spec
    pod = _render(spec, LauncherConfig(default_architecture="arm64"))
    assert pod["spec"]["nodeSelector"]["kubernetes.io/arch"] == "arm64"
    assert _compute(pod)["requests"]["memory"] == "4492Mi"


def test_quota_on_limits_memory_gives_auto_memory_limits() -> None:
    facts = NamespaceFacts(labels={}, quota_resources=frozenset({"limits.memory", "requests.cpu"}))
    compute = _compute(_render(_vmi("u1.medium", "fedora"), namespace_facts=facts))
    # int64(float64(4364Mi) * 2) in BinarySI
    assert compute["limits"]["memory"] == "8728Mi"
    assert "cpu" not in compute["limits"]
    labelled = NamespaceFacts(
        labels={"alpha.kubevirt.io/auto-memory-limits-ratio": "1.3"}, quota_resources=frozenset({"limits.memory"})
    )
    # 4364Mi = 4575985664; * 1.3 = 5948781363.2 -> 5948781363
    assert _compute(_render(_vmi("u1.medium", "fedora"), namespace_facts=labelled))["limits"]["memory"] == "5948781363"
    below_one = NamespaceFacts(
        labels={"alpha.kubevirt.io/auto-memory-limits-ratio": "0.5"}, quota_resources=frozenset({"limits.memory"})
    )
    assert _compute(_render(_vmi("u1.medium", "fedora"), namespace_facts=below_one))["limits"]["memory"] == "8728Mi"


def test_auto_cpu_limits_from_a_quota_or_the_namespace_selector() -> None:
    quota = NamespaceFacts(labels={}, quota_resources=frozenset({"limits.cpu"}))
    assert _compute(_render(_vmi("u1.large", "fedora"), namespace_facts=quota))["limits"]["cpu"] == "2"
    config = LauncherConfig(auto_cpu_limit_namespace_label_selector={"matchLabels": {"autocpulimit": "true"}})
    labelled = NamespaceFacts(labels={"autocpulimit": "true"})
    assert _compute(_render(_vmi("u1.large", "fedora"), config, namespace_facts=labelled))["limits"]["cpu"] == "2"
    other = NamespaceFacts(labels={"autocpulimit": "false"})
    assert "cpu" not in _compute(_render(_vmi("u1.large", "fedora"), config, namespace_facts=other))["limits"]
    invalid = LauncherConfig(
        auto_cpu_limit_namespace_label_selector={"matchExpressions": [{"key": "a", "operator": "Bad"}]}
    )
    assert "cpu" not in _compute(_render(_vmi("u1.large", "fedora"), invalid, namespace_facts=labelled))["limits"]


def test_gpus_and_host_devices_are_requested_and_add_the_vfio_overhead() -> None:
    template = {
        "domain": {
            "devices": {
                "gpus": [{"name": "gpu1", "deviceName": "nvidia.com/GA102GL_A10"}],
                "hostDevices": [
                    {"name": "hd1", "deviceName": "example.com/dev"},
                    {"name": "hd2", "deviceName": "example.com/dev"},
                ],
            }
        }
    }
    compute = _compute(_render(_vmi("u1.medium", "fedora", template)))
    assert compute["limits"]["nvidia.com/GA102GL_A10"] == "1"
    assert compute["requests"]["nvidia.com/GA102GL_A10"] == "1"
    assert compute["limits"]["example.com/dev"] == compute["requests"]["example.com/dev"] == "2"
    assert compute["requests"]["memory"] == "5388Mi"  # + 1Gi for VFIO


def test_host_devices_not_permitted_stop_the_render() -> None:
    template = {"domain": {"devices": {"gpus": [{"name": "gpu1", "deviceName": "nvidia.com/X"}]}}}
    config = LauncherConfig(permitted_host_devices={"pciHostDevices": [{"resourceName": "nvidia.com/Y"}]})
    with pytest.raises(RenderError) as caught:
        _render(_vmi("u1.medium", "fedora", template), config)
    assert str(caught.value) == "GPU nvidia.com/X is not permitted in permittedHostDevices configuration"
    allowed = LauncherConfig(permitted_host_devices={"pciHostDevices": [{"resourceName": "nvidia.com/X"}]})
    assert _compute(_render(_vmi("u1.medium", "fedora", template), allowed))["limits"]["nvidia.com/X"] == "1"


def test_container_disks_are_image_volume_init_containers_by_default() -> None:
    template = {
        "domain": {"devices": {}},
        "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
    }
    pod = _render(_vmi("u1.medium", "fedora", template))
    disk = {
        "name": "volumeroot",
        "resources": {
            "limits": {"cpu": "10m", "memory": "40M"},
            "requests": {"cpu": "1m", "ephemeral-storage": "50M", "memory": "1M"},
        },
    }
    assert pod["spec"]["initContainers"] == [CONSOLE_LOG, disk]
    assert [c["name"] for c in pod["spec"]["containers"]] == ["compute"]
    legacy = _render(_vmi("u1.medium", "fedora", template), LauncherConfig(disabled_feature_gates=("ImageVolume",)))
    assert [c["name"] for c in legacy["spec"]["containers"]] == ["compute", "volumeroot"]
    assert [c["name"] for c in legacy["spec"]["initContainers"]] == [
        "guest-console-log",
        "container-disk-binary",
        "volumeroot-init",
    ]
    binary = legacy["spec"]["initContainers"][1]["resources"]
    assert binary == {"limits": {"cpu": "100m", "memory": "40M"}, "requests": {"cpu": "10m", "memory": "1M"}}


def test_support_container_resources_and_disabled_console_log() -> None:
    config = LauncherConfig(
        support_container_resources=(("guest-console-log", {"requests": {"cpu": "7m"}, "limits": {"memory": "100M"}}),)
    )
    console = _render(_vmi("u1.medium", "fedora"), config)["spec"]["initContainers"][0]["resources"]
    assert console == {"limits": {"cpu": "15m", "memory": "100M"}, "requests": {"cpu": "7m", "memory": "35M"}}
    off = _render(_vmi("u1.medium", "fedora"), LauncherConfig(serial_console_log_disabled=True))
    assert "initContainers" not in off["spec"]
    template = {"domain": {"devices": {"logSerialConsole": True}}}
    on = _render(_vmi("u1.medium", "fedora", template), LauncherConfig(serial_console_log_disabled=True))
    assert on["spec"]["initContainers"][0]["name"] == "guest-console-log"


def test_node_selectors_affinity_tolerations_and_scheduler_from_the_vm_and_cluster() -> None:
    template = {
        "domain": {
            "devices": {},
            "cpu": {"model": "Haswell", "features": [{"name": "vmx"}, {"name": "svm", "policy": "forbid"}]},
        },
        "nodeSelector": {"zone": "a"},
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}],
        "schedulerName": "custom",
        "priorityClassName": "high",
    }
    pod = _render(_vmi("u1.medium", "fedora", template), LauncherConfig(node_selectors={"cluster": "x"}))
    spec = pod["spec"]
    assert spec["nodeSelector"] == {
        "cluster": "x",
        "cpu-feature.node.kubevirt.io/vmx": "true",
        "cpu-model.node.kubevirt.io/Haswell": "true",
        "kubernetes.io/arch": "amd64",
        "kubevirt.io/schedulable": "true",
        "machine-type.node.kubevirt.io/q35": "true",
        "zone": "a",
    }
    assert spec["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "cpu-feature.node.kubevirt.io/svm", "operator": "DoesNotExist"}]}
                ]
            }
        }
    }
    assert spec["tolerations"] == [
        {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
        TOLERATIONS[1],
    ]
    assert (spec["schedulerName"], spec["priorityClassName"]) == ("custom", "high")


def test_cpu_model_from_the_cluster_selects_its_label() -> None:
    pod = _render(_vmi("u1.medium", "fedora"), LauncherConfig(cpu_model="Skylake-Client"))
    assert pod["spec"]["nodeSelector"]["cpu-model.node.kubevirt.io/Skylake-Client"] == "true"
    assert "affinity" not in pod["spec"]


@pytest.mark.parametrize(
    ("tolerations", "added"),
    [
        ([], ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]),
        ([{"operator": "Exists"}], []),  # an empty key and effect tolerates everything
        (
            [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoSchedule"}],
            [
                "node.kubernetes.io/not-ready",
                "node.kubernetes.io/unreachable",
            ],
        ),
        ([{"operator": "Exists", "effect": "NoExecute"}], []),
    ],
)
def test_default_toleration_seconds(tolerations, added) -> None:
    result = default_tolerations(tolerations)
    assert result[: len(tolerations)] == tolerations
    assert [t["key"] for t in result[len(tolerations) :]] == added


@pytest.mark.parametrize(
    ("containers", "init", "qos"),
    [
        ([{}], [], "BestEffort"),
        (
            [{"requests": {"devices.kubevirt.io/kvm": "1"}, "limits": {"devices.kubevirt.io/kvm": "1"}}],
            [],
            "BestEffort",
        ),
        ([{"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}], [], "Guaranteed"),
        (
            [{"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}],
            [{"requests": {"cpu": "1m"}}],
            "Burstable",
        ),
        ([{"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1024Mi"}}], [], "Guaranteed"),
        ([{"requests": {"cpu": "1"}, "limits": {"cpu": "1", "memory": "1Gi"}}], [], "Burstable"),
        ([{"requests": {"cpu": "0"}}], [], "BestEffort"),
    ],
)
def test_pod_qos_class(containers, init, qos) -> None:
    pod = {
        "spec": {
            "containers": [{"name": f"c{i}", "resources": r} for i, r in enumerate(containers)],
            "initContainers": [{"name": f"i{i}", "resources": r} for i, r in enumerate(init)],
        }
    }
    assert pod_qos_class(pod) == qos


def test_overhead_counts_probes_tpm_and_downward_metrics() -> None:
    spec = _vmi("u1.medium", "fedora")
    base = memory_overhead(spec, LauncherConfig())
    assert str(base) == "268Mi"
    spec["readinessProbe"] = {"exec": {"command": ["true"]}}
    spec["livenessProbe"] = {"exec": {"command": ["true"]}}
    spec["domain"]["devices"]["tpm"] = {}
    spec["volumes"] = [{"name": "m", "downwardMetrics": {}}]
    # + 10 + 10 + 100 (probes) + 53 (TPM) + 1 (downward metrics)
    assert str(memory_overhead(spec, LauncherConfig())) == "442Mi"


def test_passt_and_binding_plugins_add_network_overhead() -> None:
    config = LauncherConfig(
        network_bindings={
            "plugin": {"computeResourceOverhead": {"requests": {"memory": "100Mi"}}, "sidecarImage": "img"}
        }
    )
    template = {
        "domain": {"devices": {"interfaces": [{"name": "default", "binding": {"name": "plugin"}}]}},
        "networks": [{"name": "default", "pod": {}}],
    }
    pod = _render(_vmi("u1.medium", "fedora", template), config)
    assert _compute(pod)["requests"]["memory"] == "4464Mi"
    assert [c["name"] for c in pod["spec"]["containers"]] == ["compute", "hook-sidecar-0"]
    with pytest.raises(RenderError) as caught:
        _render(_vmi("u1.medium", "fedora", template))
    assert str(caught.value) == "couldn't find configuration for network binding: plugin"


def test_tsc_frequency_selector_for_hyperv_reenlightenment() -> None:
    spec = _vmi("u1.medium", "windows.11")
    assert "nodeSelector" in _render(spec, tsc_frequency=None)["spec"]
    with_tsc = _render(spec, tsc_frequency=2400000000)["spec"]["nodeSelector"]
    assert with_tsc["scheduling.node.kubevirt.io/tsc-frequency-2400000000"] == "true"
    assert (
        "scheduling.node.kubevirt.io/tsc-frequency-2400000000"
        not in _render(_vmi("u1.medium", "fedora"), tsc_frequency=2400000000)["spec"]["nodeSelector"]
    )


def test_configuration_is_read_as_virt_controller_reads_the_kubevirt_cr() -> None:
    kubevirt = {
        "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
        "spec": {
            "configuration": {
                "developerConfiguration": {"cpuAllocationRatio": 4, "featureGates": ["AlignCPUs"]},
                "supportContainerResources": [{"type": "container-disk", "resources": {"requests": {"cpu": "2m"}}}],
                "additionalGuestMemoryOverheadRatio": "1.2",
            }
        },
        "status": {"phase": "Deployed", "defaultArchitecture": "arm64"},
    }
    config = LauncherConfig.from_kubevirt(kubevirt)
    assert (config.cpu_allocation_ratio, config.memory_overcommit) == (4, 100)
    assert config.default_architecture == "arm64"
    assert config.gate("AlignCPUs") and config.gate("ImageVolume") and not config.gate("IOMMUFD")
    assert config.support_container("container-disk", "requests", "cpu") == "2m"
    assert config.additional_guest_memory_overhead_ratio == "1.2"
    assert config.source == "kubevirt/kubevirt"
    undeployed = LauncherConfig.from_kubevirt({**kubevirt, "status": {}})
    assert undeployed.cpu_allocation_ratio == 10
    assert undeployed.source == "KubeVirt v1.9.0 defaults (kubevirt/kubevirt has no status.phase)"
    with pytest.raises(ConfigError) as caught:
        LauncherConfig.from_kubevirt(
            {**kubevirt, "spec": {"configuration": {"developerConfiguration": {"memoryOvercommit": -1}}}}
        )
    assert str(caught.value) == "invalid memoryOvercommit in ConfigMap: -1"


def test_scheduling_part_keeps_only_the_scheduling_fields() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "virt-launcher-vm-abcde", "namespace": "ns", "labels": {"a": "b"}},
        "spec": {
            "containers": [{"name": "compute", "image": "x", "resources": {"requests": {"cpu": "100m"}}, "env": []}],
            "nodeSelector": {"a": "b"},
            "volumes": [{"name": "v"}],
            "schedulerName": "default-scheduler",
            "priority": 0,
        },
        "status": {"phase": "Pending", "qosClass": "Burstable"},
    }
    assert scheduling_part(pod) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "virt-launcher-vm-abcde", "namespace": "ns"},
        "spec": {
            "containers": [{"name": "compute", "resources": {"requests": {"cpu": "100m"}}}],
            "nodeSelector": {"a": "b"},
            "schedulerName": "default-scheduler",
        },
        "status": {"qosClass": "Burstable"},
    }


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.1, "0.1"),
        (1 / 3 * 1000, "333.3333333333333"),
        (2 / 3 * 1000, "666.6666666666666"),
        (1.5, "1.5"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (12345678.5, "1.23456785e+07"),
    ],
)
def test_format_g_is_gos_percent_g(value, text) -> None:
    # the values and texts of Go 1.26's fmt.Sprintf("%g", v)
    assert format_float(value, "g", -1) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [("2", 2.0), ("1.5", 1.5), ("1e1", 10.0), (".5", 0.5), ("+1.25", 1.25), ("0x1p1", 2.0), ("inf", float("inf"))]
    # Go reads underscores between digits in floats too (internal/strconv/atof_test.go: "1_23.50_0_0e+1_2")
    + [("1_0", 10.0)],
)
def test_parse_float_accepts_what_strconv_accepts(text, value) -> None:
    assert go_parse_float(text) == value


@pytest.mark.parametrize("text", [" 2", "2 ", "1__0", "_1", "", "abc", "1e", "0x1", "1e999", "+nan"])
def test_parse_float_refuses_what_strconv_refuses(text) -> None:
    with pytest.raises(ValueError, match="strconv.ParseFloat"):
        go_parse_float(text)


def _node(labels: dict[str, str]) -> dict[str, Any]:
    return {"metadata": {"name": "n", "labels": labels}}


@pytest.mark.parametrize(
    ("nodes", "lowest"),
    [
        ([], 0),
        (
            [_node({"kubevirt.io/schedulable": "true", "cpu-timer.node.kubevirt.io/tsc-frequency": "2400000000"})],
            2400000000,
        ),
        (
            [
                _node({"kubevirt.io/schedulable": "true", "cpu-timer.node.kubevirt.io/tsc-frequency": "2400000000"}),
                _node({"kubevirt.io/schedulable": "true", "cpu-timer.node.kubevirt.io/tsc-frequency": "2100000000"}),
                _node({"kubevirt.io/schedulable": "false", "cpu-timer.node.kubevirt.io/tsc-frequency": "1000"}),
                _node({"kubevirt.io/schedulable": "true", "cpu-timer.node.kubevirt.io/tsc-frequency": "x"}),
                _node({"kubevirt.io/schedulable": "true", "cpu-timer.node.kubevirt.io/tsc-frequency": "-5"}),
            ],
            2100000000,
        ),
    ],
)
def test_lowest_tsc_frequency_of_the_schedulable_nodes(nodes, lowest) -> None:
    from kubectl_instancetype.instancetype.launcherpod import lowest_tsc_frequency

    assert lowest_tsc_frequency(nodes) == lowest


def test_limit_range_defaults_are_merged_after_the_api_servers_defaulting() -> None:
    limit_range = {
        "spec": {
            "limits": [
                {"type": "Pod", "max": {"cpu": "64"}},
                {
                    "type": "Container",
                    "default": {"cpu": "2", "memory": "8Gi"},
                    "defaultRequest": {"cpu": "500m", "memory": "1Gi"},
                },
            ]
        }
    }
    facts = NamespaceFacts.from_objects({"metadata": {"name": "ns"}}, [], [limit_range])
    pod = _render(_vmi("u1.medium", "fedora"), namespace_facts=facts)
    compute = _compute(pod)
    # the compute container's own request stays; the missing limits come from the LimitRange
    assert (compute["requests"]["cpu"], compute["requests"]["memory"]) == ("100m", "4364Mi")
    assert (compute["limits"]["cpu"], compute["limits"]["memory"]) == ("2", "8Gi")
    console = pod["spec"]["initContainers"][0]["resources"]
    assert console == {"limits": {"cpu": "15m", "memory": "60M"}, "requests": {"cpu": "5m", "memory": "35M"}}
    assert pod["status"]["qosClass"] == "Burstable"


def test_the_default_runtime_class_sets_overhead_and_scheduling() -> None:
    runtime_class = {
        "handler": "kata",
        "overhead": {"podFixed": {"memory": "120Mi", "cpu": "0.25"}},
        "scheduling": {
            "nodeSelector": {"runtime": "kata"},
            "tolerations": [
                {"key": "kata", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
            ],
        },
    }
    config = LauncherConfig(default_runtime_class="kata")
    spec = _render(_vmi("u1.medium", "fedora"), config, runtime_class=runtime_class)["spec"]
    assert spec["runtimeClassName"] == "kata"
    assert spec["overhead"] == {"cpu": "250m", "memory": "120Mi"}
    assert spec["nodeSelector"]["runtime"] == "kata"
    # MergeTolerations: the RuntimeClass's not-ready toleration (no tolerationSeconds) covers the 300 s one
    assert spec["tolerations"] == [
        TOLERATIONS[1],
        {"key": "kata", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    ]
    conflicting = {"scheduling": {"nodeSelector": {"kubevirt.io/schedulable": "false"}}}
    with pytest.raises(RenderError) as caught:
        _render(_vmi("u1.medium", "fedora"), config, runtime_class=conflicting)
    assert str(caught.value) == (
        "conflict: runtimeClass.scheduling.nodeSelector[kubevirt.io/schedulable] = false; "
        "pod.spec.nodeSelector[kubevirt.io/schedulable] = true"
    )


def test_the_global_default_priority_class_names_pods_that_name_none() -> None:
    from kubectl_instancetype.instancetype.launcherpod import default_priority_class

    classes = [
        {"metadata": {"name": "system-node-critical"}, "value": 2000001000},
        {"metadata": {"name": "high"}, "value": 1000, "globalDefault": True},
        {"metadata": {"name": "low"}, "value": 10, "globalDefault": True},
    ]
    assert default_priority_class(classes) == "low"
    assert default_priority_class(classes[:1]) is None
    pod = _render(_vmi("u1.medium", "fedora"), default_priority_class="low")
    assert pod["spec"]["priorityClassName"] == "low"
    named = _render(
        _vmi("u1.medium", "fedora", {"domain": {"devices": {}}, "priorityClassName": "mine"}),
        default_priority_class="low",
    )
    assert named["spec"]["priorityClassName"] == "mine"


def test_hugepages_with_memory_overcommit_make_a_pod_the_api_server_refuses() -> None:
    # cx1.medium: 2Gi guest at memoryOvercommit 150: 1431655765 bytes of 2Mi pages (seen on the real plane:
    # virt-controller's event "Error creating pod: Pod ... is invalid: [...]")
    with pytest.raises(RenderError) as caught:
        _render(_vmi("cx1.medium", "fedora"), LauncherConfig(memory_overcommit=150))
    assert str(caught.value) == (
        'Pod "virt-launcher-vm-" is invalid: ['
        'spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "1431655765": '
        "1431655765 is not positive integer multiple of hugepages-2Mi, "
        'spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "1431655765": '
        "1431655765 is not positive integer multiple of hugepages-2Mi]"
    )
