"""Keep-alive HTTPS to one API server with the standard library (``ssl`` + ``http.client``), JSON only.

urllib3 would cost ~50 ms of import for what ``http.client`` does here; every request reuses one
connection, and connection-level failures are mapped to kubectl's messages (see :mod:`.errors`).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import tempfile
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from .. import __version__
from ..errors import ConfigurationError, TransportError
from . import errors as kube_errors
from .config import ClusterConfig

USER_AGENT = f"kubectl-instancetype/{__version__}"
DEFAULT_CONNECT_TIMEOUT = 30.0


class _TLSConnection(http.client.HTTPSConnection):
    """HTTPSConnection that sends a configured SNI name (kubeconfig ``tls-server-name``)."""

    def __init__(self, *args: Any, server_name: str | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._server_name = server_name

    def connect(self) -> None:
        # What HTTPSConnection.connect does, but with the SNI name the kubeconfig asks for.
        http.client.HTTPConnection.connect(self)
        server_hostname = self._server_name or self._tunnel_host or self.host
        self.sock = self._context.wrap_socket(self.sock, server_hostname=server_hostname)


def _write_private_temp(data: bytes) -> str:
    handle, path = tempfile.mkstemp(prefix="kubectl-instancetype-", suffix=".pem")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return path


def build_ssl_context(config: ClusterConfig) -> ssl.SSLContext:
    """An SSL context that verifies exactly as the kubeconfig says."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if config.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        try:
            if config.ca_data:
                context.load_verify_locations(cadata=config.ca_data.decode("utf-8", "replace"))
            elif config.ca_file:
                context.load_verify_locations(cafile=config.ca_file)
            else:
                context.load_default_certs()
        except (OSError, ssl.SSLError) as exc:
            raise ConfigurationError(f"unable to load the certificate authority: {exc}") from exc
    cert_file, key_file = config.client_cert_file, config.client_key_file
    temporary: list[str] = []
    try:
        if config.client_cert_data:
            cert_file = _write_private_temp(config.client_cert_data)
            temporary.append(cert_file)
        if config.client_key_data:
            key_file = _write_private_temp(config.client_key_data)
            temporary.append(key_file)
        if cert_file:
            # ssl can only read a client key pair from files; the temporary copies live
            # for the duration of this call, with mode 0600.
            context.load_cert_chain(cert_file, key_file)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigurationError(f"unable to load the client certificate: {exc}") from exc
    finally:
        for path in temporary:
            os.unlink(path)
    return context


def _proxy_for(url: str, proxy_url: str | None, environ: dict[str, str] | None) -> str | None:
    """The HTTPS proxy to use: the kubeconfig's proxy-url, else the environment (Go's rules)."""
    if proxy_url:
        return proxy_url
    environ = environ if environ is not None else dict(os.environ)
    proxy = environ.get("HTTPS_PROXY") or environ.get("https_proxy")
    if not proxy:
        return None
    host = urlsplit(url).hostname or ""
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


class Transport:
    """One keep-alive connection to the API server, speaking JSON."""

    def __init__(self, config: ClusterConfig, environ: dict[str, str] | None = None,
                 log: Callable[[str], None] | None = None):
        self.config = config
        self.log = log
        parts = urlsplit(config.server)
        if parts.scheme not in ("https", "http"):
            raise ConfigurationError(f"unsupported server URL scheme in {config.server!r}")
        self.scheme = parts.scheme
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.base_path = parts.path.rstrip("/")
        self.host_port = f"{self.host}:{self.port}" if ":" not in self.host else f"[{self.host}]:{self.port}"
        self.proxy = _proxy_for(config.server, config.proxy_url, environ)
        self._connection: http.client.HTTPConnection | None = None
        self.requests_sent = 0

    def _connect(self) -> http.client.HTTPConnection:
        timeout = self.config.request_timeout or DEFAULT_CONNECT_TIMEOUT
        target_host, target_port = self.host, self.port
        if self.proxy:
            proxy = urlsplit(self.proxy)
            if proxy.scheme not in ("http", "https"):
                raise ConfigurationError(f"proxy scheme {proxy.scheme!r} is not supported (http and https are)")
            target_host, target_port = proxy.hostname or "", proxy.port or (443 if proxy.scheme == "https" else 80)
        if self.scheme == "https":
            connection: http.client.HTTPConnection = _TLSConnection(
                target_host,
                target_port,
                timeout=timeout,
                context=build_ssl_context(self.config),
                server_name=self.config.tls_server_name,
            )
        else:
            connection = http.client.HTTPConnection(target_host, target_port, timeout=timeout)
        if self.proxy:
            connection.set_tunnel(self.host, self.port)
        return connection

    def close(self) -> None:
        """Close the kept-alive connection."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send one request and return the decoded JSON body; raise a mapped error on failure."""
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
            fresh = self._connection is None
            if fresh:
                self._connection = self._connect()
            try:
                self._connection.request(method, self.base_path + path, body=payload, headers=headers)
                response = self._connection.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                # A kept-alive connection the server closed meanwhile: retry once on a new one.
                self.close()
                if fresh or attempt == 2:
                    raise kube_errors.transport_error(exc, self) from exc
                continue
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                raise kube_errors.transport_error(exc, self) from exc
            self.requests_sent += 1
            if self.log:
                # kubectl -v=6 prints the same line for every request it sends.
                elapsed = int((time.monotonic() - started) * 1000)
                self.log(f"{method} {self.config.server}{path} {response.status} {response.reason} "
                         f"in {elapsed} milliseconds")
            if response.status >= 400:
                raise kube_errors.api_error(response.status, data, method, path)
            if not data:
                return None
            try:
                return json.loads(data)
            except ValueError as exc:
                raise TransportError(f"the server sent a response that is not JSON ({len(data)} bytes)") from exc
        raise AssertionError("unreachable")
