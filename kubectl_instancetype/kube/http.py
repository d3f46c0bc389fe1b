"""A minimal HTTP/1.1 client connection over a (TLS) socket: keep-alive, Content-Length and chunked bodies.

``http.client`` imports the ``email`` package to parse headers, which costs more start-up time than a
whole list request to a local API server takes; the API server speaks plain HTTP/1.1, so this small
reader is all the plugin needs. Only what the plugin uses is implemented: one request at a time,
no ``Expect: 100-continue``, CONNECT tunnels and absolute-form requests through an HTTP
proxy, request bodies streamed from bytes, a binary file or an iterator of chunks.

Compression is Go's ``http.Transport``'s (``compression``, on unless ``DisableCompression``): a request without its
own ``Accept-Encoding`` or ``Range`` (and not a HEAD) asks for ``Accept-Encoding: gzip``, and an answer with a body
that comes back ``Content-Encoding: gzip`` is inflated as it is read (golang/gzip.py, Go's ``gzip.Reader``
errors), within the same body bound, its ``Content-Encoding`` and ``Content-Length`` dropped from the headers
the caller sees (``Response.uncompressed``).

A request may carry a *deadline* (a :func:`time.monotonic` instant): connecting, the TLS handshake,
sending and every read then share it, so a server that trickles bytes is cut off when it passes, as Go's
``http.Client.Timeout`` does. Without one, only connecting is bounded.

The end of the module is Go's ``http.Transport`` dialling: the proxy for a URL (``Proxy``: the kubeconfig's
``proxy-url`` or ``ProxyFromEnvironment``), ``Proxy-Authorization`` from its userinfo, and :func:`connection_to`,
the one place a connection through a proxy is set up. kube/httpclient.py (Go's ``http.Client``) and
kube/transport.py (the API server's) both dial with it.
"""

from __future__ import annotations

import io
import time

from ..records import dataclass
from . import sockets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from typing import Any, BinaryIO, Union

    from ..golang.neturl import URL

    Body = Union[bytes, BinaryIO, Iterable[bytes], None]

# Go's http.Transport default for MaxResponseHeaderBytes (status line and headers together).
MAX_HEADER_BYTES = 10 << 20
UPLOAD_CHUNK = 1 << 20  # bytes read from a file body per send
# Every response body is read within a bound, checked as it streams in (before anything is parsed): a server that
# sends without end must cost a bounded amount of memory. The API server's answers are far below this one (etcd
# keeps objects under 1.5 MiB, lists come in pages); other servers are given their own, smaller bounds.
MAX_BODY_BYTES = 512 << 20
DEFAULT_CONNECT_TIMEOUT = 30.0  # Go's net.Dialer in http.DefaultTransport


class ProtocolError(Exception):
    """The peer did not speak HTTP/1.1 as expected."""


class ServerClosed(ProtocolError):
    """The connection was closed before a response started (a kept-alive connection the server dropped)."""


class BodyReadError(ProtocolError):
    """The response status and headers arrived but the body did not (cut short, or bad chunk framing)."""


class BodyTooLarge(ProtocolError):
    """The response body is larger than the connection's bound; nothing of it was kept."""

    def __init__(self, limit: int):
        super().__init__(f"the response body is larger than {human_size(limit)}, more than this client reads")
        self.limit = limit


