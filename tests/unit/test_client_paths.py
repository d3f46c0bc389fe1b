"""The API client's named methods send the requests KubeVirt, CDI and the API server expect: method, path (known
up front, no discovery), headers and body, as a scripted server receives them."""

from __future__ import annotations

import json

import pytest

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.kube import resources
from kubectl_instancetype.kube.client import Client
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from tests.doubles.http_server import ScriptedServer, read_request


@pytest.fixture
def client():
    def handler(conn, seen):
        while True:
            request = read_request(conn)
            if not request:
                return
            seen.append(request)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")

    scripted = ScriptedServer(handler)
    with Client(ClusterConfig(server=scripted.url), environ={}) as made:
        yield made, scripted.requests
    scripted.close()


def _head_and_body(request: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = request.partition(b"\r\n\r\n")
    line, *header_lines = head.decode().split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (h.partition(":") for h in header_lines)}
    return line, headers, body


CALLS = [
    (
        "expand_spec",
        lambda c: c.expand_spec("vm-1", "ns"),
        "GET /apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/vm-1/expand-spec HTTP/1.1",
    ),
    (
        "expand_vm_spec",
        lambda c: c.expand_vm_spec({"kind": "VirtualMachine"}, "ns"),
        "PUT /apis/subresources.kubevirt.io/v1/namespaces/ns/expand-vm-spec HTTP/1.1",
    ),
    ("kubevirt_version", lambda c: c.kubevirt_version(), "GET /apis/subresources.kubevirt.io/v1/version HTTP/1.1"),
    (
        "api_resources",
        lambda c: c.api_resources(resources.UPLOAD_GROUP, resources.UPLOAD_VERSION),
        "GET /apis/upload.cdi.kubevirt.io/v1beta1 HTTP/1.1",
    ),
    ("first_page", lambda c: c.first_page(resources.KUBEVIRTS), "GET /apis/kubevirt.io/v1/kubevirts?limit=1 HTTP/1.1"),
    (
        "first_page of CDI",
        lambda c: c.first_page(resources.CDIS),
        "GET /apis/cdi.kubevirt.io/v1beta1/cdis?limit=1 HTTP/1.1",
    ),
    (
        "subject_access_review",
        lambda c: c.subject_access_review({"kind": "SubjectAccessReview"}),
        "POST /apis/authorization.k8s.io/v1/subjectaccessreviews HTTP/1.1",
    ),
    (
        "metadata_page",
        lambda c: c.metadata_page(resources.INSTANCETYPES, "ns", limit=5000, continue_token="t/1"),
        "GET /apis/instancetype.kubevirt.io/v1beta1/namespaces/ns/virtualmachineinstancetypes"
        "?limit=5000&continue=t%2F1 HTTP/1.1",
    ),
]


@pytest.mark.parametrize(("call", "expected"), [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_each_method_sends_its_known_path(client, call, expected) -> None:
    made, seen = client
    assert call(made) == {}
    assert [_head_and_body(request)[0] for request in seen] == [expected]


def test_bodies_are_the_documents_given(client) -> None:
    made, seen = client
    made.expand_vm_spec({"kind": "VirtualMachine", "metadata": {"name": "v"}}, "ns")
    made.subject_access_review({"kind": "SubjectAccessReview", "spec": {"user": "u"}})
    bodies = [json.loads(_head_and_body(request)[2]) for request in seen]
    assert bodies == [
        {"kind": "VirtualMachine", "metadata": {"name": "v"}},
        {"kind": "SubjectAccessReview", "spec": {"user": "u"}},
    ]


def test_a_metadata_page_asks_for_partial_object_metadata(client) -> None:
    made, seen = client
    made.metadata_page(resources.CLUSTER_PREFERENCES, None, limit=10)
    line, headers, _ = _head_and_body(seen[0])
    assert line == "GET /apis/instancetype.kubevirt.io/v1beta1/virtualmachineclusterpreferences?limit=10 HTTP/1.1"
    assert headers["accept"] == "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"


def test_names_that_would_name_another_url_are_refused_before_sending(client) -> None:
    made, seen = client
    # client-go's request path checks (k8s.io/apimachinery/pkg/api/validation/path): "invalid resource name %q: %v"
    with pytest.raises(UsageError) as name:
        made.expand_spec("..", "ns")
    with pytest.raises(UsageError) as namespace:
        made.expand_vm_spec({}, "a/b")
    assert name.value.render() == "error: invalid resource name \"..\": [may not be '..']"
    assert namespace.value.render() == "error: invalid namespace \"a/b\": [may not contain '/']"
    assert seen == []
