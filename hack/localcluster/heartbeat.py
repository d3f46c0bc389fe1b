"""The simulated virt-handler heartbeat of the local plane's simulated nodes.

On a real cluster virt-handler runs on every node and, about once a minute, patches its node's
``kubevirt.io/schedulable``, ``cpumanager`` and ``kubevirt.io/cpumanager`` labels and its ``kubevirt.io/heartbeat``
annotation (KubeVirt v1.9.0 pkg/virt-handler/heartbeat HeartBeat.do). virt-controller's node controller marks a
node ``kubevirt.io/schedulable=false`` when that annotation is older than 5 minutes
(pkg/virt-controller/watch/node isNodeUnresponsive, heartBeatTimeout), after which no launcher pod fits it. There
is no virt-handler beside KWOK's simulated nodes, so this module writes the same patch for every simulated node
(label ``type=kwok``) on the same timer, while the plane runs: ``python -m hack.localcluster.heartbeat
--kubeconfig FILE`` (started by hack/localcluster/kwok.py, stopped with the plane).

The cpumanager labels are true when the KubeVirt CR enables the CPUManager feature gate
(pkg/virt-config/featuregate IsEnabled: an Alpha gate, so only when listed) and the node's kubelet runs the static
CPU manager policy, which virt-handler reads from kubelet's cpu_manager_state file (HeartBeat.isCPUManagerEnabled);
a simulated node carries that policy as the annotation :data:`CPU_MANAGER_POLICY`. A node annotated
:data:`VIRT_HANDLER` ``=stopped`` has no virt-handler: it is skipped (see kwok.SimulatedNodes.stop_virt_handler).
"""

from __future__ import annotations

import argparse
import datetime
import random
import signal
import sys
import threading
from urllib.parse import quote

from .api import METADATA_LIST, STRATEGIC_MERGE_PATCH, Api

SIMULATED_SELECTOR = "type=kwok"  # the label every simulated node carries (KWOK's own examples use it)
CPU_MANAGER_POLICY = "localcluster.kubectl-instancetype/cpu-manager-policy"
VIRT_HANDLER = "localcluster.kubectl-instancetype/virt-handler"
# k8s.io/api core/v1 and kubevirt.io/api core/v1 names
NODE_SCHEDULABLE = "kubevirt.io/schedulable"
DEPRECATED_CPU_MANAGER = "cpumanager"
CPU_MANAGER = "kubevirt.io/cpumanager"
VIRT_HANDLER_HEARTBEAT = "kubevirt.io/heartbeat"
CPU_MANAGER_GATE = "CPUManager"
INTERVAL = 60.0  # pkg/virt-handler/vm.go NewController: heartBeatInterval: 1 * time.Minute
JITTER = 1.2  # HeartBeat.heartBeat: wait.JitterUntil(h.do, heartBeatInterval, 1.2, true, stopCh)


def now() -> str:
    """metav1.Now() as JSON encodes it: RFC 3339 in UTC, whole seconds."""
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu_manager_gate(configuration: dict | None) -> bool:
    """The CPUManager feature gate of a KubeVirt CR's spec.configuration (an Alpha gate: enabled only when
    listed in developerConfiguration.featureGates; pkg/virt-config/featuregate IsEnabled)."""
    developer = (configuration or {}).get("developerConfiguration") or {}
    return CPU_MANAGER_GATE in (developer.get("featureGates") or [])


def heartbeat_patch(cpu_manager: bool, timestamp: str, schedulable: bool = True) -> dict:
    """The strategic merge patch HeartBeat.do sends (labelNodeUnschedulable's with ``schedulable=False``)."""
    flag = "true" if cpu_manager else "false"
    return {
        "metadata": {
            "labels": {
                NODE_SCHEDULABLE: "true" if schedulable else "false",
                DEPRECATED_CPU_MANAGER: flag,
                CPU_MANAGER: flag,
            },
            "annotations": {VIRT_HANDLER_HEARTBEAT: timestamp},
        }
    }


def node_cpu_manager(annotations: dict | None, gate: bool) -> bool:
    """What virt-handler's heartbeat reports for a node: the gate and the node's static policy."""
    return gate and (annotations or {}).get(CPU_MANAGER_POLICY) == "static"


def read_gate(api: Api) -> bool:
    """The CPUManager gate of the plane's KubeVirt CR (false when KubeVirt is not installed)."""
    status, answer = api.request("GET", "/apis/kubevirt.io/v1/kubevirts")
    if status != 200 or not answer:
        return False
    items = answer.get("items") or []
    return bool(items) and cpu_manager_gate((items[0].get("spec") or {}).get("configuration"))


def beat(api: Api, names: set[str] | None = None) -> list[str]:
    """One heartbeat for every simulated node (or those in ``names``) with a running virt-handler; returns the
    nodes patched. A node deleted meanwhile is skipped."""
    gate = read_gate(api)
    status, answer = api.request(
        "GET", f"/api/v1/nodes?labelSelector={quote(SIMULATED_SELECTOR)}", accept=METADATA_LIST
    )
    if status != 200 or not answer:
        return []
    patched = []
    timestamp = now()
    for item in answer.get("items") or []:
        metadata = item.get("metadata") or {}
        name = metadata.get("name")
        annotations = metadata.get("annotations") or {}
        if not name or (names is not None and name not in names) or annotations.get(VIRT_HANDLER) == "stopped":
            continue
        patch = heartbeat_patch(node_cpu_manager(annotations, gate), timestamp)
        code, _ = api.request("PATCH", f"/api/v1/nodes/{name}", patch, content_type=STRATEGIC_MERGE_PATCH)
        if code == 200:
            patched.append(name)
    return patched


def run(api: Api, interval: float, stop: threading.Event) -> None:
    """Beat now, then every ``interval`` seconds with virt-handler's jitter (wait.JitterUntil, sliding: the
    wait is interval * (1 + rand * 1.2) after each beat), until ``stop`` is set."""
    while not stop.is_set():
        try:
            beat(api)
        except OSError as exc:  # the API server restarts or stops: try again on the next beat
            print(f"heartbeat: {exc}", file=sys.stderr, flush=True)
        stop.wait(interval * (1 + random.random() * JITTER))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: beat until SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m hack.localcluster.heartbeat", description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--interval", type=float, default=INTERVAL, help="seconds (default: %(default)s)")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    run(Api.from_kubeconfig(args.kubeconfig), args.interval, stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
