"""The transport's sockets: TCP connections and client TLS sessions made from CPython's C modules ``_socket`` and ``_ssl``.

``socket`` and ``ssl`` are Python wrappers over those two modules. Importing the wrappers turns their constants into
enums (``socket.AddressFamily``, ``SocketKind``, ``MsgFlag``, ``AddressInfo``; ``ssl.Options``, ``AlertDescription``,
``SSLErrorNumber``, ``VerifyMode``, ``VerifyFlags``, ``TLSVersion``, ...) and pulls in ``selectors``, ``enum``,
``base64``, ``warnings`` and ``collections``: 52M instructions on CPython 3.11 (callgrind), about 15 ms and more than
everything a ``list`` of ten rows runs of its own. The transport uses none of it. It needs a connected TCP socket
with a timeout, and a client TLS session over it, and both are the C objects that the wrappers hold:

- ``socket.socket`` is a subclass of ``_socket.socket``, which does connect, ``settimeout``, ``recv_into`` and
  ``sendall`` itself;
- ``ssl.SSLContext`` is a subclass of ``_ssl._SSLContext``, which loads the roots and the client pair, checks the
  peer and its name (``check_hostname``, set by ``PROTOCOL_TLS_CLIENT``), and makes the TLS session
  (``_wrap_socket``, what ``ssl.SSLContext.wrap_socket`` calls); the session reads and writes with the socket's
  timeout.

So a context made here verifies exactly as one made by ``ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)``, and the errors are
the same classes (``ssl.SSLError`` *is* ``_ssl.SSLError``, ``socket.gaierror`` *is* ``_socket.gaierror``). A context
made by ``ssl`` (the system roots: :func:`.tls.system_trust_context`) works here too. This module is the only one
that names the private modules; what it adds is what the wrappers do for a blocking client, cited below
(CPython 3.11, ``Lib/socket.py`` and ``Lib/ssl.py``; the same in 3.12 and 3.13). tests/unit/test_sockets.py runs it
against a TLS server next to ``ssl``'s own socket.
"""

from __future__ import annotations

import _socket
import _ssl

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the classes `ssl` and `socket` export under these names
SSLError = _ssl.SSLError
SSLCertVerificationError = _ssl.SSLCertVerificationError
gaierror = _socket.gaierror
CERT_NONE = _ssl.CERT_NONE
IPPROTO_TCP = _socket.IPPROTO_TCP
TCP_NODELAY = _socket.TCP_NODELAY


class Socket(_socket.socket):
    """The C socket, weakly referable as ``socket.socket`` is (``__slots__ = ["__weakref__", ...]``): ``_ssl`` holds
    the socket under a TLS session by a weak reference."""

    __slots__ = ("__weakref__",)


def create_connection(host: str | bytes, port: int, timeout: float | None) -> Socket:
    """A TCP connection to the first address of ``host`` that accepts one, with ``timeout`` on the socket:
    ``socket.create_connection`` (each address ``getaddrinfo`` gives, in turn; the last one's error when none
    connects)."""
    error: OSError | None = None
    for family, kind, proto, _, address in _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM):
        sock = None
        try:
            sock = Socket(family, kind, proto)
            sock.settimeout(timeout)
            sock.connect(address)
            return sock
        except OSError as exc:
            error = exc
            if sock is not None:
                sock.close()
    if error is None:
        raise OSError("getaddrinfo returns an empty list")
    try:
        raise error
    finally:
        error = None  # socket.create_connection breaks the same cycle (the frame in the error's traceback)


def client_context() -> _ssl._SSLContext:
    """What ``ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)`` makes (``SSLContext.__new__`` calls ``_SSLContext.__new__`` and
    nothing else): certificates and host names are verified (``CERT_REQUIRED``, ``check_hostname``), OpenSSL's and
    CPython's defaults for the rest."""
    return _ssl._SSLContext(_ssl.PROTOCOL_TLS_CLIENT)


class TLSSocket:
    """A client TLS session over a connected socket, as ``ssl.SSLSocket`` is one for a blocking client: the handshake
    when it is made, then ``recv_into`` and ``sendall`` through the session, with the timeout of the socket under it
    (``_ssl`` reads it for every operation); ``close`` closes that socket (``SSLSocket.close`` sends no
    ``close_notify`` either)."""

    def __init__(self, context: Any, sock: Socket, server_hostname: str | bytes):
        self._sock = sock
        # SSLContext._encode_hostname: an international name as IDNA's ASCII form (the idna codec is imported then)
        if isinstance(server_hostname, bytes):
            server_hostname = server_hostname.decode("ascii")
        elif not server_hostname.isascii():
            server_hostname = server_hostname.encode("idna").decode("ascii")
        # SSLSocket._create: context._wrap_socket(sock, server_side, server_hostname, owner=..., session=...), then
        # do_handshake() (do_handshake_on_connect); _ssl keeps a weak reference to the socket, which self holds
        self._tls = context._wrap_socket(sock, False, server_hostname, owner=None, session=None)
        self._tls.do_handshake()

    def recv_into(self, buffer: Any) -> int:
        """SSLSocket.recv_into -> SSLSocket.read: a peer that closes the connection without a TLS close_notify ends
        the stream as a clean close does (``suppress_ragged_eofs``, on by default)."""
        try:
            return self._tls.read(len(buffer), buffer)
        except SSLError as exc:
            if exc.args[0] == _ssl.SSL_ERROR_EOF:
                return 0
            raise

    def sendall(self, data: Any) -> None:
        """SSLSocket.sendall: ``write`` until every byte went."""
        with memoryview(data) as view, view.cast("B") as octets:
            sent, total = 0, len(octets)
            while sent < total:
                sent += self._tls.write(octets[sent:])

    def settimeout(self, timeout: float | None) -> None:
        self._sock.settimeout(timeout)

    def gettimeout(self) -> float | None:
        return self._sock.gettimeout()

    def setsockopt(self, level: int, option: int, value: int) -> None:
        self._sock.setsockopt(level, option, value)

    def fileno(self) -> int:
        return self._sock.fileno()

    def close(self) -> None:
        self._sock.close()
