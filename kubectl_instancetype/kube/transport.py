"""Keep-alive HTTPS to one API server with the standard library's ``ssl`` and :mod:`.http`, JSON only.

urllib3 (~50 ms) and ``http.client`` (~19 ms, most of it the ``email`` package) cost more import time than
a list request to a local API server takes; every request reuses one connection, and connection-level
failures are mapped to kubectl's messages (see :mod:`.errors`).

What client-go does around a request is done here too: ``--request-timeout`` is one deadline for the
whole request (connect, send, every read), 429 and 5xx answers with ``Retry-After`` are retried up to
10 times, redirects are followed as Go's ``http.Client`` follows them, proxies come from the kubeconfig
or from ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY`` read as ``golang.org/x/net/http/httpproxy`` reads them.
"""

from __future__ import annotations

import time

from .. import __version__
from ..errors import ConfigurationError, PluginError, TransportError
from ..golang.neturl import DEFAULT_PORTS, URL, URLError, parse_url
from . import errors as kube_errors
from .http import (
    DEFAULT_CONNECT_TIMEOUT,
    BodyTooLarge,
    Connection,
    DeadlineExceeded,
    ProtocolError,
    Response,
    ServerClosed,
    proxy_for,
)
from .kubeconfig import ClusterConfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping
    from typing import Any

    from .http import Body

USER_AGENT = f"kubectl-instancetype/{__version__}"
MAX_RETRIES = 10  # client-go's rest.Request default maxRetries
REDIRECTS = (301, 302, 303, 307, 308)  # golang/nethttp.REDIRECT_STATUSES, without its import on every request
# The longest line of a streamed body (one watch event: an object, which etcd keeps under 1.5 MiB, in JSON).
MAX_STREAM_LINE = 16 << 20


# --- The server URL, as client-go's DefaultServerURL reads it ------------------------------------------------


def parse_server_url(server: str) -> URL:
    """The API server URL as client-go's ``DefaultServerURL`` reads it, refused before any connection.

    Messages are client-go's and Go's: ``host must be a URL or a host:port pair: "<server>"`` for what it
    cannot read, ``dial tcp: address 99999: invalid port`` for a port out of range, ``unsupported protocol
    scheme "ftp"`` for a scheme other than http/https.
    """
    if not server:
        raise ConfigurationError("host must be a URL or a host:port pair")
    url: URL | None
    try:
        url = parse_url(server)
    except URLError:
        url = None
    if url is None or not (url.host or url.port):
        try:
            url = parse_url("https://" + server)
        except URLError as exc:
            raise TransportError(str(exc)) from exc
        if url is None or url.path not in ("", "/"):
            from ..golang.strconv import go_quote  # loaded only for a failure's message

            raise ConfigurationError(f"host must be a URL or a host:port pair: {go_quote(server)}")
    if url.scheme not in ("http", "https"):
        from ..golang.strconv import go_quote  # loaded only for a failure's message

        raise TransportError(f"unsupported protocol scheme {go_quote(url.scheme)}")
    if url.port and (len(url.port) > 5 or int(url.port) > 65535):  # Go's dialer: a port is at most 65535
        raise TransportError(f"dial tcp: address {url.port}: invalid port")
    return url


def split_url(url: str) -> tuple[str, str, int, str]:
    """``scheme://host:port/path`` -> (scheme, host, port, path without the trailing slash)."""
    parsed = parse_server_url(url)
    port = int(parsed.port) if parsed.port else DEFAULT_PORTS[parsed.scheme]
    return parsed.scheme, parsed.host, port, parsed.path.rstrip("/")


def _retry_after(response: Response) -> int | None:
    """client-go's checkWait: seconds to wait for a 429 or 5xx answer with an integer Retry-After."""
    if response.status != 429 and response.status < 500:
        return None
    value = response.headers.get("retry-after", "")
    text = value[1:] if value[:1] in "+-" else value
    if not text or not text.isdigit() or not text.isascii():
        return None
    return int(value)


def _replayable(body: Body) -> bool:
    return body is None or isinstance(body, (bytes, bytearray, memoryview))


# compiled by re when a response first carries a Warning header (at import it cost every request 1.2M instructions)
_WARNING = r'\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,|$)'


def parse_warnings(header: str) -> list[str]:
    """The texts of a ``Warning`` header's code-299 warnings (``299 - "text"``, comma-separated), as client-go's
    ``ParseWarningHeaders`` reads them; a malformed rest is ignored."""
    import re

    texts = []
    position = 0
    pattern = re.compile(_WARNING)
    while position < len(header):
        match = pattern.match(header, position)
        if match is None:
            break
        if match.group(1) == "299":
            texts.append(re.sub(r"\\(.)", r"\1", match.group(3)))
        position = match.end()
    return texts


