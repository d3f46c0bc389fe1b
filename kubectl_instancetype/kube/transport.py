"""Keep-alive HTTPS to one API server with the standard library's ``ssl`` and :mod:`.http`, JSON only.

urllib3 (~50 ms) and ``http.client`` (~19 ms, most of it the ``email`` package) cost more import time than
a list request to a local API server takes; every request reuses one connection, and connection-level
failures are mapped to kubectl's messages (see :mod:`.errors`).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

from .. import __version__
from ..errors import ConfigurationError, TransportError
from . import errors as kube_errors
from .config import ClusterConfig
from .http import Connection, ProtocolError, ServerClosed
from .tls import build_ssl_context

USER_AGENT = f"kubectl-instancetype/{__version__}"
DEFAULT_CONNECT_TIMEOUT = 30.0


def _proxy_for(url: str, proxy_url: str | None, environ: dict[str, str] | None) -> str | None:
    """The HTTPS proxy to use: the kubeconfig's proxy-url, else the environment (Go's rules)."""
    if proxy_url:
        return proxy_url
    environ = environ if environ is not None else dict(os.environ)
    proxy = environ.get("HTTPS_PROXY") or environ.get("https_proxy")
    if not proxy:
        return None
    host = split_url(url)[1]
    # Go never proxies requests to localhost or loopback addresses.
    if host == "localhost" or host.startswith("127.") or host == "::1":
        return None
    no_proxy = environ.get("NO_PROXY") or environ.get("no_proxy") or ""
    for entry in (item.strip() for item in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*" or host == entry.lstrip(".") or host.endswith("." + entry.lstrip(".")):
            return None
    return proxy


def split_url(url: str) -> tuple[str, str, int, str]:
    """``scheme://host:port/path`` -> (scheme, host, port, path); IPv6 hosts in brackets."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ConfigurationError(f"the server URL {url!r} has no scheme (https://...)")
    scheme = scheme.lower()
    authority, slash, path = rest.partition("/")
    authority = authority.rpartition("@")[2]
    if authority.startswith("["):
        host, _, port_text = authority[1:].partition("]")
        port_text = port_text.lstrip(":")
    else:
        host, _, port_text = authority.partition(":")
    try:
        port = int(port_text) if port_text else (443 if scheme == "https" else 80)
    except ValueError as exc:
        raise ConfigurationError(f"invalid port in the URL {url!r}") from exc
    return scheme, host, port, (slash + path).rstrip("/")


class Transport:
    """One keep-alive connection to the API server, speaking JSON."""

    def __init__(
        self, config: ClusterConfig, environ: dict[str, str] | None = None, log: Callable[[str], None] | None = None
    ):
        self.config = config
        self.log = log
        self.scheme, self.host, self.port, self.base_path = split_url(config.server)
        if self.scheme not in ("https", "http"):
            raise ConfigurationError(f"unsupported server URL scheme in {config.server!r}")
        self.host_port = f"{self.host}:{self.port}" if ":" not in self.host else f"[{self.host}]:{self.port}"
        self.proxy = _proxy_for(config.server, config.proxy_url, environ)
        self._connection: Connection | None = None
        self.requests_sent = 0

    def _connect(self) -> Connection:
        # kubectl: --request-timeout bounds every request; without it only connecting is bounded.
        timeout = self.config.request_timeout or None
        target_host, target_port, tunnel = self.host, self.port, None
        if self.proxy:
            proxy_scheme, target_host, target_port, _ = split_url(self.proxy)
            if proxy_scheme != "http":
                raise ConfigurationError(f"proxy scheme {proxy_scheme!r} is not supported (http:// proxies are)")
            tunnel = (self.host, self.port)
        tls = build_ssl_context(self.config) if self.scheme == "https" else None
        return Connection(
            target_host,
            target_port,
            timeout=timeout,
            connect_timeout=timeout or DEFAULT_CONNECT_TIMEOUT,
            tls_context=tls,
            server_hostname=self.config.tls_server_name or None,
            tunnel=tunnel,
        )

    def close(self) -> None:
        """Close the kept-alive connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def request(self, method: str, path: str, body: Any = None, *, raw: bool = False) -> Any:
        """Send one request and return the decoded JSON body (the bytes with ``raw``); raise a mapped error."""
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        authorization = self.config.authorization()
        if authorization:
            headers["Authorization"] = authorization
        payload = None
        if body is not None:
            payload = json.dumps(body, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        started = time.monotonic() if self.log else 0.0
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = self._connect()
            reused = self._connection.reusable
            try:
                response = self._connection.request(method, self.base_path + path, headers, payload)
            except (ServerClosed, BrokenPipeError, ConnectionResetError) as exc:
                # A kept-alive connection the server closed meanwhile: retry once on a new one.
                self.close()
                if not reused or attempt == 2:
                    raise kube_errors.transport_error(exc, self) from exc
                continue
            except (OSError, ProtocolError) as exc:
                self.close()
                raise kube_errors.transport_error(exc, self) from exc
            self.requests_sent += 1
            if self.log:
                # kubectl -v=6 prints the same line for every request it sends.
                elapsed = int((time.monotonic() - started) * 1000)
                self.log(
                    f"{method} {self.config.server}{path} {response.status} {response.reason} in {elapsed} milliseconds"
                )
            if response.status >= 400:
                raise kube_errors.api_error(response.status, response.body, method, path)
            if raw:
                return response.body
            if not response.body:
                return None
            try:
                return json.loads(response.body)
            except ValueError as exc:
                raise TransportError(
                    f"the server sent a response that is not JSON ({len(response.body)} bytes)"
                ) from exc
        raise AssertionError("unreachable")
