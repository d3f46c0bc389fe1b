"""The OCI distribution API, read-only: a manifest (an index resolved to one platform) and the image config.

Anonymous first; a ``401`` with a ``Bearer`` challenge fetches a pull token from the realm (with the user's
credentials from ``REGISTRY_AUTH_FILE`` or ``~/.docker/config.json`` when they have some for the registry), a
``Basic`` challenge is answered with those credentials. HTTPS with the system's CAs (``SSL_CERT_FILE`` and
``SSL_CERT_DIR`` as Go reads them). ``insecure`` (``--insecure-registry``) is an insecure registry as
containers/image (podman, CDI's importer) and docker treat one: HTTPS without verifying the certificate, plain
HTTP when the registry speaks no TLS (containers/image docker/docker_client.go ``detectPropertiesHelper``), and
credentials may then go to a plain-HTTP token realm. Without it, credentials never cross the network in clear
text. Every request goes through the request layer the Session hands in (kube/httpclient.py: Go's http.Client,
its redirects, ``HTTPS_PROXY``/``NO_PROXY``, one deadline, bounded bodies); this module opens no connection.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import PluginError
from ..golang.encoding_base64 import std_decode
from ..golang.goos import errno_text
from ..golang.neturl import URL, Reference, parse_reference
from ..golang.strconv import go_quote
from ..instancetype import imagedefaults
from ..instancetype.imagedefaults import ImageError, ImageReference, Platform

if TYPE_CHECKING:
    from ..kube.httpclient import Answer, HTTPClient

MAX_DOCUMENT = 4 * 1024 * 1024  # manifests and configs are small; refuse anything that is not
MAX_AUTH_FILE = 4 * 1024 * 1024  # REGISTRY_AUTH_FILE / docker config.json
MAX_TOKEN_ANSWER = 1024 * 1024  # a token service's JSON answer (a JWT of a few kilobytes)
MAX_JSON_DEPTH = 64  # manifests, configs and token answers nest a few levels; deeper is refused
# Without --request-timeout, reading one image (every request to the registry and its token service) must end
# within this; a registry that trickles bytes is cut off there.
DEFAULT_DEADLINE = 120.0
# The digest algorithms the OCI image spec registers, and the length of their hex encoding
DIGEST_ALGORITHMS = {"sha256": 64, "sha512": 128}
# How long an insecure registry has to answer a TLS handshake before it is read over plain HTTP (Go's
# http.DefaultTransport TLSHandshakeTimeout, which containers/image's client keeps)
TLS_HANDSHAKE_TIMEOUT = 10.0
TIMEOUT = 30.0  # each socket operation (connecting, a read) of a request to the registry


class RegistryError(PluginError):
    """The registry refused or failed a request, or sent something that is not an image."""


@dataclass
class Step:
    """One document read, for ``--explain``: what it was and its digest."""

    what: str
    digest: str

    def text(self) -> str:
        """``image index sha256:...``."""
        return f"{self.what} {self.digest}"


@dataclass
class ImageConfig:
    """The config of the image for one platform, with the documents read to reach it."""

    reference: ImageReference
    platform: Platform
    config: dict[str, Any]
    steps: list[Step] = field(default_factory=list)


def auth_file(environ: Mapping[str, str], home: str) -> str:
    """``REGISTRY_AUTH_FILE``, else ``$DOCKER_CONFIG/config.json``, else ``~/.docker/config.json``."""
    if environ.get("REGISTRY_AUTH_FILE"):
        return environ["REGISTRY_AUTH_FILE"]
    directory = environ.get("DOCKER_CONFIG") or os.path.join(home, ".docker")
    return os.path.join(directory, "config.json")


def credentials(registry: str, environ: Mapping[str, str], home: str) -> tuple[str, str] | None:
    """The user name and password stored for ``registry`` in the auth file, or None (no file, no entry)."""
    import stat

    path = auth_file(environ, home)
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, a device never end
            raise RegistryError(f"reading the registry credentials in {path}: not a regular file")
        with open(path, "rb") as handle:
            raw = handle.read(MAX_AUTH_FILE + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RegistryError(
            f"reading the registry credentials in {path}: {errno_text(exc.strerror or str(exc))}"
        ) from None
    if len(raw) > MAX_AUTH_FILE:
        raise RegistryError(f"reading the registry credentials in {path}: larger than {MAX_AUTH_FILE >> 20} MiB")
    document = _json(raw, f"reading the registry credentials in {path}", "the file")
    auths = document.get("auths") if isinstance(document, dict) else None
    if not isinstance(auths, dict):
        return None
    for key in imagedefaults.credentials_key_candidates(registry):
        entry = auths.get(key)
        if not isinstance(entry, dict):
            continue
        if entry.get("auth"):
            try:
                # docker/cli config/configfile decodeAuth: base64.StdEncoding.DecodeString
                user, _, password = std_decode(str(entry["auth"])).decode("utf-8").partition(":")
            except (ValueError, UnicodeDecodeError) as exc:
                raise RegistryError(f"the credentials for {key} in {path} are not base64 user:password") from exc
            return user, password
        if entry.get("username"):
            return str(entry["username"]), str(entry.get("password", ""))
    return None


class Registry:
    """One registry's distribution API for one repository, over the Session's :class:`~..kube.httpclient.HTTPClient`
    (every connection, proxy, redirect, deadline and size rule is the request layer's)."""

    def __init__(
        self,
        reference: ImageReference,
        http: HTTPClient,
        *,
        insecure: bool = False,
        login: tuple[str, str] | None = None,
        log: Callable[[str], None] | None = None,
        deadline_flag: str = "",
    ):
        self.reference = reference
        self.http = http
        self.scheme = "https"
        self.insecure = insecure
        self._scheme_known = not insecure  # an insecure registry may speak plain HTTP: found on the first request
        self.login = login
        self.log = log
        self.deadline_flag = deadline_flag  # how the deadline was set, for the message
        self.authorization = ""

    def _find_scheme(self) -> None:
        """For an insecure registry: HTTPS (unverified) when the registry answers a TLS handshake, else plain HTTP,
        as containers/image pings ``https`` then ``http`` (docker/docker_client.go ``detectPropertiesHelper``)."""
        self._scheme_known = True
        why = self.http.speaks_tls(f"https://{self.reference.api_host}/", TLS_HANDSHAKE_TIMEOUT)
        if why:
            self.scheme = "http"
            if self.log:
                self.log(f"no TLS at https://{self.reference.api_host} ({why}): plain HTTP (--insecure-registry)")

    def _send(self, url: str, headers: dict[str, str], limit: int = MAX_DOCUMENT) -> Answer:
        from ..kube.httpclient import RequestError

        try:
            return self.http.request("GET", url, headers, max_body=limit)
        except RequestError as exc:
            if exc.deadline:
                raise RegistryError(f"GET {exc.last}: no complete answer within {self.deadline_flag}") from exc
            raise RegistryError(f"GET {exc.last}: {exc.reason}") from exc

    def _own(self, url: Reference) -> bool:
        """The URL is the registry's own host and port (a blob redirected to a CDN is not)."""
        parsed = url.url()
        api = f"{self.scheme}://{self.reference.api_host}/"
        return parsed is not None and _host_port(parsed) == _host_port(parse_reference(api).url())

    def get(self, path: str, accept: str = "") -> Any:
        """GET ``path`` of the API (``/v2/...``), authenticating once on a challenge; the request layer follows
        redirects as Go's http.Client does (credentials stay with the registry's host)."""
        if not self._scheme_known:
            self._find_scheme()
        url = f"{self.scheme}://{self.reference.api_host}{path}"
        while True:
            headers = {"User-Agent": "kubectl-instancetype"}
            if accept:
                headers["Accept"] = accept
            if self.authorization:
                headers["Authorization"] = self.authorization
            answer = self._send(url, headers)
            response = answer.response
            if response.status == 401 and self._own(answer.url) and not self.authorization:
                self.authorization = self._authorize(response.headers.get("www-authenticate", ""))
                continue
            if response.status != 200:
                raise RegistryError(f"GET {answer.url.redacted()}: {_describe(response)}")
            return response

    def _authorize(self, header: str) -> str:
        challenge = imagedefaults.parse_challenge(header)
        basic = ""
        if self.login:
            basic = "Basic " + base64.b64encode(f"{self.login[0]}:{self.login[1]}".encode()).decode()
        if challenge.scheme == "basic":
            if not basic:
                raise RegistryError(f"{self.reference.registry} requires credentials (none in the registry auth file)")
            return basic
        if challenge.scheme != "bearer" or not challenge.params.get("realm"):
            raise RegistryError(
                f"{self.reference.registry} asked for an unsupported authentication: {go_quote(header)}"
            )
        from ..kube.resources import escape

        realm = challenge.params["realm"]
        if basic and not self.insecure and not realm.lower().startswith("https://"):
            # the registry is reached over verified TLS; its credentials must not then cross the network in clear
            # text to the token service it names. Nothing is sent to the realm.
            raise RegistryError(
                f"{self.reference.registry} asks for a token from {go_quote(realm)}, which is not https: the "
                "registry credentials are not sent in clear text (--insecure-registry sends them)"
            )
        query = []
        if challenge.params.get("service"):
            query.append(f"service={escape(challenge.params['service'])}")
        scope = challenge.params.get("scope") or f"repository:{self.reference.repository}:pull"
        query.append(f"scope={escape(scope)}")
        url = realm + ("&" if "?" in realm else "?") + "&".join(query)
        headers = {"User-Agent": "kubectl-instancetype"}
        if basic:
            headers["Authorization"] = basic
        response = self._send(url, headers, MAX_TOKEN_ANSWER).response
        if response.status != 200:
            raise RegistryError(f"getting a pull token from {realm}: {_describe(response)}")
        answer = _json(response.body, f"getting a pull token from {realm}")
        token = (answer.get("token") or answer.get("access_token")) if isinstance(answer, dict) else None
        if not token or not isinstance(token, str):
            raise RegistryError(f"getting a pull token from {realm}: the answer holds no token")
        from ..kube.httpclient import valid_header_value

        if not valid_header_value("Authorization", f"Bearer {token}"):
            raise RegistryError(f"getting a pull token from {realm}: the token holds control characters") from None
        return f"Bearer {token}"

    def document(self, path: str, accept: str, digest: str = "") -> tuple[str, str, dict[str, Any]]:
        """GET a JSON document; returns its media type, digest and content.

        A digest asked for is verified with its own algorithm (sha256 or sha512); the digest returned is the one
        computed from the bytes received, never the registry's ``Docker-Content-Digest`` header.
        """
        algorithm = check_digest(digest, path) if digest else "sha256"
        response = self.get(path, accept)
        actual = f"{algorithm}:" + hashlib.new(algorithm, response.body).hexdigest()
        if digest and digest != actual:
            raise RegistryError(f"{path}: the content's digest {actual} is not the {digest} asked for")
        content = _json(response.body, path)
        if not isinstance(content, dict):
            raise RegistryError(f"{path}: not a JSON object")
        media_type = str(content.get("mediaType") or response.headers.get("content-type", "").split(";")[0])
        return media_type, actual, content


def check_digest(digest: str, what: str) -> str:
    """The algorithm of ``digest`` once it is a well-formed OCI digest of a registered algorithm (sha256, sha512);
    else :class:`RegistryError`: an unknown algorithm cannot be verified, and a malformed digest must never reach
    a URL (``\\r\\n`` would split the request line, ``../`` change the path)."""
    algorithm, colon, encoded = digest.partition(":")
    if not colon or not _DIGEST_ALGORITHM.fullmatch(algorithm) or not _DIGEST_ENCODED.fullmatch(encoded):
        raise RegistryError(f"{what}: {go_quote(digest)} is not an OCI digest (algorithm:hex)")
    length = DIGEST_ALGORITHMS.get(algorithm)
    if length is None:
        raise RegistryError(
            f"{what}: the digest algorithm {go_quote(algorithm)} is not one this client can verify (sha256, sha512)"
        )
    if len(encoded) != length or not all(char in "0123456789abcdef" for char in encoded):
        raise RegistryError(f"{what}: {go_quote(digest)} is not a {algorithm} digest ({length} lowercase hex digits)")
    return algorithm


def read_image_config(
    reference: ImageReference,
    platform: Platform,
    http: HTTPClient,
    *,
    insecure: bool = False,
    login: tuple[str, str] | None = None,
    log: Callable[[str], None] | None = None,
    request_timeout: float | None = None,
) -> ImageConfig:
    """The image config of ``reference`` for ``platform`` (through the image index when there is one), read with
    ``http`` (the Session's request layer; every request and its redirects end by one deadline, set here)."""
    repository = reference.repository
    accept = ", ".join(imagedefaults.MANIFEST_TYPES)
    import time

    if reference.digest:
        check_digest(reference.digest, str(reference))
    seconds = request_timeout or DEFAULT_DEADLINE
    flag = f"--request-timeout={seconds:g}s" if request_timeout else f"{seconds:g}s (set --request-timeout to change)"
    http.deadline = time.monotonic() + seconds
    registry = Registry(reference, http, insecure=insecure, login=login, log=log, deadline_flag=flag)
    with http:
        steps = []
        media_type, digest, manifest = registry.document(
            f"/v2/{repository}/manifests/{reference.reference}", accept, reference.digest
        )
        if media_type in imagedefaults.INDEX_TYPES or "manifests" in manifest:
            steps.append(Step("image index", digest))
            try:
                chosen = imagedefaults.select_manifest(manifest, platform)
            except ImageError as exc:  # it names the index's platforms: the registry's text
                raise RegistryError(f"{reference}: {_one_line(str(exc))}") from exc
            # before it is part of a URL or of a message: "\r\n" would split either
            check_digest(chosen, f"{reference}: the image index {digest} names for {platform}")
            media_type, digest, manifest = registry.document(f"/v2/{repository}/manifests/{chosen}", accept, chosen)
        steps.append(Step(f"{platform} manifest", digest))
        config = manifest.get("config")
        config_digest = str((config.get("digest") if isinstance(config, dict) else "") or "")
        if not config_digest:
            shown = _one_line(media_type) or "no media type"
            raise RegistryError(f"{reference}: the manifest {digest} names no config ({shown})")
        check_digest(config_digest, f"{reference}: the manifest {digest} names its config")
        _, _, config = registry.document(f"/v2/{repository}/blobs/{config_digest}", "", config_digest)
        steps.append(Step("config", config_digest))
    return ImageConfig(reference, platform, config, steps)


_DIGEST_ALGORITHM = re.compile(r"[a-z0-9]+(?:[+._-][a-z0-9]+)*")
_DIGEST_ENCODED = re.compile(r"[a-zA-Z0-9=_-]+")


def _host_port(url: URL | None) -> str:
    return url.host_port if url is not None else ""


def _depth_ok(text: str) -> bool:
    """True when the JSON text nests at most :data:`MAX_JSON_DEPTH` arrays/objects (strings skipped)."""
    depth, quoted, escaped = 0, False, False
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return False
        elif char in "]}":
            depth -= 1
    return True


def _json(body: bytes, what: str, holder: str = "the answer") -> Any:
    """The JSON document in ``body``; one sentence naming ``what`` (and ``holder``: the answer, the file) when it
    is not UTF-8, not JSON, nested deeper than :data:`MAX_JSON_DEPTH` or holds a number Python will not read."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RegistryError(f"{what}: {holder} is not UTF-8 text (byte {exc.start}), so not JSON") from None
    if not _depth_ok(text):
        raise RegistryError(f"{what}: {holder} nests deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        where = f" at byte {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        raise RegistryError(f"{what}: {holder} is not JSON{where}") from None


def _describe(response: Any) -> str:
    """``401 Unauthorized: UNAUTHORIZED: authentication required`` from the registry's error document."""
    text = f"{response.status} {response.reason}".strip()
    try:
        answer = _json(response.body, "")
        errors = (answer.get("errors") or []) if isinstance(answer, dict) else []
    except RegistryError:
        errors = []
    if not isinstance(errors, list):
        errors = []
    details = [f"{e.get('code', '')}: {e.get('message', '')}".strip(": ") for e in errors if isinstance(e, dict)]
    return f"{text}: {_one_line('; '.join(details))}" if details else text


def _one_line(text: str) -> str:
    """A registry's text for the one error line: its line breaks shown as ``\\n`` (stderr escapes every other
    control character, output/terminal.escape_lines)."""
    return text.replace("\r\n", "\n").replace("\n", "\\n")
