"""``infer image`` against a hostile registry (tests/doubles/hostile_registry.py, loopback): every read bounded in
bytes and in time, digests verified with their own algorithm and validated before they reach a URL, the digest
shown computed from the bytes, replies that are not UTF-8 or nest too deep refused in one line, cluster-less
registry data escaped on the terminal, and no credentials to a plain-HTTP realm of an HTTPS registry."""

from __future__ import annotations

import base64
import json
import re
import shutil
import time

import pytest
import yaml

from kubectl_instancetype.oci.client import MAX_DOCUMENT
from tests.conftest import run_cli
from tests.doubles.hostile_registry import HostileRegistry, digest, endless, loopback_certificate, send, trickling
from tests.doubles.http_server import ScriptedServer, read_request, respond, serve_each

CONFIG = {
    "architecture": "amd64",
    "os": "linux",
    "config": {
        "Env": [
            "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE=u1.medium",
            "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE=fedora\x1b]0;owned\x07",
        ]
    },
}


@pytest.fixture
def registry():
    double = HostileRegistry()
    yield double
    double.close()


def infer(reference: str, *args: str):
    return run_cli(["infer", "image", reference, "--insecure-registry", *args])


def one_line(result) -> str:
    assert result.exit_code == 1, result.stdout
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def test_a_good_image_and_its_values_escaped(registry) -> None:
    registry.image("r", CONFIG)
    result = infer(f"{registry.host}/r:t")
    assert result.exit_code == 0, result.stderr
    assert "fedora^[]0;owned\\a" in result.stdout and "\x1b" not in result.stdout


def test_the_digest_shown_is_computed_from_the_bytes(registry) -> None:
    manifest = registry.image("r", CONFIG)  # served with a Docker-Content-Digest of zeros
    result = infer(f"{registry.host}/r:t", "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    assert yaml.safe_load(result.stdout)["digest"] == digest(manifest)


def test_a_sha512_pin_is_verified(registry) -> None:
    manifest = registry.image("r", CONFIG)
    good = infer(f"{registry.host}/r@{digest(manifest, 'sha512')}")
    assert good.exit_code == 0, good.stderr
    wrong = "sha512:" + "1" * 128
    registry.routes[f"/v2/r/manifests/{wrong}"] = send("200 OK", manifest)
    line = one_line(infer(f"{registry.host}/r@{wrong}"))
    assert f"the content's digest {digest(manifest, 'sha512')} is not the {wrong} asked for" in line


def test_an_unknown_digest_algorithm_is_refused_before_any_request(registry) -> None:
    line = one_line(infer(f"{registry.host}/r@md5:" + "a" * 32))
    assert 'the digest algorithm "md5" is not one this client can verify (sha256, sha512)' in line
    assert registry.requests == []


@pytest.mark.parametrize(
    "bad", ["sha256:abc\r\nX-Injected: 1", "sha256:../../../v2/other/blobs/x", "sha256:" + "A" * 64]
)
def test_a_config_digest_is_validated_before_it_is_used_in_a_url(registry, bad) -> None:
    registry.image("r", CONFIG, config_digest=bad)
    line = one_line(infer(f"{registry.host}/r:t"))
    assert "names its config" in line and ("is not an OCI digest" in line or "is not a sha256 digest" in line)
    assert "\r" not in line and not any(b"/blobs/" in request for request in registry.requests)


@pytest.mark.parametrize("bad", ["sha256:abc\r\nX-Injected: 1", "sha256:../../../v2/other/manifests/x"])
def test_an_index_entrys_digest_is_validated_before_it_is_used_in_a_url(registry, bad) -> None:
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": bad,
                "size": 1,
                "platform": {"os": "linux", "architecture": "amd64"},
            }
        ],
    }
    registry.routes["/v2/r/manifests/t"] = send("200 OK", json.dumps(index).encode())
    line = one_line(infer(f"{registry.host}/r:t"))
    assert f"the image index {digest(json.dumps(index).encode())} names for linux/amd64: " in line
    assert "is not an OCI digest" in line and "\r" not in line
    assert len(registry.requests) == 1  # the index only


@pytest.mark.parametrize("chunked", [False, True])
def test_an_endless_body_is_cut_at_the_bound(registry, chunked) -> None:
    registry.routes["/v2/r/manifests/t"] = endless(chunked=chunked)
    started = time.monotonic()
    line = one_line(infer(f"{registry.host}/r:t"))
    assert time.monotonic() - started < 15
    assert line == (
        f"error: GET http://{registry.host}/v2/r/manifests/t: the response body is larger than "
        f"{MAX_DOCUMENT >> 20} MiB, more than this client reads\n"
    )


def test_a_huge_content_length_is_refused_unread(registry) -> None:
    registry.routes["/v2/r/manifests/t"] = lambda conn: conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n"
    )
    assert "larger than 4 MiB" in one_line(infer(f"{registry.host}/r:t"))


