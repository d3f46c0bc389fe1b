"""Connections to CDI's upload proxy (``upload``): a server other than the API server, trusted as virtctl trusts it.

virtctl's ``GetHTTPClient`` (kubevirt.io/kubevirt/pkg/virtctl/imageupload) builds a plain ``http.Client``: the
system roots (``SSL_CERT_FILE``/``SSL_CERT_DIR`` as Go reads them) or, with ``--insecure``, no verification;
``HTTPS_PROXY``/``NO_PROXY`` as Go's default transport applies them. Made by the Session
(:meth:`~.session.Session.upload_proxy`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import UsageError
from .http import ProtocolError

MAX_ANSWER_BYTES = 1 << 20  # an upload proxy's answer: a status line's worth of text


class ProxyConnections:
    """HTTPS to the upload proxy, a server other than the API server: trust as virtctl's ``GetHTTPClient``.

    ``--insecure`` skips verification; otherwise the system roots (and ``SSL_CERT_FILE``/``SSL_CERT_DIR`` as Go
    reads them) verify the proxy; the kubeconfig's CA is not used, as in virtctl. ``HTTPS_PROXY``/``NO_PROXY``
    apply as Go's default transport applies them. Each request gets a connection of its own, bounded by
    ``timeout`` seconds without progress.
    """

    # what a request may raise when the proxy cannot be reached or speaks no HTTP
    FAILURES = (OSError, ProtocolError, ValueError)

    def __init__(self, base: str, insecure: bool, environ: Mapping[str, str], timeout: float):
        from ..golang.neturl import parse_url

        self.base = base
        parsed = parse_url(base)
        if parsed is None or not parsed.host:
            raise UsageError(f'parse "{base}": invalid URL')
        self.url = parsed
        self.insecure = insecure
        self.environ = environ
        self.timeout = timeout
        self._tls: Any = None

    def _context(self) -> Any:
        from .tls import system_trust_context

        if self._tls is None:
            self._tls = system_trust_context(self.environ, self.insecure)
        return self._tls

    def request(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: Any = None,
        *,
        content_length: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> Any:
        """One request on a fresh connection; returns :class:`~..kube.http.Response`, raises OSError-likes."""
        from ..golang.neturl import DEFAULT_PORTS, parse_url
        from .http import Connection
        from .transport import proxy_authorization, proxy_for

        target = parse_url(url)
        assert target is not None
        port = int(target.port) if target.port else DEFAULT_PORTS[target.scheme]
        host, connect_port = target.host, port
        tunnel, absolute, authorization = None, None, None
        proxy = proxy_for(target, None, self.environ)
        if proxy is not None:
            if proxy.port and (len(proxy.port) > 5 or int(proxy.port) > 65535):
                raise ValueError(f"proxyconnect tcp: dial tcp: address {proxy.port}: invalid port")  # Go's dialer
            host, connect_port = proxy.host, int(proxy.port) if proxy.port else 80
            authorization = proxy_authorization(proxy)
            if target.scheme == "https":
                tunnel = (target.host, port)
            else:
                absolute = f"http://{target.authority}"
        connection = Connection(
            host,
            connect_port,
            timeout=self.timeout,
            connect_timeout=min(self.timeout, 30.0),
            tls_context=self._context() if target.scheme == "https" else None,
            tunnel=tunnel,
            proxy_authorization=authorization,
            absolute_form=absolute,
            # the proxy answers in a few words: more is refused; and once the image is sent, the whole answer must
            # come within --wait-secs (a proxy trickling a byte at a time defeats a per-read timeout)
            max_body=MAX_ANSWER_BYTES,
            response_within=self.timeout,
        )
        path = target.path or "/"
        query = url.partition("?")[2]
        try:
            return connection.request(
                method,
                path + (f"?{query}" if query else ""),
                headers,
                body,
                content_length=content_length,
                progress=progress,
            )
        finally:
            connection.close()

    def describe(self, exc: BaseException) -> str:
        """Go's words for a failed request to the proxy (after ``Post "URL": ``)."""
        return describe_failure(exc, self.timeout)


def describe_failure(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer from the upload proxy within {timeout:g}s (--wait-secs)"
    if isinstance(exc, ConnectionRefusedError):
        return "connect: connection refused"
    import ssl

    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"tls: failed to verify certificate: {exc.verify_message} (--insecure skips verification)"
    return str(exc) or type(exc).__name__
