"""The real kube-apiserver and compression: it gzips an answer over 128 kB for a client that asks (apiserver
``responsewriters.deferredResponseWriter``, the APIResponseCompression feature), the plugin asks as client-go does
and reads the answer inflated, and a kubeconfig's ``disable-compression`` stops it asking."""

from __future__ import annotations

import json

from kubectl_instancetype.kube.client import Client
from kubectl_instancetype.kube.http import connection_to
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
from kubectl_instancetype.kube.resources import INSTANCETYPES, Resource
from tests.conftest import write_kubeconfig

CONFIGMAPS = Resource("", "v1", "configmaps", "ConfigMap", namespaced=True)


def _client(kubeconfig) -> Client:
    return Client(load_cluster_config(ConnectionOptions(kubeconfig=str(kubeconfig)), {}, "/nonexistent"), {})


def test_a_large_answer_comes_gzipped_and_is_read_as_sent(control_plane, namespace) -> None:
    with _client(control_plane.kubeconfig()) as client:
        path = f"/api/v1/namespaces/{namespace}/configmaps"
        for index in range(2):  # 2 x 100 kB of data: a list over the server's 128 kB threshold
            client.transport.request("POST", path, {"metadata": {"name": f"big-{index}"}, "data": {"k": "x" * 100_000}})
        tls = client.transport.prepare_tls()
        headers = {"Authorization": f"Bearer {control_plane.tokens['admin']}", "Accept": "application/json"}
        answers = []
        for compression in (True, False):
            connection = connection_to(client.transport.url, None, tls_context=tls, compression=compression)
            try:
                answers.append(connection.request("GET", path, headers))
            finally:
                connection.close()
        gzipped, plain = answers
        assert gzipped.uncompressed and not plain.uncompressed
        assert "content-encoding" not in gzipped.headers and "content-encoding" not in plain.headers
        assert json.loads(gzipped.body) == json.loads(plain.body)
        assert len(gzipped.body) > 200_000
        # and through the plugin's own client: the list as it reads it, inflated as it streams in
        # (kube-controller-manager's root-ca-cert-publisher adds kube-root-ca.crt to a new namespace when it gets to
        # it: the list may come before or after, so only the test's own objects are compared)
        names = [item["metadata"]["name"] for item in client.list_items(CONFIGMAPS, namespace)]
        assert [name for name in names if name.startswith("big-")] == ["big-0", "big-1"]  # one page of 200 kB: gzipped


def test_disable_compression_in_the_kubeconfig_asks_for_nothing_compressed(control_plane, tmp_path) -> None:
    cluster = {"certificate-authority": str(control_plane.ca_file), "disable-compression": True}
    kubeconfig = write_kubeconfig(
        tmp_path, server=control_plane.server, cluster=cluster, user={"token": control_plane.tokens["admin"]}
    )
    with _client(kubeconfig) as client:
        assert list(client.list_items(INSTANCETYPES, "default")) == []
        connection = client.transport.connection
        assert connection is not None and connection.compression is False
    with _client(control_plane.kubeconfig()) as client:
        client.transport.request("GET", "/version")
        assert client.transport.connection is not None and client.transport.connection.compression is True
