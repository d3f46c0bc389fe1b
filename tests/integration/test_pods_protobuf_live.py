"""The bound pods read in protobuf (golang/k8sproto.py, as the fit check reads them) against the same pods read in
JSON, from the real kube-apiserver: every field the schema names equal, and the scheduler's accounting of each pod
(instancetype/nodefit.py counts_on_node, bound_request) the same, for pods with init containers and a sidecar,
pod-level resources, a RuntimeClass's overhead, and a status kubelet would write (actuated and allocated resources,
a resize the node cannot hold). A refused list says the server's words in both encodings."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.golang import k8sproto
from kubectl_instancetype.instancetype import nodefit
from kubectl_instancetype.kube.client import Client
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
from kubectl_instancetype.kube.resources import PODS
from kubectl_instancetype.usecases.placement import BOUND_PODS

pytestmark = pytest.mark.controlplane

NODE = "proto-node-not-there"  # bound by name: no kubelet or KWOK writes these pods afterwards


def _client(plane, user: str = "admin") -> Client:
    return Client(
        load_cluster_config(ConnectionOptions(kubeconfig=str(plane.kubeconfig(user))), {}, "/nonexistent"), {}
    )


def _container(name: str, cpu: str, memory: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "image": "registry.example/app:1",
        "resources": {"requests": {"cpu": cpu, "memory": memory}},
        **extra,
    }


def _pods(runtime_class: str) -> list[dict[str, Any]]:
    def pod(name: str, spec: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"nodeName": NODE, **spec}}

    return [
        pod("plain", {"containers": [_container("a", "250m", "64Mi"), _container("b", "1", "1Gi")]}),
        pod(
            "init-and-sidecar",
            {
                # the sidecar first: the init container after it runs beside it (2 + 0.1 CPU)
                "initContainers": [
                    _container("proxy", "100m", "128Mi", restartPolicy="Always"),
                    _container("setup", "2", "2Gi"),
                ],
                "containers": [_container("main", "500m", "512Mi")],
            },
        ),
        pod(
            "pod-level",
            {
                "resources": {"requests": {"cpu": "3", "memory": "3Gi"}, "limits": {"cpu": "4", "memory": "4Gi"}},
                "containers": [{"name": "c", "image": "registry.example/app:1"}],
            },
        ),
        pod("overhead", {"runtimeClassName": runtime_class, "containers": [_container("c", "1", "1Gi")]}),
        pod(
            "extended",
            {
                "containers": [
                    {
                        "name": "compute",
                        "image": "registry.example/app:1",
                        "resources": {
                            "requests": {"cpu": "1100m", "memory": "2254857830", "devices.kubevirt.io/kvm": "1"},
                            "limits": {"devices.kubevirt.io/kvm": "1", "hugepages-2Mi": "1Gi", "memory": "2254857830"},
                        },
                    }
                ]
            },
        ),
        pod("no-requests", {"containers": [{"name": "c", "image": "registry.example/app:1"}]}),
    ]


def _status(name: str) -> dict[str, Any]:
    """A status kubelet would write after a resize: actuated and allocated resources, one resize infeasible."""
    statuses = [
        {
            "name": "c",
            "image": "registry.example/app:1",
            "imageID": "",
            "ready": True,
            "restartCount": 0,
            "resources": {"requests": {"cpu": "2", "memory": "1536Mi"}},
            "allocatedResources": {"cpu": "1500m", "memory": "2Gi"},
        }
    ]
    return {
        "phase": "Running",
        "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible", "message": "no room"}]
        if name == "overhead"
        else [],
        "containerStatuses": statuses,
    }


def _project(value: Any, schema: k8sproto.Schema | None) -> Any:
    """``value`` (decoded JSON) kept to the fields of ``schema``, empty strings dropped (protobuf writes them, JSON
    omits them)."""
    if schema is None or not isinstance(value, dict):
        return value
    out = {}
    for name, kind, inner in schema.values():
        if name not in value or value[name] == "":
            continue
        if kind == k8sproto.MESSAGES:
            out[name] = [_project(item, inner) for item in value[name]]
        else:
            out[name] = _project(value[name], inner)
    return out


def _read(client: Client, namespace: str, fields: k8sproto.Schema | None) -> dict[str, dict[str, Any]]:
    pods = {}
    for page in client.list_pages(PODS, namespace, field_selector=BOUND_PODS, fields=fields, chunk_size=3):
        for pod in page["items"]:
            pods[pod["metadata"]["name"]] = pod
    return pods


def test_bound_pods_read_in_protobuf_are_what_json_says(control_plane, namespace) -> None:
    runtime_class = f"{namespace}-overhead"
    code, answer = control_plane.request(
        "POST",
        "/apis/node.k8s.io/v1/runtimeclasses",
        {
            "apiVersion": "node.k8s.io/v1",
            "kind": "RuntimeClass",
            "metadata": {"name": runtime_class},
            "handler": "runc",
            "overhead": {"podFixed": {"cpu": "250m", "memory": "160Mi"}},
        },
    )
    assert code == 201, answer
    try:
        for pod in _pods(runtime_class):
            code, answer = control_plane.request("POST", f"/api/v1/namespaces/{namespace}/pods", pod)
            assert code == 201, answer
            name = pod["metadata"]["name"]
            if name in ("plain", "overhead"):
                code, current = control_plane.request("GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
                assert code == 200, current
                status = _status(name)
                if name == "plain":
                    status["containerStatuses"] = [dict(status["containerStatuses"][0], name="b")]
                current["status"] = status
                code, answer = control_plane.request(
                    "PUT", f"/api/v1/namespaces/{namespace}/pods/{name}/status", current
                )
                assert code == 200, answer
        with _client(control_plane) as client:
            as_json = _read(client, namespace, None)
            as_protobuf = _read(client, namespace, k8sproto.BOUND_POD)
    finally:
        control_plane.request("DELETE", f"/apis/node.k8s.io/v1/runtimeclasses/{runtime_class}")
    assert sorted(as_json) == sorted(pod["metadata"]["name"] for pod in _pods(runtime_class))
    assert as_json["overhead"]["spec"]["overhead"] == {"cpu": "250m", "memory": "160Mi"}
    assert as_json["pod-level"]["spec"]["resources"]["requests"] == {"cpu": "3", "memory": "3Gi"}
    assert sorted(as_protobuf) == sorted(as_json)
    for name, pod in as_json.items():
        read = as_protobuf[name]
        assert _project(read, k8sproto.BOUND_POD) == _project(pod, k8sproto.BOUND_POD), name
        assert nodefit.counts_on_node(read) == nodefit.counts_on_node(pod), name
        assert nodefit.bound_request(read) == nodefit.bound_request(pod), name
    # the cases hold what they are named for (so that the comparison above covers them)
    assert nodefit.bound_request(as_json["init-and-sidecar"])[nodefit.CPU] == 2100
    assert nodefit.bound_request(as_json["plain"])[nodefit.CPU] == 2250  # 250m + max(1, 2) of the status


def test_a_refused_protobuf_list_says_the_servers_words(control_plane, namespace) -> None:
    said = []
    with _client(control_plane, "mallory") as client:
        for fields in (None, k8sproto.BOUND_POD):
            with pytest.raises(PluginError) as refused:
                list(client.list_pages(PODS, None, field_selector=BOUND_PODS, fields=fields))
            said.append(str(refused.value))
    assert said[0] == said[1]
    assert "pods is forbidden" in said[0] and "cannot list resource" in said[0], said[0]