def test_a_trickling_registry_is_cut_off_by_the_request_timeout(registry) -> None:
    registry.routes["/v2/r/manifests/t"] = trickling()
    started = time.monotonic()
    line = one_line(infer(f"{registry.host}/r:t", "--request-timeout", "2s"))
    assert time.monotonic() - started < 15
    assert (
        line == f"error: GET http://{registry.host}/v2/r/manifests/t: no complete answer within --request-timeout=2s\n"
    )


def test_the_token_service_is_bounded_too(registry) -> None:
    realm = f"http://{registry.host}/token"
    registry.routes["/v2/r/manifests/t"] = send(
        "401 Unauthorized", b"", {"WWW-Authenticate": f'Bearer realm="{realm}"'}
    )
    registry.routes["/token"] = endless()
    line = one_line(infer(f"{registry.host}/r:t"))
    assert line.startswith(f"error: GET {realm}?scope=") and line.endswith(
        "larger than 1 MiB, more than this client reads\n"
    )
    registry.routes["/token"] = trickling()
    line = one_line(infer(f"{registry.host}/r:t", "--request-timeout=2"))
    assert line.endswith("no complete answer within --request-timeout=2s\n")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"schemaVersion": 2, "name": "\xff\xfe"}', "the answer is not UTF-8 text (byte 30), so not JSON"),
        (b"[" * 100000 + b"]" * 100000, "the answer nests deeper than 64 levels"),
        (b'{"config": 1' + b"9" * 5000 + b"}", "the answer is not JSON"),
        (b"{nope", "the answer is not JSON at byte 1"),
    ],
)
@pytest.mark.parametrize("where", ["manifest", "token"])
def test_replies_that_are_not_json_are_one_line(registry, body, words, where) -> None:
    """From the registry (a manifest) or from its token service (the token answer)."""
    if where == "token":
        registry.require_token(f"http://{registry.host}/token")
        registry.routes["/token"] = send("200 OK", body)
    else:
        registry.routes["/v2/r/manifests/t"] = send("200 OK", body)
    line = one_line(infer(f"{registry.host}/r:t"))
    assert words in line and "codec" not in line and "Expecting" not in line
    what = f"getting a pull token from http://{registry.host}/token" if where == "token" else "/v2/r/manifests/t"
    assert line.startswith(f"error: {what}: "), line


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    if not shutil.which("openssl"):
        pytest.skip("openssl makes the registry's certificate")
    return loopback_certificate(tmp_path_factory.mktemp("registry-tls"))


@pytest.fixture
def tls_registry(certificate):
    double = HostileRegistry(tls=certificate)
    yield double
    double.close()


def _auth_file(tmp_path, registry: str) -> str:
    path = tmp_path / "auth.json"
    login = base64.b64encode(b"puller:s3cret-password").decode()
    path.write_text(json.dumps({"auths": {registry: {"auth": login}}}))
    return str(path)


def test_no_credentials_to_a_plain_http_realm_of_an_https_registry(tls_registry, registry, certificate, tmp_path):
    """An HTTPS registry whose token realm is plain HTTP: with credentials stored for it, the plugin stops before
    the realm hears anything; with --insecure-registry the credentials go and the image is read."""
    realm = f"http://{registry.host}/token"
    registry.routes["/token"] = send("200 OK", b'{"token": "t0ken"}')
    tls_registry.image("r", CONFIG)
    tls_registry.require_token(realm)
    environ = {
        "HOME": str(tmp_path),
        "REGISTRY_AUTH_FILE": _auth_file(tmp_path, tls_registry.host),
        "SSL_CERT_FILE": str(certificate[0]),
    }
    refused = run_cli(["infer", "image", f"{tls_registry.host}/r:t"], environ=environ)
    assert (refused.exit_code, refused.stderr) == (
        1,
        f'error: {tls_registry.host} asks for a token from "{realm}", which is not https: the registry credentials '
        "are not sent in clear text (--insecure-registry sends them)\n",
    )
    assert registry.requests == []  # the realm heard nothing, credentials or not
    assert len(tls_registry.requests) == 1 and b"authorization" not in tls_registry.requests[0].lower()

    allowed = run_cli(["infer", "image", f"{tls_registry.host}/r:t", "--insecure-registry"], environ=environ)
    assert allowed.exit_code == 0, allowed.stderr
    assert "u1.medium" in allowed.stdout
    login = base64.b64encode(b"puller:s3cret-password")
    assert len(registry.requests) == 1 and b"Authorization: Basic " + login in registry.requests[0]


