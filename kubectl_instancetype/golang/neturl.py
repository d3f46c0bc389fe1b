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

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HOST_EXTRA = frozenset("!$&'()*+,;=:[]<>\"")
_USERINFO = _ALNUM | frozenset("-._:~!$&'()*+,;=%@")
_HEX = frozenset("0123456789abcdefABCDEF")
_HOST, _ZONE, _PATH = "host", "zone", "path"


def _should_escape(char: str, mode: str) -> bool:
    """net/url's shouldEscape for the modes parsing needs (host, zone, path)."""
    if char in _ALNUM:
        return False
    if mode in (_HOST, _ZONE) and char in _HOST_EXTRA:
        return False
    if char in "-_.~":
        return False
    if char in "$&+,/:;=?@":
        return mode == _PATH and char == "?"
    return True


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
        user = "" if self.userinfo is None else self.userinfo + "@"
        return redacted(f"{self.scheme}://{user}{self.authority}{self.path}")


def redacted(raw: str) -> str:
    """``URL.Redacted()`` (net/url/url.go) of the URL written ``raw``, done on its text: the password of the userinfo
    becomes ``xxxxx`` and the rest stays as written, also in a URL that ``url.Parse`` refuses, so that a message
    quoting any URL never shows a password. The one place a URL is redacted."""
    scheme, sep, rest = raw.partition("://")
    if not sep:
        return raw
    authority, slash, path = rest.partition("/")
    user, at, host = authority.rpartition("@")
    if at and ":" in user:
        authority = f"{user.partition(':')[0]}:xxxxx@{host}"
    return f"{scheme}{sep}{authority}{slash}{path}"


class URLError(ValueError):
    """net/url's parse error, with Go's wording (without the ``parse "<url>": `` prefix)."""


def _quote(text: str) -> str:
    from .strconv import go_quote  # only when a message is built

    return go_quote(text)


def _unescape(text: str, mode: str) -> str:
    """net/url's unescape: percent-decoding with its rules for hosts (only non-ASCII bytes and ``%25``) and zones."""
    data = text.encode("utf-8", "surrogateescape")
    index = 0
    while index < len(data):
        char = chr(data[index])
        if char == "%":
            if index + 2 >= len(data) or chr(data[index + 1]) not in _HEX or chr(data[index + 2]) not in _HEX:
                raise URLError(f"invalid URL escape {_quote(data[index : index + 3].decode('utf-8', 'replace'))}")
            escape = data[index : index + 3].decode("ascii")
            value = int(escape[1:], 16)
            if mode == _HOST and value < 0x80 and escape != "%25":
                raise URLError(f"invalid URL escape {_quote(escape)}")
            if (
                mode == _ZONE
                and escape != "%25"
                and value != 0x20
                and (value >= 0x80 or _should_escape(chr(value), _HOST))
            ):
                raise URLError(f"invalid URL escape {_quote(escape)}")
            index += 3
            continue
        if mode in (_HOST, _ZONE) and data[index] < 0x80 and _should_escape(char, mode):
            raise URLError(f"invalid character {_quote(char)} in host name")
        index += 1
    from urllib.parse import unquote_to_bytes

    return unquote_to_bytes(data).decode("utf-8", "surrogateescape") if b"%" in data else text


def _escape_path(path: str) -> str:
    """net/url's escape(path, encodePath)."""
    out = []
    for byte in path.encode("utf-8", "surrogateescape"):
        char = chr(byte)
        out.append(f"%{byte:02X}" if byte >= 0x80 or _should_escape(char, _PATH) else char)
    return "".join(out)


def _escaped_path(raw: str) -> str:
    """``URL.EscapedPath()`` of a URL whose path was written ``raw`` (setPath, then EscapedPath)."""
    path = _unescape(raw, _PATH)
    if (
        raw != _escape_path(path)
        and all(char in "!$&'()*+,;=:@[]%" or not _should_escape(char, _PATH) for char in raw if ord(char) < 0x80)
        and raw.isascii()
    ):
        return raw
    return _escape_path(path)


