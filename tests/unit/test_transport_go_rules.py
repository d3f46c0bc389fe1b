"""Go's own rules, table-driven: proxies (golang.org/x/net/http/httpproxy's test vectors, read from the
module), server URLs (client-go's DefaultServerURL, messages checked against kubectl v1.36.3), header values."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.errors import ConfigurationError, PluginError, TransportError
from kubectl_instancetype.golang.duration import duration_string
from kubectl_instancetype.golang.httpproxy import NoProxy
from kubectl_instancetype.golang.neturl import parse_url
from kubectl_instancetype.kube.http import InvalidHeader, check_header, proxy_authorization, proxy_for
from kubectl_instancetype.kube.kubeconfig import ClusterConfig
from kubectl_instancetype.kube.transport import Transport, parse_server_url

X_NET = "golang.org/x/net@v0.49.0"


@pytest.fixture(scope="module")
def httpproxy_tests() -> str:
    """proxy_test.go of golang.org/x/net/http/httpproxy, from the Go module cache (downloaded if needed)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    try:
        done = subprocess.run(
            ["go", "mod", "download", "-json", X_NET], capture_output=True, text=True, timeout=300, check=True
        )
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.skip(f"go mod download {X_NET} failed: {exc}")
    return (Path(json.loads(done.stdout)["Dir"]) / "http" / "httpproxy" / "proxy_test.go").read_text()


def go_string(literal: str) -> str:
    """A Go interpreted string literal (the vectors use only plain text and \\" escapes)."""
    return json.loads(literal)


def proxy_for_url_vectors(source: str) -> list[dict]:
    table = source.split("var proxyForURLTests = []proxyForURLTest{{", 1)[1].split("\n}\n", 1)[0]
    vectors = []
    for entry in re.split(r"\n\}, \{", table):
        fields = {name: go_string(value) for name, value in re.findall(r'(\w+):\s*("(?:[^"\\]|\\.)*")', entry)}
        wanterr = re.search(r'wanterr:\s*errors\.New\(("(?:[^"\\]|\\.)*")\)', entry)
        vectors.append(
            {
                "http": fields.get("HTTPProxy", ""),
                "https": fields.get("HTTPSProxy", ""),
                "no": fields.get("NoProxy", ""),
                "cgi": bool(re.search(r"CGI:\s*true", entry)),
                "req": fields.get("req") or "http://example.com",
                "want": fields["want"],
                "wanterr": go_string(wanterr.group(1)) if wanterr else None,
            }
        )
    return vectors


def test_proxy_for_url_vectors(httpproxy_tests: str) -> None:
    vectors = proxy_for_url_vectors(httpproxy_tests)
    assert len(vectors) >= 25  # the table was read, not skipped
    for vector in vectors:
        environ = {"HTTP_PROXY": vector["http"], "HTTPS_PROXY": vector["https"], "NO_PROXY": vector["no"]}
        if vector["cgi"]:
            environ["REQUEST_METHOD"] = "GET"
        url = parse_url(vector["req"])
        try:
            proxy = proxy_for(url, None, environ)
        except TransportError as exc:
            assert (exc.message, vector["want"]) == (vector["wanterr"], "<nil>"), vector
            continue
        assert vector["wanterr"] is None, vector
        assert ("<nil>" if proxy is None else proxy.without_userinfo()) == vector["want"], vector


def use_proxy_vectors(source: str) -> tuple[str, list[tuple[str, bool]]]:
    no_proxy = go_string(re.search(r'var noProxy = ("(?:[^"\\]|\\.)*")', source).group(1))
    table = source.split("var UseProxyTests = []struct {", 1)[1].split("\n}\n", 1)[0]
    cases = [(go_string(host), match == "true") for host, match in re.findall(r'\{("[^"]*"), (true|false)\}', table)]
    return no_proxy, cases


def test_use_proxy_vectors(httpproxy_tests: str) -> None:
    no_proxy, cases = use_proxy_vectors(httpproxy_tests)
    assert len(cases) >= 25
    matchers, everything = NoProxy(no_proxy), NoProxy("*")
    for host, match in cases:
        bare = host[1:-1] if host.startswith("[") else host
        assert matchers.use_proxy(bare, "80") is match, host
        assert everything.use_proxy(bare, "80") is False, host  # TestAllNoProxy


def test_invalid_no_proxy_entry_is_ignored(httpproxy_tests: str) -> None:
    assert 'NoProxy: ":1"' in httpproxy_tests  # TestInvalidNoProxy
    assert NoProxy(":1").use_proxy("example.com", "80") is True


