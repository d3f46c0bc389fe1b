"""The one mapping from HTTP failures and Kubernetes ``Status`` objects to the plugin's errors."""

from __future__ import annotations

import json
import socket
import ssl
from typing import TYPE_CHECKING

from ..errors import (
    APIError,
    ConnectionRefused,
    ForbiddenError,
    NotFoundError,
    TransportError,
    UnauthorizedError,
)

if TYPE_CHECKING:
    from .transport import Transport

# apimachinery's NewGenericServerResponse: reason and message for a status without a Status body.
_GENERIC = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", "the server does not allow access to the requested resource"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    406: ("NotAcceptable", "the server was unable to respond with a content type that the client supports"),
    409: ("Conflict", "the server reported a conflict"),
    410: ("Gone", "the server has asked for the client to provide credentials"),
    413: ("RequestEntityTooLarge", "the server has rejected the request because it is too large"),
    415: ("UnsupportedMediaType", "the server was unable to respond with a content type that the client supports"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    500: ("InternalError", "an error on the server has prevented the request from succeeding"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: (
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
    ),
}

_CLASSES = {401: UnauthorizedError, 403: ForbiddenError, 404: NotFoundError}


def api_error(status: int, body: bytes, method: str, path: str) -> APIError:
    """Build the error for an HTTP error answer, preferring the server's own ``Status`` object."""
    cls = _CLASSES.get(status, APIError)
    try:
        document = json.loads(body) if body else None
    except ValueError:
        document = None
    if isinstance(document, dict) and document.get("kind") == "Status":
        details = document.get("details") or {}
        reason = document.get("reason") or ""
        message = document.get("message") or _GENERIC.get(status, ("", ""))[1]
        return cls(
            status,
            message,
            reason=reason,
            kind=details.get("kind", ""),
            name=details.get("name", ""),
            causes=details.get("causes") or [],
        )
    reason, message = _GENERIC.get(
        status, ("", f"an error on the server (HTTP {status}) has prevented the request from succeeding")
    )
    if status == 401:
        message = "Unauthorized"
    elif body and len(body) < 512 and status not in (403, 404):
        message = f"{message} ({body.decode('utf-8', 'replace').strip()})"
    return cls(status, message, reason=reason)


def transport_error(exc: BaseException, transport: Transport) -> TransportError:
    """Map a socket, TLS or HTTP protocol failure to kubectl's wording."""
    if isinstance(exc, ConnectionRefusedError):
        return ConnectionRefused(transport.host_port)
    if isinstance(exc, ssl.SSLCertVerificationError):
        return TransportError(f"tls: failed to verify certificate: {exc.verify_message}")
    if isinstance(exc, ssl.SSLError):
        return TransportError(f"tls: {exc.reason or exc}")
    if isinstance(exc, (socket.timeout, TimeoutError)):
        timeout = transport.config.request_timeout
        limit = f" within {timeout:g}s" if timeout else ""
        return TransportError(f"the server {transport.host_port} did not answer{limit} (request timed out)")
    if isinstance(exc, socket.gaierror):
        return TransportError(f"dial tcp: lookup {transport.host}: no such host")
    if isinstance(exc, OSError) and exc.strerror:
        return TransportError(f"dial tcp {transport.host_port}: {exc.strerror.lower()}")
    return TransportError(str(exc) or exc.__class__.__name__)
