"""``upload`` against hostile upload proxies (loopback doubles) and bad proxy URLs, on the real control plane with
CDI's real cdi-apiserver (tokens, webhooks) and tests/doubles/cdi_upload.py's controller: a URL that cannot be used
is refused before anything is created; a password in it never printed; a proxy that trickles is cut off by
--wait-secs; a proxy whose answer never ends is cut at the bound; every failure once the volume exists says what
exists; a FIFO is no image."""

from __future__ import annotations

import os
import time

import pytest

from tests.conftest import UPLOAD_NAMESPACE, api_exists, fresh_name
from tests.doubles.hostile_registry import endless, trickling
from tests.doubles.http_server import ScriptedServer, read_request

pytestmark = pytest.mark.controlplane


def dv_path(name: str) -> str:
    return f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/datavolumes/{name}"


def run(cli, name: str, upload_image, url: str, *extra: str):
    return cli(
        "upload", "dv", name, "--size", "1Gi", "--image-path", str(upload_image), "-n", UPLOAD_NAMESPACE,
        "--uploadproxy-url", url, "--insecure", *extra,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://x", 'error: Post "ftp://x/v1beta1/upload": unsupported protocol scheme "ftp"'),
        ("https://[::1", "error: parse \"https://[::1\": missing ']' in host"),
        ("https://user:pw-secret@[::1", "error: parse \"https://user:xxxxx@[::1\": missing ']' in host"),
    ],
)
def test_a_bad_proxy_url_is_refused_before_anything_is_created(
    cli, control_plane, upload_double, upload_image, url, message
):
    name = fresh_name("badurl")
    result = run(cli, name, upload_image, url)
    assert (result.exit_code, result.stderr) == (1, message + "\n")
    assert "pw-secret" not in result.stdout + result.stderr
    assert not api_exists(control_plane, dv_path(name))


def serve(answer):
    def handler(conn, seen):
        request = read_request(conn)
        seen.append(request)
        if request.startswith(b"HEAD"):
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            request = read_request(conn)
            seen.append(request)
        answer(conn)

    return ScriptedServer(handler)


def test_a_trickling_proxy_is_cut_off_by_wait_secs_and_the_password_is_redacted(
    cli, control_plane, upload_double, upload_image
):
    proxy = serve(trickling(limit=30))
    name = fresh_name("trickle")
    try:
        started = time.monotonic()
        url = f"http://user:pw-secret@127.0.0.1:{proxy.port}"
        result = run(cli, name, upload_image, url, "--wait-secs", "2", "--retry", "1")
        assert time.monotonic() - started < 25
    finally:
        proxy.close()
    assert result.exit_code == 1
    assert "pw-secret" not in result.stdout + result.stderr
    assert f"Uploading data to http://user:xxxxx@127.0.0.1:{proxy.port}" in result.stdout
    error = result.stderr.strip().splitlines()[-1]
    assert "no answer from the upload proxy within 2s (--wait-secs)" in error
    assert f"DataVolume {UPLOAD_NAMESPACE}/{name} was created" in error


def test_an_endless_proxy_answer_is_cut_and_the_volume_reported(cli, control_plane, upload_double, upload_image):
    proxy = serve(endless(limit=20))
    name = fresh_name("endless")
    try:
        result = run(cli, name, upload_image, f"http://127.0.0.1:{proxy.port}", "--retry", "1")
    finally:
        proxy.close()
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert "the response body is larger than 1 MiB, more than this client reads" in error
    assert f"DataVolume {UPLOAD_NAMESPACE}/{name} was created" in error and "resume with" in error


def test_a_fifo_is_refused_as_an_image_without_waiting(cli, control_plane, upload_double, tmp_path):
    fifo = tmp_path / "disk.fifo"
    os.mkfifo(fifo)
    name = fresh_name("fifo")
    started = time.monotonic()
    result = run(cli, name, fifo, "https://127.0.0.1:1")
    assert time.monotonic() - started < 10
    assert (result.exit_code, result.stderr) == (
        1,
        f"error: {fifo}: not a regular file (a FIFO, device or socket has no size to upload)\n",
    )
    assert not api_exists(control_plane, dv_path(name))


HUGE_PORT = "9" * 5000  # more digits than Python's int() reads (4300): no "Exceeds the limit" may reach the user


@pytest.mark.parametrize("port", ["99999", HUGE_PORT])
def test_an_https_proxy_port_out_of_range_is_go_dialers_invalid_port_and_the_volume_reported(
    cli, control_plane, upload_double, upload_image, port
):
    # a proxy applies to a host that is not loopback (Go's httpproxy): the upload proxy's name need not resolve,
    # the dial through HTTPS_PROXY fails before any lookup. virtctl creates the volume first and fails at the POST
    # ("proxyconnect tcp: dial tcp: address P: invalid port"), so the one line says what exists.
    name = fresh_name("proxyport")
    environ = {"HTTPS_PROXY": f"http://u:proxy-secret@127.0.0.1:{port}"}
    result = cli(
        "upload", "dv", name, "--size", "1Gi", "--image-path", str(upload_image), "-n", UPLOAD_NAMESPACE,
        "--uploadproxy-url", "https://cdi-uploadproxy.example.invalid", "--insecure", "--retry", "1",
        extra_env=environ,
    )  # fmt: skip
    resume = f"kubectl instancetype upload dv {name} -n {UPLOAD_NAMESPACE} --no-create --image-path {upload_image}"
    assert (result.exit_code, result.stderr) == (
        1,
        'error: error uploading image after 1 retries: Post "https://cdi-uploadproxy.example.invalid/v1beta1/upload": '
        f"proxyconnect tcp: dial tcp: address {port}: invalid port; DataVolume {UPLOAD_NAMESPACE}/{name} was "
        "created; the upload did not complete (1 attempt failed); "
        f"resume with `{resume}` or remove it with `kubectl delete dv {name} -n {UPLOAD_NAMESPACE}`\n",
    )
    assert "proxy-secret" not in result.stdout + result.stderr
    assert api_exists(control_plane, dv_path(name))
