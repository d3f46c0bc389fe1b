"""Go's ``net/http`` client rules for redirects, as ``http.Client.Do`` applies them (Go 1.26 src/net/http/client.go).

Pure: it decides what the next request of a redirect chain is; kube/httpclient.py (and the API server's
kube/transport.py) send it. What it holds:

- ``redirectBehavior``: 301, 302 and 303 turn any method but GET and HEAD into a GET and drop the body;
  307 and 308 keep the method and the body, and are not followed when the body cannot be sent again (Go returns
  the 307/308 response itself then);
- ``Client.do``: a 3xx without ``Location`` is the answer; the Location is resolved against the URL that answered
  (``req.URL.Parse(loc)``: RFC 3986 reference resolution, golang/neturl.resolve_reference);
- ``makeHeadersCopier``: every hop carries the first request's headers, less the sensitive ones (Authorization,
  Www-Authenticate, Cookie, Cookie2, Proxy-Authorization, Proxy-Authenticate) once a hop went to a host that is
  neither the first one nor a subdomain of it (``shouldCopyHeaderOnRedirect``; sticky: they stay dropped), and
  less the body's headers (Content-Type, Content-Encoding, Content-Language, Content-Location) once the body is;
- ``refererForURL``: each hop's ``Referer`` is the URL before it (userinfo removed), never from https to http;
- ``defaultCheckRedirect``: the 11th request is refused, ``stopped after 10 redirects``;
- ``url.Error``: ``Get "URL": reason``, the operation named after the first request's method.
"""

from __future__ import annotations

from dataclasses import dataclass

from .neturl import Reference, URLError, parse_reference, resolve_reference

MAX_REDIRECTS = 10  # defaultCheckRedirect
REDIRECT_STATUSES = frozenset((301, 302, 303, 307, 308))
# makeHeadersCopier's two lists (canonical names; compared lower-cased here)
SENSITIVE_HEADERS = frozenset(
    ("authorization", "www-authenticate", "cookie", "cookie2", "proxy-authorization", "proxy-authenticate")
)
BODY_HEADERS = frozenset(("content-encoding", "content-language", "content-location", "content-type"))


def url_error_op(method: str) -> str:
    """``urlErrorOp``: ``GET`` -> ``Get``, ``""`` -> ``Get``."""
    if not method:
        return "Get"
    return method[:1] + method[1:].lower() if method.isascii() else method


def url_error(method: str, url: str, reason: str) -> str:
    """``url.Error.Error()``: ``Op "URL": reason`` (Op from :func:`url_error_op`, the URL %q-quoted)."""
    from .strconv import go_quote

    return f"{url_error_op(method)} {go_quote(url)}: {reason}"


class RedirectError(ValueError):
    """Go refuses to follow: a Location it cannot parse, or the 11th request. ``location`` is the Location as sent
    (Go's url.Error names it for the redirect limit); ``str()`` is the reason alone (Go's wrapped error)."""

    def __init__(self, reason: str, location: str):
        super().__init__(reason)
        self.location = location


def is_domain_or_subdomain(sub: str, parent: str) -> bool:
    """``isDomainOrSubdomain``: ``sub`` is ``parent`` or a subdomain of it (an IPv6 address or zone never is)."""
    if sub == parent:
        return True
    if ":" in sub or "%" in sub:
        return False
    return sub.endswith(parent) and len(sub) > len(parent) and sub[len(sub) - len(parent) - 1] == "."


def should_copy_header_on_redirect(initial: Reference, dest: Reference) -> bool:
    """``shouldCopyHeaderOnRedirect``: credentials may follow to the same host name or a subdomain of it (the port
    does not count: ``idnaASCIIFromURL`` reads ``URL.Hostname()``)."""
    from .httpproxy import idna_ascii

    return is_domain_or_subdomain(idna_ascii(_hostname(dest)), idna_ascii(_hostname(initial)))