def human_size(limit: int) -> str:
    """A limit in the largest binary unit that holds it exactly: ``512 MiB``, ``64 KiB``, ``1536 KiB``,
    ``100 bytes``."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if limit >= 1 << shift and limit % (1 << shift) == 0:
            return f"{limit >> shift} {unit}"
    return f"{limit} bytes"


class ProxyRefused(ProtocolError):
    """The proxy answered CONNECT with something other than 200; the message is its reason phrase (Go's)."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason or "unknown status code")
        self.status = status


class InvalidHeader(ValueError):
    """A header name or value that would change the request's framing (CR, LF, NUL, other controls)."""


class ContentLengthMismatch(ValueError):
    """A streamed request body did not hold the number of bytes its Content-Length announced."""


class DeadlineExceeded(TimeoutError):
    """The request's deadline passed; ``phase`` is where: ``connect``, ``headers`` or ``body``."""

    def __init__(self, phase: str):
        super().__init__(f"deadline exceeded while {phase}")
        self.phase = phase


@dataclass
class Response:
    """A complete response: status, reason, lower-cased headers and the whole body; ``uncompressed`` when it came
    gzipped and was inflated (Go's ``Response.Uncompressed``)."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes
    uncompressed: bool = False


def check_header(name: str, value: str) -> None:
    """Refuse a header Go's net/http would refuse: a name that is not a token, a value with controls.

    The message names the header, never its value (it may be a credential).
    """
    if not name or any(c in _NOT_TOKEN or ord(c) < 0x21 or ord(c) > 0x7E for c in name):
        raise InvalidHeader(f"net/http: invalid header field name {name!r}")
    if any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F for c in value):
        raise InvalidHeader(f'net/http: invalid header field value for "{name}"')


_NOT_TOKEN = frozenset('"(),/:;<=>?@[\\]{}')


class _DeadlineSocketIO(io.RawIOBase):
    """The raw reader under the buffered one: every ``recv`` gets the time left before the deadline."""

    def __init__(self, connection: Connection, sock: Any):
        super().__init__()
        self._connection = connection
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._connection.arm()
        return self._sock.recv_into(buffer)


class Connection:
    """One client connection; :meth:`request` may be called repeatedly while the server keeps it open."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        tls_context: Any = None,
        server_hostname: str | None = None,
        tunnel: tuple[str, int] | None = None,
        proxy_authorization: str | None = None,
        absolute_form: str | None = None,
        max_body: int | None = None,
        response_within: float | None = None,
        compression: bool = False,
    ):
        self.host, self.port = host, port
        # Go's Transport asks for gzip on its own unless DisableCompression (client-go: disable-compression)
        self.compression = compression
        self._gzip_asked = False  # the request being answered asked for gzip on its own
        self._stream_gzipped = False  # the streamed body still to be read comes gzipped
        # the bound on each response body (BodyTooLarge past it)
        self.max_body = max_body if max_body is not None else MAX_BODY_BYTES
        # seconds the whole answer may take once the request is sent (a deadline set then), or None
        self.response_within = response_within
        # Without a deadline, reads wait as long as the server takes (kubectl without --request-timeout);
        # ``timeout`` is kept for callers that bound each socket operation instead.
        self.timeout = timeout
        self.connect_timeout = connect_timeout if connect_timeout is not None else timeout
        self.tls_context = tls_context
        self.server_hostname = server_hostname
        self.tunnel = tunnel
        # Proxy credentials: sent on CONNECT, or on every request in absolute form (plain http through a proxy).
        self.proxy_authorization = proxy_authorization
        self.absolute_form = absolute_form  # "http://host:port" when requests go to a forward proxy
        self.deadline: float | None = None
        self._timed = False  # the socket's timeout was set from a deadline
        self.phase = "connect"
        self._sock: Any = None  # a connected _socket.socket, or a sockets.TLSSocket over one
        self._reader: Any = None
        self._stream_headers: dict[str, str] = {}
        self.body_pending = False  # a streamed answer's body is still to be read (body_pieces)
        self.reusable = False

    @property
    def socket_timeout(self) -> float | None:
        """The timeout the socket reads with now (None: it blocks, or there is no socket)."""
        return self._sock.gettimeout() if self._sock is not None else None

    @property
    def target_host(self) -> str:
        """The host the requests are for (the tunnel's far end when proxied)."""
        return self.tunnel[0] if self.tunnel else self.host

    def arm(self, fallback: float | None = None) -> None:
        """Give the socket the time left before the deadline (``fallback`` without one); raise once it passed."""
        if self._sock is None:
            return
        if self.deadline is None:
            if fallback is not None:
                self._sock.settimeout(fallback)
            return  # the timeout set when connecting stays (no system call per read)
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(self.phase)
        self._sock.settimeout(left)
        self._timed = True

    def _left(self, fallback: float | None) -> float | None:
        if self.deadline is None:
            return fallback
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded(self.phase)
        return left if fallback is None else min(left, fallback)  # Go's dialer keeps its own 30 s bound

    def connect(self) -> None:
        """Open TCP (through the proxy tunnel when configured) and run the TLS handshake."""
        self.phase = "connect"
        try:
            sock: Any = sockets.create_connection(ascii_host(self.host), self.port, self._left(self.connect_timeout))
        except TimeoutError as exc:
            if self.deadline is not None and not isinstance(exc, DeadlineExceeded):
                raise DeadlineExceeded("connect") from exc
            raise
        try:
            sock.setsockopt(sockets.IPPROTO_TCP, sockets.TCP_NODELAY, 1)
            self._sock = sock
            if self.tunnel:
                self._open_tunnel(sock)
            if self.tls_context is not None:
                # CPython bounds the whole handshake by the socket timeout set here.
                self.arm(self.connect_timeout)
                sock = sockets.TLSSocket(self.tls_context, sock, ascii_host(self.server_hostname or self.target_host))
        except BaseException as exc:
            sock.close()
            self._sock = None
            if isinstance(exc, TimeoutError) and self.deadline is not None and not isinstance(exc, DeadlineExceeded):
                raise DeadlineExceeded("connect") from exc
            raise
        self._sock = sock
        if self.deadline is None:
            sock.settimeout(self.timeout)
        self._reader = io.BufferedReader(_DeadlineSocketIO(self, sock), 65536)
        self.reusable = True

    def _open_tunnel(self, sock: Any) -> None:
        assert self.tunnel is not None
        host, port = self.tunnel
        authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
        if self.proxy_authorization:
            check_header("Proxy-Authorization", self.proxy_authorization)
            lines.append(f"Proxy-Authorization: {self.proxy_authorization}")
        self.arm(self.connect_timeout)
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))
        # Unbuffered byte reads: nothing past the proxy's blank line may be consumed (it is TLS).
        reader = io.BufferedReader(_DeadlineSocketIO(self, sock), 1)
        status, reason = _status_line(reader.readline(MAX_HEADER_BYTES))
        _headers(reader, MAX_HEADER_BYTES)
        if status != 200:
            raise ProxyRefused(status, reason)

    def close(self) -> None:
        """Close the socket."""
        if self._reader is not None:
            try:
                self._reader.close()
            except OSError:
                pass
        if self._sock is not None:
            self._sock.close()
        self._sock = self._reader = None
        self.reusable = False
        self.body_pending = False

    def request(
        self,
        method: str,
        target: str,
        headers: dict[str, str],
        body: Body = None,
        *,
        content_length: int | None = None,
        progress: Callable[[int], None] | None = None,
        deadline: float | None = None,
        repeated: Sequence[tuple[str, str]] = (),
        stream: bool = False,
    ) -> Response:
        """Send one request and read the whole response (with ``stream``, a 2xx answer to a GET is returned with
        its body unread: read it with :meth:`body_pieces` before the next request).

        ``body`` is bytes, a binary file object or an iterable of byte chunks; the last two are streamed
        (never held whole) and need ``content_length``. ``progress`` receives the bytes sent so far after
        each chunk. ``repeated`` are header lines after ``headers``, a name possibly several times
        (``Impersonate-Group``). Header names and values are checked before anything is sent.
        """
        for name, value in [*headers.items(), *repeated]:
            check_header(name, value)
        if body is not None and not isinstance(body, (bytes, bytearray, memoryview)) and content_length is None:
            raise ContentLengthMismatch("a streamed request body needs an explicit Content-Length")
        self.deadline = deadline
        if self._sock is None:
            self.connect()
        elif deadline is None and self._timed:
            self._sock.settimeout(self.timeout)  # the previous request's deadline must not linger
            self._timed = False
        self.phase = "headers"
        if self.absolute_form:
            target = self.absolute_form + target
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.target_host_header()}"]
        lines += [f"{name}: {value}" for name, value in [*headers.items(), *repeated]]
        if self.absolute_form and self.proxy_authorization:
            check_header("Proxy-Authorization", self.proxy_authorization)
            lines.append(f"Proxy-Authorization: {self.proxy_authorization}")
        self._ask_gzip(method, headers, repeated, lines)
        if isinstance(body, (bytes, bytearray, memoryview)):
            content_length = len(body)
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {content_length or 0}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")
        try:
            return self._exchange(method, head, body, content_length, progress, stream and method == "GET")
        except TimeoutError as exc:
            if self.deadline is None or isinstance(exc, DeadlineExceeded):
                raise
            raise DeadlineExceeded(self.phase) from exc

    def _exchange(
        self,
        method: str,
        head: bytes,
        body: Body,
        content_length: int | None,
        progress: Callable[[int], None] | None,
        stream: bool = False,
    ) -> Response:
        assert self._sock is not None
        self.arm()
        if isinstance(body, (bytes, bytearray, memoryview)):
            if len(body) < 65536:
                self._sock.sendall(head + bytes(body))
                if progress is not None and body:
                    progress(len(body))
            else:
                self._sock.sendall(head)
                view = memoryview(body)
                self._send_chunks(
                    (view[start : start + UPLOAD_CHUNK] for start in range(0, len(view), UPLOAD_CHUNK)),
                    len(view),
                    progress,
                )
        else:
            self._sock.sendall(head)
            if body is not None:
                assert content_length is not None
                self._send_chunks(_chunks(body), content_length, progress)
        if self.response_within is not None:
            answer_by = time.monotonic() + self.response_within
            self.deadline = answer_by if self.deadline is None else min(self.deadline, answer_by)
        first = self._reader.readline(MAX_HEADER_BYTES)
        if not first:
            raise ServerClosed("EOF")  # Go's io.EOF, which kubectl prints
        status, reason = _status_line(first)
        response_headers = _headers(self._reader, MAX_HEADER_BYTES - len(first))
        self.phase = "body"
        gzipped = self._gzipped(method, status, response_headers)
        if stream and 200 <= status < 300 and status not in (204,):
            self._stream_headers = response_headers
            self._stream_gzipped = gzipped
            self.body_pending = True
            return Response(status, reason, _as_inflated(response_headers, gzipped), b"", gzipped)
        body_bytes = self._body(method, status, response_headers)
        if response_headers.get("connection", "").lower() == "close":
            self.close()
        if gzipped:
            try:
                body_bytes = b"".join(self._inflated(iter((body_bytes,))))
            except (BodyReadError, BodyTooLarge):
                self.close()  # as for every body refused (_chunked): the connection is not used again
                raise
        return Response(status, reason, _as_inflated(response_headers, gzipped), body_bytes, gzipped)

    def _ask_gzip(
        self, method: str, headers: dict[str, str], repeated: Sequence[tuple[str, str]], lines: list[str]
    ) -> None:
        """Go's persistConn.roundTrip: with compression on, a request that sets neither ``Accept-Encoding`` nor
        ``Range`` and is not a HEAD asks for gzip itself (``requestedGzip``), and only such a request's answer is
        inflated here; a caller that asks for an encoding reads what it asked for."""
        names = {name.lower() for name, _ in [*headers.items(), *repeated]}
        self._gzip_asked = (
            self.compression and method != "HEAD" and "accept-encoding" not in names and "range" not in names
        )
        if self._gzip_asked:
            lines.append("Accept-Encoding: gzip")

    def _gzipped(self, method: str, status: int, headers: dict[str, str]) -> bool:
        """Whether the answer's body is to be inflated: asked for by the transport, ``Content-Encoding: gzip``
        (any case: Go's ascii.EqualFold), and a body (Go's hasBody: not a HEAD, a length other than 0)."""
        if not self._gzip_asked or headers.get("content-encoding", "").lower() != "gzip":
            return False
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return False
        return headers.get("content-length") != "0"

    def _inflated(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        """``pieces`` of a gzipped body inflated (Go's gzipReader), within the body bound; a body Go's reader
        refuses is a BodyReadError with Go's words. The pieces are closed at the end, so that a body left unread
        closes the connection."""
        from ..golang.gzip import GzipError, InflatedTooLarge, gunzip

        try:
            yield from gunzip(pieces, self.max_body)
        except GzipError as exc:
            raise BodyReadError(str(exc)) from None
        except InflatedTooLarge:
            raise BodyTooLarge(self.max_body) from None
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()

    def open_stream(
        self,
        target: str,
        headers: dict[str, str],
        *,
        deadline: float | None = None,
        repeated: Sequence[tuple[str, str]] = (),
    ) -> Response:
        """Send a GET and read only the status and headers; a 2xx body is then read with :meth:`stream_lines`
        (other answers carry their whole body, bounded, in the Response). The connection is not reused after a
        stream (it ends when the server or the deadline ends it)."""
        for name, value in [*headers.items(), *repeated]:
            check_header(name, value)
        self.deadline = deadline
        if self._sock is None:
            self.connect()
        self.phase = "headers"
        if self.absolute_form:
            target = self.absolute_form + target
        lines = [f"GET {target} HTTP/1.1", f"Host: {self.target_host_header()}"]
        lines += [f"{name}: {value}" for name, value in [*headers.items(), *repeated]]
        if self.absolute_form and self.proxy_authorization:
            check_header("Proxy-Authorization", self.proxy_authorization)
            lines.append(f"Proxy-Authorization: {self.proxy_authorization}")
        self._ask_gzip("GET", headers, repeated, lines)
        try:
            assert self._sock is not None
            self.arm()
            self._sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))
            first = self._reader.readline(MAX_HEADER_BYTES)
            if not first:
                raise ServerClosed("EOF")
            status, reason = _status_line(first)
            response_headers = _headers(self._reader, MAX_HEADER_BYTES - len(first))
            self.phase = "body"
            self.reusable = False
            gzipped = self._gzipped("GET", status, response_headers)
            body = b"" if 200 <= status < 300 else self._body("GET", status, response_headers)
            if gzipped and body:
                body = b"".join(self._inflated(iter((body,))))
        except TimeoutError as exc:
            if self.deadline is None or isinstance(exc, DeadlineExceeded):
                raise
            raise DeadlineExceeded(self.phase) from exc
        self._stream_headers = response_headers
        self._stream_gzipped = gzipped
        return Response(status, reason, _as_inflated(response_headers, gzipped), body, gzipped)

    def stream_lines(self, max_line: int) -> Iterator[bytes]:
        """The body of the response :meth:`open_stream` started, one newline-ended line at a time (the API
        server's watch framing: one JSON event per line), each at most ``max_line`` bytes (BodyTooLarge past it).
        Ends when the body ends; the deadline raises DeadlineExceeded. The connection is closed at the end."""
        headers = self._stream_headers
        pieces = (
            self._chunk_pieces() if "chunked" in headers.get("transfer-encoding", "").lower() else self._raw_pieces()
        )
        if self._stream_gzipped:
            pieces = self._inflated(pieces)
        # the pieces of the line not yet ended, joined once its newline arrives (no copy per piece)
        pending: list[bytes] = []
        size = 0
        try:
            for piece in pieces:
                start = 0
                while (end := piece.find(b"\n", start)) >= 0:
                    size += end + 1 - start
                    if size > max_line:
                        raise BodyTooLarge(max_line)
                    pending.append(piece[start : end + 1])
                    yield b"".join(pending)
                    pending, size, start = [], 0, end + 1
                if start < len(piece):
                    size += len(piece) - start
                    if size > max_line:
                        raise BodyTooLarge(max_line)
                    pending.append(piece[start:])
            rest = b"".join(pending)
            if rest.strip():
                yield rest
        except TimeoutError as exc:
            if isinstance(exc, DeadlineExceeded) or self.deadline is None:
                raise
            raise DeadlineExceeded("body") from exc
        finally:
            self.close()

    def body_pieces(self, piece: int = 16384) -> Iterator[bytes]:
        """The body of the answer :meth:`request` left unread (``stream``), in pieces of at most ``piece`` bytes as
        they arrive (a gzipped one inflated, in pieces of at most 64 kB): Content-Length, chunked or to the end of
        the connection, within ``max_body`` (BodyTooLarge past it) and the request's deadline (DeadlineExceeded).
        Read to its end, the connection serves the next request; left before, it is closed (the rest of the body
        is never read)."""
        pieces = self._body_pieces(piece)
        return self._inflated(pieces) if self._stream_gzipped else pieces

    def _body_pieces(self, piece: int) -> Iterator[bytes]:
        headers = self._stream_headers
        finished = False
        try:
            if "chunked" in headers.get("transfer-encoding", "").lower():
                yield from self._bounded_chunks(piece)
            else:
                length = headers.get("content-length")
                if length is not None and not length.isdigit():
                    raise ProtocolError(f'bad Content-Length "{length[:40]}"')
                left = int(length) if length is not None else self.max_body + 1
                if length is not None and left > self.max_body:
                    raise BodyTooLarge(self.max_body)  # refused before a byte of it is read
                while left > 0:
                    data = self._reader.read1(min(piece, left))
                    if not data:
                        if length is not None:
                            raise BodyReadError("unexpected EOF")
                        break  # no length: the body ends when the server closes
                    left -= len(data)
                    if length is None and left <= 0:
                        raise BodyTooLarge(self.max_body)
                    yield data
                if length is None:
                    self.close()
            finished = True
        except TimeoutError as exc:
            if isinstance(exc, DeadlineExceeded) or self.deadline is None:
                raise
            raise DeadlineExceeded("body") from exc
        finally:
            self.body_pending = False
            if not finished or headers.get("connection", "").lower() == "close":
                self.close()

    def _bounded_chunks(self, piece: int) -> Iterator[bytes]:
        """A chunked body's data in pieces of ``piece`` bytes (the last one shorter): the API server writes chunks of
        at most 2 kB, and a piece per chunk would cost its reader more than the bytes do."""
        total = 0
        parts: list[bytes] = []
        held = 0
        while True:
            line = self._reader.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError as exc:
                raise BodyReadError("unexpected EOF" if not line else "malformed chunked encoding") from exc
            if size < 0:
                raise BodyReadError("malformed chunked encoding")
            if size == 0:
                _headers(self._reader, MAX_HEADER_BYTES)  # trailers
                if parts:
                    yield b"".join(parts)
                return
            total += size
            if total > self.max_body:
                raise BodyTooLarge(self.max_body)
            while size > 0:
                data = self._reader.read(min(piece - held, size))
                if not data:
                    raise BodyReadError("unexpected EOF")
                size -= len(data)
                parts.append(data)
                held += len(data)
                if held >= piece:
                    yield b"".join(parts)
                    parts, held = [], 0
            if self._reader.read(2) != b"\r\n":
                raise BodyReadError("unexpected EOF")

    def _raw_pieces(self) -> Iterator[bytes]:
        while self._reader is not None:
            piece = self._reader.read1(65536)
            if not piece:
                return
            yield piece

    def _chunk_pieces(self) -> Iterator[bytes]:
        while True:
            line = self._reader.readline(1024)
            if not line:
                return  # the server closed the stream (a watch that ended without the last chunk)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError as exc:
                raise BodyReadError("malformed chunked encoding") from exc
            if size < 0:
                raise BodyReadError("malformed chunked encoding")
            if size == 0:
                return
            chunk = self._reader.read(size)
            if len(chunk) != size or self._reader.read(2) != b"\r\n":
                raise BodyReadError("unexpected EOF")
            yield chunk

    def _send_chunks(self, chunks: Iterable[Any], length: int, progress: Callable[[int], None] | None) -> None:
        assert self._sock is not None
        sent = 0
        for chunk in chunks:
            if not chunk:
                continue
            if sent + len(chunk) > length:
                raise ContentLengthMismatch(f"the request body holds more than the {length} bytes announced")
            self.arm()
            self._sock.sendall(chunk)
            sent += len(chunk)
            if progress is not None:
                progress(sent)
        if sent != length:
            raise ContentLengthMismatch(f"the request body ended after {sent} of {length} bytes")

    def target_host_header(self) -> str:
        """The Host header value."""
        host = self.target_host
        port = self.tunnel[1] if self.tunnel else self.port
        if self.absolute_form:
            return self.absolute_form.partition("://")[2]
        host = f"[{host}]" if ":" in host else host
        default = 443 if self.tls_context is not None else 80
        return host if port == default else f"{host}:{port}"

    def _body(self, method: str, status: int, headers: dict[str, str]) -> bytes:
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return b""
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._chunked()
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise ProtocolError(f'bad Content-Length "{length[:40]}"')
            size = int(length)
            if size > self.max_body:
                self.close()  # refused before a byte of it is read
                raise BodyTooLarge(self.max_body)
            data: bytes = self._reader.read(size)
            if len(data) != size:
                self.close()
                raise BodyReadError("unexpected EOF")
            return data
        # no length: the body ends when the server closes (one byte more than the bound tells a longer one)
        rest: bytes = self._reader.read(self.max_body + 1)
        self.close()
        if len(rest) > self.max_body:
            raise BodyTooLarge(self.max_body)
        return rest

    def _chunked(self) -> bytes:
        """A chunked body read whole: :meth:`_bounded_chunks` with a piece larger than the bound, so that it yields
        once; a body it refuses leaves the connection closed."""
        try:
            return b"".join(self._bounded_chunks(self.max_body + 1))
        except (BodyReadError, BodyTooLarge):
            self.close()
            raise


