"""kube/sockets.py against ``ssl``'s own client socket: the same TLS server, the same answers and the same failures."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_instancetype.kube import sockets
from tests.doubles.hostile_registry import loopback_certificate


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return loopback_certificate(tmp_path_factory.mktemp("sockets"))


Behaviour = Callable[[socket.socket], None]


@pytest.fixture
def tls_server(certificate: tuple[Path, Path]) -> Iterator[Callable[[Behaviour], int]]:
    """A TLS server on the loopback that runs ``behaviour`` on each accepted (raw) connection; its port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(certificate[0]), str(certificate[1]))
    listeners: list[socket.socket] = []

    def start(behaviour: Behaviour) -> int:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)

        def serve() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    try:
                        behaviour(context.wrap_socket(conn, server_side=True) if behaviour is not _silent else conn)
                    except (OSError, ssl.SSLError):
                        pass

        threading.Thread(target=serve, daemon=True).start()
        return int(listener.getsockname()[1])

    yield start
    for listener in listeners:
        listener.close()


def _echo_then_ragged_close(conn: socket.socket) -> None:
    """Answer the request line with a body, then close the TCP connection without a TLS close_notify."""
    data = conn.recv(1024)
    conn.sendall(b"HTTP/1.1 200 OK\r\n\r\nyou sent " + data)
    conn.close()  # SSLSocket.close sends no close_notify: the client sees a ragged EOF


def _silent(conn: socket.socket) -> None:
    """Accept TCP, never answer the handshake."""
    conn.recv(4096)
    threading.Event().wait(3)


def _ours(port: int, context: Any, hostname: str, timeout: float | None = 5) -> sockets.TLSSocket:
    return sockets.TLSSocket(context, sockets.create_connection(b"127.0.0.1", port, timeout), hostname)


def _theirs(port: int, context: Any, hostname: str, timeout: float | None = 5) -> ssl.SSLSocket:
    return context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout), server_hostname=hostname)


def _read_all(sock: Any) -> bytes:
    out, buffer = b"", bytearray(7)  # a small buffer: several reads, then the end
    while count := sock.recv_into(buffer):
        out += bytes(buffer[:count])
    return out


def _trusting(certificate: tuple[Path, Path], ours: bool) -> Any:
    context = sockets.client_context() if ours else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cadata=certificate[0].read_text())
    return context


def test_the_errors_are_the_wrappers_classes() -> None:
    assert sockets.SSLError is ssl.SSLError
    assert sockets.SSLCertVerificationError is ssl.SSLCertVerificationError
    assert sockets.gaierror is socket.gaierror
    assert (sockets.CERT_NONE, sockets.IPPROTO_TCP, sockets.TCP_NODELAY) == (
        ssl.CERT_NONE,
        socket.IPPROTO_TCP,
        socket.TCP_NODELAY,
    )


def test_a_context_verifies_as_ssl_makes_it(certificate: tuple[Path, Path]) -> None:
    ours, theirs = sockets.client_context(), ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    assert (ours.verify_mode, ours.check_hostname, ours.options, ours.minimum_version, ours.maximum_version) == (
        theirs.verify_mode,
        theirs.check_hostname,
        theirs.options,
        theirs.minimum_version,
        theirs.maximum_version,
    )
    assert ours.get_ciphers() == theirs.get_ciphers()


def test_a_request_and_a_ragged_close_read_as_through_ssl(
    tls_server: Callable[[Behaviour], int], certificate: tuple[Path, Path]
) -> None:
    port = tls_server(_echo_then_ragged_close)
    answers = []
    for ours in (True, False):
        connect = _ours if ours else _theirs
        conn = connect(port, _trusting(certificate, ours), "127.0.0.1")
        conn.setsockopt(sockets.IPPROTO_TCP, sockets.TCP_NODELAY, 1)
        conn.sendall(bytearray(b"GET / HTTP/1.1\r\n\r\n"))
        answers.append(_read_all(conn))
        assert conn.gettimeout() == 5
        conn.close()
    assert answers[0] == answers[1] == b"HTTP/1.1 200 OK\r\n\r\nyou sent GET / HTTP/1.1\r\n\r\n"


@pytest.mark.parametrize(
    ("hostname", "trusted"),
    [("127.0.0.1", False), ("localhost", True), ("example.com", True), ("bücher.example", True)],
    ids=str,
)
def test_verification_fails_as_through_ssl(
    tls_server: Callable[[Behaviour], int], certificate: tuple[Path, Path], hostname: str, trusted: bool
) -> None:
    port = tls_server(_echo_then_ragged_close)
    failures = []
    for ours in (True, False):
        context = (
            _trusting(certificate, ours)
            if trusted
            else (sockets.client_context() if ours else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
        )
        with pytest.raises(ssl.SSLCertVerificationError) as failure:
            (_ours if ours else _theirs)(port, context, hostname)
        failures.append((failure.value.verify_code, failure.value.verify_message, failure.value.reason))
    assert failures[0] == failures[1]


def test_an_unverified_context_connects(tls_server: Callable[[Behaviour], int]) -> None:
    context = sockets.client_context()
    context.check_hostname = False
    context.verify_mode = sockets.CERT_NONE
    conn = _ours(tls_server(_echo_then_ragged_close), context, "127.0.0.1")
    conn.sendall(b"x")
    assert _read_all(conn) == b"HTTP/1.1 200 OK\r\n\r\nyou sent x"


def test_a_silent_server_times_the_handshake_out_as_through_ssl(
    tls_server: Callable[[Behaviour], int], certificate: tuple[Path, Path]
) -> None:
    port = tls_server(_silent)
    texts = []
    for ours in (True, False):
        with pytest.raises(TimeoutError) as failure:
            (_ours if ours else _theirs)(port, _trusting(certificate, ours), "127.0.0.1", 0.2)
        texts.append(str(failure.value))
    assert texts[0] == texts[1]
    assert "timed out" in texts[0]


def test_create_connection_fails_as_socket_create_connection() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    with pytest.raises(ConnectionRefusedError) as ours:
        sockets.create_connection(b"127.0.0.1", port, 5)
    with pytest.raises(ConnectionRefusedError) as theirs:
        socket.create_connection(("127.0.0.1", port), 5)
    assert (ours.value.errno, ours.value.strerror) == (theirs.value.errno, theirs.value.strerror)


def test_a_socket_under_a_session_is_weakly_referable() -> None:
    import weakref

    listener = socket.create_server(("127.0.0.1", 0))
    try:
        sock = sockets.create_connection(b"127.0.0.1", listener.getsockname()[1], 5)
        assert weakref.ref(sock)() is sock  # _ssl holds the socket under a session so
        sock.close()
    finally:
        listener.close()
