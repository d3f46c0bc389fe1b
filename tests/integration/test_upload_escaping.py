"""``upload``: what an upload proxy answers is data, not terminal control. A proxy refusing the image with text that
holds ESC, BEL, C1 CSI and line breaks (a loopback double; CDI's API played by tests/doubles/cdi_upload.py on the
real control plane) ends in one error line with those characters shown escaped, and the volume reported."""

from __future__ import annotations

import re

import pytest

from tests.conftest import UPLOAD_NAMESPACE, fresh_name
from tests.doubles.http_server import ScriptedServer, read_request, respond

pytestmark = pytest.mark.controlplane

CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def test_a_proxys_error_text_is_escaped_on_one_line(cli, control_plane, upload_double, upload_image) -> None:
    body = "no\x1b]0;owned\x07 space\x9b31m\nsecond line\r\n".encode()

    def handler(conn, seen) -> None:
        while request := read_request(conn):
            seen.append(request)
            status = "404 Not Found" if request.startswith(b"HEAD") else "500 Internal Server Error"
            conn.sendall(respond(status, b"" if request.startswith(b"HEAD") else body))

    proxy = ScriptedServer(handler)
    name = fresh_name("escaped")
    try:
        result = cli(
            "upload", "dv", name, "--size", "1Gi", "--image-path", str(upload_image), "-n", UPLOAD_NAMESPACE,
            "--uploadproxy-url", f"http://127.0.0.1:{proxy.port}", "--insecure", "--retry", "1",
        )  # fmt: skip
    finally:
        proxy.close()
    assert result.exit_code == 1
    assert not CONTROL.search(result.stderr), repr(result.stderr)
    error = result.stderr.splitlines()[-1]
    assert "unexpected return value 500, no^[]0;owned\\a space\\u009b31m\\nsecond line" in error, error
    assert f"DataVolume {UPLOAD_NAMESPACE}/{name} was created" in error
