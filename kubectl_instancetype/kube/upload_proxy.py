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
from .http import Response
from .httpclient import HTTPClient, RequestError

MAX_ANSWER_BYTES = 1 << 20  # an upload proxy's answer: a status line's worth of text


class ProxyConnections:
    """HTTPS to the upload proxy, a server other than the API server: trust as virtctl's ``GetHTTPClient``, over the
    one request layer (:class:`~.httpclient.HTTPClient`: Go's redirects, proxies, bounded answers).

    ``--insecure`` skips verification; otherwise the system roots (and ``SSL_CERT_FILE``/``SSL_CERT_DIR`` as Go
    reads them) verify the proxy; the kubeconfig's CA is not used, as in virtctl. ``HTTPS_PROXY``/``NO_PROXY``
    apply as Go's default transport applies them. Each request gets a connection of its own, bounded by
    ``timeout`` seconds without progress; once the data is sent, the whole answer must come within ``timeout``.
    """

    # what a request may raise when the proxy cannot be reached, speaks no HTTP or redirects without end
    FAILURES: tuple[type[Exception], ...] = (RequestError,)

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
        self.http = HTTPClient(environ, insecure=insecure, verify_hint="--insecure", timeout=timeout, keep_alive=False)

    def request(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: Any = None,
        *,
        content_length: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> Response:
        """One request (and the redirects Go's http.Client follows) on fresh connections; returns the answer, raises
        :class:`~.httpclient.RequestError`."""
        # the proxy answers in a few words: more is refused; and once the image is sent, the whole answer must
        # come within --wait-secs (a proxy trickling a byte at a time defeats a per-read timeout)
        answer = self.http.request(
            method,
            url,
            headers,
            body,
            content_length=content_length,
            progress=progress,
            max_body=MAX_ANSWER_BYTES,
            response_within=self.timeout,
        )
        return answer.response

    def describe(self, exc: BaseException) -> str:
        """Go's words for a failed request to the proxy (after ``Post "URL": ``)."""
        if isinstance(exc, RequestError):
            if exc.timed_out:
                return f"no answer from the upload proxy within {self.timeout:g}s (--wait-secs)"
            return exc.reason
        return str(exc) or type(exc).__name__