def test_credentials_do_not_follow_a_redirect_from_https_to_plain_http(tls_registry, certificate, tmp_path) -> None:
    """Go's http.Client forwards Authorization to the same host whatever the scheme; the plugin does not send the
    credentials in clear text to the plain-HTTP side of the registry (unless --insecure-registry)."""
    manifest = tls_registry.image("r", CONFIG)
    tls_registry.basic = True
    plain = f"http://{tls_registry.host}/v2/r/manifests/plain"
    tls_registry.routes["/v2/r/manifests/t"] = send("307 Temporary Redirect", b"", {"Location": plain})
    tls_registry.routes["/v2/r/manifests/plain"] = send("200 OK", manifest)
    environ = {
        "HOME": str(tmp_path),
        "REGISTRY_AUTH_FILE": _auth_file(tmp_path, tls_registry.host),
        "SSL_CERT_FILE": str(certificate[0]),
    }
    line = one_line(run_cli(["infer", "image", f"{tls_registry.host}/r:t"], environ=environ))
    assert line.startswith(f"error: GET {plain}: 401 Unauthorized"), line
    over_http = [request for request in tls_registry.requests if b"/plain " in request]
    assert len(over_http) == 1 and b"authorization" not in over_http[0].lower()
    allowed = run_cli(["infer", "image", f"{tls_registry.host}/r:t", "--insecure-registry"], environ=environ)
    assert allowed.exit_code == 0, allowed.stderr


def test_anonymous_pulls_may_use_a_plain_http_realm(tls_registry, registry, certificate, tmp_path) -> None:
    """No credentials stored: nothing secret to protect, the anonymous token comes from the plain-HTTP realm."""
    registry.routes["/token"] = send("200 OK", b'{"token": "t0ken"}')
    tls_registry.image("r", CONFIG)
    tls_registry.require_token(f"http://{registry.host}/token")
    result = run_cli(
        ["infer", "image", f"{tls_registry.host}/r:t"],
        environ={"HOME": str(tmp_path), "SSL_CERT_FILE": str(certificate[0])},
    )
    assert result.exit_code == 0, result.stderr
    assert len(registry.requests) == 1 and b"authorization" not in registry.requests[0].lower()


def test_an_untrusted_registry_certificate_is_one_line_and_insecure_registry_skips_verification(
    tls_registry, tmp_path
) -> None:
    tls_registry.image("r", CONFIG)
    line = one_line(run_cli(["infer", "image", f"{tls_registry.host}/r:t"], environ={"HOME": str(tmp_path)}))
    assert line == (
        f"error: GET https://{tls_registry.host}/v2/r/manifests/t: tls: failed to verify certificate: "
        "self-signed certificate (--insecure-registry skips verification)\n"
    )
    assert tls_registry.requests == []
    result = run_cli(["infer", "image", f"{tls_registry.host}/r:t", "--insecure-registry"], environ={"HOME": "/x"})
    assert result.exit_code == 0, result.stderr


def test_an_insecure_registry_without_tls_is_read_over_plain_http(registry) -> None:
    """--insecure-registry tries HTTPS first (containers/image's ping order); a registry that answers the TLS
    handshake as Go's net/http answers a bad request line is then read over plain HTTP."""
    registry.image("r", CONFIG)
    result = run_cli(["infer", "image", f"{registry.host}/r:t", "--insecure-registry", "-v", "6"])
    assert result.exit_code == 0, result.stderr
    assert registry.handshakes == 1
    assert f"no TLS at https://{registry.host}" in result.stderr


def test_an_insecure_registry_that_never_answers_a_handshake_is_read_over_plain_http(monkeypatch) -> None:
    """A plain-HTTP server waiting for a request line never answers the ClientHello: the handshake is given Go's
    TLSHandshakeTimeout (lowered here), then the registry is read over plain HTTP."""
    from kubectl_instancetype.oci import client

    monkeypatch.setattr(client, "TLS_HANDSHAKE_TIMEOUT", 1.0)
    manifest = json.dumps({"schemaVersion": 2, "config": {"digest": digest(b"{}")}}).encode()

    def handler(conn, seen) -> None:
        while request := read_request(conn):  # a ClientHello holds no blank line: this waits, as such servers do
            if b"\r\n\r\n" not in request:
                return  # the client gave the handshake up
            seen.append(request)
            path = request.split(b" ", 2)[1]
            conn.sendall(respond("200 OK", b"{}" if b"/blobs/" in path else manifest))

    server = ScriptedServer(handler)
    try:
        started = time.monotonic()
        result = infer(f"127.0.0.1:{server.port}/r:t")
        assert time.monotonic() - started < 10
    finally:
        server.close()
    assert result.exit_code == 0, result.stderr


def test_registry_error_text_is_escaped(registry) -> None:
    body = json.dumps({"errors": [{"code": "DENIED", "message": "no\x1b[2J\x9b\nsecond\r\nthird"}]}).encode()
    registry.routes["/v2/r/manifests/t"] = send("403 Forbidden", body)
    line = one_line(infer(f"{registry.host}/r:t"))
    assert "DENIED: no^[[2J\\u009b\\nsecond\\nthird" in line


