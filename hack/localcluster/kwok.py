"""Simulated nodes for the local plane: KWOK beside kube-apiserver, nodes as virt-handler leaves them.

KWOK (sigs.k8s.io/kwok v0.7.0, built by hack/kwok/build.sh) runs as a local process with the plane's admin
kubeconfig and manages only the nodes annotated ``kwok.x-k8s.io/node=fake`` (``--manage-all-nodes=false
--manage-nodes-with-annotation-selector``): it marks them Ready and moves the pods bound to them to Running with
the stages of hack/localcluster/kwok-stages.yaml (node-fast and pod-fast, copied from KWOK; that file says why
those). The real kube-scheduler binds pods to them.

The nodes' shapes come from hack/localcluster/nodes.yaml (capacity, allocatable, device plugins, architecture,
CPU profile, CPU manager policy, taints, cordoned). Each node is created with the labels virt-handler's
node-labeller and heartbeat write; a simulated heartbeat (hack/localcluster/heartbeat.py, a process of the plane)
repeats the heartbeat while the plane runs, so virt-controller never marks the nodes unschedulable. Once KWOK
reports a node Ready the harness lifts the API server's ``node.kubernetes.io/not-ready:NoSchedule`` taint, as the
node lifecycle controller does (it does not run here: it would need node leases or status heartbeats).
"""

from __future__ import annotations

import copy
import http.client
import math
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import yaml

from . import heartbeat
from .api import MERGE_PATCH, Api
from .controlplane import REPO_ROOT, free_port, run_build

if TYPE_CHECKING:
    from .controlplane import ControlPlane

BUILD_SCRIPT = REPO_ROOT / "hack" / "kwok" / "build.sh"
STAGES_FILE = Path(__file__).with_name("kwok-stages.yaml")
NODES_FILE = Path(__file__).with_name("nodes.yaml")
KWOK_ANNOTATION = "kwok.x-k8s.io/node"  # KWOK's own convention for the nodes it manages
KWOK_ANNOTATION_VALUE = "fake"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"  # k8s.io/api core/v1 TaintNodeNotReady
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"  # TaintNodeUnschedulable
READY_TIMEOUT = 120.0
# kubevirt.io/api core/v1 label prefixes written by virt-handler's node-labeller (NodeLabeller.prepareLabels)
CPU_FEATURE = "cpu-feature.node.kubevirt.io/"
CPU_MODEL = "cpu-model.node.kubevirt.io/"
CPU_MODEL_MIGRATION = "cpu-model-migration.node.kubevirt.io/"
CPU_TIMER = "cpu-timer.node.kubevirt.io/"
HYPERV = "hyperv.node.kubevirt.io/"
CPU_VENDOR = "cpu-vendor.node.kubevirt.io/"
MACHINE_TYPE = "machine-type.node.kubevirt.io/"
HOST_MODEL_CPU = "host-model-cpu.node.kubevirt.io/"
HOST_MODEL_REQUIRED_FEATURES = "host-model-required-features.node.kubevirt.io/"
SEV = "kubevirt.io/sev"
SEV_ES = "kubevirt.io/sev-es"


def kwok_binary() -> Path:
    """Build (once per version, cached) and return the kwok binary."""
    return run_build(BUILD_SCRIPT, "KWOK")


# -- shapes ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """One node shape of nodes.yaml (``extends`` resolved)."""

    name: str
    weight: int
    arch: str
    cpu: str | None
    capacity: dict
    allocatable: dict
    cpu_manager_policy: str = "none"
    taints: tuple = ()
    unschedulable: bool = False


@dataclass(frozen=True)
class Shapes:
    """nodes.yaml: the shapes in file order, CPU profiles, machine types, virt-handler's device plugins."""

    shapes: dict[str, Shape]
    cpus: dict[str, dict]
    machine_types: dict[str, list[str]]
    devices: dict[str, str]

    def spread(self, count: int) -> list[Shape]:
        """The shapes of ``count`` nodes: the first ``count`` in file order when there are no more nodes than
        shapes; else one of each and the rest by weight (largest remainder, ties in file order)."""
        ordered = list(self.shapes.values())
        if count <= len(ordered):
            return ordered[:count]
        rest = count - len(ordered)
        total = sum(shape.weight for shape in ordered)
        quotas = [rest * shape.weight / total for shape in ordered]
        counts = [1 + math.floor(quota) for quota in quotas]
        left = count - sum(counts)
        by_remainder = sorted(range(len(ordered)), key=lambda i: (-(quotas[i] - math.floor(quotas[i])), i))
        for index in by_remainder[:left]:
            counts[index] += 1
        return [shape for shape, n in zip(ordered, counts) for _ in range(n)]


