"""``fits``, ``capacity`` and the quota prediction against the real kube-scheduler v1.36.3 on KWOK nodes and the
real virt-controller v1.9.0 (which creates the launcher pods): the plugin's answer is compared with what the
scheduler does with the pod and what the API server says to virt-controller.

The nodes are the ``kwok_nodes`` fixture's (one of each shape of hack/localcluster/nodes.yaml: general,
hugepages-2m, hugepages-1g, gpu, arm64, small, tainted, cordoned).
"""

from __future__ import annotations

import json
import re
import time

import pytest

from kubectl_instancetype.kube import resources
from tests.scheduling import WAIT, bound, client_of, condition_line, launcher_pod, unschedulable, vm_of

pytestmark = pytest.mark.controlplane


def test_a_vm_that_fits_isbound_to_a_node_fits_named(cli, control_plane, kwok_nodes, namespace) -> None:
    client = client_of(control_plane)
    client.create(resources.VIRTUAL_MACHINES, vm_of("small-one", "u1.medium"), namespace)
    answer = cli("fits", "vm/small-one", "-n", namespace, "-o", "json")
    assert answer.exit_code == 0, answer.stderr
    item = json.loads(answer.stdout)["items"][0]
    named = {node["name"] for node in item["nodes"] if node["fits"]}
    by_shape = {name.rsplit("-", 1)[0] for name in named}
    # amd64, 1 vCPU and 4Gi: every amd64 node that is neither tainted nor cordoned
    assert by_shape == {"kwok-general", "kwok-hugepages-2m", "kwok-hugepages-1g", "kwok-gpu", "kwok-small"}
    pod = launcher_pod(client, namespace, "small-one", bound)
    assert pod["spec"]["nodeName"] in named
    human = cli("fits", "vm/small-one", "-n", namespace)
    assert (
        human.stdout.splitlines()[1] == f"It fits {len(named)} of {len(item['nodes'])} node(s); left on each after it:"
    )


def test_a_hugepages_type_that_fits_nowhere_stays_pending_with_the_line_fits_printed(
    cli, control_plane, kwok_nodes, namespace
) -> None:
    client = client_of(control_plane)
    predicted = cli("fits", "--instancetype", "m1.4xlarge1gi", "-n", namespace)
    assert predicted.exit_code == 1
    assert predicted.stderr.splitlines()[-1] == "error: m1.4xlarge1gi would not run now (see above)"
    line = predicted.stdout.splitlines()[1]
    assert line.startswith(f"0/{len(kwok_nodes.names)} nodes are available: ")
    assert "Hint: no node has hugepages-1Gi" not in predicted.stdout  # one node has 64Gi of them: too few
    client.create(resources.VIRTUAL_MACHINES, vm_of("huge", "m1.4xlarge1gi"), namespace)
    pod = launcher_pod(client, namespace, "huge", unschedulable)
    assert condition_line(pod) == line


def test_the_quota_denial_is_the_api_servers(cli, control_plane, namespace) -> None:
    client = client_of(control_plane)
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "small"},
        "spec": {"hard": {"requests.memory": "1Gi"}},
    }
    client.create(resources.RESOURCE_QUOTAS, quota, namespace)
    deadline = time.monotonic() + WAIT
    while not (client.get(resources.RESOURCE_QUOTAS, "small", namespace).get("status") or {}).get("used"):
        assert time.monotonic() < deadline, "kube-controller-manager never computed the quota's usage"
        time.sleep(0.2)
    predicted = cli("fits", "--instancetype", "u1.medium", "-n", namespace, "-o", "json")
    assert predicted.exit_code == 1
    forbidden = json.loads(predicted.stdout)["items"][0]["quota"]["message"]
    assert forbidden.startswith('pods "virt-launcher-u1-medium-" is forbidden: exceeded quota: small, requested: ')
    # virt-controller meets the same words when it creates the pod (its event: "Error creating pod: <error>")
    client.create(resources.VIRTUAL_MACHINES, vm_of("u1-medium", "u1.medium"), namespace)
    deadline = time.monotonic() + WAIT
    messages: list[str] = []
    while time.monotonic() < deadline:
        events = [e for p in client.list_pages(resources.EVENTS, namespace) for e in p.get("items") or ()]
        messages = [
            str(e.get("message"))
            for e in events
            if e.get("reason") == "FailedCreate" and str(e.get("message")).startswith("Error creating pod: ")
        ]
        if messages:
            break
        time.sleep(0.2)
    # the API server names the pod before admission (generateName plus 5 random characters, RetryGenerateName);
    # the prediction names it by its generateName
    assert messages, "virt-controller reported no FailedCreate of the launcher pod"
    assert (
        re.sub(r'"(virt-launcher-u1-medium-)[a-z0-9]{5}"', r'"\1"', messages[0]) == f"Error creating pod: {forbidden}"
    )
