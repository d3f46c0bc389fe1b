"""The test plane itself (hack/localcluster): KubeVirt's and CDI's components answer, kube-controller-manager collects
garbage and deletes namespaces as on a cluster, each KubeVirt version in hack/kubevirt runs, and a process holding a
plane stops it when it is terminated."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.controlplane


def _wait(predicate, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout:.0f}s")
        time.sleep(0.2)


def _vm(name: str, namespace: str, run_strategy: str) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "runStrategy": run_strategy,
            "instancetype": {"name": "u1.small"},
            "preference": {"name": "fedora"},
            "template": {
                "spec": {
                    "domain": {"devices": {}},
                    "volumes": [{"name": "disk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}],
                }
            },
        },
    }


def test_kubevirt_version_each_plane(kubevirt_plane) -> None:
    """virt-api reports the version it was built as (hack/kubevirt/build.sh stamps it as KubeVirt's hack/version.sh)."""
    code, answer = kubevirt_plane.request("GET", "/apis/subresources.kubevirt.io/v1/version")
    assert code == 200, answer
    assert answer["gitVersion"] == kubevirt_plane.kubevirt_version
    assert answer["gitTreeState"] == "clean"
    code, cdi = kubevirt_plane.request("GET", "/apis/cdi.kubevirt.io/v1beta1/cdis/cdi")
    assert (code, cdi["status"]["phase"], cdi["status"]["observedVersion"]) == (200, "Deployed", "v1.64.0")


def test_garbage_collection_and_namespace_deletion(control_plane, namespace) -> None:
    """A started VM's VMI and revisions go with it (garbage collector); a namespace goes with its contents."""
    vm = control_plane.apply(_vm("collected", namespace, "Always"))
    base = f"/apis/kubevirt.io/v1/namespaces/{namespace}"
    _wait(lambda: control_plane.request("GET", f"{base}/virtualmachineinstances/collected")[0] == 200, "a VMI")
    revisions = f"/apis/apps/v1/namespaces/{namespace}/controllerrevisions"
    owned = _wait(
        lambda: [
            r
            for r in (control_plane.request("GET", revisions)[1] or {}).get("items", [])
            if any(o["uid"] == vm["metadata"]["uid"] for o in r["metadata"].get("ownerReferences") or [])
        ],
        "revisions owned by the VM",
    )
    assert len(owned) >= 2  # instance type and preference (and virt-controller's revision-start-vm-...)
    control_plane.delete(vm)
    _wait(lambda: control_plane.request("GET", f"{base}/virtualmachineinstances/collected")[0] == 404, "VMI gone")
    _wait(lambda: not (control_plane.request("GET", revisions)[1] or {}).get("items"), "revisions gone")

    control_plane.apply(_vm("left", namespace, "Halted"))
    control_plane.delete_namespace(namespace, wait=60)
    assert control_plane.request("GET", f"{base}/virtualmachines/left")[0] == 404


def test_without_simulated_nodes_the_scheduler_leaves_pods_pending(control_plane, namespace) -> None:
    """kube-scheduler runs in the plane, but a test that does not ask for simulated nodes (the ``kwok_nodes``
    fixture) sees none: its pods stay Pending with the scheduler's verdict, as before the scheduler ran."""
    assert control_plane.request("GET", "/api/v1/nodes")[1]["items"] == []
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "unplaced", "namespace": namespace},
        "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]},
    }
    control_plane.apply(pod)
    path = f"/api/v1/namespaces/{namespace}/pods/unplaced"

    def verdict():
        conditions = (control_plane.request("GET", path)[1].get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == "PodScheduled"), None)

    condition = _wait(verdict, "the scheduler's verdict")
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == "no nodes available to schedule pods"
    assert control_plane.request("GET", path)[1]["status"]["phase"] == "Pending"


def test_service_accounts_and_aggregated_roles(control_plane, namespace) -> None:
    """kube-controller-manager: a default service account and the root CA in each namespace, and the aggregated
    view role includes what KubeVirt's kubevirt.io:view adds (instance types among it)."""
    _wait(
        lambda: control_plane.request("GET", f"/api/v1/namespaces/{namespace}/serviceaccounts/default")[0] == 200, "SA"
    )
    _wait(
        lambda: control_plane.request("GET", f"/api/v1/namespaces/{namespace}/configmaps/kube-root-ca.crt")[0] == 200,
        "kube-root-ca.crt",
    )
    _, view = control_plane.request("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/view")
    assert any("virtualmachineinstancetypes" in rule.get("resources", []) for rule in view["rules"]), (
        "kubevirt.io:view is not aggregated into view"
    )


HOLDER = """
import json, sys, time
from pathlib import Path
from hack.localcluster import ControlPlane, binaries_dir

plane = ControlPlane(bin_dir=binaries_dir(), workdir=Path(sys.argv[1]), kubevirt=False, controller_manager=False)
with plane:
    print(json.dumps({name: process.pid for name, process in plane.processes.items()}), flush=True)
    time.sleep(300)
"""


def test_a_process_holding_a_plane_stops_it_when_terminated(tmp_path) -> None:
    """A script (a benchmark, a demo) that holds a plane and is killed with SIGTERM stops the plane's processes,
    which run in their own sessions, before it exits: nothing is orphaned. (A bare plane without
    kube-controller-manager: the smallest that has the processes. SIGHUP, and signals during a stop, are in
    tests/unit/test_localcluster_state.py.)"""
    signum = signal.SIGTERM
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "plane")],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = holder.stdout.readline()
        assert line, holder.stderr.read()
        pids = json.loads(line)
        assert set(pids) == {"etcd", "kube-apiserver"}
        assert all(_runs(pid, name) for name, pid in pids.items())
        holder.send_signal(signum)
        holder.wait(timeout=60)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    stderr = holder.stderr.read()
    assert f"Terminated: {signal.Signals(signum).name}: stopping the local plane" in stderr
    assert not [name for name, pid in pids.items() if _runs(pid, name)]


def _runs(pid: int, binary: str) -> bool:
    try:
        return Path(f"/proc/{pid}/exe").resolve().name == binary
    except OSError:
        return False
