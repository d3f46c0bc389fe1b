"""Go's ``net/url`` ``url.Parse``, for what a server, proxy or Location URL may hold.

Only absolute URLs with an authority (``scheme://[userinfo@]host[:port][/path]``) are parsed into parts; query and
fragment are dropped (nothing here sends them on). Errors carry net/url's words (``missing protocol scheme``,
``missing ']' in host``, ``invalid port ":x" after host``, ``invalid URL escape "%zz"``, ``invalid character " "
in host name``).
"""

from __future__ import annotations

from ..records import dataclass
from .strconv import go_quote

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


def _unescape(text: str, mode: str) -> str:
    """net/url's unescape: percent-decoding with its rules for hosts (only non-ASCII bytes and ``%25``) and zones."""
    data = text.encode("utf-8", "surrogateescape")
    index = 0
    while index < len(data):
        char = chr(data[index])
        if char == "%":
            if index + 2 >= len(data) or chr(data[index + 1]) not in _HEX or chr(data[index + 2]) not in _HEX:
                raise URLError(f"invalid URL escape {go_quote(data[index : index + 3].decode('utf-8', 'replace'))}")
            escape = data[index : index + 3].decode("ascii")
            value = int(escape[1:], 16)
            if mode == _HOST and value < 0x80 and escape != "%25":
                raise URLError(f"invalid URL escape {go_quote(escape)}")
            if (
                mode == _ZONE
                and escape != "%25"
                and value != 0x20
                and (value >= 0x80 or _should_escape(chr(value), _HOST))
            ):
                raise URLError(f"invalid URL escape {go_quote(escape)}")
            index += 3
            continue
        if mode in (_HOST, _ZONE) and data[index] < 0x80 and _should_escape(char, mode):
            raise URLError(f"invalid character {go_quote(char)} in host name")
        index += 1
    if b"%" not in data:
        return text
    from urllib.parse import unquote_to_bytes  # only then: urllib.parse imports ipaddress, a cost on every run

    return unquote_to_bytes(data).decode("utf-8", "surrogateescape")


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
            raise URLError(f"invalid port {go_quote(colon_port)} after host")
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
            raise URLError(f"invalid host: ParseAddr({go_quote(unescaped)}): unable to parse IP") from None
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
            raise URLError(f"invalid port {go_quote(colon_port)} after host")
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
    scheme, rest = _get_scheme(raw)
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


def _get_scheme(raw: str) -> tuple[str, str]:
    """``getScheme`` (net/url url.go): the scheme (lower case, as ``parse`` keeps it) and the rest after its colon;
    ``("", raw)`` when ``raw`` has none; :class:`URLError` for a colon at the start."""
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
            return raw[:index].lower(), raw[index + 1 :]
        break
    return "", raw


def _check_fragment(fragment: str, hash_mark: str) -> None:
    if hash_mark:
        _unescape(fragment, _PATH)


# --- References: url.Parse with every part kept, URL.ResolveReference, URL.String ------------------------------


@dataclass(frozen=True)
class Reference:
    """Every part ``url.Parse`` keeps (a relative reference too): ``host`` as written (``host:port``, brackets
    kept), ``path`` escaped as ``URL.EscapedPath`` gives it, ``fragment`` as written."""

    scheme: str = ""
    opaque: str = ""
    userinfo: str | None = None
    host: str = ""
    path: str = ""
    raw_query: str = ""
    force_query: bool = False
    fragment: str = ""
    omit_host: bool = False

    def __str__(self) -> str:
        """``URL.String()``."""
        out = f"{self.scheme}:" if self.scheme else ""
        if self.opaque:
            out += self.opaque
        else:
            if (self.scheme or self.host or self.userinfo is not None) and not (
                self.omit_host and not self.host and self.userinfo is None
            ):
                if self.host or self.path or self.userinfo is not None:
                    out += "//"
                if self.userinfo is not None:
                    out += self.userinfo + "@"
                out += self.host
            if self.path and self.path[0] != "/" and self.host:
                out += "/"
            if not out and ":" in self.path.partition("/")[0]:
                out = "./"  # a first segment with a colon would read as a scheme
            out += self.path
        if self.force_query or self.raw_query:
            out += "?" + self.raw_query
        if self.fragment:
            out += "#" + self.fragment
        return out

    def redacted(self) -> str:
        """``URL.Redacted()`` (:func:`redacted` of :meth:`__str__`)."""
        return redacted(str(self))

    @property
    def request_uri(self) -> str:
        """``URL.RequestURI()``: the escaped path (``/`` for none) and the query, what a request line carries."""
        target = self.opaque or self.path or "/"
        if self.opaque.startswith("//") and self.scheme:
            target = f"{self.scheme}:{self.opaque}"
        if self.force_query or self.raw_query:
            target += "?" + self.raw_query
        return target

    def url(self) -> URL | None:
        """The :class:`URL` of an absolute reference with an authority (None for another)."""
        if not self.scheme or self.opaque or not self.host:
            return None
        hostname, port = _parse_host(self.scheme, self.host)
        return URL(self.scheme, self.userinfo, hostname, port, self.path)