class Transport:
    """One keep-alive connection to the API server, speaking JSON."""

    def __init__(
        self, config: ClusterConfig, environ: dict[str, str] | None = None, log: Callable[[str], None] | None = None
    ):
        self.config = config
        self.log = log
        self.url = parse_server_url(config.server)
        self.scheme, self.host = self.url.scheme, self.url.host
        self.port = int(self.url.port) if self.url.port else DEFAULT_PORTS[self.scheme]
        self.base_path = self.url.path.rstrip("/")
        self.host_port = self.url.host_port
        self.environ = environ
        self.proxy = proxy_for(self.url, config.proxy_url, environ)
        # Impersonate-* lines on every request (redirects included, as Go copies a request's headers)
        self.impersonation_headers: list[tuple[str, str]] = (
            config.impersonation.headers() if config.impersonation is not None else []
        )
        self._connection: Connection | None = None
        self._tls: Any = None
        self.shared_tls: Any = None  # a fleet's tls.SharedContexts: one SSL context per CA and client pair
        self.requests_sent = 0
        self.content_type = ""  # of the last answer returned as bytes (raw), for the messages of its decoding
        self.sleep: Callable[[float], None] = time.sleep  # tests replace it with a fake clock
        # The server's Warning headers (admission webhooks' warnings, deprecations), each shown once, as
        # kubectl's warning writer with deduplication shows them (k8s.io/client-go/rest/warnings.go).
        self.warn: Callable[[str], None] | None = None
        self._warned: set[str] = set()

    def _connect(self, url: URL | None = None) -> Connection:
        from .http import UnsupportedProxy, connection_to

        url = url or self.url
        proxy = self.proxy if url is self.url else proxy_for(url, self.config.proxy_url, self.environ)
        try:
            return connection_to(
                url,
                proxy,
                tls_context=self.prepare_tls() if url.scheme == "https" else None,
                server_hostname=self.config.tls_server_name or None,
                timeout=None,
                connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                # client-go's transport asks for gzip unless the cluster's disable-compression says not to
                compression=not self.config.disable_compression,
            )
        except UnsupportedProxy as exc:
            raise ConfigurationError(str(exc)) from None
        except ValueError as exc:
            raise TransportError(str(exc)) from None

    def prepare_tls(self) -> Any:
        """The SSL context for the server (built once, from the kubeconfig), or None for plain HTTP."""
        if self._tls is None and self.url.scheme == "https":
            from .tls import build_ssl_context

            shared = self.shared_tls
            self._tls = shared.get(self.config) if shared is not None else build_ssl_context(self.config)
        return self._tls

    def share_tls(self, other: Transport) -> None:
        """Use ``other``'s SSL context: same kubeconfig, same verification, one CA load."""
        self._tls = other._tls

    @property
    def connection(self) -> Connection | None:
        """The kept-alive connection to the API server (None before the first request and after :meth:`close`)."""
        return self._connection

    def close(self) -> None:
        """Close the kept-alive connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def deadline(self) -> float | None:
        """The instant a request started now must end by (``--request-timeout``), or None."""
        timeout = self.config.request_timeout
        return time.monotonic() + timeout if timeout else None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bool = False,
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        content_length: int | None = None,
        progress: Callable[[int], None] | None = None,
        deadline: float | None = None,
        stream: bool = False,
    ) -> Any:
        """Send one request and return the decoded JSON object (the bytes with ``raw``); raise a mapped error.
        With ``stream`` (a GET), a successful answer's body is returned as an iterator of the byte pieces as they
        arrive (:meth:`stream_body`), to be read to its end before the next request.

        ``body`` is a JSON document (dict or list), bytes sent as they are, or a binary file object or an
        iterator of byte chunks streamed with ``content_length`` (a stream is never retried nor replayed
        on a redirect, as client-go does not retry an opaque reader). ``content_type`` defaults to
        application/json for documents and application/octet-stream for bytes and streams; ``headers`` are
        added as given; ``progress`` receives the bytes sent so far. ``deadline`` (a monotonic instant)
        overrides the one ``--request-timeout`` sets for this request.
        """
        request_headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        payload: Body = None
        if body is not None:
            if isinstance(body, (dict, list)):
                import json  # here: reads send no body

                payload = json.dumps(body, separators=(",", ":")).encode()
                request_headers["Content-Type"] = content_type or "application/json"
            else:
                payload = body
                request_headers["Content-Type"] = content_type or "application/octet-stream"
        elif content_type:
            request_headers["Content-Type"] = content_type
        if headers:
            request_headers.update(headers)
        if deadline is None:
            deadline = self.deadline()
        try:
            response = self._with_retries(
                method, path, request_headers, payload, content_length, progress, deadline, stream
            )
        except DeadlineExceeded as exc:
            self.close()
            raise kube_errors.timeout_error(exc.phase) from exc
        if stream:
            return self.stream_body(method, path, response)
        return self._decode(method, path, response, raw)

    def stream_body(self, method: str, path: str, response: Response) -> Iterator[bytes]:
        """The body of a successful streamed answer in pieces (read whole when it came from a redirect to another
        origin); an answer outside 2xx raises its mapped error here, before any piece. A failure while reading is
        mapped as every transport failure and not retried: client-go's withRetry looks only at the answer's
        headers, and its body is read after (rest.Request.transformResponse)."""
        self._decode(method, path, response, True)
        connection = self._connection
        if connection is None or not connection.body_pending:
            return iter((response.body,) if response.body else ())
        return self._pieces(connection)

    def _pieces(self, connection: Connection) -> Iterator[bytes]:
        try:
            yield from connection.body_pieces()
        except (OSError, ProtocolError, ValueError) as exc:  # DeadlineExceeded is a TimeoutError, an OSError
            self.close()
            raise kube_errors.transport_error(exc, self.url.host, self.url.host_port) from exc

    def stream_lines(self, path: str, *, deadline: float | None = None) -> Iterator[bytes]:
        """GET ``path`` as a stream (a watch) on a connection of its own and yield the body's lines as they arrive
        (each at most MAX_STREAM_LINE bytes), through the same TLS, credentials, impersonation and proxy as every
        request. An answer outside 2xx raises the mapped API error. Reaching ``deadline`` (``--request-timeout``
        unless given) ends the stream quietly, as client-go's watch ends when its request times out; so does the
        server closing it. Redirects are not followed (the API server does not redirect watches)."""
        if deadline is None:
            deadline = self.deadline()
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        authorization = self._authorization()
        if authorization:
            headers["Authorization"] = authorization
        shown = f"{self.url.scheme}://{self.url.authority}{self.base_path}{path}"
        started = time.monotonic()
        connection = self._connect()
        try:
            try:
                response = connection.open_stream(
                    self.base_path + path, headers, deadline=deadline, repeated=self.impersonation_headers
                )
            except DeadlineExceeded as exc:
                raise kube_errors.timeout_error(exc.phase) from exc
            except (OSError, ProtocolError, ValueError) as exc:
                raise kube_errors.transport_error(exc, self.url.host, self.url.host_port) from exc
            self.requests_sent += 1
            if self.log:
                elapsed = int((time.monotonic() - started) * 1000)
                self.log(f"GET {shown} {response.status} {response.reason} in {elapsed} milliseconds")
            if response.status < 200 or response.status > 206:
                raise kube_errors.api_error(
                    response.status, response.body, "GET", path, response.headers.get("content-type")
                )
            try:
                yield from connection.stream_lines(MAX_STREAM_LINE)
            except DeadlineExceeded:
                return
            except BodyTooLarge as exc:
                from .http import human_size

                raise kube_errors.ResponseError(
                    f"a watch event from the server is larger than {human_size(exc.limit)}; stopped watching"
                ) from exc
            except (OSError, ProtocolError) as exc:
                raise kube_errors.transport_error(exc, self.url.host, self.url.host_port) from exc
        finally:
            connection.close()

    def _with_retries(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        payload: Body,
        content_length: int | None,
        progress: Callable[[int], None] | None,
        deadline: float | None,
        stream: bool = False,
    ) -> Response:
        """client-go's withRetry: a 429/5xx answer with Retry-After, or a GET cut off by EOF or a connection
        reset, is sent again, up to 10 times."""
        attempt = 0
        while True:
            try:
                response, url = self._follow(method, path, headers, payload, content_length, progress, deadline, stream)
            except _RetryableFailure as failure:
                # client-go retries a GET that ended in EOF or a connection reset as if told Retry-After: 1.
                if attempt >= MAX_RETRIES:
                    raise failure.error from failure.__cause__
                wait, url = 1, failure.url
            else:
                told = _retry_after(response)
                if told is None or attempt >= MAX_RETRIES or not _replayable(payload):
                    return response
                wait = told
            attempt += 1
            delay = max(wait, 0)
            if deadline is not None and time.monotonic() + delay >= deadline:
                self.sleep(max(deadline - time.monotonic(), 0))
                raise DeadlineExceeded("headers")
            self.sleep(delay)
            if self.log:
                from ..golang.duration import duration_string

                # client-go's withRetry.Before logs this line once it has waited (klog's structured shape).
                delay_text = duration_string(wait * 1_000_000_000)
                self.log(f'"Got a Retry-After response" delay="{delay_text}" attempt={attempt} url="{url}"')

    def _follow(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        payload: Body,
        content_length: int | None,
        progress: Callable[[int], None] | None,
        deadline: float | None,
        stream: bool = False,
    ) -> tuple[Response, str]:
        """One request and the redirects Go's http.Client follows after it (golang/nethttp.Redirects: at most 10,
        Location resolved by RFC 3986, 301/302/303 to GET, credentials kept for the same host or a subdomain)."""
        url, target = self.url, self.base_path + path
        authorization = self._authorization()
        send = dict(headers)
        if authorization:
            send["Authorization"] = authorization
        shown = f"{url.scheme}://{url.authority}{target}"
        response = self._send(url, method, target, send, payload, content_length, progress, deadline, shown, stream)
        if response.status not in REDIRECTS or not response.headers.get("location"):
            return response, shown  # the request almost every command sends: nothing more to do
        from ..golang.nethttp import RedirectError, Redirects
        from ..golang.neturl import parse_reference

        redirects = Redirects(
            method, parse_reference(shown), send, has_body=payload is not None, replayable=_replayable(payload)
        )
        while True:
            try:
                hop = redirects.follow(response.status, response.headers.get("location"))
            except RedirectError as exc:
                raise TransportError(str(exc)) from None
            if hop is None:
                return response, shown
            if hop.url.scheme not in ("http", "https"):
                from ..golang.strconv import go_quote  # loaded only for a failure's message

                raise TransportError(f"unsupported protocol scheme {go_quote(hop.url.scheme)}")
            try:
                next_url = hop.url.url()
            except URLError as exc:
                raise TransportError(str(exc)) from None
            if next_url is None:
                raise TransportError("http: no Host in request URL")
            if (next_url.scheme, next_url.host, next_url.host_port) == (self.scheme, self.host, self.host_port):
                next_url = self.url  # the same origin: the kept-alive connection serves it
            if not hop.with_body:
                payload, content_length = None, None
            method, url, target, shown = hop.method, next_url, hop.url.request_uri, str(hop.url)
            response = self._send(
                url, method, target, hop.headers, payload, content_length, progress, deadline, shown, stream
            )

    def _authorization(self) -> str | None:
        return self.config.authorization()

    def _send(
        self,
        url: URL,
        method: str,
        target: str,
        headers: dict[str, str],
        payload: Body,
        content_length: int | None,
        progress: Callable[[int], None] | None,
        deadline: float | None,
        shown: str,
        stream: bool = False,
    ) -> Response:
        """One round trip on the kept-alive connection (another origin gets a connection of its own); ``stream``
        leaves a 2xx body unread on the kept-alive connection (another origin's is read whole)."""
        started = time.monotonic() if self.log else 0.0
        own = url is self.url
        for attempt in (1, 2):
            connection = self._connection if own else None
            try:
                if connection is None:
                    connection = self._connect(url)
                    if own:
                        self._connection = connection
                reused = connection.reusable
                try:
                    response = connection.request(
                        method,
                        target,
                        headers,
                        payload,
                        content_length=content_length,
                        progress=progress,
                        deadline=deadline,
                        repeated=self.impersonation_headers,
                        stream=stream and own,
                    )
                finally:
                    if not own:
                        connection.close()
            except DeadlineExceeded:
                raise
            except (ServerClosed, BrokenPipeError, ConnectionResetError) as exc:
                # A kept-alive connection the server closed meanwhile: retry once on a new one.
                self.close()
                if not reused or attempt == 2 or not _replayable(payload):
                    error = kube_errors.transport_error(exc, url.host, url.host_port)
                    if method == "GET":
                        raise _RetryableFailure(error, shown) from exc
                    raise error from exc
                continue
            except (OSError, ProtocolError, ValueError) as exc:
                self.close()
                raise kube_errors.transport_error(exc, url.host, url.host_port) from exc
            self.requests_sent += 1
            if self.warn is not None and "warning" in response.headers:
                for text in parse_warnings(response.headers["warning"]):
                    if text not in self._warned:
                        self._warned.add(text)
                        self.warn(text)
            if self.log:
                # kubectl -v=6 prints the same line for every request it sends.
                elapsed = int((time.monotonic() - started) * 1000)
                self.log(f"{method} {shown} {response.status} {response.reason} in {elapsed} milliseconds")
            return response
        raise AssertionError("unreachable")

    def _decode(self, method: str, path: str, response: Response, raw: bool) -> Any:
        # client-go: anything outside 200-206 is an error (a redirect it did not follow included).
        if response.status < 200 or response.status > 206:
            raise kube_errors.api_error(
                response.status, response.body, method, path, response.headers.get("content-type")
            )
        if raw:
            self.content_type = response.headers.get("content-type", "")
            return response.body
        if not response.body:
            return None
        return kube_errors.decode_object(response.body, response.headers.get("content-type", ""))


class _RetryableFailure(Exception):
    """A GET failed the way client-go retries (EOF, connection reset): carries the error to raise at the end."""

    def __init__(self, error: PluginError, url: str):
        super().__init__(error.message)
        self.error, self.url = error, url
