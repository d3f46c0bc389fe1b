"""Impersonation as kubectl does it: the kubeconfig user's ``as``, ``as-uid``, ``as-groups`` and ``as-user-extra``,
overridden by ``--as``, ``--as-uid`` and ``--as-group``, sent as ``Impersonate-*`` headers on every request to the
API server.

client-go merges the flags over the kubeconfig user entry (``clientcmd``'s ``getAuthInfo``: a non-empty flag
replaces the entry's field), refuses a uid, groups or extra without a user name (``validateAuthInfo``), and
adds the headers in ``transport.NewImpersonatingRoundTripper`` (``k8s.io/client-go/transport/round_trippers.go``):
one ``Impersonate-Group`` line per group, one ``Impersonate-Extra-<key>`` line per value, the key escaped by
``headerKeyEscape``. The API server then authorizes the request as the impersonated user.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# net/http's token characters (client-go's legalHeaderKeyBytes) less '%', which headerKeyEscape always escapes
_KEY_BYTES = frozenset(b"!#$&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Impersonation:
    """Who the requests act as."""

    user: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def headers(self) -> list[tuple[str, str]]:
        """The ``Impersonate-*`` header lines, in client-go's order (user, uid, groups, extra)."""
        lines = [("Impersonate-User", self.user)]
        if self.uid:
            lines.append(("Impersonate-Uid", self.uid))
        lines += [("Impersonate-Group", group) for group in self.groups]
        for key, values in self.extra:
            lines += [("Impersonate-Extra-" + header_key_escape(key), value) for value in values]
        return lines


def header_key_escape(key: str) -> str:
    """client-go's ``headerKeyEscape``: every byte that is not a header token character (and '%') as ``%XX``."""
    return "".join(chr(byte) if byte in _KEY_BYTES else f"%{byte:02X}" for byte in key.encode("utf-8"))


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value or () if item is not None) if isinstance(value, list) else ()


def merged(user: dict[str, Any], as_user: str | None, as_uid: str | None, as_groups: tuple[str, ...]) -> dict[str, Any]:
    """The impersonation fields of ``user`` with the flags over them (a non-empty flag wins, as mergo's override)."""
    extra = user.get("as-user-extra")
    return {
        "user": as_user or str(user.get("as") or ""),
        "uid": as_uid or str(user.get("as-uid") or ""),
        "groups": tuple(as_groups) or _strings(user.get("as-groups")),
        "extra": {str(k): _strings(v) for k, v in extra.items()} if isinstance(extra, dict) else {},
    }


def problem(user_name: str, fields: dict[str, Any]) -> str | None:
    """clientcmd's ``validateAuthInfo`` sentence for a uid, groups or extra without a user, or None."""
    if (fields["uid"] or fields["groups"] or fields["extra"]) and not fields["user"]:
        return f"requesting uid, groups or user-extra for {user_name} without impersonating a user"
    return None


def resolve(fields: dict[str, Any]) -> Impersonation | None:
    """The impersonation to apply (client-go applies it only when a user name is set), header values checked."""
    if not fields["user"]:
        return None
    impersonation = Impersonation(
        fields["user"],
        fields["uid"],
        tuple(fields["groups"]),
        tuple(sorted((key, tuple(values)) for key, values in fields["extra"].items())),
    )
    from ..errors import TransportError

    for name, value in impersonation.headers():
        # Go's net/http refuses a header value with a control character before sending anything.
        if any((ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F for char in value):
            raise TransportError(f'net/http: invalid header field value for "{name}"')
    return impersonation