def _as_inflated(headers: dict[str, str], gzipped: bool) -> dict[str, str]:
    """The headers a caller sees: an inflated body's ``Content-Encoding`` and ``Content-Length`` are dropped, as
    Go's transport drops them (its ContentLength becomes -1)."""
    if not gzipped:
        return headers
    return {name: value for name, value in headers.items() if name not in ("content-encoding", "content-length")}


def _chunks(body: Any) -> Iterable[Any]:
    """The chunks of a streamed body: successive reads of a file object, or the iterable itself."""
    read = getattr(body, "read", None)
    if read is None:
        return body
    return iter(lambda: read(UPLOAD_CHUNK), b"")


def _status_line(line: bytes) -> tuple[int, str]:
    if not line:
        raise ServerClosed("EOF")
    if not line.endswith(b"\n"):
        raise ProtocolError(f"net/http: server response headers exceeded {MAX_HEADER_BYTES} bytes; aborted")
    text = line.decode("latin-1").rstrip("\r\n")
    parts = text.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        from ..golang.strconv import go_quote  # loaded only for a failure's message

        raise ProtocolError(f"malformed HTTP response {go_quote(_as_sent(text[:60]))}")
    if len(parts[1]) != 3 or not parts[1].isdigit() or parts[1][0] == "0":
        from ..golang.strconv import go_quote  # loaded only for a failure's message

        raise ProtocolError(f"malformed HTTP status code {go_quote(_as_sent(parts[1][:20]))}")
    return int(parts[1]), parts[2] if len(parts) > 2 else ""


