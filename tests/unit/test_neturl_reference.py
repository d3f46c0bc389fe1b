"""golang/neturl's reference resolution against net/url's own table (Go 1.26 src/net/url/url_test.go,
resolveReferenceTests): base.Parse(ref).String() for each vector, and the parts a request is sent with."""

from __future__ import annotations

import pytest

from kubectl_instancetype.golang.neturl import URLError, parse_reference, resolve_reference

# (base, ref, expected) verbatim from net/url's resolveReferenceTests
RESOLVE_REFERENCE_TESTS = [
    ("http://foo.com?a=b", "https://bar.com/", "https://bar.com/"),
    ("http://foo.com/", "https://bar.com/?a=b", "https://bar.com/?a=b"),
    ("http://foo.com/", "https://bar.com/?", "https://bar.com/?"),
    ("http://foo.com/bar", "mailto:foo@example.com", "mailto:foo@example.com"),
    ("http://foo.com/bar", "/baz", "http://foo.com/baz"),
    ("http://foo.com/bar?a=b#f", "/baz", "http://foo.com/baz"),
    ("http://foo.com/bar?a=b", "/baz?", "http://foo.com/baz?"),
    ("http://foo.com/bar?a=b", "/baz?c=d", "http://foo.com/baz?c=d"),
    ("http://foo.com/bar", "http://foo.com//baz", "http://foo.com//baz"),
    ("http://foo.com/bar", "http://foo.com///baz/quux", "http://foo.com///baz/quux"),
    ("https://foo.com/bar?a=b", "//bar.com/quux", "https://bar.com/quux"),
    ("http://foo.com", ".", "http://foo.com/"),
    ("http://foo.com/bar", ".", "http://foo.com/"),
    ("http://foo.com/bar/", ".", "http://foo.com/bar/"),
    ("http://foo.com", "bar", "http://foo.com/bar"),
    ("http://foo.com/", "bar", "http://foo.com/bar"),
    ("http://foo.com/bar/baz", "quux", "http://foo.com/bar/quux"),
    ("http://foo.com/bar/baz", "../quux", "http://foo.com/quux"),
    ("http://foo.com/bar/baz", "../../../../../quux", "http://foo.com/quux"),
    ("http://foo.com/bar", "..", "http://foo.com/"),
    ("http://foo.com/bar/baz", "./..", "http://foo.com/"),
    ("http://foo.com/bar/baz", "quux/dotdot/../tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/../tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/.././tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/./../tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/dotdot/././../../tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/dotdot/./.././../tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/dotdot/dotdot/./../../.././././tail", "http://foo.com/bar/quux/tail"),
    ("http://foo.com/bar/baz", "quux/./dotdot/../dotdot/../dot/./tail/..", "http://foo.com/bar/quux/dot/"),
    ("http://foo.com/dot/./dotdot/../foo/bar", "../baz", "http://foo.com/dot/baz"),
    ("http://foo.com/bar", "...", "http://foo.com/..."),
    ("http://foo.com/bar", ".#frag", "http://foo.com/#frag"),
    ("http://example.org/", "#!$&%27()*+,;=", "http://example.org/#!$&%27()*+,;="),
    ("http://foo.com/foo%2fbar/", "../baz", "http://foo.com/baz"),
    ("http://foo.com/1/2%2f/3%2f4/5", "../../a/b/c", "http://foo.com/1/a/b/c"),
    ("http://foo.com/1/2/3", "./a%2f../../b/..%2fc", "http://foo.com/1/2/b/..%2fc"),
    ("http://foo.com/1/2%2f/3%2f4/5", "./a%2f../b/../c", "http://foo.com/1/2%2f/3%2f4/a%2f../c"),
    ("http://foo.com/foo%20bar/", "../baz", "http://foo.com/baz"),
    ("http://foo.com/foo", "../bar%2fbaz", "http://foo.com/bar%2fbaz"),
    ("http://foo.com/foo%2dbar/", "./baz-quux", "http://foo.com/foo%2dbar/baz-quux"),
    ("http://a/b/c/d;p?q", "g:h", "g:h"),
    ("http://a/b/c/d;p?q", "g", "http://a/b/c/g"),
    ("http://a/b/c/d;p?q", "./g", "http://a/b/c/g"),
    ("http://a/b/c/d;p?q", "g/", "http://a/b/c/g/"),
    ("http://a/b/c/d;p?q", "/g", "http://a/g"),
    ("http://a/b/c/d;p?q", "//g", "http://g"),
    ("http://a/b/c/d;p?q", "?y", "http://a/b/c/d;p?y"),
    ("http://a/b/c/d;p?q", "g?y", "http://a/b/c/g?y"),
    ("http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s"),
    ("http://a/b/c/d;p?q", "g#s", "http://a/b/c/g#s"),
    ("http://a/b/c/d;p?q", "g?y#s", "http://a/b/c/g?y#s"),
    ("http://a/b/c/d;p?q", ";x", "http://a/b/c/;x"),
    ("http://a/b/c/d;p?q", "g;x", "http://a/b/c/g;x"),
    ("http://a/b/c/d;p?q", "g;x?y#s", "http://a/b/c/g;x?y#s"),
    ("http://a/b/c/d;p?q", "", "http://a/b/c/d;p?q"),
    ("http://a/b/c/d;p?q", ".", "http://a/b/c/"),
    ("http://a/b/c/d;p?q", "./", "http://a/b/c/"),
    ("http://a/b/c/d;p?q", "..", "http://a/b/"),
    ("http://a/b/c/d;p?q", "../", "http://a/b/"),
    ("http://a/b/c/d;p?q", "../g", "http://a/b/g"),
    ("http://a/b/c/d;p?q", "../..", "http://a/"),
    ("http://a/b/c/d;p?q", "../../", "http://a/"),
    ("http://a/b/c/d;p?q", "../../g", "http://a/g"),
    ("http://a/b/c/d;p?q", "../../../g", "http://a/g"),
    ("http://a/b/c/d;p?q", "../../../../g", "http://a/g"),
    ("http://a/b/c/d;p?q", "/./g", "http://a/g"),
    ("http://a/b/c/d;p?q", "/../g", "http://a/g"),
    ("http://a/b/c/d;p?q", "g.", "http://a/b/c/g."),
    ("http://a/b/c/d;p?q", ".g", "http://a/b/c/.g"),
    ("http://a/b/c/d;p?q", "g..", "http://a/b/c/g.."),
    ("http://a/b/c/d;p?q", "..g", "http://a/b/c/..g"),
    ("http://a/b/c/d;p?q", "./../g", "http://a/b/g"),
    ("http://a/b/c/d;p?q", "./g/.", "http://a/b/c/g/"),
    ("http://a/b/c/d;p?q", "g/./h", "http://a/b/c/g/h"),
    ("http://a/b/c/d;p?q", "g/../h", "http://a/b/c/h"),
    ("http://a/b/c/d;p?q", "g;x=1/./y", "http://a/b/c/g;x=1/y"),
    ("http://a/b/c/d;p?q", "g;x=1/../y", "http://a/b/c/y"),
    ("http://a/b/c/d;p?q", "g?y/./x", "http://a/b/c/g?y/./x"),
    ("http://a/b/c/d;p?q", "g?y/../x", "http://a/b/c/g?y/../x"),
    ("http://a/b/c/d;p?q", "g#s/./x", "http://a/b/c/g#s/./x"),
    ("http://a/b/c/d;p?q", "g#s/../x", "http://a/b/c/g#s/../x"),
    ("https://a/b/c/d;p?q", "//g?q", "https://g?q"),
    ("https://a/b/c/d;p?q", "//g#s", "https://g#s"),
    ("https://a/b/c/d;p?q", "//g/d/e/f?y#s", "https://g/d/e/f?y#s"),
    ("https://a/b/c/d;p#s", "?y", "https://a/b/c/d;p?y"),
    ("https://a/b/c/d;p?q#s", "?y", "https://a/b/c/d;p?y"),
    ("https://a/b/c/d;p?q#s", "?", "https://a/b/c/d;p?"),
    ("https://foo.com/bar?a=b", "http:opaque", "http:opaque"),
    ("http:opaque?x=y#zzz", "https:/foo?a=b#frag", "https:/foo?a=b#frag"),
    ("http:opaque?x=y#zzz", "https:foo:bar", "https:foo:bar"),
    ("http:opaque?x=y#zzz", "https:bar/baz?a=b#frag", "https:bar/baz?a=b#frag"),
    ("http:opaque?x=y#zzz", "https://user@host:1234?a=b#frag", "https://user@host:1234?a=b#frag"),
    ("http:opaque?x=y#zzz", "?a=b#frag", "http:opaque?a=b#frag"),
]


