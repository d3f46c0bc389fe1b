"""--request-timeout is one deadline per request (connect, send, every read), and paged lists always end.

The servers are ScriptedServer doubles (tests/doubles) on loopback; each command runs in-process and must end
with exactly one ``error:`` line. Elapsed time is bounded at 10x the deadline: a bound that fails on a hang,
not a measure of speed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from kubectl_instancetype.kube import client as kube_client
from tests.conftest import run_cli, write_kubeconfig
from tests.doubles.http_server import ScriptedServer, read_request, respond, scripted_servers, serve_each, trickle

DEADLINE = 1.0
LIST = ["list", "--scope=cluster"]
VERSION = ["version"]
CREATE = ["create", "vm", "--name", "vm1", "--skip-checks"]
TIMEOUT_HEADERS = "error: Unable to connect to the server: net/http: request canceled (Client.Timeout exceeded while awaiting headers)"
TIMEOUT_BODY = (
    "error: unexpected error when reading response body. Please retry. Original error: net/http: request canceled "
    "(Client.Timeout or context cancellation while reading body)"
)


def kubeconfig(tmp_path: Path, server: str) -> Path:
    return write_kubeconfig(tmp_path, server=server, namespace="ns")


@pytest.fixture
def double():
    with scripted_servers() as start:
        yield start


def run_against(server: ScriptedServer, tmp_path: Path, args: list[str], *extra: str):
    path = kubeconfig(tmp_path, server.url)
    started = time.monotonic()
    result = run_cli([*args, "--kubeconfig", str(path), *extra], environ={"HOME": str(tmp_path)})
    return result, time.monotonic() - started


def last_error_line(result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def slow_headers(conn, seen):
    seen.append(read_request(conn))
    trickle(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")


def slow_body(conn, seen):
    seen.append(read_request(conn))
    body = b'{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}'
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
    trickle(conn, body)


def silent(conn, seen):
    seen.append(read_request(conn))
    time.sleep(30)


@pytest.mark.parametrize("command", [LIST, VERSION, CREATE], ids=["list", "version", "create"])
@pytest.mark.parametrize(
    "handler,message",
    [(slow_headers, TIMEOUT_HEADERS), (slow_body, TIMEOUT_BODY), (silent, TIMEOUT_HEADERS)],
    ids=["trickled-headers", "trickled-body", "silent"],
)
def test_request_timeout_is_a_deadline(double, tmp_path, command, handler, message) -> None:
    server = double(handler)
    result, elapsed = run_against(server, tmp_path, command, "--request-timeout", f"{DEADLINE:g}s")
    assert result.exit_code == 1
    assert last_error_line(result) == message
    assert elapsed < 10 * DEADLINE
    assert len(server.requests) == 1


def pages(token_for):
    """A list double: page ``index`` carries ``token_for(index)`` as its continue token."""

    def answer(request, index):
        body = {"kind": "VirtualMachineClusterInstancetypeList", "apiVersion": "instancetype.kubevirt.io/v1beta1"}
        body["metadata"] = {"continue": token_for(index)}
        body["items"] = []
        return respond("200 OK", json.dumps(body).encode(), {"Content-Type": "application/json"})

    return serve_each(answer, limit=1_000_000)


def test_paging_that_never_ends_stops_at_the_deadline(double, tmp_path) -> None:
    server = double(pages(lambda index: f"token-{index}"))
    result, elapsed = run_against(server, tmp_path, LIST, "--request-timeout", f"{DEADLINE:g}s")
    assert result.exit_code == 1
    assert last_error_line(result) == TIMEOUT_HEADERS
    assert elapsed < 10 * DEADLINE and len(server.requests) > 1


def test_a_repeated_continue_token_is_refused(double, tmp_path) -> None:
    server = double(pages(lambda index: "same"))
    result, _ = run_against(server, tmp_path, LIST)
    assert result.exit_code == 1
    assert last_error_line(result) == (
        "error: the server sent the same continue token twice; stopping the list instead of looping"
    )
    assert len(server.requests) == 2


def test_a_token_seen_pages_ago_is_refused_too(double, tmp_path) -> None:
    server = double(pages(lambda index: f"token-{index % 3}"))
    result, _ = run_against(server, tmp_path, LIST)
    assert last_error_line(result).startswith("error: the server sent the same continue token twice")
    assert len(server.requests) == 4


def test_an_absurd_page_count_is_refused(double, tmp_path, monkeypatch) -> None:
    """The bound is 100,000 pages; the test lowers it so that the double need not serve that many."""
    assert kube_client.MAX_PAGES == 100_000
    monkeypatch.setattr(kube_client, "MAX_PAGES", 40)
    server = double(pages(lambda index: f"token-{index}"))
    result, _ = run_against(server, tmp_path, LIST)
    assert result.exit_code == 1
    assert last_error_line(result) == "error: the server's list did not end after 40 pages; stopping"
    assert len(server.requests) == 40


def test_without_request_timeout_a_slow_answer_is_awaited(double, tmp_path) -> None:
    """kubectl bounds only connecting when no --request-timeout is given: a trickled answer completes."""

    def handler_slow(conn, seen):
        request = read_request(conn)
        seen.append(request)
        if not request.startswith(b"GET /version "):
            # KubeVirt's and CDI's versions: not installed behind this server
            body = b"404 page not found"
            conn.sendall(
                b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(body)
            )
            conn.sendall(body)
            return
        body = b'{"major":"1","minor":"36","gitVersion":"v1.36.3"}'
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
        conn.sendall(body[:-3])
        trickle(conn, body[-3:], interval=0.5)

    server = double(handler_slow)
    result, _ = run_against(server, tmp_path, VERSION)
    assert (result.exit_code, result.stderr) == (0, "")
    assert "Server Version: v1.36.3\n" in result.stdout
