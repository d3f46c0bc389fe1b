"""Listing through an HTTP CONNECT proxy that requires credentials (TunnellingProxy, tests/doubles) against the
real control plane: from the kubeconfig's proxy-url and from HTTPS_PROXY/NO_PROXY."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest

from kubectl_instancetype.kube.client import Client
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.resources import CLUSTER_INSTANCETYPES
from tests.conftest import run_cli
from tests.doubles.proxy import TunnellingProxy

pytestmark = pytest.mark.controlplane

# a password with characters that must be percent-encoded in a URL
USER, PASSWORD = "proxy-user", "p@ss:w/rd"
ENCODED = "proxy-user:p%40ss%3Aw%2Frd"
# a name the control plane's serving certificate holds; only the proxy double resolves it
API_NAME = "kubernetes.default.svc"


@pytest.fixture
def proxy():
    double = TunnellingProxy(credentials=f"{USER}:{PASSWORD}", hosts={API_NAME: "127.0.0.1"})
    yield double
    double.close()


def kubeconfig(tmp_path: Path, control_plane, server: str, proxy_url: str | None = None) -> Path:
    cluster = {"server": server, "certificate-authority": str(control_plane.ca_file)}
    if proxy_url:
        cluster["proxy-url"] = proxy_url
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "p",
                "clusters": [{"name": "c", "cluster": cluster}],
                "users": [{"name": "u", "user": {"token": control_plane.tokens["admin"]}}],
                "contexts": [{"name": "p", "context": {"cluster": "c", "user": "u"}}],
            }
        )
    )
    return path


def list_cluster(path: Path, environ: dict[str, str], *extra: str):
    return run_cli(["list", "--kubeconfig", str(path), "--cpu", "64", "--scope=cluster", *extra], environ=environ)


def test_proxy_url_with_credentials(control_plane, proxy, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane, control_plane.server, f"http://{ENCODED}@127.0.0.1:{proxy.port}")
    result = list_cluster(path, {"HOME": str(tmp_path)}, "-v", "6")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[:2] == ["n1.8xlarge", "cluster"]
    assert proxy.tunnels == [f"127.0.0.1:{control_plane.port}"]
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    assert proxy.authorizations == [expected]
    # the credentials never reach the output, -v 6 included
    assert PASSWORD not in result.stderr and ENCODED not in result.stderr and expected not in result.stderr


def test_proxy_without_the_credentials_it_requires(control_plane, proxy, tmp_path) -> None:
    path = kubeconfig(tmp_path, control_plane, control_plane.server, f"http://127.0.0.1:{proxy.port}")
    result = list_cluster(path, {"HOME": str(tmp_path)})
    # Go's transport reports the proxy's reason phrase; kubectl prints it after its prefix
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "error: Unable to connect to the server: Proxy Authentication Required\n"
    assert proxy.refused == [f"127.0.0.1:{control_plane.port}"] and proxy.tunnels == []


def test_https_proxy_from_the_environment(control_plane, proxy, tmp_path) -> None:
    """A server named by a host name the client never resolves: only the proxy does (as in a corporate network)."""
    path = kubeconfig(tmp_path, control_plane, f"https://{API_NAME}:{control_plane.port}")
    environ = {"HOME": str(tmp_path), "HTTPS_PROXY": f"http://{ENCODED}@127.0.0.1:{proxy.port}", "NO_PROXY": "other"}
    result = list_cluster(path, environ)
    assert result.exit_code == 0, result.stderr
    assert proxy.tunnels == [f"{API_NAME}:{control_plane.port}"]


@pytest.mark.parametrize("no_proxy", [".svc", "kubernetes.default.svc", "KUBERNETES.DEFAULT.SVC", "*"])
def test_no_proxy_exempts_the_server(control_plane, proxy, tmp_path, no_proxy: str) -> None:
    """With NO_PROXY matching, the client dials the server itself: here the name does not resolve, so it fails."""
    path = kubeconfig(tmp_path, control_plane, f"https://{API_NAME}:{control_plane.port}")
    environ = {"HOME": str(tmp_path), "HTTPS_PROXY": f"http://127.0.0.1:{proxy.port}", "NO_PROXY": no_proxy}
    result = list_cluster(path, environ)
    assert result.exit_code == 1 and proxy.tunnels == proxy.refused == []
    assert result.stderr == f"error: Unable to connect to the server: dial tcp: lookup {API_NAME}: no such host\n"


def test_a_streamed_upload_through_the_proxy(control_plane, proxy, tmp_path) -> None:
    """A request body read from a file object goes through the tunnel too (server dry run: nothing is kept)."""
    document = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "proxied-upload"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    data = json.dumps(document).encode()
    config = ClusterConfig(
        server=control_plane.server,
        ca_file=str(control_plane.ca_file),
        token=control_plane.tokens["admin"],
        proxy_url=f"http://{ENCODED}@127.0.0.1:{proxy.port}",
    )
    sent: list[int] = []
    with Client(config, environ={}) as client:
        created = client.transport.request(
            "POST",
            CLUSTER_INSTANCETYPES.path(None, dryRun="All"),
            io.BytesIO(data),
            content_type="application/json",
            content_length=len(data),
            progress=sent.append,
        )
    assert created["metadata"]["name"] == "proxied-upload"
    assert sent[-1] == len(data)
