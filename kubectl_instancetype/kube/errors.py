"""The one mapping from HTTP failures and Kubernetes ``Status`` objects to the plugin's errors.

It knows the transport only through the values it is given (host names, the failure's phase), so it never
imports :mod:`.transport`. Every message is kubectl's (client-go, apimachinery or Go's net/http) where
kubectl has one.
"""

from __future__ import annotations

from ..errors import (
    APIError,
    ConnectionRefused,
    ForbiddenError,
    NotFoundError,
    PluginError,
    TransportError,
    UnauthorizedError,
    UploadError,
)
from . import jsonscan, sockets
from .http import (
    BodyReadError,
    BodyTooLarge,
    ContentLengthMismatch,
    DeadlineExceeded,
    InvalidHeader,
    ProtocolError,
    ProxyRefused,
    human_size,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# apimachinery's NewGenericServerResponse: reason and message for a status without a Status body.
_GENERIC = {
    400: ("BadRequest", "the server rejected our request for an unknown reason"),
    401: ("Unauthorized", "the server has asked for the client to provide credentials"),
    403: ("Forbidden", "the server does not allow access to the requested resource"),
    404: ("NotFound", "the server could not find the requested resource"),
    405: ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
    406: ("NotAcceptable", "the server was unable to respond with a content type that the client supports"),
    409: ("Conflict", "the server reported a conflict"),
    422: ("Invalid", "the server rejected our request due to an error in our request"),
    429: ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: (
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
    ),
}

_CLASSES = {401: UnauthorizedError, 403: ForbiddenError, 404: NotFoundError}


# client-go's transformResponse wording when the body of an answer could not be read.
READ_BODY_FAILED = "unexpected error when reading response body. Please retry. Original error: "
# Go's http.Client.Timeout errors, by the phase the deadline passed in (kubectl prints them verbatim).
TIMEOUTS = {
    "connect": "net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)",
    "headers": "net/http: request canceled (Client.Timeout exceeded while awaiting headers)",
    "body": "net/http: request canceled (Client.Timeout or context cancellation while reading body)",
}
# Python's limit on the digits of an int parsed from text (sys.int_info.default_max_str_digits).
MAX_INT_DIGITS = 4300


class ResponseError(PluginError):
    """The server answered, but with something that is not a Kubernetes API answer."""


def _is_text(content_type: str | None) -> bool:
    """client-go's isTextResponse: no Content-Type, or a text/* media type."""
    if not content_type:
        return True
    return content_type.split(";", 1)[0].strip().lower().startswith("text/")


def api_error(status: int, body: bytes, method: str, path: str, content_type: str | None = None) -> APIError:
    """Build the error for an HTTP error answer, preferring the server's own ``Status`` object.

    Without one, apimachinery's NewGenericServerResponse: a fixed sentence per code, the server's text
    only for 403, 406, 415 and (quoted) other 5xx codes, as kubectl prints them.
    """
    cls = _CLASSES.get(status, APIError)
    from ..golang import k8sproto

    document: Any
    if body.startswith(k8sproto.MAGIC):  # the Status of a request that asked for protobuf
        document = k8sproto.status(body)
    else:
        try:
            document = jsonscan.loads(body) if body else None
        except (ValueError, RecursionError):
            document = None
    if isinstance(document, dict) and document.get("kind") == "Status":
        details = document.get("details") or {}
        if not isinstance(details, dict):
            details = {}
        reason = str(document.get("reason") or "")
        message = str(document.get("message") or _GENERIC.get(status, ("", ""))[1])
        causes = details.get("causes") or []
        return cls(
            status,
            message,
            reason=reason,
            kind=str(details.get("kind", "")),
            name=str(details.get("name", "")),
            causes=[cause for cause in causes if isinstance(cause, dict)] if isinstance(causes, list) else [],
        )
    server_message = "unknown"
    if _is_text(content_type):
        server_message = body[:2048].decode("utf-8", "replace").strip()
    reason, message = _GENERIC.get(
        status, ("", f"the server responded with the status code {status} but did not return more information")
    )
    if status == 409 and method == "POST":
        reason = "AlreadyExists"
    elif status == 401:
        message = "Unauthorized"
    elif status == 403 or (status == 406 and server_message not in ("", "unknown")):
        message = server_message
    elif status == 415:
        reason, message = "UnsupportedMediaType", server_message
    elif status >= 500 and status not in _GENERIC:
        reason = "InternalError"
        from ..golang.strconv import go_quote  # loaded only for a failure's message

        message = f"an error on the server ({go_quote(server_message)}) has prevented the request from succeeding"
    return cls(status, message, reason=reason)


def timeout_error(phase: str) -> TransportError:
    """The request's deadline (``--request-timeout``) passed: Go's http.Client.Timeout wording for the phase."""
    if phase == "body":
        return ResponseReadError(READ_BODY_FAILED + TIMEOUTS["body"])
    return TransportError(TIMEOUTS.get(phase, TIMEOUTS["headers"]))


class ResponseReadError(TransportError):
    """The body of an answer could not be read (client-go's sentence, without kubectl's connect prefix)."""

    def render(self) -> str:
        return f"error: {self.message}"


def transport_error(exc: BaseException, host: str, host_port: str) -> PluginError:
    """Map a socket, TLS or HTTP protocol failure on a connection to ``host_port`` to kubectl's wording."""
    if isinstance(exc, DeadlineExceeded):
        return timeout_error(exc.phase)
    if isinstance(exc, ConnectionRefusedError):
        return ConnectionRefused(host_port)
    if isinstance(exc, sockets.SSLCertVerificationError):
        return TransportError(f"tls: failed to verify certificate: {exc.verify_message}")
    if isinstance(exc, sockets.SSLError):
        return TransportError(f"tls: {exc.reason or exc}")
    if isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError
        # Without --request-timeout only dialing is bounded (30 s); Go's dialer says i/o timeout.
        return TransportError(f"dial tcp {host_port}: i/o timeout")
    if isinstance(exc, sockets.gaierror):
        return TransportError(f"dial tcp: lookup {host}: no such host")
    if isinstance(exc, BodyTooLarge):
        # the bound in exact units: a limit under 1 MiB once read "larger than 0 MiB"
        return ResponseError(f"the server's answer is larger than {human_size(exc.limit)}; stopped reading it")
    if isinstance(exc, BodyReadError):
        return ResponseReadError(READ_BODY_FAILED + str(exc))
    if isinstance(exc, ProxyRefused):
        return TransportError(str(exc))
    if isinstance(exc, InvalidHeader):
        return TransportError(str(exc))
    if isinstance(exc, ContentLengthMismatch):
        return UploadError(str(exc))
    if isinstance(exc, ProtocolError):
        text = str(exc)
        if text.startswith("malformed HTTP"):
            text = f"net/http: HTTP/1.x transport connection broken: {text}"
        return TransportError(text)
    if isinstance(exc, OSError) and exc.strerror:
        return TransportError(f"dial tcp {host_port}: {exc.strerror.lower()}")
    return TransportError(str(exc) or exc.__class__.__name__)


def undecodable(exc: RecursionError | ValueError, size: int, content_type: str) -> ResponseError:
    """The one sentence for a body of ``size`` bytes that ``json`` could not decode (``exc``), whether it was read
    whole (:func:`decode_object`) or item by item (``liststream.ListStream``)."""
    if isinstance(exc, RecursionError):
        return ResponseError("the server sent JSON nested too deeply to decode")
    if "integer string conversion" in str(exc):
        return ResponseError(f"the server sent a number with more than {MAX_INT_DIGITS} digits, which is not decoded")
    media = content_type.split(";", 1)[0].strip() or "no Content-Type"
    return ResponseError(f"the server sent a response that is not JSON ({size} bytes, {media})")


def decode_object(body: bytes, content_type: str = "") -> dict[str, Any]:
    """The JSON object of a successful answer; anything else is one sentence, never a Python error.

    Bytes that are not UTF-8 are replaced by U+FFFD as Go's encoding/json does.
    """
    try:
        document = jsonscan.loads(body)
    except UnicodeDecodeError:
        return decode_object(body.decode("utf-8", "replace").encode(), content_type)
    except (RecursionError, ValueError) as exc:
        raise undecodable(exc, len(body), content_type) from None
    if not isinstance(document, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(document), "a number"
        )
        raise ResponseError(f"the server sent JSON that is not an object ({kind})")
    return document