def load_shapes(path: Path = NODES_FILE) -> Shapes:
    """Read nodes.yaml."""
    data = yaml.safe_load(path.read_text())
    raw: dict[str, dict] = {}
    for entry in data["shapes"]:
        merged = {**copy.deepcopy(raw[entry["extends"]]), **entry} if "extends" in entry else dict(entry)
        merged.pop("extends", None)
        raw[entry["name"]] = merged
    shapes = {}
    for name, entry in raw.items():
        capacity = {key: str(value) for key, value in entry["capacity"].items()}
        shapes[name] = Shape(
            name=name,
            weight=int(entry.get("weight", 1)),
            arch=entry["arch"],
            cpu=entry.get("cpu"),
            capacity=capacity,
            allocatable={**capacity, **{key: str(value) for key, value in entry.get("allocatable", {}).items()}},
            cpu_manager_policy=entry.get("cpuManagerPolicy", "none"),
            taints=tuple(entry.get("taints") or ()),
            unschedulable=bool(entry.get("unschedulable", False)),
        )
    return Shapes(
        shapes=shapes,
        cpus=data.get("cpus") or {},
        machine_types=data.get("machineTypes") or {},
        devices={key: str(value) for key, value in (data.get("devices") or {}).items()},
    )


def labeller_labels(shapes: Shapes, shape: Shape) -> dict[str, str]:
    """The labels virt-handler's node-labeller writes for this shape (KubeVirt v1.9.0
    pkg/virt-handler/node-labeller NodeLabeller.prepareLabels, with the architecture's archLabeller: amd64 has
    host-supported features, named models and a host model; arm64 none of them)."""
    labels = {MACHINE_TYPE + machine: "true" for machine in shapes.machine_types.get(shape.arch, [])}
    profile = shapes.cpus.get(shape.cpu or "") if shape.arch == "amd64" else None
    if not profile:
        return labels
    for feature in profile.get("features", []):
        labels[CPU_FEATURE + feature] = "true"
    for model in profile.get("usableModels", []):
        labels[CPU_MODEL + model] = "true"
    for model in profile.get("usableModels", []) + profile.get("unusableModels", []):
        labels[CPU_MODEL_MIGRATION + model] = "true"
    for feature in profile.get("hyperv", []):
        labels[HYPERV + feature] = "true"
    if profile.get("tscFrequency"):
        labels[CPU_TIMER + "tsc-frequency"] = str(profile["tscFrequency"])
        labels[CPU_TIMER + "tsc-scalable"] = str(profile.get("tscScalable", "false"))
    for feature in profile.get("requiredFeatures", []):
        labels[HOST_MODEL_REQUIRED_FEATURES + feature] = "true"
    labels[CPU_VENDOR + profile["vendor"]] = "true"
    labels[HOST_MODEL_CPU + profile["hostModel"]] = "true"
    if profile.get("sev"):
        labels[SEV] = "true"
        labels[SEV_ES] = "true"
    return labels


