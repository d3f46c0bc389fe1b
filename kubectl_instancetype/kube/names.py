"""Names and namespaces checked before they reach a URL, with apimachinery's and client-go's messages.

client-go refuses a namespace or a resource name that is not a valid path segment before sending
(``invalid namespace "a/b": [may not contain '/']``); the API server refuses object names that are not DNS-1123
subdomains and namespaces that are not DNS-1123 labels. Checking both here means ``-n ..``, ``-n a/b`` or
``%2e%2e`` never become a different URL, and a bad ``--name`` costs no round trip.
"""

from __future__ import annotations

from ..golang.validation import dns1123_label_errors, dns1123_subdomain_errors, path_segment_errors

# typing only to type checkers: the list path imports no typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    Protocol = object


class Resource(Protocol):
    """What the messages need of a :class:`~.resources.Resource` (no import back: resources imports this)."""

    @property
    def kind(self) -> str:
        """The resource's kind, as the API server names it in messages."""
        ...


def _go_list(messages: list[str]) -> str:
    return "[" + " ".join(messages) + "]"


def invalid_path_segment(what: str, value: str) -> str | None:
    """client-go's message for a namespace (``what="namespace"``) or name (``"resource name"``) that is not a
    valid path segment, or None."""
    errors = path_segment_errors(value)
    if not errors:
        return None
    from ..golang.strconv import go_quote  # loaded only for a failure's message

    return f"invalid {what} {go_quote(value)}: {_go_list(errors)}"


def invalid_namespace(namespace: str) -> str | None:
    """Why ``namespace`` cannot be used (client-go's path-segment message first, then RFC 1123), or None."""
    segment = invalid_path_segment("namespace", namespace)
    if segment:
        return segment
    errors = dns1123_label_errors(namespace)
    if not errors:
        return None
    from ..golang.strconv import go_quote  # loaded only for a failure's message

    return f"invalid namespace {go_quote(namespace)}: {'; '.join(errors)}"


def invalid_object_messages(manifest: dict[str, Any], resource: Resource) -> str:
    """The API server's ``Invalid`` message for the name of ``manifest`` (empty when it would be accepted).

    Custom resources (and the core kinds the plugin creates) need DNS-1123 subdomain names.
    """
    from ..golang.strconv import go_quote  # create's path loads it anyway (the flags' ParseInt)

    metadata = manifest.get("metadata") or {}
    name = str(metadata.get("name") or "")
    problems = []
    if name:
        problems += [
            f"metadata.name: Invalid value: {go_quote(name)}: {message}" for message in path_segment_errors(name)
        ]
        if not problems:
            problems += [
                f"metadata.name: Invalid value: {go_quote(name)}: {message}"
                for message in dns1123_subdomain_errors(name)
            ]
    elif not metadata.get("generateName"):
        problems.append("metadata.name: Required value: name or generateName is required")
    if not problems:
        return ""
    head = f"The {resource.kind} {go_quote(name)} is invalid: "
    if len(problems) == 1:
        return head + problems[0]
    return head + "\n" + "\n".join(f"* {problem}" for problem in problems)