@pytest.mark.parametrize(
    "no_proxy,host,port,use",
    [
        ("EXAMPLE.com", "api.example.com", "443", False),  # case-insensitive
        ("example.com:6443", "api.example.com", "6443", False),  # host:port matches that port only
        ("example.com:6443", "api.example.com", "443", True),
        ("10.0.0.0/8", "10.1.2.3", "6443", False),
        ("10.0.0.0/8", "11.1.2.3", "6443", True),
        ("10.0.0.0/8", "::ffff:10.1.2.3", "6443", False),  # an IPv4-mapped address is its IPv4 address
        ("", "::ffff:127.0.0.1", "6443", False),  # loopback, never proxied
        ("", "127.5.6.7", "6443", False),
    ],
)
def test_no_proxy_beyond_the_vectors(no_proxy: str, host: str, port: str, use: bool) -> None:
    assert NoProxy(no_proxy).use_proxy(host, port) is use


def test_scheme_picks_the_proxy_variable() -> None:
    environ = {"HTTP_PROXY": "http://plain:1", "https_proxy": "http://secure:2"}
    assert proxy_for(parse_url("https://api.example:6443"), None, environ).without_userinfo() == "http://secure:2"
    assert proxy_for(parse_url("http://api.example:8080"), None, environ).without_userinfo() == "http://plain:1"


def test_proxy_credentials_are_percent_decoded_and_never_shown() -> None:
    proxy = parse_url("http://us%3Aer:p%40ss:w@proxy:3128")
    assert proxy_authorization(proxy) == "Basic dXM6ZXI6cEBzczp3"  # base64("us:er:p@ss:w")
    assert proxy.redacted() == "http://us%3Aer:xxxxx@proxy:3128"
    assert proxy_authorization(parse_url("http://proxy:3128")) is None


@pytest.mark.parametrize(
    "server,rendered",
    [
        # each message checked against kubectl v1.36.3 with a kubeconfig holding that server
        ("https://127.0.0.1:99999", "error: Unable to connect to the server: dial tcp: address 99999: invalid port"),
        ("https://[::1]:65536", "error: Unable to connect to the server: dial tcp: address 65536: invalid port"),
        ("https://[::1", 'error: host must be a URL or a host:port pair: "https://[::1"'),
        ("https://127.0.0.1:abc", 'error: host must be a URL or a host:port pair: "https://127.0.0.1:abc"'),
        ("http://[::1]:namedport", 'error: host must be a URL or a host:port pair: "http://[::1]:namedport"'),
        ("https://host:-1", 'error: host must be a URL or a host:port pair: "https://host:-1"'),
        ("https://", 'error: host must be a URL or a host:port pair: "https://"'),
        ("https://a b", 'error: host must be a URL or a host:port pair: "https://a b"'),
        ("ftp://x", 'error: Unable to connect to the server: unsupported protocol scheme "ftp"'),
        ("https://127.0.0.1:6443/%zz", 'error: Unable to connect to the server: invalid URL escape "%zz"'),
    ],
)
def test_invalid_server_urls_are_refused_before_connecting(server: str, rendered: str) -> None:
    with pytest.raises(PluginError) as caught:
        Transport(ClusterConfig(server=server), environ={})
    assert caught.value.render() == rendered
    assert isinstance(caught.value, (ConfigurationError, TransportError))


@pytest.mark.parametrize(
    "server,parts",
    [
        ("127.0.0.1:6443", ("https", "127.0.0.1", "6443", "")),  # no scheme: https, as client-go with TLS
        ("localhost:6443", ("https", "localhost", "6443", "")),
        ("HTTPS://api.example:6443?x=1#frag", ("https", "api.example", "6443", "")),
        ("https://host:", ("https", "host", "", "")),
        ("https://user:pw@[::1]:6443/prefix/", ("https", "::1", "6443", "/prefix/")),
    ],
)
def test_server_urls_kubectl_accepts(server: str, parts: tuple) -> None:
    url = parse_server_url(server)
    assert (url.scheme, url.host, url.port, url.path) == parts


@pytest.mark.parametrize("value", ["Bearer a\r\nX-Evil: 1", "Bearer a\nb", "Bearer a\x00b", "Bearer \x7f", "a\rb"])
def test_header_values_with_controls_are_refused(value: str) -> None:
    with pytest.raises(InvalidHeader) as caught:
        check_header("Authorization", value)
    assert str(caught.value) == 'net/http: invalid header field value for "Authorization"'
    assert value not in str(caught.value)


def test_tab_is_a_valid_header_value_and_names_must_be_tokens() -> None:
    check_header("X-Note", "a\tb")
    with pytest.raises(InvalidHeader, match="invalid header field name"):
        check_header("X Bad", "v")


@pytest.mark.parametrize("seconds,text", [(0, "0s"), (1, "1s"), (59, "59s"), (60, "1m0s"), (3725, "1h2m5s")])
def test_retry_after_delays_print_as_go_durations(seconds: int, text: str) -> None:
    assert duration_string(seconds * 1_000_000_000) == text