def _headers(reader: Any, budget: int) -> dict[str, str]:
    """Read header lines until the blank one, within ``budget`` bytes in all (Go's MaxResponseHeaderBytes)."""
    headers: dict[str, str] = {}
    while True:
        line = reader.readline(max(budget, 1))
        budget -= len(line)
        if line in (b"\r\n", b"\n"):
            return headers
        if not line:
            raise ServerClosed("unexpected EOF")
        if budget <= 0 or not line.endswith(b"\n"):
            raise ProtocolError(f"net/http: server response headers exceeded {MAX_HEADER_BYTES} bytes; aborted")
        name, _, value = line.decode("latin-1").partition(":")
        key, value = name.strip().lower(), value.strip()
        # A repeated field is one list (RFC 9110 5.3): the API server sends one Warning header per warning.
        headers[key] = f"{headers[key]}, {value}" if key in headers else value


def _as_sent(text: str) -> str:
    """What the server sent, as Go holds it: the bytes read as latin-1 taken as UTF-8 again, so that ``go_quote``
    prints an invalid byte as ``\\xNN`` and a valid character as itself, as Go's %q does."""
    return text.encode("latin-1", "replace").decode("utf-8", "surrogateescape")


# --- Dialling through proxies (Go's http.Transport: Proxy, proxyAuth, the CONNECT tunnel) -------------------