def test_create_vm_reports_an_image_value_escaped_on_one_line(registry) -> None:
    """create vm --infer-from-image names the value it read from the image on stderr: escaped, a line break too."""
    config = {"architecture": "amd64", "os": "linux"}
    config["config"] = {"Env": ["INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE=u1\nfake line\x1b[2J\x9b"]}
    registry.image("r", config)
    result = run_cli(
        ["create", "vm", "--name", "v", "--dry-run=client", "-o", "yaml", "--infer-from-image", "--insecure-registry",
         "--volume-containerdisk", f"src:{registry.host}/r:t"]
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.stderr), repr(result.stderr)
    assert result.stderr.splitlines()[0].startswith("Inferred instancetype: u1\\nfake line^[[2J\\u009b (")
    assert 'name: "u1\\nfake line\\e[2J\\x9B"' in result.stdout  # YAML's own escapes


def test_a_blob_redirected_to_a_cdn_is_read_as_go_reads_it(registry, tmp_path) -> None:
    """The config blob answers 307 with a relative Location (resolved by RFC 3986 against the blob's URL, so
    ``../`` climbs), which answers 302 to a CDN on another host name: the registry's credentials go to the first
    hop (same host) and not to the CDN (Go's shouldCopyHeaderOnRedirect); the CDN's URL keeps its query."""
    config_bytes = json.dumps(CONFIG).encode()
    registry.image("r", CONFIG)
    registry.basic = True
    named = digest(config_bytes)
    cdn = ScriptedServer(serve_each(lambda request, index: respond("200 OK", config_bytes)))
    try:
        registry.routes[f"/v2/r/blobs/{named}"] = send("307 Temporary Redirect", b"", {"Location": "../mirror/x"})
        registry.routes["/v2/r/mirror/x"] = send(
            "302 Found", b"", {"Location": f"http://localhost:{cdn.port}/blob?sig=a%2Fb"}
        )
        environ = {"HOME": str(tmp_path), "REGISTRY_AUTH_FILE": _auth_file(tmp_path, registry.host)}
        result = run_cli(["infer", "image", f"{registry.host}/r:t", "--insecure-registry"], environ=environ)
        assert result.exit_code == 0, result.stderr
        assert "u1.medium" in result.stdout
        mirror = [request for request in registry.requests if request.startswith(b"GET /v2/r/mirror/x ")]
        assert len(mirror) == 1 and b"Authorization: Basic " in mirror[0]
        assert len(cdn.requests) == 1
        assert cdn.requests[0].startswith(b"GET /blob?sig=a%2Fb HTTP/1.1")
        assert b"authorization" not in cdn.requests[0].lower()
        assert f"Referer: http://{registry.host}/v2/r/mirror/x".encode() in cdn.requests[0]
    finally:
        cdn.close()


def test_a_registry_is_read_through_the_proxy_the_environment_names(tmp_path) -> None:
    """HTTPS_PROXY/HTTP_PROXY apply to a registry as Go's ProxyFromEnvironment applies them. An insecure registry
    named registry.example: the HTTPS attempt is a CONNECT the proxy refuses, then plain HTTP goes to the proxy
    in absolute form (the proxy serves the image itself here); the plugin never resolves registry.example."""
    manifest = json.dumps({"schemaVersion": 2, "config": {"digest": digest(json.dumps(CONFIG).encode())}}).encode()

    def answer(request, index):
        if request.startswith(b"CONNECT "):
            return respond("403 Forbidden")
        target = request.split(b" ", 2)[1]
        return respond("200 OK", json.dumps(CONFIG).encode() if b"/blobs/" in target else manifest)

    proxy = ScriptedServer(serve_each(answer))
    try:
        address = f"http://127.0.0.1:{proxy.port}"
        environ = {"HOME": str(tmp_path), "HTTP_PROXY": address, "HTTPS_PROXY": address}
        result = run_cli(
            ["infer", "image", "registry.example:5000/r:t", "--insecure-registry", "-v", "6"], environ=environ
        )
        assert result.exit_code == 0, result.stderr
        assert "no TLS at https://registry.example:5000 (Forbidden): plain HTTP (--insecure-registry)" in result.stderr
        lines = [request.split(b"\r\n", 1)[0] for request in proxy.requests]
        assert lines[0] == b"CONNECT registry.example:5000 HTTP/1.1"
        assert lines[1] == b"GET http://registry.example:5000/v2/r/manifests/t HTTP/1.1"
        assert all(line.startswith(b"GET http://registry.example:5000/v2/r/") for line in lines[1:])
    finally:
        proxy.close()
