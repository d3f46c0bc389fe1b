"""Go's ``net/url`` ``url.Parse``, for what a server, proxy or Location URL may hold.

Only absolute URLs with an authority (``scheme://[userinfo@]host[:port][/path]``) are parsed into parts; query and
fragment are dropped (nothing here sends them on). Errors carry net/url's words (``missing protocol scheme``,
``missing ']' in host``, ``invalid port ":x" after host``, ``invalid URL escape "%zz"``, ``invalid character " "
in host name``).
"""

from __future__ import annotations

from dataclasses import dataclass

# net/http's portMap (transport.go canonicalAddr): the port a URL without one is dialled on.
DEFAULT_PORTS = {"http": 80, "https": 443, "socks5": 1080}

# The characters net/url's validHost/shouldEscape(modeHost) let through in a host; others below 0x80 are refused.
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:[]<>\"%")


@dataclass(frozen=True)
class URL:
    """The parts of an absolute URL (``host`` without brackets, ``port`` as written, ``path`` still escaped)."""

    scheme: str
    userinfo: str | None
    host: str
    port: str
    path: str

    @property
    def authority(self) -> str:
        """``host[:port]`` as written (brackets around IPv6), without the userinfo."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}" if self.port else host

    @property
    def host_port(self) -> str:
        """``host:port`` with the scheme's default port (net/http's canonicalAddr, net.JoinHostPort)."""
        port = self.port or str(DEFAULT_PORTS.get(self.scheme, ""))
        return f"[{self.host}]:{port}" if ":" in self.host else f"{self.host}:{port}"

    def without_userinfo(self) -> str:
        """``scheme://authority/path``: the URL as ``URL.String()`` prints it once its userinfo is removed."""
        return f"{self.scheme}://{self.authority}{self.path}"

    def redacted(self) -> str:
        """The URL with its password replaced by ``xxxxx`` (``URL.Redacted``)."""
        user = ""
        if self.userinfo is not None:
            name, colon, _ = self.userinfo.partition(":")
            user = f"{name}:xxxxx@" if colon else f"{name}@"
        return f"{self.scheme}://{user}{self.authority}{self.path}"


class URLError(ValueError):
    """net/url's parse error, with Go's wording (without the ``parse "<url>": `` prefix)."""


def _quote(text: str) -> str:
    from .strconv import go_quote  # only when a message is built

    return go_quote(text)


def _check_escapes(text: str) -> None:
    index = text.find("%")
    while index != -1:
        escape = text[index : index + 3]
        if len(escape) < 3 or any(c not in "0123456789abcdefABCDEF" for c in escape[1:]):
            raise URLError(f"invalid URL escape {_quote(escape)}")
        index = text.find("%", index + 3)


def parse_url(raw: str) -> URL | None:
    """``url.Parse(raw)`` for an absolute URL; None when it has no scheme or no ``//authority``.

    Raises :class:`URLError` with net/url's message for a missing scheme before ``:``, an unclosed IPv6
    bracket, a bad port, a bad escape or a character not allowed in a host name.
    """
    raw = raw.partition("#")[0]
    scheme, colon, rest = raw.partition(":")
    if (
        not colon
        or not scheme
        or not scheme[0].isalpha()
        or any(not (c.isalnum() or c in "+-.") for c in scheme)
        or not scheme.isascii()
    ):
        if raw.startswith(":"):
            raise URLError("missing protocol scheme")
        return None
    rest = rest.partition("?")[0]
    if not rest.startswith("//"):
        return None
    authority, slash, path = rest[2:].partition("/")
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            raise URLError("missing ']' in host")
        host, port_part = hostport[1:close], hostport[close + 1 :]
        if port_part and (not port_part.startswith(":") or (not port_part[1:].isdigit() and port_part != ":")):
            raise URLError(f"invalid port {_quote(port_part)} after host")
        port = port_part[1:]
    else:
        host, colon, port = hostport.rpartition(":") if ":" in hostport else (hostport, "", "")
        if colon and port and not (port.isdigit() and port.isascii()):
            raise URLError(f"invalid port {_quote(':' + port)} after host")
        for char in host:
            if char not in _HOST_CHARS and ord(char) < 0x80:
                raise URLError(f"invalid character {_quote(char)} in host name")
    _check_escapes(host)
    _check_escapes(path)
    return URL(scheme.lower(), userinfo if at else None, host, port, slash + path)
