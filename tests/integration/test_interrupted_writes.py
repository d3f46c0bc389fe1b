"""Interrupted and raced writes report exactly what exists, on the real API server (issue 34). A loopback reverse
proxy double (tests/doubles/holding_proxy.py) forwards every request to the control plane and holds back the
answer to one write: the server has applied it, the plugin has not heard so, and the test then interrupts the
plugin (SIGINT) or lets a second writer change the VM before the answer arrives."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_instancetype.catalog import load_catalog
from kubectl_instancetype.usecases import catalog_install as use
from tests.doubles.holding_proxy import HoldingProxy

pytestmark = pytest.mark.controlplane

CATALOG = load_catalog()
ENTRY = "import sys; from kubectl_instancetype.cli.main import main; sys.exit(main())"


def proxy_kubeconfig(tmp_path: Path, proxy: HoldingProxy, namespace: str) -> Path:
    path = tmp_path / "kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": proxy.url}}],
        "users": [{"name": "u", "user": {"token": "the-proxy-sends-its-own"}}],
        "contexts": [
            {
                "name": "c",
                "context": {"cluster": "c", "user": "u", "namespace": namespace},
            }
        ],
    }
    path.write_text(json.dumps(config))
    return path


def plugin(kubeconfig: Path, *args: str) -> subprocess.Popen:
    environ = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/nonexistent",
        "KUBECONFIG": str(kubeconfig),
    }
    return subprocess.Popen(
        [sys.executable, "-c", ENTRY, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
    )


def stored_names(plane, namespace: str) -> set[str]:
    code, answer = plane.request(
        "GET",
        f"/apis/instancetype.kubevirt.io/v1beta1/namespaces/{namespace}/virtualmachineinstancetypes",
    )
    assert code == 200
    return {item["metadata"]["name"] for item in answer["items"]}


def test_sigint_after_the_server_applied_counts_that_object(control_plane, namespace, tmp_path: Path) -> None:
    objects = use.catalog_objects(CATALOG, use.Scope(namespace=namespace, preferences=False))
    proxy = HoldingProxy(
        control_plane.port,
        str(control_plane.ca_file),
        control_plane.tokens["admin"],
        method="PATCH",
        path="/virtualmachineinstancetypes/",
        hold=4,
    )
    try:
        kubeconfig = proxy_kubeconfig(tmp_path, proxy, namespace)
        process = plugin(
            kubeconfig,
            "catalog",
            "install",
            "--namespaced",
            "-n",
            namespace,
            "--instancetypes-only",
        )
        try:
            assert proxy.held.wait(120), "the fourth apply never reached the proxy"
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=60)
        finally:
            process.kill()
    finally:
        proxy.close()
    assert process.returncode == 1
    assert stored_names(control_plane, namespace) == {item.name for item in objects[:4]}
    assert stdout.splitlines() == [f"{item.shown} created" for item in objects[:3]]
    assert stderr == (
        f"error: interrupted; applied before that: 4 created; not applied: {objects[4].shown} and "
        f"{len(objects) - 5} more\n"
    )


def _vm(namespace: str) -> dict:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm", "namespace": namespace},
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"name": "small", "kind": "VirtualMachineInstancetype"},
            "template": {
                "spec": {
                    "domain": {"devices": {}},
                    "volumes": [
                        {
                            "name": "root",
                            "containerDisk": {"image": "quay.io/containerdisks/fedora:41"},
                        }
                    ],
                }
            },
        },
    }


def _instancetype(name: str, namespace: str, cpu: int) -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": "1Gi"}},
    }


def test_switch_wait_does_not_report_a_reverted_vm_as_its_outcome(control_plane, namespace, tmp_path: Path) -> None:
    code, _ = control_plane.request(
        "GET",
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/virt-api-mutator",
    )
    if code != 200:
        pytest.skip("the control plane runs no KubeVirt virt-api/virt-controller")
    control_plane.apply(_instancetype("small", namespace, 1))
    control_plane.apply(_instancetype("large", namespace, 2))
    control_plane.apply(_vm(namespace))
    vm_path = f"/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines/vm"
    proxy = HoldingProxy(
        control_plane.port,
        str(control_plane.ca_file),
        control_plane.tokens["admin"],
        method="PUT",
        path=vm_path,
        hold=1,
    )
    try:
        kubeconfig = proxy_kubeconfig(tmp_path, proxy, namespace)
        process = plugin(
            kubeconfig,
            "switch",
            "vm/vm",
            "--instancetype",
            "vmf/large",
            "--wait",
            "--timeout",
            "30s",
        )
        try:
            if not proxy.held.wait(120):
                process.kill()
                stdout, stderr = process.communicate(timeout=30)
                raise AssertionError(f"the switch's PUT never reached the proxy: {stdout!r} {stderr!r}")
            # the second writer: the VM goes back to its old instance type before the switch hears of its PUT
            # virt-controller writes the VM too (revision references), so the revert retries on 409 Conflict as
            # client-go's retry.RetryOnConflict does, a bounded number of times
            for _attempt in range(10):
                code, current = control_plane.request("GET", vm_path)
                assert code == 200 and current["spec"]["instancetype"]["name"] == "large"
                current["spec"]["instancetype"] = {
                    "name": "small",
                    "kind": "VirtualMachineInstancetype",
                }
                code, reverted = control_plane.request("PUT", vm_path, current)
                if code != 409:
                    break
            assert code == 200, reverted
            proxy.release.set()
            stdout, stderr = process.communicate(timeout=90)
        finally:
            process.kill()
    finally:
        proxy.close()
    assert process.returncode == 1
    # the controller writes the VM's status after the revert too: the resourceVersion named is the latest one seen
    last = stderr.splitlines()[-1]
    assert re.fullmatch(
        re.escape(
            "error: virtualmachine.kubevirt.io/vm was changed by another writer after the switch: spec.instancetype "
            "names VirtualMachineInstancetype/small, not virtualmachineinstancetype/large (resourceVersion "
        )
        + "[0-9]+"
        + re.escape(
            "); the controller's answer is not reported, as it is not about the switch; see kubectl get vm vm -o "
            "yaml, and run the switch again if it still applies"
        ),
        last,
    ), last
    assert int(last.split("(resourceVersion ", 1)[1].split(")", 1)[0]) >= int(reverted["metadata"]["resourceVersion"])
    # no outcome is printed: "instancetype revision: controllerrevision/<small's revision>" was the old answer
    assert [line for line in stdout.splitlines() if line.startswith("instancetype revision:")] == []