# the variables golang.httpproxy.proxy_from_environment takes a proxy from (NO_PROXY only exempts)
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")


def proxy_for(url: URL, proxy_url: str | None, environ: Mapping[str, str] | None) -> URL | None:
    """The proxy for requests to ``url``: the kubeconfig's ``proxy-url``, else the environment (Go's rules,
    :func:`..golang.httpproxy.proxy_from_environment`). A ``REQUEST_METHOD`` with ``HTTP_PROXY`` (a CGI script)
    raises :class:`~..errors.TransportError`, as Go refuses it."""
    import os

    environ = environ if environ is not None else os.environ
    if not proxy_url and not any(environ.get(name) for name in _PROXY_VARIABLES):
        return None  # what proxy_from_environment answers then, without importing it (a list run)
    from ..errors import TransportError
    from ..golang.httpproxy import CGIProxyError, parse_proxy, proxy_from_environment

    if proxy_url:
        return parse_proxy(proxy_url)
    try:
        return proxy_from_environment(url, environ)
    except CGIProxyError as exc:
        raise TransportError(str(exc)) from None


def proxy_authorization(proxy: URL) -> str | None:
    """``Basic base64(user:password)`` from the proxy URL's percent-decoded userinfo (Go's proxyAuth)."""
    if proxy.userinfo is None:
        return None
    import binascii
    from urllib.parse import unquote

    user, _, password = proxy.userinfo.partition(":")
    pair = f"{unquote(user)}:{unquote(password)}".encode()
    return "Basic " + binascii.b2a_base64(pair, newline=False).decode("ascii")


