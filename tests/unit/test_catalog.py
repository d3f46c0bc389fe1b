"""The embedded common-instancetypes v1.7.0 catalog against the published facts.

The tables below are typed from github.com/kubevirt/common-instancetypes (its README's series and size matrix,
``instancetypes/<series>/`` for every instance type, ``preferences/`` for the preferences) at the v1.7.0 tag; where
the main branch differs (the ``*.s390x.secex`` preferences and the ``cores`` topology of
``windows.10*``/``windows.11*`` came after v1.7.0), the rows follow the v1.7.0 release and say so. Nothing here reads the upstream bundles:
``hack/gen_catalog.py --check`` compares the data with them.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from kubectl_instancetype.catalog import (
    API_VERSION,
    CLUSTER_INSTANCETYPE_KIND,
    CLUSTER_PREFERENCE_KIND,
    INSTANCETYPE_KIND,
    PREFERENCE_KIND,
    VERSIONS,
    UnknownCatalogVersionError,
    load_catalog,
    loader,
)
from kubectl_instancetype.errors import UsageError

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_FILE = os.path.join(REPO_ROOT, "kubectl_instancetype", "catalog", "data", "common-instancetypes-v1.7.0.json")
P = "instancetype.kubevirt.io/"

# v1.6.0 / v1.7.0 ship 65 instance types and 54 preferences (HEAD has 57 preferences).
INSTANCETYPE_COUNT = 65
PREFERENCE_COUNT = 54

# every instance type: name, vCPU, memory, hugepages page size (and label), cpu.maxSockets,
# dedicatedCPUPlacement, isolateEmulatorThread, numa guestMappingPassthrough, realtime, overcommitPercent.
# v1.7.0 made no instance type changes, so HEAD's table is v1.7.0's.
INSTANCETYPE_TABLE = """
    u1.nano          1 512Mi    -   -    -    -    -    -   -
    u1.micro         1   1Gi    -   -    -    -    -    -   -
    u1.small         1   2Gi    -   -    -    -    -    -   -
    u1.medium        1   4Gi    -   -    -    -    -    -   -
    u1.2xmedium      2   4Gi    -   -    -    -    -    -   -
    u1.large         2   8Gi    -   -    -    -    -    -   -
    u1.xlarge        4  16Gi    -   -    -    -    -    -   -
    u1.2xlarge       8  32Gi    -   -    -    -    -    -   -
    u1.4xlarge      16  64Gi    -   -    -    -    -    -   -
    u1.8xlarge      32 128Gi    -   -    -    -    -    -   -
    o1.nano          1 512Mi    -   -    -    -    -    -  50
    o1.micro         1   1Gi    -   -    -    -    -    -  50
    o1.small         1   2Gi    -   -    -    -    -    -  50
    o1.medium        1   4Gi    -   -    -    -    -    -  50
    o1.large         2   8Gi    -   -    -    -    -    -  50
    o1.xlarge        4  16Gi    -   -    -    -    -    -  50
    o1.2xlarge       8  32Gi    -   -    -    -    -    -  50
    o1.4xlarge      16  64Gi    -   -    -    -    -    -  50
    o1.8xlarge      32 128Gi    -   -    -    -    -    -  50
    cx1.medium       1   2Gi  2Mi   1  yes  yes  yes    -   -
    cx1.large        2   4Gi  2Mi   2  yes  yes  yes    -   -
    cx1.xlarge       4   8Gi  2Mi   4  yes  yes  yes    -   -
    cx1.2xlarge      8  16Gi  2Mi   8  yes  yes  yes    -   -
    cx1.4xlarge     16  32Gi  2Mi  16  yes  yes  yes    -   -
    cx1.8xlarge     32  64Gi  2Mi  32  yes  yes  yes    -   -
    cx1.medium1gi    1   2Gi  1Gi   1  yes  yes  yes    -   -
    cx1.large1gi     2   4Gi  1Gi   2  yes  yes  yes    -   -
    cx1.xlarge1gi    4   8Gi  1Gi   4  yes  yes  yes    -   -
    cx1.2xlarge1gi   8  16Gi  1Gi   8  yes  yes  yes    -   -
    cx1.4xlarge1gi  16  32Gi  1Gi  16  yes  yes  yes    -   -
    cx1.8xlarge1gi  32  64Gi  1Gi  32  yes  yes  yes    -   -
    m1.large         2  16Gi  2Mi   -    -    -    -    -   -
    m1.xlarge        4  32Gi  2Mi   -    -    -    -    -   -
    m1.2xlarge       8  64Gi  2Mi   -    -    -    -    -   -
    m1.4xlarge      16 128Gi  2Mi   -    -    -    -    -   -
    m1.8xlarge      32 256Gi  2Mi   -    -    -    -    -   -
    m1.large1gi      2  16Gi  1Gi   -    -    -    -    -   -
    m1.xlarge1gi     4  32Gi  1Gi   -    -    -    -    -   -
    m1.2xlarge1gi    8  64Gi  1Gi   -    -    -    -    -   -
    m1.4xlarge1gi   16 128Gi  1Gi   -    -    -    -    -   -
    m1.8xlarge1gi   32 256Gi  1Gi   -    -    -    -    -   -
    n1.medium        4   4Gi  1Gi   -  yes  yes    -    -   -
    n1.large         4   8Gi  1Gi   -  yes  yes    -    -   -
    n1.xlarge        8  16Gi  1Gi   -  yes  yes    -    -   -
    n1.2xlarge      16  32Gi  1Gi   -  yes  yes    -    -   -
    n1.4xlarge      32  64Gi  1Gi   -  yes  yes    -    -   -
    n1.8xlarge      64 128Gi  1Gi   -  yes  yes    -    -   -
    rt1.micro        1   1Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.small        1   2Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.medium       1   4Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.large        2   8Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.xlarge       4  16Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.2xlarge      8  32Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.4xlarge     16  64Gi  1Gi   -  yes  yes  yes  yes   -
    rt1.8xlarge     32 128Gi  1Gi   -  yes  yes  yes  yes   -
    d1.nano          1 512Mi    -   -  yes  yes    -    -   -
    d1.micro         1   1Gi    -   -  yes  yes    -    -   -
    d1.small         1   2Gi    -   -  yes  yes    -    -   -
    d1.medium        1   4Gi    -   -  yes  yes    -    -   -
    d1.2xmedium      2   4Gi    -   -  yes  yes    -    -   -
    d1.large         2   8Gi    -   -  yes  yes    -    -   -
    d1.xlarge        4  16Gi    -   -  yes  yes    -    -   -
    d1.2xlarge       8  32Gi    -   -  yes  yes    -    -   -
    d1.4xlarge      16  64Gi    -   -  yes  yes    -    -   -
    d1.8xlarge      32 128Gi    -   -  yes  yes    -    -   -