def node_object(shapes: Shapes, shape: Shape, name: str, index: int, cpu_manager_gate: bool) -> dict:
    """The Node as kubelet registers it and virt-handler labels it (status included: the API server keeps a
    node's status on create). ``index`` picks its addresses and pod CIDR (KWOK gives pod IPs from the node's
    spec.podCIDR)."""
    labels = {
        "beta.kubernetes.io/arch": shape.arch,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": shape.arch,
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "type": "kwok",
        **labeller_labels(shapes, shape),
    }
    annotations = {
        KWOK_ANNOTATION: KWOK_ANNOTATION_VALUE,
        "node.alpha.kubernetes.io/ttl": "0",
        heartbeat.CPU_MANAGER_POLICY: shape.cpu_manager_policy,
    }
    first_beat = heartbeat.heartbeat_patch(heartbeat.node_cpu_manager(annotations, cpu_manager_gate), heartbeat.now())[
        "metadata"
    ]
    labels.update(first_beat["labels"])
    annotations.update(first_beat["annotations"])
    pod_cidr = f"10.{128 + index // 256}.{index % 256}.0/24"
    spec: dict = {"podCIDR": pod_cidr, "podCIDRs": [pod_cidr]}
    if shape.taints:
        spec["taints"] = [dict(taint) for taint in shape.taints]
    if shape.unschedulable:
        spec["unschedulable"] = True
    resources_capacity = {**shape.capacity, **shapes.devices}
    resources_allocatable = {**shape.allocatable, **shapes.devices}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels, "annotations": annotations},
        "spec": spec,
        "status": {
            "capacity": resources_capacity,
            "allocatable": resources_allocatable,
            "addresses": [
                {"type": "InternalIP", "address": f"172.{16 + index // 65024}.{index // 254 % 256}.{index % 254 + 1}"},
                {"type": "Hostname", "address": name},
            ],
            "nodeInfo": {
                "architecture": shape.arch,
                "operatingSystem": "linux",
                "osImage": "KWOK simulated node (kubectl-instancetype local plane)",
                "bootID": "",
                "machineID": "",
                "systemUUID": "",
                "containerRuntimeVersion": "",
                "kernelVersion": "",
                "kubeProxyVersion": "",
                "kubeletVersion": "",
            },
        },
    }


def lifted_taints(node: dict) -> list[dict]:
    """The taints the node lifecycle controller leaves on a Ready node (k8s.io/kubernetes
    pkg/controller/nodelifecycle doNoScheduleTaintingPass): the not-ready taint the API server's admission added
    (plugin/pkg/admission/nodetaint) removed, the unschedulable taint added when the node is cordoned."""
    spec = node.get("spec") or {}
    taints = [t for t in spec.get("taints") or [] if t.get("key") != NOT_READY_TAINT]
    if spec.get("unschedulable") and not any(t.get("key") == UNSCHEDULABLE_TAINT for t in taints):
        taints.append({"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule", "timeAdded": heartbeat.now()})
    return taints


def is_ready(node: dict) -> bool:
    """The node's Ready condition is True."""
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


# -- the running simulation --------------------------------------------------------------------------------------


