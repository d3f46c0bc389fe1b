"""``capacity`` against the real kube-scheduler on KWOK nodes: create as many running VMs of a type as capacity
says, every launcher pod is bound; one more stays Pending with the line capacity (and ``fits``) predicted, and
``create vm`` warns about it. A module of its own: its nodes (``kwok_nodes``, one of each shape) hold no other
test's pods."""

from __future__ import annotations

import json

import pytest

from kubectl_instancetype.kube import resources
from tests.scheduling import bound, client_of, condition_line, launcher_pod, unschedulable, vm_of

pytestmark = pytest.mark.controlplane

TYPE = "m1.xlarge1gi"  # 4 vCPUs, 32Gi of 1Gi pages: only the hugepages-1g shape has them (64Gi)


def test_capacity_is_what_the_scheduler_binds_and_one_more_stays_pending(cli, control_plane, kwok_nodes, namespace):
    client = client_of(control_plane)
    answer = cli("capacity", "--instancetype", TYPE, "-n", namespace, "-o", "json")
    assert answer.exit_code == 0, answer.stderr
    (item,) = json.loads(answer.stdout)["items"]
    assert (item["instancetype"], item["count"], item["limitedBy"], item["nodes"]) == (TYPE, 2, "hugepages-1Gi", 1)
    for index in range(item["count"]):
        client.create(resources.VIRTUAL_MACHINES, vm_of(f"vm-{index}", TYPE), namespace)
    placed = [launcher_pod(client, namespace, f"vm-{index}", bound) for index in range(item["count"])]
    assert {pod["spec"]["nodeName"].rsplit("-", 1)[0] for pod in placed} == {"kwok-hugepages-1g"}
    fits = cli("fits", "--instancetype", TYPE, "-n", namespace)
    assert fits.exit_code == 1
    assert fits.stdout.splitlines()[1] == item["next"]
    created = cli("create", "vm", "--name", "one-more", "--instancetype", TYPE, "-n", namespace)
    assert created.exit_code == 0, created.stderr
    assert created.stderr == (
        f"Warning: virtualmachine/one-more would not run now: {item['next']} (kubectl instancetype fits for details)\n"
    )
    pending = launcher_pod(client, namespace, "one-more", unschedulable)
    assert condition_line(pending) == item["next"]
