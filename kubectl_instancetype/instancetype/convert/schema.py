"""What the conversion reads and writes: API groups and kinds, old kind names, deprecated topology spellings and
the v1beta1 spec fields (KubeVirt v1.9's CRD schemas)."""

from __future__ import annotations

from ..kinds import CLUSTER_INSTANCETYPE, GROUP, INSTANCETYPE, TYPE_KINDS

INSTANCETYPE_API = "instancetype.kubevirt.io/v1beta1"
VM_API = "kubevirt.io/v1"
FLAVOR_GROUP = "flavor.kubevirt.io"
INSTANCETYPE_GROUP = GROUP
KUBEVIRT_GROUP = "kubevirt.io"
PRESET_KINDS = ("VirtualMachineInstancePreset", "VirtualMachinePreset")
PRESET_EXCLUDE_ANNOTATION = "virtualmachineinstancepresets.admission.kubevirt.io/exclude"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


# Old kind -> v1beta1 kind. VM matcher kinds are renamed with the same table.
KIND_MAP = {
    "VirtualMachineFlavor": INSTANCETYPE.kind,
    "VirtualMachineClusterFlavor": CLUSTER_INSTANCETYPE.kind,
    **{kind: kind for kind in TYPE_KINDS},
}


# Deprecated topology spellings (v1.4 introduced the short names; KubeVirt warns on the old ones).
TOPOLOGY_RENAMES = {
    "preferSockets": "sockets",
    "preferCores": "cores",
    "preferThreads": "threads",
    "preferSpread": "spread",
    "preferAny": "any",
}


TOPOLOGIES = frozenset(TOPOLOGY_RENAMES.values())


# The v1beta1 spec fields of KubeVirt v1.9 (from its CRD schemas), two levels deep: section -> its keys, or
# None for a leaf/opaque value whose inner shape is a kubevirt.io/v1 type that did not change.
INSTANCETYPE_FIELDS: dict[str, frozenset[str] | None] = {
    "annotations": None,
    "cpu": frozenset(
        {"dedicatedCPUPlacement", "guest", "isolateEmulatorThread", "maxSockets", "model", "numa", "realtime"}
    ),
    "gpus": None,
    "hostDevices": None,
    "ioThreads": frozenset({"supplementalPoolThreadCount"}),
    "ioThreadsPolicy": None,
    "launchSecurity": None,
    "memory": frozenset({"guest", "hugepages", "maxGuest", "overcommitPercent"}),
    "nodeSelector": None,
    "schedulerName": None,
}


PREFERENCE_FIELDS: dict[str, frozenset[str] | None] = {
    "annotations": None,
    "clock": frozenset({"preferredClockOffset", "preferredTimer"}),
    "cpu": frozenset({"preferredCPUFeatures", "preferredCPUTopology", "spreadOptions"}),
    "devices": frozenset(
        {
            "preferredAutoattachGraphicsDevice",
            "preferredAutoattachInputDevice",
            "preferredAutoattachMemBalloon",
            "preferredAutoattachPodInterface",
            "preferredAutoattachSerialConsole",
            "preferredBlockMultiQueue",
            "preferredCdromBus",
            "preferredDisableHotplug",
            "preferredDiskBlockSize",
            "preferredDiskBus",
            "preferredDiskCache",
            "preferredDiskDedicatedIoThread",
            "preferredDiskIO",
            "preferredInputBus",
            "preferredInputType",
            "preferredInterfaceMasquerade",
            "preferredInterfaceModel",
            "preferredLunBus",
            "preferredNetworkInterfaceMultiQueue",
            "preferredPanicDeviceModel",
            "preferredRng",
            "preferredSoundModel",
            "preferredTPM",
            "preferredUseVirtioTransitional",
            "preferredVideoType",
            "preferredVirtualGPUOptions",
        }
    ),
    "features": frozenset(
        {"preferredAcpi", "preferredApic", "preferredHyperv", "preferredKvm", "preferredPvspinlock", "preferredSmm"}
    ),
    "firmware": frozenset(
        {"preferredEfi", "preferredUseBios", "preferredUseBiosSerial", "preferredUseEfi", "preferredUseSecureBoot"}
    ),
    "machine": frozenset({"preferredMachineType"}),
    "preferSpreadSocketToCoreRatio": None,
    "preferredArchitecture": None,
    "preferredLaunchSecurity": None,
    "preferredSubdomain": None,
    "preferredTerminationGracePeriodSeconds": None,
    "requirements": frozenset({"architecture", "cpu", "memory"}),
    "volumes": frozenset({"preferredStorageClassName"}),
}


# What KubeVirt's preset mechanism merged into a VMI (v0.58 mutators/preset.go, mergeDomainSpec): other
# preset fields were accepted by the schema and ignored.
PRESET_MERGED = ("resources.requests", "cpu", "firmware", "clock", "features", "devices.watchdog", "ioThreadsPolicy")
