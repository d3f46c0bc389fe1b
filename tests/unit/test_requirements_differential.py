"""Preference requirements: our checker against KubeVirt's own (``pkg/instancetype/preference/requirements``,
v1.8.0 = v1.9.0 for this package), run through ``hack/virtctl/goref requirements``.

KubeVirt checks a VMI spec after the instance type was applied and VMI defaults were set; the cases here give
every CPU count and the architecture explicitly, so that both see the same input. (Where the VM leaves them
out, :mod:`kubectl_instancetype.instancetype.requirements` models the defaulting; its table tests cover that.)
"""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from kubectl_instancetype.catalog.loader import load_catalog
from kubectl_instancetype.instancetype.requirements import unmet_requirement

pytestmark = pytest.mark.differential


def _cases() -> list[dict]:
    catalog = load_catalog()
    cases = []
    preferences = [p["spec"] for p in catalog.preferences if p["spec"].get("requirements")]
    for instancetype in catalog.instancetypes:
        for preference in preferences:
            arch = preference.get("requirements", {}).get("architecture") or "amd64"
            cases.append(
                {
                    "instancetype": instancetype["spec"],
                    "preference": preference,
                    "vmi": {"domain": {"devices": {}}, "architecture": arch},
                }
            )
    rng = random.Random(7)
    topologies = [None, "sockets", "cores", "threads", "any", "spread", "preferSockets", "preferCores", "preferAny"]
    for _ in range(400):
        preference = {
            "requirements": {
                "cpu": {"guest": rng.randint(1, 8)},
                "memory": {"guest": rng.choice(["512Mi", "1Gi", "1.5Gi", "2Gi", "4Gi"])},
            }
        }
        topology = rng.choice(topologies)
        if topology:
            preference["cpu"] = {"preferredCPUTopology": topology}
            if topology == "spread" and rng.random() < 0.7:
                preference["cpu"]["spreadOptions"] = {
                    "across": rng.choice(["SocketsCores", "CoresThreads", "SocketsCoresThreads"])
                }
        if rng.random() < 0.3:
            preference["requirements"]["architecture"] = rng.choice(["amd64", "arm64"])
        cpu = {key: rng.randint(1, 4) for key in ("sockets", "cores", "threads")}
        vmi = {"domain": {"devices": {}, "cpu": cpu}, "architecture": rng.choice(["amd64", "arm64", "s390x"])}
        if rng.random() < 0.8:
            vmi["domain"]["memory"] = {"guest": rng.choice(["256Mi", "512Mi", "1536Mi", "2Gi", "3Gi", "1610612736"])}
        instancetype = None
        if rng.random() < 0.4:
            instancetype = {"cpu": {"guest": rng.randint(1, 8)}, "memory": {"guest": rng.choice(["1Gi", "2Gi", "8Gi"])}}
            vmi["domain"].pop("memory", None)  # applied from the instance type
        cases.append({"instancetype": instancetype, "preference": preference, "vmi": vmi})
    return cases


def test_same_messages_as_kubevirt(binaries) -> None:
    cases = _cases()
    result = subprocess.run(
        [str(binaries / "goref"), "requirements"], input=json.dumps(cases), capture_output=True, text=True, timeout=120
    )
    if result.returncode != 0 and "unknown mode" in result.stderr:
        pytest.skip("the cached goref predates the requirements mode (rebuild: hack/virtctl/build.sh)")
    assert result.returncode == 0, result.stderr
    expected = json.loads(result.stdout)
    ours = [unmet_requirement(case["instancetype"], case["preference"], case["vmi"]) for case in cases]
    mismatches = [(case, want, got) for case, want, got in zip(cases, expected, ours) if want != got]
    assert mismatches == [], mismatches[:3]
    assert sum(message is not None for message in expected) > 100  # the cases exercise failures too
