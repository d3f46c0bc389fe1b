"""PATCH (merge, server-side apply), DELETE and streamed request bodies against the real control plane."""

from __future__ import annotations

import json

import pytest

from kubectl_instancetype.errors import APIError, NotFoundError
from kubectl_instancetype.kube.client import Client
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.resources import Resource

pytestmark = pytest.mark.controlplane

NAMESPACE = "transport-tests"
CONFIGMAPS = Resource("", "v1", "configmaps", "ConfigMap", namespaced=True)


@pytest.fixture
def client(control_plane):
    control_plane.ensure_namespace(NAMESPACE)
    config = ClusterConfig(
        server=control_plane.server, ca_file=str(control_plane.ca_file), token=control_plane.tokens["admin"]
    )
    with Client(config, environ={}) as handle:
        yield handle


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NAMESPACE}, "data": data}


def test_merge_patch_sets_a_label(client) -> None:
    if _exists(client, "patched"):
        client.delete(CONFIGMAPS, "patched", NAMESPACE)
    client.create(CONFIGMAPS, configmap("patched", a="1"), NAMESPACE)
    patched = client.patch(CONFIGMAPS, "patched", NAMESPACE, {"metadata": {"labels": {"tier": "gold"}}})
    assert patched["metadata"]["labels"] == {"tier": "gold"} and patched["data"] == {"a": "1"}
    # a JSON merge patch given as bytes is sent as it is
    patched = client.patch(CONFIGMAPS, "patched", NAMESPACE, b'{"data":{"a":null,"b":"2"}}')
    assert patched["data"] == {"b": "2"}
    client.delete(CONFIGMAPS, "patched", NAMESPACE)


def _exists(client, name: str) -> bool:
    try:
        client.get(CONFIGMAPS, name, NAMESPACE)
    except NotFoundError:
        return False
    return True


def test_server_side_apply_creates_then_conflicts_then_forces(client) -> None:
    if _exists(client, "applied"):
        client.delete(CONFIGMAPS, "applied", NAMESPACE)
    created = client.apply(CONFIGMAPS, "applied", NAMESPACE, configmap("applied", key="one"), field_manager="first")
    assert created["data"] == {"key": "one"}
    managers = {entry["manager"] for entry in created["metadata"]["managedFields"]}
    assert managers == {"first"}
    with pytest.raises(APIError) as caught:
        client.apply(CONFIGMAPS, "applied", NAMESPACE, configmap("applied", key="two"), field_manager="second")
    assert caught.value.code == 409 and caught.value.reason == "Conflict"
    assert caught.value.render().startswith(
        'Error from server (Conflict): Apply failed with 1 conflict: conflict with "first"'
    )
    forced = client.apply(
        CONFIGMAPS, "applied", NAMESPACE, configmap("applied", key="two"), field_manager="second", force=True
    )
    assert forced["data"] == {"key": "two"}
    client.delete(CONFIGMAPS, "applied", NAMESPACE)


def test_delete_then_not_found(client) -> None:
    if not _exists(client, "deleted"):
        client.create(CONFIGMAPS, configmap("deleted"), NAMESPACE)
    answer = client.delete(CONFIGMAPS, "deleted", NAMESPACE)
    # core kinds answer a DELETE with a Status naming the object
    assert (answer["kind"], answer["status"], answer["details"]["name"]) == ("Status", "Success", "deleted")
    with pytest.raises(NotFoundError) as caught:
        client.delete(CONFIGMAPS, "deleted", NAMESPACE)
    assert caught.value.render() == 'Error from server (NotFound): configmaps "deleted" not found'


def test_a_streamed_body_from_a_generator_with_progress(client, tmp_path) -> None:
    """A ~900 KB ConfigMap sent in 64 KB chunks from a generator: never one bytes object, progress per chunk."""
    if _exists(client, "streamed"):
        client.delete(CONFIGMAPS, "streamed", NAMESPACE)
    payload = json.dumps(configmap("streamed", blob="x" * 900_000)).encode()
    path = tmp_path / "body.json"
    path.write_bytes(payload)

    def chunks():
        with open(path, "rb") as handle:
            while chunk := handle.read(65536):
                yield chunk

    sent: list[int] = []
    created = client.transport.request(
        "POST",
        CONFIGMAPS.path(NAMESPACE),
        chunks(),
        content_type="application/json",
        content_length=len(payload),
        progress=sent.append,
    )
    assert len(created["data"]["blob"]) == 900_000
    assert sent == sorted(sent) and sent[-1] == len(payload) and len(sent) == -(-len(payload) // 65536)
    client.delete(CONFIGMAPS, "streamed", NAMESPACE)


def test_a_file_body_with_the_wrong_length_is_refused_before_the_server_sees_a_bad_request(client, tmp_path) -> None:
    path = tmp_path / "short.json"
    path.write_bytes(json.dumps(configmap("never")).encode())
    with open(path, "rb") as handle, pytest.raises(Exception) as caught:
        client.transport.request("POST", CONFIGMAPS.path(NAMESPACE), handle, content_length=path.stat().st_size + 10)
    assert (
        caught.value.render()
        == f"error: the request body ended after {path.stat().st_size} of {path.stat().st_size + 10} bytes"
    )
    assert not _exists(client, "never")