@dataclass
class SimulatedNodes:
    """KWOK and the simulated virt-handler heartbeat of one plane, and the nodes created through it.

    :meth:`add` creates nodes (ready, untainted, labelled) and returns their names; :meth:`remove` deletes nodes
    and, first, every pod bound to them (KWOK would otherwise be asked to confirm deletions on nodes that are gone);
    :meth:`clear` removes every node this object created. ``plane.stop()`` stops KWOK and the heartbeat with the
    other clients of the API server.
    """

    plane: ControlPlane
    shapes: Shapes = field(default_factory=load_shapes)
    names: list[str] = field(default_factory=list)
    heartbeat_interval: float = heartbeat.INTERVAL
    created: int = 0  # nodes created so far (names and pod CIDRs stay unique after removals)
    lock: threading.Lock = field(default_factory=threading.Lock)
    api: Api | None = None

    def start(self) -> SimulatedNodes:
        """Build (cached) and start KWOK and the heartbeat; wait until KWOK serves /healthz."""
        plane = self.plane
        binary = kwok_binary()
        self.api = Api(plane.server, plane.ca_file, plane.tokens["admin"])
        port = free_port()
        kubeconfig = plane.kubeconfig("admin")
        plane._spawn(
            "kwok",
            [
                str(binary),
                f"--kubeconfig={kubeconfig}",
                f"--config={STAGES_FILE}",
                "--manage-all-nodes=false",
                f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}={KWOK_ANNOTATION_VALUE}",
                "--node-lease-duration-seconds=0",
                f"--server-address=127.0.0.1:{port}",
            ],
            # KWOK reads ~/.kwok/kwok.yaml too when it exists (pkg/config InitFlags): not here.
            env={"HOME": str(plane.workdir)},
        )
        plane._spawn(
            "virt-handler-heartbeat",
            [
                sys.executable,
                "-m",
                "hack.localcluster.heartbeat",
                f"--kubeconfig={kubeconfig}",
                f"--interval={self.heartbeat_interval}",
            ],
            env={"PYTHONPATH": str(REPO_ROOT)},
        )
        self._wait_healthz(port)
        return self

    def _wait_healthz(self, port: int) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        last = "not started"
        while time.monotonic() < deadline:
            self.plane.check_processes()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            try:
                connection.request("GET", "/healthz")
                response = connection.getresponse()
                response.read()
                if response.status == 200:
                    return
                last = f"/healthz {response.status}"
            except (OSError, http.client.HTTPException) as exc:
                last = str(exc)
            finally:
                connection.close()
            time.sleep(0.1)
        raise RuntimeError(f"kwok not ready after {READY_TIMEOUT:.0f}s: {last}")

    def _gate(self) -> bool:
        assert self.api is not None
        return heartbeat.read_gate(self.api)

    def add(self, shapes: list[str] | tuple[str, ...] | None = None, count: int | None = None) -> list[str]:
        """Create nodes and wait until KWOK has them Ready and their not-ready taint is lifted; return their
        names (``kwok-<shape>-<n>``).

        ``shapes`` names shapes of nodes.yaml, ``count`` how many nodes: both given, ``count`` nodes of each
        named shape; only ``shapes``, one of each; only ``count``, that many spread over all shapes
        (:meth:`Shapes.spread`); neither, one of each shape."""
        if shapes:
            unknown = [name for name in shapes if name not in self.shapes.shapes]
            if unknown:
                raise ValueError(f"unknown node shape(s) {unknown}; nodes.yaml has {list(self.shapes.shapes)}")
            chosen = [self.shapes.shapes[name] for name in shapes for _ in range(count or 1)]
        else:
            chosen = self.shapes.spread(len(self.shapes.shapes) if count is None else count)
        gate = self._gate()
        with self.lock:
            first = self.created
            self.created += len(chosen)
        objects = [
            node_object(self.shapes, shape, f"kwok-{shape.name}-{first + i + 1}", first + i, gate)
            for i, shape in enumerate(chosen)
        ]
        assert self.api is not None
        api = self.api

        def create(obj: dict) -> str:
            status, answer = api.request("POST", "/api/v1/nodes", obj)
            if status >= 300:
                raise RuntimeError(f"creating node {obj['metadata']['name']}: {status} {answer}")
            return obj["metadata"]["name"]

        names = api.map(create, objects)
        with self.lock:
            self.names += names
        self._lift_taints(names)
        return names

    def _lift_taints(self, names: list[str]) -> None:
        """Wait until KWOK reports each node Ready, then lift its not-ready taint (the node lifecycle
        controller's doNoScheduleTaintingPass)."""
        assert self.api is not None
        api = self.api
        pending = set(names)
        deadline = time.monotonic() + READY_TIMEOUT
        while pending:
            _, answer = api.request("GET", f"/api/v1/nodes?labelSelector={quote(heartbeat.SIMULATED_SELECTOR)}")
            ready = [n for n in (answer or {}).get("items") or [] if n["metadata"]["name"] in pending and is_ready(n)]

            def lift(node: dict) -> None:
                name = node["metadata"]["name"]
                patch = {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"]}}
                patch["spec"] = {"taints": lifted_taints(node) or None}
                code, body = api.request("PATCH", f"/api/v1/nodes/{name}", patch, content_type=MERGE_PATCH)
                if code == 409:  # KWOK wrote the node meanwhile: read it again on the next round
                    return
                if code != 200:
                    raise RuntimeError(f"lifting the not-ready taint of node {name}: {code} {body}")
                pending.discard(name)

            api.map(lift, ready)
            if not pending:
                return
            if time.monotonic() > deadline:
                self.plane.check_processes()
                raise RuntimeError(
                    f"{len(pending)} simulated node(s) not Ready after {READY_TIMEOUT:.0f}s (is kwok running? its log: "
                    f"{self.plane.workdir / 'kwok.log'}): {sorted(pending)[:5]}"
                )
            time.sleep(max(0.2, len(pending) / 2000))

    def remove(self, names: list[str] | tuple[str, ...]) -> None:
        """Delete the pods bound to these nodes (at once: grace period 0), then the nodes."""
        assert self.api is not None
        api = self.api

        def drop(name: str) -> None:
            selector = quote(f"spec.nodeName={name}")
            status, answer = api.request("GET", f"/api/v1/pods?fieldSelector={selector}")
            for pod in (answer or {}).get("items") or [] if status == 200 else []:
                meta = pod["metadata"]
                api.request(
                    "DELETE",
                    f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}",
                    {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0},
                )
            code, body = api.request("DELETE", f"/api/v1/nodes/{name}")
            if code >= 300 and code != 404:
                raise RuntimeError(f"deleting node {name}: {code} {body}")

        api.map(drop, list(names))
        with self.lock:
            self.names = [name for name in self.names if name not in set(names)]

    def clear(self) -> None:
        """Remove every node this object created (and the pods bound to them)."""
        self.remove(list(self.names))

    @contextmanager
    def added(self, shapes: list[str] | tuple[str, ...] | None = None, count: int | None = None) -> Iterator[list[str]]:
        """:meth:`add` for the duration of a ``with`` block; the nodes (and their pods) are removed after it."""
        names = self.add(shapes, count)
        try:
            yield names
        finally:
            self.remove(names)

    def beat(self, names: list[str] | None = None) -> list[str]:
        """One heartbeat now for these nodes (default: all), e.g. after the CPUManager gate changed."""
        assert self.api is not None
        return heartbeat.beat(self.api, set(names) if names is not None else None)

    def stop_virt_handler(self, name: str) -> None:
        """virt-handler stops on this node: its last patch marks the node unschedulable for KubeVirt
        (HeartBeat.Run -> labelNodeUnschedulable) and the heartbeat skips it from now on."""
        assert self.api is not None
        code, node = self.api.request("GET", f"/api/v1/nodes/{name}")
        if code != 200 or not node:
            raise RuntimeError(f"reading node {name}: {code} {node}")
        cpu_manager = heartbeat.node_cpu_manager(node["metadata"].get("annotations"), self._gate())
        patch = heartbeat.heartbeat_patch(cpu_manager, heartbeat.now(), schedulable=False)
        patch["metadata"]["annotations"][heartbeat.VIRT_HANDLER] = "stopped"
        code, body = self.api.request("PATCH", f"/api/v1/nodes/{name}", patch, content_type=MERGE_PATCH)
        if code != 200:
            raise RuntimeError(f"stopping virt-handler on node {name}: {code} {body}")


