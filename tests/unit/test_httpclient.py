"""kube/httpclient.py, the one request layer (the registry client and the upload proxy send through it), against the
loopback HTTP double tests/doubles/http_server.py: Go's http.Client redirects (count, relative Location, method
change, credentials across hosts, Referer), proxies from the environment, bounded bodies and the deadline."""

from __future__ import annotations

import socket
import time

import pytest

from kubectl_instancetype.golang.nethttp import MAX_REDIRECTS
from kubectl_instancetype.kube.httpclient import HTTPClient, RequestError
from tests.doubles.http_server import ScriptedServer, read_request, respond, serve_each


def _head(request: bytes) -> tuple[str, str, dict[str, str], bytes]:
    """(method, target, lower-cased headers, body) of a request the double saw."""
    head, _, body = request.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return method, target, headers, body


@pytest.fixture
def server():
    doubles: list[ScriptedServer] = []

    def make(answer) -> ScriptedServer:
        double = ScriptedServer(serve_each(answer))
        doubles.append(double)
        return double

    yield make
    for double in doubles:
        double.close()


def _client(**options) -> HTTPClient:
    return HTTPClient({}, timeout=10.0, **options)


def test_a_redirect_loop_stops_after_ten_requests_as_go_does(server) -> None:
    double = server(lambda request, index: respond("302 Found", headers={"Location": "/loop"}))
    with _client() as client, pytest.raises(RequestError) as failure:
        client.request("GET", f"{double.url}/start", {})
    # defaultCheckRedirect refuses the 11th: the first request and 9 redirects were sent; url.Error names the Location
    assert len(double.requests) == MAX_REDIRECTS == 10
    assert str(failure.value) == 'Get "/loop": stopped after 10 redirects'
    assert failure.value.last == f"{double.url}/loop"


def test_nine_redirects_are_followed(server) -> None:
    def answer(request, index):
        return (
            respond("200 OK", b"done") if index == 9 else respond("307 Temporary Redirect", headers={"Location": "x"})
        )

    double = server(answer)
    with _client() as client:
        answer_ = client.request("GET", f"{double.url}/a/b", {})
    assert (answer_.response.status, answer_.response.body, len(double.requests)) == (200, b"done", 10)


# (path of the first request, Location, the request target of the next one): RFC 3986 reference resolution, as
# url.URL.ResolveReference does it (a naive join gets the ../, ./, ?query-only and //authority rows wrong)
RELATIVE_LOCATIONS = [
    ("/v2/r/manifests/t", "/v2/r/blobs/x", "/v2/r/blobs/x"),
    ("/a/b/c", "d", "/a/b/d"),
    ("/a/b/c", "../d?x=1", "/a/d?x=1"),
    ("/a/b/c", "../../../../d", "/d"),
    ("/a/b/c", "./", "/a/b/"),
    ("/a/b/c", ".", "/a/b/"),
    ("/a/b/c?q=1", "?y=2", "/a/b/c?y=2"),
    ("/a/b/c?q=1", "#frag", "/a/b/c?q=1"),
    ("/a/b/c", "x/./y/../z", "/a/b/x/z"),
    ("/a/b/c", "/x%2Fy/../z", "/z"),
    ("/a/b/c", "//127.0.0.1:{port}/far/away", "/far/away"),
]


@pytest.mark.parametrize(("first", "location", "expected"), RELATIVE_LOCATIONS)
def test_a_relative_location_is_resolved_against_the_url_that_answered(server, first, location, expected) -> None:
    def answer(request, index):
        if index == 0:
            return respond("302 Found", headers={"Location": location.format(port=double.port)})
        return respond("200 OK", b"there")

    double = server(answer)
    with _client() as client:
        answer_ = client.request("GET", double.url + first, {})
    assert _head(double.requests[1])[1] == expected
    assert answer_.url.request_uri == expected


# (method, status, the next request's method, whether the body and its Content-Type go along): redirectBehavior
METHOD_CHANGES = [
    ("POST", 301, "GET", False),
    ("POST", 302, "GET", False),
    ("POST", 303, "GET", False),
    ("PUT", 303, "GET", False),
    ("HEAD", 301, "HEAD", False),
    ("GET", 303, "GET", False),
    ("POST", 307, "POST", True),
    ("PUT", 308, "PUT", True),
]


