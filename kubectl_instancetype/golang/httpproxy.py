"""``golang.org/x/net/http/httpproxy``: which proxy a request goes through, from the environment.

``FromEnvironment`` reads ``HTTPS_PROXY``/``https_proxy``, ``HTTP_PROXY``/``http_proxy`` and
``NO_PROXY``/``no_proxy`` (upper case first); ``ProxyFunc`` picks the variable by the request's scheme, never
proxies ``localhost`` or loopback addresses, and exempts what ``NO_PROXY`` lists (``*``, CIDRs, IPs, domains and
``*.``/``.`` suffixes, each optionally with a port). A proxy value without a scheme is taken as ``http://``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .neturl import DEFAULT_PORTS, URL, URLError, parse_url

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class CGIProxyError(ValueError):
    """``HTTP_PROXY`` set in a CGI environment, where a client may set it through a ``Proxy:`` header."""

    def __init__(self) -> None:
        super().__init__("refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy")


def parse_proxy(proxy: str) -> URL | None:
    """httpproxy's parseProxy: a URL, or ``host[:port]`` taken as ``http://host[:port]``; None when unusable."""
    if not proxy:
        return None
    try:
        url = parse_url(proxy)
    except URLError:
        url = None
    if url is None or (not url.host and not url.port):
        try:
            return parse_url("http://" + proxy)
        except URLError:
            return None
    return url


class NoProxy:
    """The ``NO_PROXY`` matchers (httpproxy's config.init): ``*``, CIDRs, IPs and domains, optionally with ports."""

    def __init__(self, value: str):
        self.all = False
        self.ip_entries: list[tuple[Any, str]] = []  # (ip_network or ip_address, port)
        self.domains: list[tuple[str, str, bool]] = []  # (".suffix", port, match_host)
        for entry in value.split(","):
            entry = entry.strip().lower()
            if not entry:
                continue
            if entry == "*":
                self.all = True
                return
            if "/" in entry:
                network = _network(entry)
                if network is not None:
                    self.ip_entries.append((network, ""))
                    continue
            host, port = split_host_port(entry)
            if host is None:
                host, port = entry, ""
            elif not host:
                continue
            elif host.startswith("[") and host.endswith("]"):
                host = host[1:-1]
            ip = _ip(host)
            if ip is not None:
                self.ip_entries.append((ip, port))
                continue
            if not host:
                continue
            if host.startswith("*."):
                host = host[1:]
            match_host = not host.startswith(".")
            if match_host:
                host = "." + host
            self.domains.append((idna_ascii(host), port, match_host))

    def use_proxy(self, host: str, port: str) -> bool:
        """httpproxy's useProxy for a request to ``host:port`` (host lower-cased, without brackets)."""
        if host == "localhost":
            return False
        ip = _ip(host)
        if ip is not None and ip.is_loopback:
            return False
        if self.all:
            return False
        host = host.strip().lower()
        if ip is not None:
            for entry, entry_port in self.ip_entries:
                if hasattr(entry, "network_address"):
                    if ip.version == entry.version and ip in entry:
                        return False
                elif entry == ip and (not entry_port or entry_port == port):
                    return False
            return True
        for suffix, entry_port, match_host in self.domains:
            matches = host.endswith(suffix) or (match_host and host == suffix[1:])
            if matches and (not entry_port or entry_port == port):
                return False
        return True


def _ip(text: str) -> Any:
    if not text or not (text[0].isdigit() or ":" in text):
        return None  # a host name: no need to import ipaddress for it
    import ipaddress

    try:
        ip = ipaddress.ip_address(text.partition("%")[0] if ":" in text else text)
    except ValueError:
        return None
    # Go compares an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it holds.
    return getattr(ip, "ipv4_mapped", None) or ip


def _network(text: str) -> Any:
    import ipaddress

    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def split_host_port(text: str) -> tuple[str | None, str]:
    """Go's ``net.SplitHostPort``: (None, "") when ``text`` is not host:port (the host keeps its brackets)."""
    if text.startswith("["):
        close = text.find("]")
        if close < 0 or text[close + 1 : close + 2] != ":" or "]" in text[close + 2 :] or "[" in text[1:]:
            return None, ""
        return text[: close + 1], text[close + 2 :]
    host, colon, port = text.rpartition(":")
    if not colon or ":" in host:
        return None, ""
    return host, port


def idna_ascii(host: str) -> str:
    """httpproxy's idnaASCII: the punycode form of a non-ASCII host name (the name itself when that fails)."""
    if host.isascii():
        return host
    try:
        return ".".join(label.encode("idna").decode("ascii") if label else "" for label in host.split("."))
    except UnicodeError:
        return host


def _env(environ: Mapping[str, str], *names: str) -> str:
    for name in names:
        if environ.get(name):
            return environ[name]
    return ""


def proxy_from_environment(url: URL, environ: Mapping[str, str]) -> URL | None:
    """``httpproxy.FromEnvironment().ProxyFunc()(url)``: the proxy for a request to ``url``, or None.

    Raises :class:`CGIProxyError` for an http:// request with ``HTTP_PROXY`` set under CGI (``REQUEST_METHOD``).
    """
    if url.scheme == "https":
        proxy = _env(environ, "HTTPS_PROXY", "https_proxy")
    elif url.scheme == "http":
        proxy = _env(environ, "HTTP_PROXY", "http_proxy")
        if proxy and environ.get("REQUEST_METHOD"):
            raise CGIProxyError()
    else:
        return None
    parsed = parse_proxy(proxy)
    if parsed is None:
        return None
    host = idna_ascii(url.host)
    port = url.port or str(DEFAULT_PORTS.get(url.scheme, ""))
    if not NoProxy(_env(environ, "NO_PROXY", "no_proxy")).use_proxy(host, port):
        return None
    return parsed