@dataclass
class NodeGroup:
    """The nodes one user of a plane's :class:`SimulatedNodes` created (a test module's fixture): the same
    :meth:`add` / :meth:`remove` / :meth:`added`, and :meth:`clear` removes exactly these."""

    simulated: SimulatedNodes
    names: list[str] = field(default_factory=list)

    def add(self, shapes: list[str] | tuple[str, ...] | None = None, count: int | None = None) -> list[str]:
        """:meth:`SimulatedNodes.add`, remembered."""
        names = self.simulated.add(shapes, count)
        self.names += names
        return names

    def remove(self, names: list[str] | tuple[str, ...]) -> None:
        """:meth:`SimulatedNodes.remove`."""
        self.simulated.remove(names)
        gone = set(names)
        self.names = [name for name in self.names if name not in gone]

    @contextmanager
    def added(self, shapes: list[str] | tuple[str, ...] | None = None, count: int | None = None) -> Iterator[list[str]]:
        """:meth:`add` for the duration of a ``with`` block; the nodes (and their pods) are removed after it."""
        names = self.add(shapes, count)
        try:
            yield names
        finally:
            self.remove(names)

    def clear(self) -> None:
        """Remove this group's nodes and the pods bound to them."""
        self.remove(list(self.names))

    def beat(self) -> list[str]:
        """One heartbeat now for this group's nodes."""
        return self.simulated.beat(list(self.names))

    def stop_virt_handler(self, name: str) -> None:
        """:meth:`SimulatedNodes.stop_virt_handler`."""
        self.simulated.stop_virt_handler(name)
