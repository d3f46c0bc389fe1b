"""Differential: the real kubectl v1.36.3 and the plugin against the same server URL or the same loopback double
(ScriptedServer, TunnellingProxy in tests/doubles) must end with the same message.

kubectl prints connection failures without its ``error:`` prefix; the plugin always prints one, so the
comparison adds it to kubectl's line where kubectl has none.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.doubles.http_server import ScriptedServer, read_request, respond, serve_each, trickle
from tests.doubles.proxy import TunnellingProxy

pytestmark = pytest.mark.differential


@pytest.fixture(scope="module")
def kubectl() -> Path:
    from hack.localcluster import ControlPlaneUnavailable, binaries_dir
    from tests.conftest import go_build_skip_reason

    reason = go_build_skip_reason("kubectl (hack/controlplane/build.sh)")
    if reason:
        pytest.skip(reason)
    try:
        return binaries_dir() / "kubectl"
    except ControlPlaneUnavailable as exc:
        pytest.skip(str(exc))


def kubeconfig(tmp_path: Path, server: str, proxy_url: str | None = None) -> Path:
    cluster = {"server": server, "insecure-skip-tls-verify": True} | ({"proxy-url": proxy_url} if proxy_url else {})
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "clusters": [{"name": "c", "cluster": cluster}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
            }
        )
    )
    return path


def both(kubectl: Path, path: Path, home: Path, server: ScriptedServer | None = None, *extra: str) -> tuple[str, str]:
    """(kubectl's last stderr line with the plugin's prefix rule, the plugin's one stderr line).

    With ``server``, both clients must also have sent it the same number of requests.
    """
    done = subprocess.run(
        [str(kubectl), "--kubeconfig", str(path), "get", "--raw", "/version", *extra],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    theirs = done.stderr.strip().splitlines()[-1]
    if not theirs.startswith(("error: ", "Error from server")):
        theirs = "error: " + theirs
    sent_by_kubectl = len(server.requests) if server else 0
    result = run_cli(["version", "--kubeconfig", str(path), *extra], environ={"HOME": str(home)})
    ours = result.stderr.splitlines()
    assert done.returncode == result.exit_code == 1
    assert len(ours) == 1, result.stderr
    if server is not None:
        assert len(server.requests) - sent_by_kubectl == sent_by_kubectl
    return theirs, ours[0]


@pytest.mark.parametrize(
    "server",
    [
        "https://127.0.0.1:99999",
        "https://[::1",
        "https://[::1]:99999",
        "https://127.0.0.1:abc",
        "http://[::1]:namedport",
        "https://host:-1",
        "https://",
        "https://a b",
        "ftp://x",
        "https://127.0.0.1:6443/%zz",
    ],
)
def test_invalid_server_urls(kubectl, tmp_path, server: str) -> None:
    theirs, ours = both(kubectl, kubeconfig(tmp_path, server), tmp_path)
    assert ours == theirs


ANSWERS = {
    "429-text": respond("429 Too Many Requests", b"slow", {"Retry-After": "0", "Content-Type": "text/plain"}),
    "429-status": respond(
        "429 Too Many Requests",
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, '
        b'please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}',
        {"Retry-After": "0", "Content-Type": "application/json"},
    ),
    "503": respond("503 Service Unavailable", b"down", {"Content-Type": "text/plain"}),
    "500": respond("500 Internal Server Error", b"boom", {"Content-Type": "text/plain"}),
    "504": respond("504 Gateway Timeout", b"", {"Content-Type": "text/plain"}),
    "404": respond("404 Not Found", b"404 page not found", {"Content-Type": "text/plain"}),
    "redirect-loop": respond("302 Found", b"", {"Location": "/version"}),
    "not-http": b"SSH-2.0-OpenSSH_9.6\r\n",
}


@pytest.mark.parametrize("answer", list(ANSWERS), ids=list(ANSWERS))
def test_server_answers(kubectl, tmp_path, answer: str) -> None:
    server = ScriptedServer(serve_each(lambda request, index: ANSWERS[answer]))
    try:
        theirs, ours = both(kubectl, kubeconfig(tmp_path, server.url), tmp_path, server)
    finally:
        server.close()
    assert ours == theirs


def test_a_proxy_that_requires_credentials(kubectl, tmp_path) -> None:
    proxy = TunnellingProxy(credentials="u:p")
    try:
        path = kubeconfig(tmp_path, "https://127.0.0.1:6443", f"http://127.0.0.1:{proxy.port}")
        theirs, ours = both(kubectl, path, tmp_path)
    finally:
        proxy.close()
    assert ours == theirs == "error: Unable to connect to the server: Proxy Authentication Required"


def test_a_server_that_trickles_its_headers_past_the_request_timeout(kubectl, tmp_path) -> None:
    def handler(conn, seen):
        seen.append(read_request(conn))
        trickle(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", limit=10)

    server = ScriptedServer(handler)
    try:
        theirs, ours = both(kubectl, kubeconfig(tmp_path, server.url), tmp_path, server, "--request-timeout", "1s")
    finally:
        server.close()
    # Where Go's client notices the deadline depends on scheduling: on a busy machine kubectl itself reports the
    # context's deadline instead of the client timeout. Both clients must give one of Go's sentences, and ours
    # the client timeout's, which is what kubectl prints on an idle machine.
    client_timeout = (
        "error: Unable to connect to the server: net/http: request canceled "
        "(Client.Timeout exceeded while awaiting headers)"
    )
    kubectl_variants = {
        client_timeout,
        "error: Unable to connect to the server: context deadline exceeded",
        "error: Unable to connect to the server: context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
    }
    assert theirs in kubectl_variants
    assert ours == client_timeout