def parse_reference(raw: str) -> Reference:
    """``url.Parse(raw)``, an absolute URL or a relative reference, every part kept; :class:`URLError` with
    net/url's words where ``url.Parse`` fails."""
    _parse(raw)  # net/url's checks and errors
    rest, _, fragment = raw.partition("#")
    scheme, rest = _get_scheme(rest)
    force_query, raw_query = False, ""
    if rest.endswith("?") and rest.count("?") == 1:
        force_query, rest = True, rest[:-1]
    else:
        rest, _, raw_query = rest.partition("?")
    if not rest.startswith("/") and scheme:
        return Reference(scheme, opaque=rest, raw_query=raw_query, force_query=force_query, fragment=fragment)
    userinfo: str | None = None
    host, omit_host = "", False
    if (scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        user, at, host = authority.rpartition("@")
        userinfo = user if at else None
        rest = slash + path
    elif scheme and rest.startswith("/"):
        omit_host = True
    return Reference(scheme, "", userinfo, host, _escaped_path(rest), raw_query, force_query, fragment, omit_host)


def resolve_reference(base: Reference, ref: Reference) -> Reference:
    """``base.ResolveReference(ref)``: RFC 3986 section 5.2 as net/url implements it (url.go ResolveReference)."""
    from ..records import replace

    scheme = ref.scheme or base.scheme
    if ref.scheme or ref.host or ref.userinfo is not None:
        return replace(ref, scheme=scheme, path=_escaped_path(_resolve_path(ref.path, "")))
    if ref.opaque:
        return replace(ref, scheme=scheme, userinfo=None, host="", path="")
    raw_query, force_query, fragment = ref.raw_query, ref.force_query, ref.fragment
    if not ref.path and not ref.force_query and not ref.raw_query:
        raw_query = base.raw_query
        if not ref.fragment:
            fragment = base.fragment
    if not ref.path and base.opaque:
        return Reference(scheme, base.opaque, None, "", "", raw_query, force_query, fragment, ref.omit_host)
    return Reference(
        scheme,
        "",
        base.userinfo,
        base.host,
        _escaped_path(_resolve_path(base.path, ref.path)),
        raw_query,
        force_query,
        fragment,
        ref.omit_host,
    )


def _resolve_path(base: str, ref: str) -> str:
    """net/url's resolvePath: ``ref`` against ``base``, dot segments removed (RFC 3986 5.2.4)."""
    if not ref:
        full = base
    elif ref[0] != "/":
        full = base[: base.rfind("/") + 1] + ref
    else:
        full = ref
    if not full:
        return ""
    dst = "/"
    elem = ""
    first = True
    segments = full.split("/")
    for elem in segments:
        if elem == ".":
            first = False
            continue
        if elem == "..":
            index = dst.rfind("/", 1)
            dst = dst[:index] if index >= 1 else "/"
            first = len(dst) == 1
        else:
            if not first:
                dst += "/"
            dst += elem
            first = False
    if elem in (".", ".."):
        dst += "/"
    return dst[1:] if len(dst) > 1 and dst[1] == "/" else dst