"""

# size matrix, "vCPU/memory" per series column; "-" means the series has no such size.
SIZE_MATRIX = """
    size      u1        o1        d1        rt1      n1        cx1      cx1.*1gi  m1        m1.*1gi
    nano      1/512Mi   1/512Mi   1/512Mi   -        -         -        -         -         -
    micro     1/1Gi     1/1Gi     1/1Gi     1/1Gi    -         -        -         -         -
    small     1/2Gi     1/2Gi     1/2Gi     1/2Gi    -         -        -         -         -
    medium    1/4Gi     1/4Gi     1/4Gi     1/4Gi    4/4Gi     1/2Gi    1/2Gi     -         -
    2xmedium  2/4Gi     -         2/4Gi     -        -         -        -         -         -
    large     2/8Gi     2/8Gi     2/8Gi     2/8Gi    4/8Gi     2/4Gi    2/4Gi     2/16Gi    2/16Gi
    xlarge    4/16Gi    4/16Gi    4/16Gi    4/16Gi   8/16Gi    4/8Gi    4/8Gi     4/32Gi    4/32Gi
    2xlarge   8/32Gi    8/32Gi    8/32Gi    8/32Gi   16/32Gi   8/16Gi   8/16Gi    8/64Gi    8/64Gi
    4xlarge   16/64Gi   16/64Gi   16/64Gi   16/64Gi  32/64Gi   16/32Gi  16/32Gi   16/128Gi  16/128Gi
    8xlarge   32/128Gi  32/128Gi  32/128Gi  32/128Gi 64/128Gi  32/64Gi  32/64Gi   32/256Gi  32/256Gi
