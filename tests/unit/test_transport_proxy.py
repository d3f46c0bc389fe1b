"""Proxies on the wire: CONNECT with Basic credentials (TunnellingProxy double), absolute-form requests for
http:// servers through HTTP_PROXY (ScriptedServer as a forward proxy), and the proxy's failures."""

from __future__ import annotations

import base64

import pytest

from kubectl_instancetype.errors import PluginError
from kubectl_instancetype.golang.neturl import parse_url
from kubectl_instancetype.kube.http import Connection, proxy_authorization
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import Transport
from tests.doubles.http_server import ScriptedServer, respond, serve_each
from tests.doubles.proxy import TunnellingProxy

OK = respond("200 OK", b"{}", {"Content-Type": "application/json"})
BASIC = "Basic " + base64.b64encode(b"u:p@ss").decode()


@pytest.fixture
def upstream():
    server = ScriptedServer(serve_each(lambda request, index: OK))
    yield server
    server.close()


@pytest.fixture
def proxy():
    double = TunnellingProxy(credentials="u:p@ss")
    yield double
    double.close()


def test_connect_carries_the_percent_decoded_credentials(upstream, proxy) -> None:
    authorization = proxy_authorization(parse_url(f"http://u:p%40ss@127.0.0.1:{proxy.port}"))
    connection = Connection(
        "127.0.0.1", proxy.port, tunnel=("127.0.0.1", upstream.port), proxy_authorization=authorization
    )
    assert connection.request("GET", "/x", {}).status == 200
    assert connection.request("GET", "/y", {}).status == 200  # one tunnel, kept alive
    assert proxy.authorizations == [BASIC] and proxy.tunnels == [f"127.0.0.1:{upstream.port}"]
    # the credentials go to the proxy only, never through the tunnel to the server
    assert all(b"Proxy-Authorization" not in request for request in upstream.requests)


def test_a_proxy_that_wants_credentials_we_do_not_have(proxy) -> None:
    config = ClusterConfig(server="https://127.0.0.1:6443", proxy_url=f"http://127.0.0.1:{proxy.port}")
    with pytest.raises(PluginError) as caught:
        Transport(config, environ={}).request("GET", "/version")
    assert caught.value.render() == "error: Unable to connect to the server: Proxy Authentication Required"


def test_wrong_credentials_are_refused_the_same_way(proxy) -> None:
    config = ClusterConfig(server="https://127.0.0.1:6443", proxy_url=f"http://u:wrong@127.0.0.1:{proxy.port}")
    with pytest.raises(PluginError, match="Proxy Authentication Required"):
        Transport(config, environ={}).request("GET", "/version")
    assert proxy.authorizations == ["Basic " + base64.b64encode(b"u:wrong").decode()]


def test_http_server_through_http_proxy_uses_absolute_form() -> None:
    """Go sends ``GET http://host/path`` to the proxy for an http:// server, with Proxy-Authorization each time."""
    forward = ScriptedServer(serve_each(lambda request, index: OK))
    try:
        environ = {"HTTP_PROXY": f"http://u:p%40ss@127.0.0.1:{forward.port}", "HTTPS_PROXY": "http://unused:1"}
        transport = Transport(ClusterConfig(server="http://api.example:8080/prefix", token="t"), environ=environ)
        assert transport.request("GET", "/version") == {}
        assert transport.request("GET", "/api") == {}
    finally:
        forward.close()
    first, second = forward.requests
    assert first.startswith(b"GET http://api.example:8080/prefix/version HTTP/1.1\r\nHost: api.example:8080\r\n")
    assert second.startswith(b"GET http://api.example:8080/prefix/api HTTP/1.1\r\n")
    assert all(f"Proxy-Authorization: {BASIC}\r\n".encode() in request for request in (first, second))


def test_a_proxy_that_is_down_names_the_api_server_as_kubectl_does() -> None:
    from hack.localcluster.controlplane import free_port

    config = ClusterConfig(server="https://10.9.8.7:6443", proxy_url=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(PluginError) as caught:
        Transport(config, environ={}).request("GET", "/version")
    assert caught.value.render() == (
        "error: The connection to the server 10.9.8.7:6443 was refused - did you specify the right host or port?"
    )


def test_only_http_proxies_are_supported_and_the_password_is_not_shown() -> None:
    config = ClusterConfig(server="https://10.9.8.7:6443", proxy_url="socks5://u:secret@127.0.0.1:1080")
    with pytest.raises(PluginError) as caught:
        Transport(config, environ={}).request("GET", "/version")
    assert caught.value.render() == (
        'error: proxy scheme "socks5" is not supported (http:// proxies are): socks5://u:xxxxx@127.0.0.1:1080'
    )
    assert "secret" not in caught.value.render()


def test_a_deadline_does_not_linger_on_a_kept_alive_connection(upstream) -> None:
    import time

    connection = Connection("127.0.0.1", upstream.port)
    connection.request("GET", "/a", {}, deadline=time.monotonic() + 5)
    assert 0 < (connection.socket_timeout or 0) <= 5
    connection.request("GET", "/b", {})
    assert connection.socket_timeout is None
