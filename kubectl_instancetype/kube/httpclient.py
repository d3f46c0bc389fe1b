"""The one request layer: Go's ``http.Client`` over ``http.DefaultTransport``, for every server the plugin talks to.

The API server's :mod:`.transport` (client-go's rest client: retries, warnings, kubectl's messages) and the clients
of other servers, the OCI registry (:mod:`..oci.client`) and CDI's upload proxy (:mod:`.upload_proxy`), share what
is here, so that each rule is written once:

- proxies: the kubeconfig's ``proxy-url``, else ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY`` as
  ``golang.org/x/net/http/httpproxy`` reads them (golang/httpproxy.py); CONNECT tunnels for https, absolute-form
  requests for http, the proxy URL's userinfo as ``Proxy-Authorization`` (kube/http.py's ``proxy_for`` and
  ``connection_to``: Go's http.Transport, on the API server's start-up path without this module);
- redirects: ``http.Client``'s (golang/nethttp.py: at most 10, ``stopped after 10 redirects``, Location resolved
  by RFC 3986 reference resolution, 301/302/303 to GET without the body, 307/308 with method and body,
  credentials dropped on a hop to another host);
- deadlines: one instant the whole request, redirects included, must end by (``http.Client.Timeout``), plus a
  bound on each socket operation and on connecting;
- sizes: every response body read within a bound given per request (kube/http.py refuses past it, before
  anything is parsed).

:class:`HTTPClient` is the client for servers other than the API server; the Session makes it
(:meth:`~.session.Session.read_image_config`, :meth:`~.session.Session.upload_proxy`). Nothing outside kube/ opens
a connection (tests/unit/test_layers.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..golang.neturl import DEFAULT_PORTS, Reference, URLError
from ..golang.strconv import go_quote
from .http import (
    DEFAULT_CONNECT_TIMEOUT,
    MAX_BODY_BYTES,
    Connection,
    DeadlineExceeded,
    ProtocolError,
    Response,
    ServerClosed,
    UnsupportedProxy,
    connection_to,
    proxy_for,
)

if TYPE_CHECKING:
    from .http import Body

# --- Failures in Go's words ------------------------------------------------------------------------------------


def failure_reason(exc: BaseException, verify_hint: str = "") -> str:
    """Go's words for a request that failed below HTTP (never Python's ``[SSL: ...] (_ssl.c:N)``); ``verify_hint``
    is the flag that skips certificate verification, named after a verification failure."""
    from .http import DeadlineExceeded
    from .sockets import SSLCertVerificationError, SSLError

    if isinstance(exc, SSLCertVerificationError):
        hint = f" ({verify_hint} skips verification)" if verify_hint else ""
        return f"tls: failed to verify certificate: {exc.verify_message}{hint}"
    if isinstance(exc, SSLError):
        return "tls: " + str(exc.reason or "handshake failure").lower().replace("_", " ")
    if isinstance(exc, ConnectionRefusedError):
        return "connect: connection refused"
    if isinstance(exc, DeadlineExceeded):
        return str(exc)
    why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
    return why or type(exc).__name__


class RequestError(Exception):
    """A request that got no answer to return (Go's ``url.Error``): ``method`` of the first request, ``url`` of the
    request that failed (password redacted; the Location refused, for a redirect), ``reason`` in Go's words.
    ``timed_out``: a deadline or a socket timeout ended it; ``deadline``: the client's deadline did."""

    def __init__(
        self,
        method: str,
        url: str,
        reason: str,
        *,
        timed_out: bool = False,
        deadline: bool = False,
        last: str = "",
    ):
        from ..golang.nethttp import url_error

        super().__init__(url_error(method, url, reason))
        self.method, self.url, self.reason = method, url, reason
        self.timed_out, self.deadline = timed_out, deadline
        # the URL of the last request sent (redacted): the one that failed, or answered with a redirect Go refused
        self.last = last or url


@dataclass
class Answer:
    """The response to return and the URL that gave it (after the redirects followed)."""

    response: Response
    url: Reference


def _replayable(body: Body) -> bool:
    return body is None or isinstance(body, (bytes, bytearray, memoryview))


def valid_header_value(name: str, value: str) -> bool:
    """The header would be sent as it is (kube/http.check_header: no control characters, a token for a name)."""
    from .http import InvalidHeader, check_header

    try:
        check_header(name, value)
    except InvalidHeader:
        return False
    return True


# --- The client ------------------------------------------------------------------------------------------------


class HTTPClient:
    """Go's ``http.Client`` with ``http.DefaultTransport`` for a server other than the API server.

    Trust is the system's roots (``SSL_CERT_FILE``/``SSL_CERT_DIR`` as Go reads them from ``environ``), none with
    ``insecure``; proxies from ``environ`` (Go's ProxyFromEnvironment); ``timeout`` bounds each socket
    operation and connecting; ``deadline`` (a :func:`time.monotonic` instant) every request and its redirects
    together; ``keep_alive`` keeps one connection per host (else each request has its own). ``verify_hint`` is
    the flag named after a certificate that did not verify. ``clear_text_credentials=False`` drops the
    credentials on a redirect from https to plain http (golang/nethttp.Redirects). ``log`` receives one line
    per request sent (``-v 6``).
    """

    def __init__(
        self,
        environ: Mapping[str, str],
        *,
        insecure: bool = False,
        verify_hint: str = "",
        timeout: float = DEFAULT_CONNECT_TIMEOUT,
        connect_timeout: float | None = None,
        deadline: float | None = None,
        keep_alive: bool = True,
        clear_text_credentials: bool = True,
        log: Callable[[str], None] | None = None,
    ):
        self.environ = environ
        self.insecure = insecure
        self.verify_hint = verify_hint
        self.timeout = timeout
        self.connect_timeout = min(timeout, DEFAULT_CONNECT_TIMEOUT) if connect_timeout is None else connect_timeout
        self.deadline = deadline
        self.keep_alive = keep_alive
        self.clear_text_credentials = clear_text_credentials
        self.log = log
        self._tls: Any = None
        self._connections: dict[tuple[str, str, int], Connection] = {}

    def close(self) -> None:
        """Close every kept connection."""
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def __enter__(self) -> HTTPClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _context(self) -> Any:
        if self._tls is None:
            from .tls import system_trust_context

            self._tls = system_trust_context(self.environ, self.insecure)
        return self._tls

    def _connection(self, method: str, url: Reference) -> tuple[Connection, tuple[str, str, int]]:
        from ..errors import ConfigurationError

        try:
            parsed = url.url()
        except URLError as exc:
            raise RequestError(method, url.redacted(), str(exc)) from None
        if url.scheme not in ("http", "https"):
            raise RequestError(method, url.redacted(), f"unsupported protocol scheme {go_quote(url.scheme)}")
        if parsed is None:
            raise RequestError(method, url.redacted(), "http: no Host in request URL")
        if parsed.port and (len(parsed.port) > 5 or int(parsed.port) > 65535):  # Go's dialer: at most 65535
            raise RequestError(method, url.redacted(), f"dial tcp: address {parsed.port}: invalid port")
        port = int(parsed.port) if parsed.port else DEFAULT_PORTS[parsed.scheme]
        key = (parsed.scheme, parsed.host, port)
        connection = self._connections.get(key) if self.keep_alive else None
        if connection is None:
            try:
                connection = connection_to(
                    parsed,
                    proxy_for(parsed, None, self.environ),
                    tls_context=self._context() if parsed.scheme == "https" else None,
                    timeout=self.timeout,
                    connect_timeout=self.connect_timeout,
                    compression=True,  # http.DefaultTransport's DisableCompression is false
                )
            except UnsupportedProxy as exc:
                raise ConfigurationError(str(exc)) from None
            except ValueError as exc:
                raise RequestError(method, url.redacted(), str(exc)) from None
            if self.keep_alive:
                self._connections[key] = connection
        return connection, key

    def _drop(self, key: tuple[str, str, int], connection: Connection) -> None:
        connection.close()
        if self._connections.get(key) is connection:
            del self._connections[key]

    def speaks_tls(self, url: str, within: float) -> str:
        """``""`` when the server of ``url`` answers a TLS handshake within ``within`` seconds (the connection is
        kept for the next request), else why not, in Go's words. With the client's deadline passed meanwhile,
        ``""`` too: the request that follows says so."""
        from ..golang.neturl import parse_reference

        reference = parse_reference(url)
        connection, key = self._connection("GET", reference)
        handshake_ends = time.monotonic() + within
        connection.deadline = handshake_ends if self.deadline is None else min(self.deadline, handshake_ends)
        try:
            connection.connect()
        except DeadlineExceeded as exc:
            self._drop(key, connection)
            if self.deadline is not None and time.monotonic() >= self.deadline:
                return ""
            return f"no TLS answer within {within:g}s ({exc.phase})"
        except (OSError, ProtocolError, ValueError) as exc:
            self._drop(key, connection)
            return failure_reason(exc, self.verify_hint)
        if not self.keep_alive:
            self._drop(key, connection)
        return ""

    def request(
        self,
        method: str,
        url: str | Reference,
        headers: dict[str, str],
        body: Body = None,
        *,
        content_length: int | None = None,
        progress: Callable[[int], None] | None = None,
        max_body: int = MAX_BODY_BYTES,
        response_within: float | None = None,
    ) -> Answer:
        """Send a request and follow its redirects as ``http.Client.Do`` does; return the last answer.

        ``max_body`` bounds each response body; ``response_within`` gives the answer that many seconds once the
        request is sent (an upload's answer after the data). Raises :class:`RequestError` when no answer came
        (unreachable, TLS, protocol, deadline, a Location Go refuses, the 11th request).
        """
        from ..golang.nethttp import REDIRECT_STATUSES, RedirectError, Redirects

        if isinstance(url, str):
            from ..golang.neturl import parse_reference

            raw = url
            try:
                url = parse_reference(raw)
            except URLError as exc:
                raise RequestError(method, raw, f"parse {go_quote(raw)}: {exc}") from None
        redirects: Redirects | None = None
        hop_method, hop_url, hop_headers, hop_body, hop_length = method, url, headers, body, content_length
        while True:
            response = self._send(
                hop_method, hop_url, hop_headers, hop_body, hop_length, progress, max_body, response_within, method
            )
            if response.status not in REDIRECT_STATUSES:
                return Answer(response, hop_url)
            if redirects is None:
                redirects = Redirects(
                    method,
                    url,
                    headers,
                    has_body=body is not None,
                    replayable=_replayable(body),
                    clear_text_credentials=self.clear_text_credentials,
                )
            try:
                hop = redirects.follow(response.status, response.headers.get("location"))
            except RedirectError as exc:
                # url.Error names the Location for the redirect limit, the URL that sent it for a bad Location
                shown = exc.location if str(exc).startswith("stopped") else hop_url.redacted()
                raise RequestError(method, shown, str(exc), last=hop_url.redacted()) from None
            if hop is None:
                return Answer(response, hop_url)
            hop_method, hop_url, hop_headers = hop.method, hop.url, hop.headers
            hop_body, hop_length = (body, content_length) if hop.with_body else (None, None)

    def _send(
        self,
        method: str,
        url: Reference,
        headers: dict[str, str],
        body: Body,
        content_length: int | None,
        progress: Callable[[int], None] | None,
        max_body: int,
        response_within: float | None,
        first_method: str,
    ) -> Response:
        """One round trip; a kept-alive connection the server closed meanwhile is retried once on a new one, as
        Go's transport retries a request that was never answered."""
        for attempt in (1, 2):
            connection, key = self._connection(first_method, url)
            reused = connection.reusable
            connection.max_body = max_body
            connection.response_within = response_within
            try:
                response = connection.request(
                    method,
                    url.request_uri,
                    headers,
                    body,
                    content_length=content_length,
                    progress=progress,
                    deadline=self.deadline,
                )
            except DeadlineExceeded as exc:
                self._drop(key, connection)
                raise RequestError(
                    first_method, url.redacted(), failure_reason(exc), timed_out=True, deadline=True
                ) from exc
            except (ServerClosed, BrokenPipeError, ConnectionResetError) as exc:
                self._drop(key, connection)
                if reused and attempt == 1 and _replayable(body):
                    continue
                raise RequestError(first_method, url.redacted(), failure_reason(exc, self.verify_hint)) from exc
            except (OSError, ProtocolError, ValueError) as exc:
                self._drop(key, connection)
                raise RequestError(
                    first_method,
                    url.redacted(),
                    failure_reason(exc, self.verify_hint),
                    timed_out=isinstance(exc, TimeoutError),
                ) from exc
            finally:
                if not self.keep_alive:
                    self._drop(key, connection)
            if self.log:
                self.log(f"{method} {url.redacted()} {response.status} {response.reason}")
            return response
        raise AssertionError("unreachable")
