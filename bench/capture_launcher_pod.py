"""Capture the virt-launcher pod the real virt-controller creates for a running VM, for bench/rightsize.py's
``--nodes`` (a running fleet's launcher pods, which ``rightsize``'s fit check reads with every other bound pod).

Starts the harness's plane with KubeVirt v1.9.0's virt-api and virt-controller, creates one VM (u1.medium, fedora,
a containerDisk, runStrategy Always), waits for virt-controller's launcher pod, binds it to a Node named
``node-0`` (the pods/binding subresource, as kube-scheduler does) and writes the pod as the API server stores it,
to bench/data/virt-launcher-pod.json. The bench renames it and sets each VM's requests, namespace and node.

Usage: python bench/capture_launcher_pod.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hack.localcluster import ControlPlane, binaries_dir

OUT = Path(__file__).resolve().parent / "data" / "virt-launcher-pod.json"
NAMESPACE = "bench-0"
VM = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm-00001", "namespace": NAMESPACE},
    "spec": {
        "runStrategy": "Always",
        "instancetype": {"kind": "VirtualMachineClusterInstancetype", "name": "u1.medium"},
        "preference": {"kind": "VirtualMachineClusterPreference", "name": "fedora"},
        "template": {
            "spec": {
                "domain": {"devices": {}},
                "volumes": [
                    {"name": "rootdisk", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}},
                    {"name": "cloudinit", "cloudInitNoCloud": {"userData": "#cloud-config\n"}},
                ],
            }
        },
    },
}
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "node-0", "labels": {"kubernetes.io/hostname": "node-0"}},
}


def main() -> int:
    with ControlPlane(bin_dir=binaries_dir()) as plane:
        plane.load_catalog()
        plane.ensure_namespace(NAMESPACE)
        code, answer = plane.request("POST", "/api/v1/nodes", NODE)
        assert code == 201, answer
        code, answer = plane.request("POST", f"/apis/kubevirt.io/v1/namespaces/{NAMESPACE}/virtualmachines", VM)
        assert code == 201, answer
        deadline = time.monotonic() + 120
        while True:
            code, answer = plane.request(
                "GET", f"/api/v1/namespaces/{NAMESPACE}/pods?labelSelector=kubevirt.io%3Dvirt-launcher"
            )
            items = (answer or {}).get("items") or []
            if items:
                break
            if time.monotonic() > deadline:
                raise SystemExit("virt-controller created no launcher pod within 120 s")
            time.sleep(0.5)
        name = items[0]["metadata"]["name"]
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-0"},
        }
        code, answer = plane.request("POST", f"/api/v1/namespaces/{NAMESPACE}/pods/{name}/binding", binding)
        assert code == 201, answer
        code, pod = plane.request("GET", f"/api/v1/namespaces/{NAMESPACE}/pods/{name}")
        assert code == 200, pod
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(pod, indent=2, sort_keys=True) + "\n")
    print(f"{OUT}: {len(json.dumps(pod, separators=(',', ':')))} bytes compact")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