class UnsupportedProxy(ValueError):
    """A proxy URL whose scheme this client does not speak (only http:// proxies are)."""


def connection_to(
    url: URL,
    proxy: URL | None,
    *,
    tls_context: Any = None,
    server_hostname: str | None = None,
    timeout: float | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    max_body: int | None = None,
    response_within: float | None = None,
    compression: bool = False,
) -> Connection:
    """A (not yet connected) :class:`~.http.Connection` to ``url``'s host, through ``proxy`` when one is given:
    a CONNECT tunnel for https, absolute-form requests for http. Raises :class:`UnsupportedProxy` for a proxy
    that is not http://, ValueError with Go's dialer words for a proxy port out of range."""
    from ..golang.neturl import DEFAULT_PORTS

    port = int(url.port) if url.port else DEFAULT_PORTS[url.scheme]
    host, connect_port = url.host or "localhost", port
    tunnel, absolute, authorization = None, None, None
    if proxy is not None:
        if proxy.scheme != "http":
            from ..golang.strconv import go_quote  # loaded only for a failure's message

            raise UnsupportedProxy(
                f"proxy scheme {go_quote(proxy.scheme)} is not supported (http:// proxies are): {proxy.redacted()}"
            )
        if proxy.port and (len(proxy.port) > 5 or int(proxy.port) > 65535):
            # Go's dialer, through the proxy (kubectl: "proxyconnect tcp: dial tcp: address P: invalid port")
            raise ValueError(f"proxyconnect tcp: dial tcp: address {proxy.port}: invalid port")
        host = proxy.host or "localhost"
        connect_port = int(proxy.port) if proxy.port else 80
        authorization = proxy_authorization(proxy)
        if url.scheme == "https":
            tunnel = (url.host, port)
        else:
            absolute = f"http://{url.authority}"
    return Connection(
        host,
        connect_port,
        timeout=timeout,
        connect_timeout=connect_timeout,
        tls_context=tls_context if url.scheme == "https" else None,
        server_hostname=server_hostname,
        tunnel=tunnel,
        proxy_authorization=authorization,
        absolute_form=absolute,
        max_body=max_body,
        response_within=response_within,
        compression=compression,
    )


def ascii_host(host: str) -> str | bytes:
    """``host`` for ``getaddrinfo`` and ``ssl``: an ASCII name as bytes, which both take as they are, where a str
    goes through the ``idna`` codec first (always, in Python 3.11's getaddrinfo); for ASCII that codec returns
    the same bytes (it only refuses empty or over-long labels, which the resolver refuses too), but importing
    it (with ``stringprep`` and ``unicodedata``) costs more start-up than a small list request's own work."""
    return host.encode("ascii") if host.isascii() else host
