"""TLS settings from the kubeconfig: the SSL context that verifies (or not) exactly as the kubeconfig says.

Failures read as kubectl's (Go's ``crypto/tls`` and client-go's ``transport``) sentences. Where kubectl only
logs a client certificate file it cannot load and goes on without it, we stop: a request the user meant to
authenticate must not go out anonymously.
"""

from __future__ import annotations

import os

from ..errors import ConfigurationError
from ..golang.goos import read_file_error
from . import sockets
from .kubeconfig.model import ClusterConfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ssl
    from collections.abc import Mapping
    from typing import Any


def _write_private_temp(data: bytes) -> str:
    import tempfile  # only for client certificates given as data: tempfile pulls in random and shutil

    handle, path = tempfile.mkstemp(prefix="kubectl-instancetype-", suffix=".pem")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return path


MAX_PEM_FILE_BYTES = 16 << 20  # a CA bundle of a few hundred certificates is well under a megabyte


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_PEM_FILE_BYTES + 1)
        if len(data) > MAX_PEM_FILE_BYTES:
            raise ConfigurationError(
                f"{path} is larger than {MAX_PEM_FILE_BYTES >> 20} MiB, more than a PEM file holds"
            )
        return data
    except OSError as exc:
        raise ConfigurationError(read_file_error(path, exc)) from None


def _has_pem(data: bytes, kind: str | None = None) -> bool:
    marker = b"-----BEGIN " + (kind.encode() + b"-----" if kind else b"")
    return marker in data


def _roots(config: ClusterConfig) -> bytes | None:
    """The kubeconfig's roots (PEM), or None for the system's."""
    return config.ca_data if config.ca_data else _read(config.ca_file) if config.ca_file else None


def _load_roots(context: Any, data: bytes) -> None:
    problem = "unable to load root certificates: unable to parse bytes as PEM block"
    if not _has_pem(data, "CERTIFICATE"):
        raise ConfigurationError(problem)
    try:
        context.load_verify_locations(cadata=data.decode("ascii", "replace"))
    except (ValueError, sockets.SSLError):
        raise ConfigurationError(problem) from None


def _load_client_pair(context: Any, config: ClusterConfig) -> None:
    cert = config.client_cert_data or (_read(config.client_cert_file) if config.client_cert_file else None)
    key = config.client_key_data or (_read(config.client_key_file) if config.client_key_file else None)
    if cert is None and key is None:
        return
    if cert is None or key is None:  # resolution refuses these; never send half a pair
        raise ConfigurationError("tls: client certificate and key must both be given")
    if not _has_pem(cert):
        raise ConfigurationError("tls: failed to find any PEM data in certificate input")
    if not _has_pem(cert, "CERTIFICATE"):
        raise ConfigurationError('tls: failed to find "CERTIFICATE" PEM block in certificate input')
    if not _has_pem(key):
        raise ConfigurationError("tls: failed to find any PEM data in key input")
    # ssl reads a key pair only from files: private temporary copies (mode 0600; on Windows, where modes are not
    # enforced, in the user's own %TEMP%, which only that user can read) live for this call.
    temporary: list[str] = []
    try:
        temporary.append(_write_private_temp(cert))
        temporary.append(_write_private_temp(key))
        context.load_cert_chain(temporary[0], temporary[1])
    except sockets.SSLError as exc:
        reason = getattr(exc, "reason", "") or ""
        if reason == "KEY_VALUES_MISMATCH":  # same key type, another key
            raise ConfigurationError("tls: private key does not match public key") from None
        if reason == "NO_CERTIFICATE_ASSIGNED":  # OpenSSL's answer to a key of another type (RSA vs EC)
            raise ConfigurationError("tls: private key type does not match public key type") from None
        raise ConfigurationError("tls: failed to parse private key") from None
    except OSError as exc:
        raise ConfigurationError(f"tls: unable to use the client certificate: {exc.strerror}") from None
    finally:
        for path in temporary:
            os.unlink(path)


def system_trust_context(environ: Mapping[str, str], insecure: bool = False) -> ssl.SSLContext:
    """A context for servers other than the API server (an upload proxy, a registry): the system roots, which Go's
    crypto/x509 reads from ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set (as our ``environ`` says, not the
    process's); ``insecure`` verifies nothing. Made by ``ssl``, whose ``load_default_certs`` reads the system's
    stores (Windows') as ``_ssl`` alone does not."""
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    cafile, capath = environ.get("SSL_CERT_FILE"), environ.get("SSL_CERT_DIR")
    if cafile or capath:
        context.load_verify_locations(cafile=cafile or None, capath=(capath or "").split(":")[0] or None)
    else:
        context.load_default_certs()
    return context


class SharedContexts:
    """The SSL contexts of a fleet's sessions, one per distinct trust and client certificate (the CA, the client
    pair, insecure): contexts of one cluster, or of servers signed by one CA, load and parse it once, as client-go's
    TLS cache (``k8s.io/client-go/transport/cache.go`` ``tlsTransportCache``) shares one transport per TLS
    config. A kubeconfig that cannot be used fails for each context that names it, not once for all."""

    def __init__(self) -> None:
        import threading

        self._contexts: dict[tuple[object, ...], Any] = {}
        self._lock = threading.Lock()
        self.built = 0

    def get(self, config: ClusterConfig) -> Any:
        """The context for ``config`` (built by :func:`build_ssl_context` the first time)."""
        key = (
            config.insecure,
            config.ca_data,
            config.ca_file,
            config.client_cert_data,
            config.client_cert_file,
            config.client_key_data,
            config.client_key_file,
        )
        with self._lock:
            context = self._contexts.get(key)
            if context is None:
                context = self._contexts[key] = build_ssl_context(config)
                self.built += 1
            return context


def build_ssl_context(config: ClusterConfig) -> Any:
    """An SSL context that verifies exactly as the kubeconfig says: made by :mod:`.sockets` (what
    ``ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)`` makes, without importing ``ssl``) when the kubeconfig gives the roots
    or verifies nothing, by ``ssl`` when the system's roots are needed (``load_default_certs``)."""
    roots = None if config.insecure else _roots(config)
    if config.insecure:
        context = sockets.client_context()
        context.check_hostname = False
        context.verify_mode = sockets.CERT_NONE
    elif roots is None:
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.load_default_certs()
    else:
        context = sockets.client_context()
        _load_roots(context, roots)
    _load_client_pair(context, config)
    return context