@pytest.mark.parametrize(("method", "status", "next_method", "with_body"), METHOD_CHANGES)
def test_the_method_and_body_on_a_redirect_are_go_s(server, method, status, next_method, with_body) -> None:
    def answer(request, index):
        if index == 0:
            return respond(f"{status} Moved", headers={"Location": "/next"})
        return respond("200 OK")

    double = server(answer)
    body = b'{"a":1}' if method in ("POST", "PUT") else None
    with _client() as client:
        client.request(method, f"{double.url}/first", {"Content-Type": "application/json"}, body)
    got_method, target, headers, got_body = _head(double.requests[1])
    assert (got_method, target) == (next_method, "/next")
    if with_body:
        assert (got_body, headers.get("content-type")) == (body, "application/json")
    else:
        assert got_body == b""
        assert "content-type" not in headers  # the body's headers go with the body (makeHeadersCopier)
        assert headers.get("content-length", "0") == "0"


def test_a_307_with_a_body_that_cannot_be_sent_again_is_the_answer(server) -> None:
    double = server(lambda request, index: respond("307 Temporary Redirect", headers={"Location": "/again"}))
    with _client() as client:
        answer = client.request("POST", f"{double.url}/upload", {}, iter([b"ab", b"cd"]), content_length=4)
    # Go: GetBody is nil for a stream, so the 307 itself is returned (virtctl's upload then reports it)
    assert (answer.response.status, len(double.requests)) == (307, 1)


def test_a_3xx_without_location_is_the_answer(server) -> None:
    double = server(lambda request, index: respond("300 Multiple Choices", b"pick"))
    with _client() as client:
        answer = client.request("GET", f"{double.url}/x", {})
    assert (answer.response.status, len(double.requests)) == (300, 1)


def _two_hosts(server, first_host: str, second_host: str, back: bool = False):
    """A double that redirects to another double (named ``second_host``), which may redirect back."""

    def far_answer(request, index):
        if back and index == 0:
            return respond("302 Found", headers={"Location": f"http://{first_host}:{near.port}/back"})
        return respond("200 OK")

    far = server(far_answer)

    def near_answer(request, index):
        if index == 0:
            return respond("302 Found", headers={"Location": f"http://{second_host}:{far.port}/there"})
        return respond("200 OK")

    near = server(near_answer)
    return near, far


# (host of the first request, host redirected to, credentials sent on the second request): shouldCopyHeaderOnRedirect
# compares host names (the port does not count), a subdomain keeps them
CROSS_HOST = [
    ("127.0.0.1", "127.0.0.1", True),
    ("localhost", "127.0.0.1", False),
    ("127.0.0.1", "localhost", False),
]


@pytest.mark.parametrize(("first_host", "second_host", "kept"), CROSS_HOST)
def test_credentials_are_dropped_on_a_redirect_to_another_host(server, first_host, second_host, kept) -> None:
    near, far = _two_hosts(server, first_host, second_host)
    sensitive = {"Authorization": "Bearer secret", "Cookie": "c=1", "Proxy-Authorization": "Basic x"}
    with _client() as client:
        client.request("GET", f"http://{first_host}:{near.port}/here", {"Accept": "a/b", **sensitive})
    _, _, headers, _ = _head(far.requests[0])
    assert headers["accept"] == "a/b"
    assert headers["referer"] == f"http://{first_host}:{near.port}/here"
    for name in sensitive:
        assert (name.lower() in headers) is kept


def test_credentials_once_dropped_stay_dropped_on_the_way_back(server) -> None:
    near, _ = _two_hosts(server, "localhost", "127.0.0.1", back=True)
    with _client() as client:
        client.request("GET", f"http://localhost:{near.port}/here", {"Authorization": "Bearer secret"})
    assert _head(near.requests[1])[1] == "/back"
    assert "authorization" not in _head(near.requests[1])[2]  # Go 1.24+: stripSensitiveHeaders is sticky


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://[::1", 'failed to parse Location header "http://[::1": parse "http://[::1": missing \']\' in host'),
        ("ftp://files.example/x", 'unsupported protocol scheme "ftp"'),
    ],
)
def test_a_location_go_refuses_is_an_error(server, location, reason) -> None:
    double = server(lambda request, index: respond("301 Moved Permanently", headers={"Location": location}))
    with _client() as client, pytest.raises(RequestError) as failure:
        client.request("GET", f"{double.url}/x", {})
    assert failure.value.reason == reason