def _hostname(url: Reference) -> str:
    """``URL.Hostname()``: the host without its port and IPv6 brackets."""
    host = url.host
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    return host.rpartition(":")[0] if ":" in host else host


def referer_for_url(last: Reference, new: Reference, explicit: str) -> str:
    """``refererForURL``: nothing from https to http; an explicit Referer kept; else the last URL without its
    userinfo."""
    if last.scheme == "https" and new.scheme == "http":
        return ""
    if explicit:
        return explicit
    from dataclasses import replace

    return str(replace(last, userinfo=None)) if last.userinfo is not None else str(last)


@dataclass(frozen=True)
class Hop:
    """The next request of a redirect chain: method, absolute URL, headers and whether the body goes along."""

    method: str
    url: Reference
    headers: dict[str, str]
    with_body: bool


class Redirects:
    """The state ``Client.do`` keeps along one request's redirects; :meth:`follow` is one turn of its loop.

    ``replayable`` says whether the body can be sent again (Go: ``GetBody`` is set; bytes can, a stream cannot);
    ``has_body`` whether the first request has one. ``clear_text_credentials=False`` adds one rule of this
    project to Go's: once a hop goes from https to plain http, the sensitive headers are dropped as for another
    host (a registry's credentials never cross the network in clear text unless ``--insecure-registry``).
    """

    def __init__(
        self,
        method: str,
        url: Reference,
        headers: dict[str, str],
        *,
        has_body: bool = False,
        replayable: bool = True,
        limit: int = MAX_REDIRECTS,
        clear_text_credentials: bool = True,
    ):
        self.first_method = method
        self.method = method
        self.first = url
        self.headers = headers
        self.has_body = has_body
        self.replayable = replayable
        self.limit = limit
        self.clear_text_credentials = clear_text_credentials
        self.via: list[Reference] = [url]
        self.include_body = True
        self.strip_sensitive = False

    @property
    def url(self) -> Reference:
        """The URL of the last request sent."""
        return self.via[-1]

    def follow(self, status: int, location: str | None) -> Hop | None:
        """The request to send after an answer of ``status`` with ``location``, or None when that answer is the
        one to return (no redirect, no Location, or a 307/308 whose body cannot be sent again); raises
        :class:`RedirectError` for a Location url.Parse refuses and for the request after the 10th."""
        if status in (301, 302, 303):
            method = self.method if self.method in ("GET", "HEAD") else "GET"
            body_on_hop = False
        elif status in (307, 308):
            method = self.method
            body_on_hop = True
            if self.has_body and not self.replayable:
                return None
        else:
            return None
        if not location:
            return None
        if not body_on_hop:
            self.include_body = False  # once a hop drops the body it is never sent again
        try:
            reference = parse_reference(location)
        except URLError as exc:
            from .strconv import go_quote

            reason = f"failed to parse Location header {go_quote(location)}: parse {go_quote(location)}: {exc}"
            raise RedirectError(reason, location) from None
        url = resolve_reference(self.url, reference)
        if (
            not self.strip_sensitive
            and self.first.host != url.host
            and not should_copy_header_on_redirect(self.first, url)
        ):
            self.strip_sensitive = True
        if not self.clear_text_credentials and self.first.scheme == "https" and url.scheme == "http":
            self.strip_sensitive = True
        headers = {
            name: value
            for name, value in self.headers.items()
            if not (self.strip_sensitive and name.lower() in SENSITIVE_HEADERS)
            and not (not self.include_body and name.lower() in BODY_HEADERS)
        }
        explicit = next((value for name, value in headers.items() if name.lower() == "referer"), "")
        referer = referer_for_url(self.url, url, explicit)
        if referer:
            headers = {name: value for name, value in headers.items() if name.lower() != "referer"}
            headers["Referer"] = referer
        if len(self.via) >= self.limit:
            raise RedirectError(f"stopped after {self.limit} redirects", location)
        self.via.append(url)
        self.method = method
        return Hop(method, url, headers, self.include_body and self.has_body)