"""

# series -> (class label, displayName annotation, icon-pf label).
SERIES = {
    "u1": ("general.purpose", "General Purpose", "pficon-server-group"),
    "o1": ("overcommitted", "Overcommitted", "pficon-virtual-machine"),
    "cx1": ("compute.exclusive", "Compute Exclusive", "pficon-registry"),
    "m1": ("memory.intensive", "Memory Intensive", "fa-memory"),
    "n1": ("network", "Network", "pficon-network"),
    "rt1": ("realtime", "Realtime", "pficon-server-group"),
    "d1": ("dedicated.vcpu", "Dedicated vCPU", "pficon-server-group"),
}
# cx1 and d1 set ioThreadsPolicy auto; n1 and rt1 carry the three cri-o annotations.
IOTHREADS_AUTO = {"cx1", "d1"}
CRIO_ANNOTATIONS = {
    "cpu-load-balancing.crio.io": "disable",
    "cpu-quota.crio.io": "disable",
    "irq-load-balancing.crio.io": "disable",
}
CRIO_SERIES = {"n1", "rt1"}

# every preference of v1.7.0: name | display-name | os-type | arch label | required vCPU / memory |
# disk bus | NIC | CPU topology | firmware | features | devices and other settings.
# Compared with HEAD's table: no *.s390x.secex rows, and windows.10*/windows.11* use "sockets" (after v1.7.0).
# Device words: rng, iothread (dedicatedIoThread), tablet (virtio tablet, autoattached), autoattach,
# multiqueue, tpm (persistent), video (virtio), transitional, nographics, noballoon, serial,
# grace (terminationGracePeriodSeconds 3600), pcihole64 (kubevirt.io/disablePCIHole64 spec annotation).
PREFERENCE_TABLE = """
alpine | Alpine | linux | | 1 / 512Mi | virtio | virtio | | | | rng
centos.stream10 | CentOS Stream 10 | linux | | 1 / 1.5Gi | virtio | virtio | | | | rng iothread
centos.stream10.desktop | CentOS Stream 10 | linux | | 1 / 1.5Gi | virtio | virtio | | | | rng iothread tablet
centos.stream9 | CentOS Stream 9 | linux | | 1 / 1.5Gi | virtio | virtio | | | | rng iothread
centos.stream9.desktop | CentOS Stream 9 | linux | | 1 / 1.5Gi | virtio | virtio | | | | rng iothread tablet
centos.stream9.dpdk | CentOS Stream 9 | linux | | 8 / 1.5Gi | virtio | virtio | spread-4 | | | rng iothread multiqueue
cirros | Cirros | linux | | 1 / 256Mi | virtio | virtio | | | | rng
debian | Debian | linux | | 1 / 512Mi | virtio | virtio | | EFI | | rng
fedora | Fedora (amd64) | linux | amd64 | 1 / 2Gi | virtio | virtio | | EFI+SB | smm | rng
fedora.arm64 | Fedora (arm64) | linux | arm64 | 1 / 2Gi | virtio | virtio | | | | rng
fedora.s390x | Fedora (s390x) | linux | s390x | 1 / 2Gi | virtio | virtio | | | | rng
legacy | Legacy Guest | legacy | | - | sata | e1000 | | | |
linux | Linux Guest | linux | | - | virtio | virtio | | | | rng
linux.efi | Linux EFI Guest | linux | | - | virtio | virtio | | EFI | | rng
linux.virtiotransitional | Linux Virtio Transitional Guest | linux | | - | virtio | virtio | | | | rng transitional
opensuse.leap | OpenSUSE Leap | linux | | 1 / 2Gi | virtio | virtio | | | | rng
opensuse.tumbleweed | OpenSUSE Tumbleweed | linux | | 1 / 2Gi | virtio | virtio | | | | rng
oraclelinux | Oracle Linux | linux | | 2 / 4Gi | virtio | virtio | | EFI | | rng
rhel.10 | Red Hat Enterprise Linux 10 (amd64) | linux | amd64 | 1 / 1.5Gi | virtio | virtio | | EFI+SB | smm | rng iothread
rhel.10.arm64 | Red Hat Enterprise Linux 10 (arm64) | linux | arm64 | 1 / 1.5Gi | virtio | virtio | | | | rng iothread
rhel.10.s390x | Red Hat Enterprise Linux 10 (s390x) | linux | s390x | 1 / 1.5Gi | virtio | virtio | | | | rng iothread
rhel.7 | Red Hat Enterprise Linux 7 | linux | | 1 / 1Gi | virtio | virtio | | | | rng
rhel.7.desktop | Red Hat Enterprise Linux 7 | linux | | 1 / 1Gi | virtio | virtio | | | | rng tablet
rhel.8 | Red Hat Enterprise Linux 8 | linux | | 1 / 1.5Gi | virtio | virtio | | | | rng
rhel.8.desktop | Red Hat Enterprise Linux 8 | linux | | 1 / 1.5Gi | virtio | virtio | | | | rng tablet
rhel.8.dpdk | Red Hat Enterprise Linux 8 | linux | | 8 / 1.5Gi | virtio | virtio | spread-4 | | | rng multiqueue
rhel.9 | Red Hat Enterprise Linux 9 (amd64) | linux | amd64 | 1 / 1.5Gi | virtio | virtio | | EFI+SB | smm | rng iothread
rhel.9.arm64 | Red Hat Enterprise Linux 9 (arm64) | linux | arm64 | 1 / 1.5Gi | virtio | virtio | | | | rng iothread
rhel.9.desktop | Red Hat Enterprise Linux 9 Desktop (amd64) | linux | amd64 | 1 / 1.5Gi | virtio | virtio | | EFI+SB | smm | rng iothread tablet
rhel.9.dpdk | Red Hat Enterprise Linux 9 DPDK (amd64) | linux | amd64 | 8 / 1.5Gi | virtio | virtio | spread-4 | EFI+SB | smm | rng iothread multiqueue
rhel.9.realtime | Red Hat Enterprise Linux 9 Realtime (amd64) | linux | amd64 | 4 / 4Gi | virtio | virtio | spread | EFI+SB | smm | rng iothread multiqueue nographics noballoon serial
rhel.9.s390x | Red Hat Enterprise Linux 9 (s390x) | linux | s390x | 1 / 1.5Gi | virtio | virtio | | | | rng iothread
sles | SUSE Linux Enterprise Server | linux | | 1 / 2Gi | virtio | virtio | | | | rng
ubuntu | Ubuntu | linux | | 1 / 2Gi | virtio | virtio | | | | rng
windows.10 | Microsoft Windows 10 | windows | | 1 / 2Gi | sata | e1000e | sockets | EFI+SB | smm hyperv acpi apic | autoattach grace
windows.10.virtio | Microsoft Windows 10 (virtio) | windows | | 1 / 2Gi | virtio | virtio | sockets | EFI+SB | smm hyperv acpi apic | tablet video grace
windows.11 | Microsoft Windows 11 | windows | | 2 / 4Gi | sata | e1000e | sockets | EFI+SB+persistent | smm hyperv acpi apic | tpm autoattach grace
windows.11.virtio | Microsoft Windows 11 (virtio) | windows | | 2 / 4Gi | virtio | virtio | sockets | EFI+SB+persistent | smm hyperv acpi apic | tpm tablet video grace
windows.2k12 | Microsoft Windows Server 2012/2012 R2 | windows | | 1 / 512Mi | sata | e1000e | sockets | | hyperv acpi apic | autoattach grace
windows.2k12.virtio | Microsoft Windows Server 2012/2012 R2 (virtio) | windows | | 1 / 512Mi | virtio | virtio | sockets | | hyperv acpi apic | tablet video grace
windows.2k16 | Microsoft Windows Server 2016 | windows | | 1 / 2Gi | sata | e1000e | sockets | EFI+SB | smm hyperv acpi apic | autoattach grace
windows.2k16.virtio | Microsoft Windows Server 2016 (virtio) | windows | | 1 / 2Gi | virtio | virtio | sockets | EFI+SB | smm hyperv acpi apic | tablet video grace
windows.2k19 | Microsoft Windows Server 2019 | windows | | 1 / 2Gi | sata | e1000e | sockets | EFI+SB | smm hyperv acpi apic | autoattach grace
windows.2k19.virtio | Microsoft Windows Server 2019 (virtio) | windows | | 1 / 2Gi | virtio | virtio | sockets | EFI+SB | smm hyperv acpi apic | tablet video grace
windows.2k22 | Microsoft Windows Server 2022 | windows | | 1 / 2Gi | sata | e1000e | sockets | EFI+SB+persistent | smm hyperv acpi apic | tpm autoattach grace
windows.2k22.virtio | Microsoft Windows Server 2022 (virtio) | windows | | 1 / 2Gi | virtio | virtio | sockets | EFI+SB+persistent | smm hyperv acpi apic | tpm tablet video grace
windows.2k25 | Microsoft Windows Server 2025 | windows | | 1 / 2Gi | sata | e1000e | sockets | EFI+SB+persistent | smm hyperv acpi apic | tpm autoattach grace
windows.2k25.virtio | Microsoft Windows Server 2025 (virtio) | windows | | 1 / 2Gi | virtio | virtio | sockets | EFI+SB+persistent | smm hyperv acpi apic | tpm tablet video grace
windows.2k3 | Microsoft Windows Server 2003 | windows | | 1 / 256Mi | sata | rtl8139 | sockets | | hyperv acpi apic | autoattach grace pcihole64
windows.2k8 | Microsoft Windows Server 2008/2008 R2 | windows | | 1 / 512Mi | sata | e1000 | sockets | | hyperv acpi apic | autoattach grace
windows.2k8.virtio | Microsoft Windows Server 2008/2008 R2 (virtio) | windows | | 1 / 512Mi | virtio | virtio | sockets | | hyperv acpi apic | tablet video grace
windows.7 | Microsoft Windows 7 | windows | | 1 / 2Gi | sata | e1000e | sockets | | hyperv acpi apic | autoattach grace
windows.7.virtio | Microsoft Windows 7 (virtio) | windows | | 1 / 2Gi | virtio | virtio | sockets | | hyperv acpi apic | tablet video grace
windows.xp | Microsoft Windows XP | windows | | 1 / 128Mi | sata | e1000e | sockets | | hyperv acpi apic | autoattach grace pcihole64
"""

# abbreviations, as spec fragments.
TOPOLOGY = {
    "": None,
    "sockets": {"preferredCPUTopology": "sockets"},
    "spread": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads"}},
    "spread-4": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}},
}
FIRMWARE = {
    "": None,
    "EFI": {"preferredEfi": {"secureBoot": False}},
    "EFI+SB": {"preferredEfi": {"secureBoot": True}},
    "EFI+SB+persistent": {"preferredEfi": {"secureBoot": True, "persistent": True}},
}
FEATURE_KEYS = {"smm": "preferredSmm", "hyperv": "preferredHyperv", "acpi": "preferredAcpi", "apic": "preferredApic"}
DEVICE_WORDS = {
    "rng": {"preferredRng": {}},
    "iothread": {"preferredDiskDedicatedIoThread": True},
    "tablet": {"preferredInputType": "tablet", "preferredInputBus": "virtio", "preferredAutoattachInputDevice": True},
    "autoattach": {"preferredAutoattachInputDevice": True},
    "multiqueue": {"preferredNetworkInterfaceMultiQueue": True},
    "tpm": {"preferredTPM": {"persistent": True}},
    "video": {"preferredVideoType": "virtio"},
    "transitional": {"preferredUseVirtioTransitional": True},
    "nographics": {"preferredAutoattachGraphicsDevice": False},
    "noballoon": {"preferredAutoattachMemBalloon": False},
    "serial": {"preferredAutoattachSerialConsole": True},
}
OTHER_WORDS = {"grace", "pcihole64"}

# in its words: "relaxed, vapic, vpindex, runtime, synic, synictimer{direct}, reset, frequencies,
# reenlightenment, tlbflush, ipi, and spinlocks 8191"; "clock offset utc, timers hpet present=false, hyperv,
# pit tickPolicy delay, rtc tickPolicy catchup".
WINDOWS_ENLIGHTENMENTS = "relaxed vapic vpindex runtime synic reset frequencies reenlightenment tlbflush ipi"
WINDOWS_HYPERV = {
    **{name: {} for name in WINDOWS_ENLIGHTENMENTS.split()},
    "synictimer": {"direct": {}},
    "spinlocks": {"spinlocks": 8191},
}
WINDOWS_TIMERS = {
    "hpet": {"present": False},
    "hyperv": {},
    "pit": {"tickPolicy": "delay"},
    "rtc": {"tickPolicy": "catchup"},
}
WINDOWS_CLOCK = {"preferredClockOffset": {"utc": {}}, "preferredTimer": WINDOWS_TIMERS}


def _instancetype_rows() -> list[tuple]:
    rows = []
    for line in INSTANCETYPE_TABLE.strip().splitlines():
        name, cpu, memory, hugepages, max_sockets, dedicated, isolate, numa, realtime, overcommit = line.split()
        rows.append(
            (
                name,
                int(cpu),
                memory,
                None if hugepages == "-" else hugepages,
                None if max_sockets == "-" else int(max_sockets),
                dedicated == "yes",
                isolate == "yes",
                numa == "yes",
                realtime == "yes",
                None if overcommit == "-" else int(overcommit),
            )
        )
    return rows


def _size_matrix_cells() -> list[tuple[str, int | None, str | None]]:
    header, *lines = [line.split() for line in SIZE_MATRIX.strip().splitlines()]
    cells = []
    for size, *values in lines:
        for column, value in zip(header[1:], values):
            series, _, suffix = column.partition(".*")
            name = f"{series}.{size}{suffix}"
            cpu, _, memory = value.partition("/")
            cells.append((name, None, None) if value == "-" else (name, int(cpu), memory))
    return cells


def _preference_rows() -> list[list[str]]:
    return [[cell.strip() for cell in line.split("|")] for line in PREFERENCE_TABLE.strip().splitlines()]


INSTANCETYPE_ROWS = _instancetype_rows()
PREFERENCE_ROWS = _preference_rows()


@pytest.fixture(scope="module")
def catalog():
    return load_catalog("v1.7.0")


def _labels(obj: dict) -> dict:
    return obj["metadata"]["labels"]


# ---------------------------------------------------------------------------------------------------
# counts and names


def test_counts_and_names_match_the_release(catalog):
    assert len(catalog.instancetypes) == INSTANCETYPE_COUNT
    assert len(catalog.preferences) == PREFERENCE_COUNT
    assert {o["metadata"]["name"] for o in catalog.instancetypes} == {row[0] for row in INSTANCETYPE_ROWS}
    assert {o["metadata"]["name"] for o in catalog.preferences} == {row[0] for row in PREFERENCE_ROWS}


def test_objects_are_sorted_by_name_like_the_bundles(catalog):
    for objects in (catalog.instancetypes, catalog.preferences):
        names = [o["metadata"]["name"] for o in objects]
        assert names == sorted(names)


def test_head_only_preferences_are_absent(catalog):
    # the IBM Secure Execution preferences were added on main after v1.7.0.
    for name in ("fedora.s390x.secex", "rhel.9.s390x.secex", "rhel.10.s390x.secex"):
        assert catalog.preference(name) is None


def test_every_object_is_a_v1beta1_cluster_object(catalog):
    for obj in catalog.instancetypes:
        assert obj["apiVersion"] == API_VERSION == "instancetype.kubevirt.io/v1beta1"
        assert obj["kind"] == CLUSTER_INSTANCETYPE_KIND == "VirtualMachineClusterInstancetype"
        assert list(obj) == ["apiVersion", "kind", "metadata", "spec"]
        assert list(obj["metadata"]) == ["name", "labels", "annotations"]
    for obj in catalog.preferences:
        assert obj["apiVersion"] == API_VERSION
        assert obj["kind"] == CLUSTER_PREFERENCE_KIND == "VirtualMachineClusterPreference"
        assert list(obj["metadata"]) == ["name", "labels", "annotations"]


# ---------------------------------------------------------------------------------------------------
# instance types


@pytest.mark.parametrize(
    "name, cpu, memory, hugepages, max_sockets, dedicated, isolate, numa, realtime, overcommit",
    INSTANCETYPE_ROWS,
    ids=[row[0] for row in INSTANCETYPE_ROWS],
)
def test_instancetype_matches_its_row(
    catalog, name, cpu, memory, hugepages, max_sockets, dedicated, isolate, numa, realtime, overcommit
):
    obj = catalog.instancetype(name)
    assert obj is not None, name
    spec, labels = obj["spec"], _labels(obj)
    series, size = name.split(".", 1)

    assert spec["cpu"]["guest"] == cpu
    assert spec["memory"]["guest"] == memory
    assert spec["memory"].get("hugepages") == (None if hugepages is None else {"pageSize": hugepages})
    assert spec["cpu"].get("maxSockets") == max_sockets
    assert spec["cpu"].get("dedicatedCPUPlacement", False) is dedicated
    assert spec["cpu"].get("isolateEmulatorThread", False) is isolate
    assert spec["cpu"].get("numa") == ({"guestMappingPassthrough": {}} if numa else None)
    assert spec["cpu"].get("realtime") == ({} if realtime else None)
    assert spec["memory"].get("overcommitPercent") == overcommit

    # the labels mirror the spec, so a label selector finds the same objects.
    assert labels[P + "class"] == SERIES[series][0]
    assert labels[P + "size"] == size
    assert labels[P + "cpu"] == str(cpu)
    assert labels[P + "memory"] == memory
    assert labels.get(P + "hugepages") == hugepages
    assert labels.get(P + "dedicatedCPUPlacement") == ("true" if dedicated else None)
    assert labels.get(P + "isolateEmulatorThread") == ("true" if isolate else None)
    assert labels.get(P + "numa") == ("true" if numa else None)
    assert labels.get(P + "realtime") == ("true" if realtime else None)
    assert labels[P + "version"] == "1"


@pytest.mark.parametrize("name, cpu, memory", _size_matrix_cells(), ids=lambda v: str(v))
def test_size_matrix_cell(catalog, name, cpu, memory):
    obj = catalog.instancetype(name)
    if cpu is None:
        assert obj is None, f"{name} is not in the size matrix"
    else:
        assert obj is not None, name
        assert (obj["spec"]["cpu"]["guest"], obj["spec"]["memory"]["guest"]) == (cpu, memory)


@pytest.mark.parametrize("series", sorted(SERIES))
def test_series_wide_metadata_and_spec(catalog, series):
    class_label, display_name, icon = SERIES[series]
    members = [o for o in catalog.instancetypes if o["metadata"]["name"].startswith(series + ".")]
    assert members
    for obj in members:
        assert _labels(obj)[P + "class"] == class_label
        assert _labels(obj)[P + "icon-pf"] == icon
        assert obj["metadata"]["annotations"] == {P + "displayName": display_name}
        assert obj["spec"].get("ioThreadsPolicy") == ("auto" if series in IOTHREADS_AUTO else None)
        assert obj["spec"].get("annotations") == (CRIO_ANNOTATIONS if series in CRIO_SERIES else None)
        assert set(obj["spec"]) <= {"cpu", "memory", "ioThreadsPolicy", "annotations"}


def test_instancetype_full_objects(catalog):
    assert catalog.instancetype("cx1.medium1gi") == {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {
            "name": "cx1.medium1gi",
            "labels": {
                P + "class": "compute.exclusive",
                P + "common-instancetypes-version": "v1.7.0",
                P + "cpu": "1",
                P + "dedicatedCPUPlacement": "true",
                P + "hugepages": "1Gi",
                P + "icon-pf": "pficon-registry",
                P + "isolateEmulatorThread": "true",
                P + "memory": "2Gi",
                P + "numa": "true",
                P + "size": "medium1gi",
                P + "vendor": "kubevirt.io",
                P + "version": "1",
            },
            "annotations": {P + "displayName": "Compute Exclusive"},
        },
        "spec": {
            "cpu": {
                "dedicatedCPUPlacement": True,
                "guest": 1,
                "isolateEmulatorThread": True,
                "maxSockets": 1,
                "numa": {"guestMappingPassthrough": {}},
            },
            "ioThreadsPolicy": "auto",
            "memory": {"guest": "2Gi", "hugepages": {"pageSize": "1Gi"}},
        },
    }
    assert catalog.instancetype("rt1.micro")["spec"] == {
        "annotations": CRIO_ANNOTATIONS,
        "cpu": {
            "dedicatedCPUPlacement": True,
            "guest": 1,
            "isolateEmulatorThread": True,
            "numa": {"guestMappingPassthrough": {}},
            "realtime": {},
        },
        "memory": {"guest": "1Gi", "hugepages": {"pageSize": "1Gi"}},
    }
    assert catalog.instancetype("o1.nano")["spec"] == {
        "cpu": {"guest": 1},
        "memory": {"guest": "512Mi", "overcommitPercent": 50},
    }
    assert catalog.instancetype("u1.2xmedium")["spec"] == {"cpu": {"guest": 2}, "memory": {"guest": "4Gi"}}


# ---------------------------------------------------------------------------------------------------
# preferences


@pytest.mark.parametrize("row", PREFERENCE_ROWS, ids=[row[0] for row in PREFERENCE_ROWS])
def test_preference_matches_its_row(catalog, row):
    name, display, os_type, arch, requirements, disk, nic, topology, firmware, features, other = row
    obj = catalog.preference(name)
    assert obj is not None, name
    spec, labels = obj["spec"], _labels(obj)
    words = other.split()
    assert set(words) <= set(DEVICE_WORDS) | OTHER_WORDS, words

    assert obj["metadata"]["annotations"]["openshift.io/display-name"] == display
    assert labels[P + "os-type"] == os_type
    expected_annotations = {"vm.kubevirt.io/os": os_type}
    if "pcihole64" in words:
        expected_annotations["kubevirt.io/disablePCIHole64"] = "true"
    assert spec["annotations"] == expected_annotations

    # arch labels only on the fedora/rhel arch variants; since v1.7.0 they also prefer and require it.
    for key in ("arch", "preferred-architecture", "required-architecture"):
        assert labels.get(P + key) == (arch or None)
    assert spec.get("preferredArchitecture") == (arch or None)
    assert spec.get("requirements", {}).get("architecture") == (arch or None)

    if requirements == "-":
        assert "requirements" not in spec
        assert P + "required-cpu" not in labels and P + "required-memory" not in labels
    else:
        cpu, memory = (part.strip() for part in requirements.split("/"))
        assert spec["requirements"]["cpu"] == {"guest": int(cpu)}
        assert spec["requirements"]["memory"] == {"guest": memory}
        assert labels[P + "required-cpu"] == cpu
        assert labels[P + "required-memory"] == memory

    expected_devices = {"preferredDiskBus": disk, "preferredInterfaceModel": nic}
    for word in words:
        expected_devices.update(DEVICE_WORDS.get(word, {}))
    assert spec["devices"] == expected_devices
    assert spec.get("cpu") == TOPOLOGY[topology]
    assert spec.get("firmware") == FIRMWARE[firmware]
    assert set(spec.get("features", {})) == {FEATURE_KEYS[f] for f in features.split()}
    assert spec.get("preferredTerminationGracePeriodSeconds") == (3600 if "grace" in words else None)
    assert ("clock" in spec) == (os_type == "windows")

    expected_keys = {"annotations", "devices"}
    expected_keys |= {"requirements"} if requirements != "-" or arch else set()
    expected_keys |= {"preferredArchitecture"} if arch else set()
    expected_keys |= {"cpu"} if topology else set()
    expected_keys |= {"firmware"} if firmware else set()
    expected_keys |= {"features"} if features else set()
    expected_keys |= {"clock", "preferredTerminationGracePeriodSeconds"} if os_type == "windows" else set()
    assert set(spec) == expected_keys


def test_windows_preferences_share_the_hyperv_and_clock_block(catalog):
    windows = [o for o in catalog.preferences if _labels(o)[P + "os-type"] == "windows"]
    assert len(windows) == sum(row[2] == "windows" for row in PREFERENCE_ROWS) == 20
    for obj in windows:
        assert obj["spec"]["features"]["preferredHyperv"] == WINDOWS_HYPERV
        assert obj["spec"]["features"]["preferredAcpi"] == {}
        assert obj["spec"]["features"]["preferredApic"] == {}
        assert obj["spec"]["clock"] == WINDOWS_CLOCK


def test_preference_full_specs(catalog):
    assert catalog.preference("windows.11.virtio")["spec"] == {
        "annotations": {"vm.kubevirt.io/os": "windows"},
        "clock": WINDOWS_CLOCK,
        "cpu": {"preferredCPUTopology": "sockets"},
        "devices": {
            "preferredAutoattachInputDevice": True,
            "preferredDiskBus": "virtio",
            "preferredInputBus": "virtio",
            "preferredInputType": "tablet",
            "preferredInterfaceModel": "virtio",
            "preferredTPM": {"persistent": True},
            "preferredVideoType": "virtio",
        },
        "features": {"preferredAcpi": {}, "preferredApic": {}, "preferredHyperv": WINDOWS_HYPERV, "preferredSmm": {}},
        "firmware": {"preferredEfi": {"persistent": True, "secureBoot": True}},
        "preferredTerminationGracePeriodSeconds": 3600,
        "requirements": {"cpu": {"guest": 2}, "memory": {"guest": "4Gi"}},
    }
    assert catalog.preference("rhel.9.realtime")["spec"] == {
        "annotations": {"vm.kubevirt.io/os": "linux"},
        "cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads"}},
        "devices": {
            "preferredAutoattachGraphicsDevice": False,
            "preferredAutoattachMemBalloon": False,
            "preferredAutoattachSerialConsole": True,
            "preferredDiskBus": "virtio",
            "preferredDiskDedicatedIoThread": True,
            "preferredInterfaceModel": "virtio",
            "preferredNetworkInterfaceMultiQueue": True,
            "preferredRng": {},
        },
        "features": {"preferredSmm": {}},
        "firmware": {"preferredEfi": {"secureBoot": True}},
        "preferredArchitecture": "amd64",
        "requirements": {"architecture": "amd64", "cpu": {"guest": 4}, "memory": {"guest": "4Gi"}},
    }
    assert catalog.preference("legacy") == {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterPreference",
        "metadata": {
            "name": "legacy",
            "labels": {
                P + "common-instancetypes-version": "v1.7.0",
                P + "os-type": "legacy",
                P + "vendor": "kubevirt.io",
            },
            "annotations": {
                "iconClass": "icon-other",
                "openshift.io/display-name": "Legacy Guest",
                "openshift.io/provider-display-name": "KubeVirt",
                "tags": "hidden,kubevirt,legacy",
            },
        },
        "spec": {
            "annotations": {"vm.kubevirt.io/os": "legacy"},
            "devices": {"preferredDiskBus": "sata", "preferredInterfaceModel": "e1000"},
        },
    }


def test_preference_spot_metadata(catalog):
    fedora = catalog.preference("fedora.arm64")["metadata"]
    assert fedora["annotations"]["iconClass"] == "icon-fedora"
    assert fedora["annotations"]["tags"] == "hidden,kubevirt,fedora"
    dpdk = catalog.preference("rhel.9.dpdk")["metadata"]
    assert dpdk["annotations"]["tags"] == "hidden,kubevirt,linux,rhel,dpdk"
    assert catalog.preference("windows.2k3")["metadata"]["annotations"]["iconClass"] == "icon-windows"


# ---------------------------------------------------------------------------------------------------
# metadata kept and dropped


def test_every_object_carries_vendor_and_release_labels(catalog):
    for obj in [*catalog.instancetypes, *catalog.preferences]:
        assert _labels(obj)[P + "vendor"] == "kubevirt.io"
        assert _labels(obj)[P + "common-instancetypes-version"] == "v1.7.0"


def test_only_short_annotations_are_kept(catalog):
    for obj in catalog.instancetypes:
        assert set(obj["metadata"]["annotations"]) == {P + "displayName"}
    for obj in catalog.preferences:
        annotations = obj["metadata"]["annotations"]
        assert set(annotations) == {
            "openshift.io/display-name",
            "openshift.io/provider-display-name",
            "iconClass",
            "tags",
        }
        assert annotations["openshift.io/provider-display-name"] == "KubeVirt"
        assert annotations["tags"].startswith("hidden,kubevirt,")
        assert annotations["iconClass"].startswith("icon-")


def test_data_file_holds_no_upstream_prose_or_links():
    with open(DATA_FILE, encoding="utf-8") as handle:
        text = handle.read()
    for forbidden in ("description", "documentation-url", "support-url", "http", "Series", "\\n"):
        assert forbidden not in text


def test_data_directory_holds_exactly_the_listed_versions():
    files = sorted(os.listdir(os.path.dirname(DATA_FILE)))
    assert files == sorted(f"common-instancetypes-{version}.json" for version in VERSIONS)


# ---------------------------------------------------------------------------------------------------
# namespaced kinds


def test_namespaced_catalog_has_the_same_objects_in_a_namespace(catalog):
    namespaced = catalog.namespaced("team-a")
    assert namespaced.namespace == "team-a" and catalog.namespace is None
    assert namespaced.version == "v1.7.0"
    pairs = [*zip(catalog.instancetypes, namespaced.instancetypes), *zip(catalog.preferences, namespaced.preferences)]
    assert len(pairs) == INSTANCETYPE_COUNT + PREFERENCE_COUNT
    for cluster_obj, obj in pairs:
        assert (
            obj["kind"]
            == {
                CLUSTER_INSTANCETYPE_KIND: INSTANCETYPE_KIND,
                CLUSTER_PREFERENCE_KIND: PREFERENCE_KIND,
            }[cluster_obj["kind"]]
        )
        assert list(obj["metadata"]) == ["name", "namespace", "labels", "annotations"]
        assert obj["metadata"]["namespace"] == "team-a"
        without_scope = copy.deepcopy(obj)
        del without_scope["metadata"]["namespace"]
        without_scope["kind"] = cluster_obj["kind"]
        assert without_scope == cluster_obj
    assert namespaced.instancetype("u1.medium")["kind"] == "VirtualMachineInstancetype"
    assert namespaced.preference("fedora")["kind"] == "VirtualMachinePreference"


def test_namespaced_objects_are_new_and_independent(catalog):
    first = catalog.namespaced("a").instancetype("u1.small")
    first["spec"]["cpu"]["guest"] = 99
    first["metadata"]["labels"].clear()
    assert catalog.namespaced("a").instancetype("u1.small")["spec"]["cpu"]["guest"] == 1
    assert catalog.instancetype("u1.small")["spec"]["cpu"]["guest"] == 1
    assert catalog.instancetype("u1.small")["metadata"]["labels"]


def test_namespaced_needs_a_namespace(catalog):
    with pytest.raises(ValueError, match="^a namespaced catalog needs a non-empty namespace$"):
        catalog.namespaced("")


# ---------------------------------------------------------------------------------------------------
# loader API


def test_lookups_do_not_mix_kinds(catalog):
    assert catalog.instancetype("u1.medium") is next(
        o for o in catalog.instancetypes if o["metadata"]["name"] == "u1.medium"
    )
    assert catalog.preference("fedora")["metadata"]["name"] == "fedora"
    assert catalog.instancetype("fedora") is None
    assert catalog.preference("u1.medium") is None
    assert catalog.instancetype("u1.huge") is None
    assert catalog.preference("windows.2k12.desktop") is None


def test_load_catalog_is_cached_and_defaults_to_v1_7_0():
    assert load_catalog() is load_catalog("v1.7.0")
    assert "v1.7.0" in repr(load_catalog())


def test_unknown_version_is_a_usage_error():
    with pytest.raises(UnknownCatalogVersionError) as caught:
        load_catalog("v1.5.0")
    assert isinstance(caught.value, UsageError) and isinstance(caught.value, LookupError)
    assert caught.value.render() == (
        'error: no embedded common-instancetypes catalog for version "v1.5.0" (available: v1.7.0)'
    )


def test_import_reads_nothing_and_loading_needs_only_the_standard_library():
    # -S: no site-packages, so PyYAML (or any third-party module) cannot be what the loader uses.
    script = (
        "import sys, kubectl_instancetype.catalog as c\n"
        "from kubectl_instancetype.catalog import loader\n"
        "assert loader.read_catalog.cache_info().currsize == 0\n"
        "assert len(c.load_catalog().instancetypes) == 65\n"
        "assert 'yaml' not in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_data_is_read_through_the_package_loader_when_not_on_disk(monkeypatch):
    # A zipapp install has no data directory on disk: the path under a regular file stands in for it.
    monkeypatch.setattr(loader, "DATA_DIR", os.path.join(DATA_FILE, "data"))
    with open(DATA_FILE, "rb") as handle:
        assert loader.read_data(os.path.basename(DATA_FILE)) == handle.read()


def test_merge_sorts_keys_and_copies():
    block = {"devices": {"b": 1, "a": {}}}
    merged = loader.merge(block, {"devices": {"c": True}, "cpu": {"x": 1}})
    assert merged == {"cpu": {"x": 1}, "devices": {"a": {}, "b": 1, "c": True}}
    assert list(merged) == ["cpu", "devices"] and list(merged["devices"]) == ["a", "b", "c"]
    merged["devices"]["a"]["changed"] = 1
    assert block == {"devices": {"b": 1, "a": {}}}


# ---------------------------------------------------------------------------------------------------
# the generator is the loader's inverse (no bundles needed)


@pytest.fixture(scope="module")
def gen_catalog():
    path = os.path.join(REPO_ROOT, "hack", "gen_catalog.py")
    spec = importlib.util.spec_from_file_location("gen_catalog", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_writes_the_committed_file_for_the_loaders_objects(catalog, gen_catalog):
    data = gen_catalog.compact(catalog.instancetypes, catalog.preferences, "v1.7.0")
    with open(DATA_FILE, encoding="utf-8") as handle:
        assert gen_catalog.render(data) == handle.read()
    assert json.loads(gen_catalog.render(data)) == data


def test_generator_refuses_what_the_format_cannot_express(catalog, gen_catalog):
    instancetypes = copy.deepcopy(catalog.instancetypes)
    small = next(o for o in instancetypes if o["metadata"]["name"] == "u1.small")
    small["metadata"]["labels"][P + "cpu"] = "2"
    with pytest.raises(gen_catalog.FormatError, match="u1.small: label instancetype.kubevirt.io/cpu"):
        gen_catalog.compact(instancetypes, catalog.preferences, "v1.7.0")

    instancetypes = copy.deepcopy(catalog.instancetypes)
    small = next(o for o in instancetypes if o["metadata"]["name"] == "u1.small")
    small["spec"]["ioThreadsPolicy"] = "auto"
    with pytest.raises(gen_catalog.FormatError, match="u1.small differs from series u1"):
        gen_catalog.compact(instancetypes, catalog.preferences, "v1.7.0")

    preferences = copy.deepcopy(catalog.preferences)
    preferences[0]["spec"]["preferredArchitecture"] = "arm64"
    with pytest.raises(gen_catalog.FormatError, match="alpine: label instancetype.kubevirt.io/arch"):
        gen_catalog.compact(catalog.instancetypes, preferences, "v1.7.0")


def test_generator_check_reports_differences(gen_catalog):
    expected = {"spec": {"cpu": {"guest": 1}, "a": True}}
    actual = {"spec": {"cpu": {"guest": 2}, "a": 1, "b": {}}}
    assert list(gen_catalog.differences(expected, actual)) == [
        "spec.a: 1 != expected True",
        "spec.b: unexpected {}",
        "spec.cpu.guest: 2 != expected 1",
    ]
