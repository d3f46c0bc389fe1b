"""WatchServer: an API server double on loopback for one namespaced resource: a list answer, then a chunked watch
stream of scripted events (the API server's framing: one JSON event per line), which then hangs or ends."""

from __future__ import annotations

import json
import socket
import time

from .http_server import ScriptedServer, read_request


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def watch_handler(items: list[dict], events: list[tuple[str, dict]], *, hang: float = 30.0, raw: bytes = b""):
    """Answer a list with ``items`` (resourceVersion "7"); a watch with ``events`` then ``raw`` bytes, then silence
    for ``hang`` seconds (an unbounded stream) before the last chunk."""

    def handler(conn: socket.socket, seen: list[bytes]) -> None:
        while True:
            request = read_request(conn)
            if not request:
                return
            seen.append(request)
            target = request.split(b" ", 2)[1]
            if b"watch=1" not in target:
                body = json.dumps({"kind": "List", "metadata": {"resourceVersion": "7"}, "items": items}).encode()
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(body)).encode()
                    + b"\r\n\r\n"
                    + body
                )
                continue
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            for kind, obj in events:
                conn.sendall(chunk(json.dumps({"type": kind, "object": obj}).encode() + b"\n"))
            if raw:
                conn.sendall(raw)
            time.sleep(hang)
            conn.sendall(b"0\r\n\r\n")
            return

    return handler


def serve(items: list[dict], events: list[tuple[str, dict]], **kwargs) -> ScriptedServer:
    return ScriptedServer(watch_handler(items, events, **kwargs))