@pytest.mark.parametrize(("base", "ref", "expected"), RESOLVE_REFERENCE_TESTS)
def test_resolve_reference_matches_net_url(base: str, ref: str, expected: str) -> None:
    resolved = resolve_reference(parse_reference(base), parse_reference(ref))
    assert str(resolved) == expected


@pytest.mark.parametrize(
    "raw",
    ["http://a/b?c=d#e", "/v2/r/blobs/x?sig=1", "//cdn.example/x", "https://u:p@h:8443/p%2Fq?", "mailto:x@y", ""],
)
def test_parse_reference_round_trips(raw: str) -> None:
    assert str(parse_reference(raw)) == raw


def test_the_request_uri_is_the_escaped_path_and_query() -> None:
    resolved = resolve_reference(parse_reference("https://r.example/v2/x"), parse_reference("../b/c?x=1&y=%2F#frag"))
    assert resolved.request_uri == "/b/c?x=1&y=%2F"
    assert resolve_reference(parse_reference("https://r.example"), parse_reference("?q")).request_uri == "/?q"
    url = resolved.url()
    assert url is not None and (url.scheme, url.host, url.port) == ("https", "r.example", "")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("http://[::1", "missing ']' in host"),
        ("http://h:x/", 'invalid port ":x" after host'),
        ("/a\nb", "net/url: invalid control character in URL"),
        ("/v2/%zz", 'invalid URL escape "%zz"'),
    ],
)
def test_a_location_url_parse_refuses_is_refused_with_its_words(raw: str, message: str) -> None:
    with pytest.raises(URLError) as failure:
        parse_reference(raw)
    assert str(failure.value) == message


def test_redacted_hides_the_password_only() -> None:
    assert parse_reference("https://u:secret@h/p?q").redacted() == "https://u:xxxxx@h/p?q"
    assert parse_reference("https://u@h/p").redacted() == "https://u@h/p"
