"""Preference requirements: KubeVirt's messages, table-driven (kubevirt.io/kubevirt pkg/instancetype/preference/requirements)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.instancetype.requirements import unmet_requirement


def pref(
    cpu: int | None = None,
    memory: str | None = None,
    arch: str | None = None,
    topology: str | None = None,
    across: str | None = None,
    preferred_arch: str | None = None,
) -> dict:
    spec: dict = {}
    if topology:
        spec["cpu"] = {"preferredCPUTopology": topology} | ({"spreadOptions": {"across": across}} if across else {})
    if preferred_arch:
        spec["preferredArchitecture"] = preferred_arch
    requirements = {}
    if cpu is not None:
        requirements["cpu"] = {"guest": cpu}
    if memory is not None:
        requirements["memory"] = {"guest": memory}
    if arch is not None:
        requirements["architecture"] = arch
    return {"requirements": requirements} | spec


def it(cpu: int, memory: str) -> dict:
    return {"cpu": {"guest": cpu}, "memory": {"guest": memory}}


def vm(cpu: dict | None = None, memory: str | None = None, arch: str | None = None) -> dict:
    domain = {}
    if cpu is not None:
        domain["cpu"] = cpu
    if memory is not None:
        domain["memory"] = {"guest": memory}
    return {"domain": domain} | ({"architecture": arch} if arch else {})


@pytest.mark.parametrize(
    "instancetype,preference,template,expected",
    [
        (it(1, "4Gi"), pref(cpu=1, memory="2Gi"), vm(), None),
        (
            it(1, "4Gi"),
            pref(cpu=2),
            vm(),
            "insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU",
        ),
        (
            it(2, "1Gi"),
            pref(cpu=2, memory="1536Mi"),
            vm(),
            "insufficient Memory resources of 1Gi provided by instance type, preference requires 1536Mi",
        ),
        (
            it(1, "512Mi"),
            pref(cpu=2, memory="4Gi"),
            vm(),  # CPU is checked first
            "insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU",
        ),
        (
            None,
            pref(memory="2Gi"),
            vm(memory="512Mi"),
            "insufficient Memory resources of 512Mi provided by VirtualMachine, preference requires 2Gi",
        ),
        (
            None,
            pref(memory="2Gi"),
            vm(),
            "insufficient Memory resources of 0 provided by VirtualMachine, preference requires 2Gi",
        ),
        (None, pref(memory="1.5Gi"), vm(memory="1610612736"), None),
        (None, pref(cpu=1), vm(), None),  # defaulted to 1 socket
        (
            None,
            pref(cpu=2),
            vm(),
            "insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 2 vCPU provided as sockets",
        ),
        (
            None,
            pref(cpu=2, topology="cores"),
            vm(cpu={"cores": 1, "sockets": 4}),
            "insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 2 vCPU provided as cores",
        ),
        (None, pref(cpu=4, topology="preferThreads"), vm(cpu={"threads": 4}), None),
        (
            None,
            pref(cpu=8, topology="any"),
            vm(cpu={"cores": 2, "sockets": 2, "threads": 1}),
            "insufficient CPU resources of 4 vCPU provided by VirtualMachine, preference requires 8 vCPU provided as "
            "cores, sockets and threads",
        ),
        (
            None,
            pref(cpu=8, topology="spread", across="SocketsCoresThreads"),
            vm(cpu={"cores": 2, "sockets": 2, "threads": 1}),
            "insufficient CPU resources of 4 vCPU provided by VirtualMachine, preference requires 8 vCPU provided as "
            "SocketsCoresThreads",
        ),
        (None, pref(cpu=4, topology="spread"), vm(cpu={"cores": 2, "sockets": 2, "threads": 1}), None),
        (it(1, "2Gi"), pref(arch="arm64", preferred_arch="arm64"), vm(), None),
        (
            it(1, "2Gi"),
            pref(arch="arm64"),
            vm(arch="amd64"),
            "preference requires architecture arm64 but amd64 is being requested",
        ),
        (it(1, "2Gi"), pref(arch="arm64"), vm(), None),  # the cluster default decides; unknown here
        (it(1, "2Gi"), {}, vm(), None),
        (it(1, "2Gi"), None, vm(), None),
    ],
)
def test_requirements(instancetype, preference, template, expected) -> None:
    assert unmet_requirement(instancetype, preference, template) == expected


def test_catalog_pairs() -> None:
    """Every u1 size against every catalog preference: unmet exactly when the numbers say so."""
    from kubectl_instancetype.catalog.loader import load_catalog
    from kubectl_instancetype.golang.quantity import parse_quantity

    catalog = load_catalog()
    for instancetype in (t for t in catalog.instancetypes if t["metadata"]["name"].startswith("u1.")):
        for preference in catalog.preferences:
            spec, requirements = preference["spec"], preference["spec"].get("requirements") or {}
            expected_ok = instancetype["spec"]["cpu"]["guest"] >= requirements.get("cpu", {}).get(
                "guest", 0
            ) and parse_quantity(instancetype["spec"]["memory"]["guest"]) >= parse_quantity(
                requirements.get("memory", {}).get("guest", "0")
            )
            result = unmet_requirement(instancetype["spec"], spec, {"domain": {}})
            assert (result is None) is expected_ok, (instancetype["metadata"]["name"], preference["metadata"]["name"])
