"""``list -w`` against a loopback watch double: the rows of the list and of each event, --request-timeout ending an
unbounded stream with exit 0, bounded event lines, ERROR events, escaping, and the one-scope rule."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from kubectl_instancetype.kube import transport
from tests.conftest import run_cli
from tests.doubles.watch_server import chunk, serve


def instancetype(name: str, cpu: int = 1) -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": "1Gi"}},
    }


def kubeconfig(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": url}}],
        "users": [{"name": "u", "user": {"token": "t", "as": "alice"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": "ns"}}],
    }
    path.write_text(json.dumps(config))
    return path


def run(tmp_path: Path, server, *args: str):
    return run_cli(["list", "vmf", "--kubeconfig", str(kubeconfig(tmp_path, server.url)), *args])


def test_list_then_events_until_the_request_timeout(tmp_path: Path) -> None:
    events = [("ADDED", instancetype("b", 2)), ("MODIFIED", instancetype("a", 4)), ("DELETED", instancetype("b", 2))]
    server = serve([instancetype("a")], events, hang=20)
    try:
        started = time.monotonic()
        result = run(tmp_path, server, "-w", "--request-timeout", "1s", "--output-watch-events", "-o", "name")
        assert time.monotonic() - started < 15  # the hanging stream was cut by the deadline, not by the server
    finally:
        server.close()
    assert (result.exit_code, result.stderr) == (0, "")
    name = "virtualmachineinstancetype.instancetype.kubevirt.io"
    assert result.stdout.splitlines() == [f"{name}/a", f"{name}/b", f"{name}/a", f"{name}/b"]
    watch = server.requests[1].split(b"\r\n")
    assert watch[0] == (
        b"GET /apis/instancetype.kubevirt.io/v1beta1/namespaces/ns/virtualmachineinstancetypes"
        b"?watch=1&resourceVersion=7 HTTP/1.1"
    )
    # the watch carries the same credentials and impersonation as the list
    assert b"Authorization: Bearer t" in watch and b"Impersate-User: alice" not in watch
    assert b"Impersonate-User: alice" in watch


def test_table_rows_keep_their_columns_and_escape_cluster_text(tmp_path: Path) -> None:
    hostile = instancetype("evil\x1b[2Jname")
    server = serve([instancetype("a")], [("ADDED", hostile), ("DELETED", instancetype("b"))], hang=20)
    try:
        result = run(tmp_path, server, "-w", "--request-timeout", "1s", "--output-watch-events")
    finally:
        server.close()
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["EVENT", "NAME", "KIND"]
    assert lines[1].split()[:2] == ["ADDED", "a"]
    assert "\x1b" not in result.stdout and lines[2].split()[:2] == ["ADDED", "evil^[[2Jname"]
    # a column never narrows again once a wider cell was printed (kubectl's tab writer remembers widths)
    assert lines[3].split()[:2] == ["DELETED", "b"]
    assert lines[3].index("namespaced") == lines[2].index("namespaced") > lines[1].index("namespaced")


def test_watch_only_prints_no_listing_and_watches_from_the_lists_version(tmp_path: Path) -> None:
    server = serve([instancetype("a")], [("ADDED", instancetype("c"))], hang=20)
    try:
        result = run(tmp_path, server, "--watch-only", "--request-timeout", "1s", "--no-headers")
    finally:
        server.close()
    assert result.exit_code == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["c"]
    # kubectl --watch-only lists too, unprinted: the watch starts at the list's resourceVersion (without one the
    # server would begin with an ADDED event for every existing object)
    assert len(server.requests) == 2 and b"watch=1&resourceVersion=7 " in server.requests[1]


def test_an_error_event_ends_in_the_status_message(tmp_path: Path) -> None:
    status = {
        "kind": "Status",
        "status": "Failure",
        "code": 410,
        "reason": "Expired",
        "message": "too old resource version: 7 (9)",
    }
    server = serve([], [("ERROR", status)], hang=0)
    try:
        result = run(tmp_path, server, "-w", "--request-timeout", "5s")
    finally:
        server.close()
    assert (result.exit_code, result.stderr) == (1, "Error from server (Expired): too old resource version: 7 (9)\n")


def test_an_endless_event_line_is_cut_at_the_bound(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(transport, "MAX_STREAM_LINE", 4096)
    server = serve([], [], raw=chunk(b"x" * 10000), hang=20)
    try:
        result = run(tmp_path, server, "-w", "--request-timeout", "5s")
    finally:
        server.close()
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert result.stderr == "error: a watch event from the server is larger than 4 KiB; stopped watching\n"


@pytest.mark.parametrize(
    "args", [["list", "-w"], ["list", "instancetypes", "--watch-only"], ["list", "preferences", "-w"]]
)
def test_watch_needs_one_scope(args: list[str]) -> None:
    result = run_cli([*args, "--kubeconfig", "/nonexistent"])
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: watch is only supported on individual resources and resource collections, but 2 resources were found"
    )


def test_ctrl_c_ends_the_watch_with_exit_1_and_no_message(tmp_path: Path, monkeypatch) -> None:
    from kubectl_instancetype.kube.client import Client

    def interrupted(self, *args, **kwargs):
        yield "ADDED", instancetype("b")
        raise KeyboardInterrupt

    monkeypatch.setattr(Client, "watch", interrupted)
    server = serve([instancetype("a")], [], hang=0)
    try:
        result = run(tmp_path, server, "-w", "-o", "name")
    finally:
        server.close()
    # kubectl's interrupt handler (k8s.io/kubectl/pkg/util/interrupt) exits 1 without a message
    assert (result.exit_code, result.stderr) == (1, "")
    assert [line.rpartition("/")[2] for line in result.stdout.splitlines()] == ["a", "b"]


def test_all_namespaces_watches_the_collection_with_a_namespace_column(tmp_path: Path) -> None:
    other = instancetype("z")
    other["metadata"]["namespace"] = "other"
    server = serve([instancetype("a")], [("ADDED", other)], hang=20)
    try:
        result = run(tmp_path, server, "-A", "-w", "--request-timeout", "1s")
    finally:
        server.close()
    assert result.exit_code == 0, result.stderr
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [
        ["NAMESPACE", "NAME"],
        ["ns", "a"],
        ["other", "z"],
    ]
    assert server.requests[1].startswith(
        b"GET /apis/instancetype.kubevirt.io/v1beta1/virtualmachineinstancetypes?watch=1&resourceVersion=7 "
    )


@pytest.mark.parametrize("split", [1, 3, 7, 4096])
def test_event_lines_survive_any_chunking(tmp_path: Path, split: int) -> None:
    lines = [json.dumps({"type": "ADDED", "object": instancetype(f"n{index}")}).encode() + b"\n" for index in range(3)]
    data = b"".join(lines)
    raw = b"".join(chunk(data[start : start + split]) for start in range(0, len(data), split))
    server = serve([], [], raw=raw, hang=20)
    try:
        result = run(tmp_path, server, "-w", "--request-timeout", "1s", "-o", "name")
    finally:
        server.close()
    assert result.exit_code == 0, result.stderr
    assert [line.rpartition("/")[2] for line in result.stdout.splitlines()] == ["n0", "n1", "n2"]


def test_sigint_while_the_stream_waits_exits_1_without_a_traceback(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    server = serve([instancetype("a")], [], hang=20)
    command = "import sys; from kubectl_instancetype.cli.main import main; sys.exit(main())"
    process = subprocess.Popen(
        [sys.executable, "-c", command, "list", "vmf", "-w", "-o", "name"],
        env={**os.environ, "KUBECONFIG": str(kubeconfig(tmp_path, server.url)), "HOME": "/nonexistent"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # listed: the watch is open (or about to be)
        deadline = time.monotonic() + 20
        while len(server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        rest, errors = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
        server.close()
    assert first.endswith(b"/a\n") and rest == b""
    assert (process.returncode, errors) == (1, b"")


HOSTILE = "x\x1b]0;owned\x07\x9b31m\x7f é"  # C0 (ESC, BEL), C1 (CSI), DEL, and a letter beyond ASCII
SHOWN = "x\\u001b]0;owned\\u0007\\u009b31m\\u007f é"  # the JSON text: every control escaped, é as it is


def hostile(name: str) -> dict:
    obj = instancetype(name)
    obj["metadata"]["annotations"] = {"note": HOSTILE}
    return obj


@pytest.mark.parametrize("events", [False, True], ids=["objects", "watch-events"])
def test_json_events_escape_del_and_c1_controls(tmp_path: Path, events: bool) -> None:
    """Go's encoding/json (kubectl) writes DEL and the C1 controls raw; on a terminal ``\\x9b`` is CSI. Each listed
    object and each event is written with them as ``\\u00XX``, and reads back as the server sent it."""
    listed, added = hostile("a"), hostile("b")
    server = serve([listed], [("ADDED", added)], hang=20)
    try:
        extra = ["--output-watch-events"] if events else []
        result = run(tmp_path, server, "-w", "--request-timeout", "1s", "-o", "json", *extra)
    finally:
        server.close()
    assert (result.exit_code, result.stderr) == (0, "")
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.stdout), repr(result.stdout)
    if events:
        # kubectl prints a metav1.WatchEvent as json.Marshal does: one line each, keys sorted
        def line(obj: dict) -> str:
            text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            return '{"type":"ADDED","object":' + text.replace("\x9b", "\\u009b").replace("\x7f", "\\u007f") + "}"

        assert result.stdout.splitlines() == [line(listed), line(added)]
        assert [json.loads(text) for text in result.stdout.splitlines()] == [
            {"type": "ADDED", "object": listed},
            {"type": "ADDED", "object": added},
        ]
    else:
        documents, decoder, text = [], json.JSONDecoder(), result.stdout
        while text.strip():
            document, end = decoder.raw_decode(text.lstrip())
            documents.append(document)
            text = text.lstrip()[end:]
        assert documents == [listed, added]
    assert result.stdout.count(f'"note": "{SHOWN}"' if not events else f'"note":"{SHOWN}"') == 2


DECODE = (
    'Error from server (InternalError): an error on the server ("unable to decode an event from the watch stream: '
    '{}") has prevented the request from succeeding\n'
)


@pytest.mark.parametrize(
    ("raw", "stderr"),
    [
        # client-go's StreamWatcher turns the decoder's error into a 500 Status (ClientWatchDecoding)
        (b"garbage\n", DECODE.format("invalid character 'g' looking for beginning of value")),
        (
            b'{"type":"ADDED","object":{"x":NaN}}\n',
            DECODE.format("invalid character 'N' looking for beginning of value"),
        ),
        (b"\xff\n", DECODE.format("invalid character '\xff' looking for beginning of value")),
        (b'{"type" "ADDED"}\n', DECODE.format("invalid character '\\\"' after object key")),
        # the list path's sentence, not Python's int-digits text
        (
            b'{"type":"ADDED","object":{"n":' + b"1" * 100_000 + b"}}\n",
            "error: the server sent a number with more than 4300 digits, which is not decoded\n",
        ),
        # a stream that stops inside a value: client-go logs io.ErrUnexpectedEOF and ends the watch
        (b'{"type":"ADD', ""),
    ],
)
def test_a_corrupt_watch_stream_ends_in_client_gos_words(tmp_path: Path, raw: bytes, stderr: str) -> None:
    server = serve([instancetype("a")], [], raw=chunk(raw), hang=0)
    try:
        result = run(tmp_path, server, "-w", "--request-timeout", "5s", "-o", "name")
    finally:
        server.close()
    assert (result.exit_code, result.stderr) == (1 if stderr else 0, stderr)
    assert result.stdout == "virtualmachineinstancetype.instancetype.kubevirt.io/a\n"


def test_an_event_split_over_two_lines_is_read_as_client_gos_decoder_reads_it(tmp_path: Path) -> None:
    raw = b'{"type":"ADDED",\n"object":' + json.dumps(instancetype("b")).encode() + b"}\n"
    server = serve([instancetype("a")], [], raw=chunk(raw), hang=0)
    try:
        result = run(tmp_path, server, "-w", "--request-timeout", "5s", "-o", "name")
    finally:
        server.close()
    assert (result.exit_code, result.stderr) == (0, "")
    name = "virtualmachineinstancetype.instancetype.kubevirt.io"
    assert result.stdout.splitlines() == [f"{name}/a", f"{name}/b"]