def test_requests_go_through_the_proxy_the_environment_names(server) -> None:
    """HTTP_PROXY (golang/httpproxy's rules): a plain-http request is sent in absolute form to the proxy, with the
    proxy URL's userinfo as Proxy-Authorization; redirects go through it too. Loopback is never proxied."""

    def proxy_answer(request, index):
        if index == 0:
            return respond("302 Found", headers={"Location": "/moved?x=1"})
        return respond("200 OK", b"via proxy")

    proxy = server(proxy_answer)
    environ = {"HTTP_PROXY": f"http://user:p%40ss@127.0.0.1:{proxy.port}"}
    with HTTPClient(environ, timeout=10.0) as client:
        answer = client.request("GET", "http://registry.example:5000/v2/", {})
    assert answer.response.body == b"via proxy"
    first, second = (_head(request) for request in proxy.requests)
    assert (first[0], first[1], first[2]["host"]) == (
        "GET",
        "http://registry.example:5000/v2/",
        "registry.example:5000",
    )
    assert first[2]["proxy-authorization"] == "Basic dXNlcjpwQHNz"  # base64("user:p@ss")
    assert second[1] == "http://registry.example:5000/moved?x=1"

    direct = server(lambda request, index: respond("200 OK", b"direct"))
    with HTTPClient(environ, timeout=10.0) as client:
        assert client.request("GET", f"{direct.url}/", {}).response.body == b"direct"
    assert len(proxy.requests) == 2


def test_a_proxy_scheme_the_client_does_not_speak_is_refused() -> None:
    from kubectl_instancetype.errors import ConfigurationError

    with HTTPClient({"HTTP_PROXY": "socks5://127.0.0.1:1080"}) as client, pytest.raises(ConfigurationError) as failure:
        client.request("GET", "http://registry.example/", {})
    assert (
        failure.value.message == 'proxy scheme "socks5" is not supported (http:// proxies are): socks5://127.0.0.1:1080'
    )


# (how the body is framed, the answer): each is cut off at the bound given for the request
LARGE = [
    ("content-length", lambda size: respond("200 OK", b"x" * size)),
    ("chunked", lambda size: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % size + b"x" * size),
    ("until close", lambda size: b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * size),
]


@pytest.mark.parametrize(("framing", "make"), LARGE, ids=[row[0] for row in LARGE])
def test_a_body_past_the_bound_is_refused(framing, make) -> None:
    def handler(conn: socket.socket, seen: list[bytes]) -> None:
        seen.append(read_request(conn))
        conn.sendall(make(4097))

    double = ScriptedServer(handler)
    try:
        with _client() as client, pytest.raises(RequestError) as failure:
            client.request("GET", f"{double.url}/big", {}, max_body=4096)
    finally:
        double.close()
    assert failure.value.reason == "the response body is larger than 4 KiB, more than this client reads"


def test_a_body_within_the_bound_is_read() -> None:
    double = ScriptedServer(serve_each(lambda request, index: respond("200 OK", b"x" * 4096)))
    try:
        with _client() as client:
            assert len(client.request("GET", f"{double.url}/", {}, max_body=4096).response.body) == 4096
    finally:
        double.close()


def test_one_deadline_covers_the_redirects() -> None:
    """http.Client.Timeout: the redirects share the request's deadline; a chain that outlives it ends there."""

    def answer(request, index):
        time.sleep(0.2)
        return respond("302 Found", headers={"Location": f"/hop{index}"})

    double = ScriptedServer(serve_each(answer))
    try:
        with HTTPClient({}, timeout=10.0, deadline=time.monotonic() + 0.5) as client, pytest.raises(RequestError) as e:
            client.request("GET", f"{double.url}/", {})
    finally:
        double.close()
    assert (e.value.deadline, e.value.timed_out) == (True, True)
    assert len(double.requests) < MAX_REDIRECTS


def test_a_kept_alive_connection_serves_the_next_request() -> None:
    double = ScriptedServer(serve_each(lambda request, index: respond("200 OK", b"ok")))
    try:
        with _client() as client:
            for _ in range(3):
                client.request("GET", f"{double.url}/", {})
        assert (double.connections, len(double.requests)) == (1, 3)
        with _client(keep_alive=False) as client:
            for _ in range(2):
                client.request("GET", f"{double.url}/", {})
        assert double.connections == 3
    finally:
        double.close()