def _valid_port(colon_port: str) -> bool:
    return not colon_port or (colon_port[0] == ":" and all("0" <= c <= "9" for c in colon_port[1:]))


def _parse_host(scheme: str, host: str) -> tuple[str, str]:
    """net/url's parseHost: (hostname unescaped, port) of ``host[:port]``."""
    bracket = host.rfind("[")
    if bracket > 0:
        raise URLError("invalid IP-literal")
    if bracket == 0:
        close = host.rfind("]")
        if close < 0:
            raise URLError("missing ']' in host")
        colon_port = host[close + 1 :]
        if not _valid_port(colon_port):
            raise URLError(f"invalid port {_quote(colon_port)} after host")
        name = host[1:close]
        zone = name.find("%25")
        if zone >= 0:
            unescaped = _unescape(name[:zone], _HOST) + _unescape(name[zone:], _ZONE)
        else:
            unescaped = _unescape(name, _HOST)
        import ipaddress

        try:
            address = ipaddress.ip_address(unescaped.partition("%")[0])
        except ValueError:
            raise URLError(f"invalid host: ParseAddr({_quote(unescaped)}): unable to parse IP") from None
        if address.version == 4:
            raise URLError("invalid IP-literal")
        return unescaped, colon_port[1:]
    colon = host.find(":")
    if colon >= 0:
        last = host.rfind(":")
        # Go 1.26 refuses a second colon in http and https hosts (go.dev/issue/75223); others keep the last one.
        if last != colon and scheme not in ("http", "https"):
            colon = last
        colon_port = host[colon:]
        if not _valid_port(colon_port):
            raise URLError(f"invalid port {_quote(colon_port)} after host")
        return _unescape(host[:colon], _HOST), colon_port[1:]
    return _unescape(host, _HOST), ""


def parse_url(raw: str) -> URL | None:
    """``url.Parse(raw)`` for an absolute URL with an authority; None for a URL without one (opaque or relative).

    Raises :class:`URLError` with net/url's message wherever ``url.Parse`` fails (control characters, a missing
    scheme before ``:``, bad escapes, IP literals, ports, userinfo, a colon in a relative URL's first segment).
    """
    return _parse(raw)[1]


def parse_scheme(raw: str) -> str:
    """``url.Parse(raw).Scheme`` (lower case, ``""`` for none); :class:`URLError` where ``url.Parse`` fails."""
    return _parse(raw)[0]


def _parse(raw: str) -> tuple[str, URL | None]:
    raw, hash_mark, fragment = raw.partition("#")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in raw):
        raise URLError("net/url: invalid control character in URL")
    if raw == "*":
        return "", None
    scheme, rest = "", raw
    for index, char in enumerate(raw):
        if char in _ALNUM and not char.isdigit():
            continue
        if char.isdigit() or char in "+-.":
            if index == 0:
                break
            continue
        if char == ":":
            if index == 0:
                raise URLError("missing protocol scheme")
            scheme, rest = raw[:index].lower(), raw[index + 1 :]
        break
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest = rest.partition("?")[0]
    if not rest.startswith("/"):
        if scheme:
            _check_fragment(fragment, hash_mark)
            return scheme, None
        if ":" in rest.partition("/")[0]:
            raise URLError("first path segment in URL cannot contain colon")
    url: URL | None = None
    if (scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        userinfo, at, hostport = authority.rpartition("@")
        host, port = _parse_host(scheme, hostport)
        if at:
            if not all(char in _USERINFO for char in userinfo):
                raise URLError("net/url: invalid userinfo")
            for part in userinfo.split(":", 1):
                _unescape(part, _PATH)
        rest = slash + path
        url = URL(scheme, userinfo if at else None, host, port, _escaped_path(rest))
    else:
        _escaped_path(rest)  # setPath's escapes are checked all the same
    _check_fragment(fragment, hash_mark)
    return scheme, url if url is not None and scheme else None


def _check_fragment(fragment: str, hash_mark: str) -> None:
    if hash_mark:
        _unescape(fragment, _PATH)
