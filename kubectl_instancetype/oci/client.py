"""The OCI distribution API, read-only: a manifest (an index resolved to one platform) and the image config.

Anonymous first; a ``401`` with a ``Bearer`` challenge fetches a pull token from the realm (with the user's
credentials from ``REGISTRY_AUTH_FILE`` or ``~/.docker/config.json`` when they have some for the registry), a
``Basic`` challenge is answered with those credentials. HTTPS with the system's CAs, plain HTTP with
``insecure``. Redirects (blob downloads from a CDN) are followed, to at most five hops.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import PluginError
from ..golang.encoding_base64 import std_decode
from ..instancetype import imagedefaults
from ..instancetype.imagedefaults import ImageError, ImageReference, Platform

MAX_DOCUMENT = 4 * 1024 * 1024  # manifests and configs are small; refuse anything that is not
MAX_REDIRECTS = 5
TIMEOUT = 30.0


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
    path = auth_file(environ, home)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RegistryError(f"reading the registry credentials in {path}: {exc}") from exc
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


def _split(url: str) -> tuple[str, str, int, str]:
    from ..kube.transport import split_url

    scheme, host, port, path = split_url(url.split("?", 1)[0])
    query = url.split("?", 1)[1] if "?" in url else ""
    return scheme, host, port, (path or "/") + (f"?{query}" if query else "")


class Registry:
    """One registry's distribution API for one repository."""

    def __init__(
        self,
        reference: ImageReference,
        *,
        insecure: bool = False,
        login: tuple[str, str] | None = None,
        timeout: float = TIMEOUT,
        log: Callable[[str], None] | None = None,
    ):
        self.reference = reference
        self.scheme = "http" if insecure else "https"
        self.login = login
        self.timeout = timeout
        self.log = log
        self.authorization = ""
        self._connections: dict[tuple[str, str, int], Any] = {}

    def close(self) -> None:
        """Close every connection opened."""
        for connection in self._connections.values():
            connection.close()
        self._connections.clear()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connection(self, scheme: str, host: str, port: int) -> Any:
        from ..kube.http import Connection

        key = (scheme, host, port)
        if key not in self._connections:
            tls = None
            if scheme == "https":
                import ssl

                tls = ssl.create_default_context()
            self._connections[key] = Connection(host, port, timeout=self.timeout, tls_context=tls)
        return self._connections[key]

    def _send(self, url: str, headers: dict[str, str]) -> Any:
        from ..kube.http import ProtocolError

        scheme, host, port, target = _split(url)
        connection = self._connection(scheme, host, port)
        try:
            response = connection.request("GET", target, headers)
        except (OSError, ProtocolError) as exc:
            connection.close()
            raise RegistryError(f"GET {url}: {exc.strerror or exc if isinstance(exc, OSError) else exc}") from exc
        if self.log:
            self.log(f"GET {url} {response.status} {response.reason}")
        return response

    def get(self, path: str, accept: str = "") -> Any:
        """GET ``path`` of the API (``/v2/...``), authenticating once on a challenge, following redirects."""
        url = f"{self.scheme}://{self.reference.api_host}{path}"
        for _ in range(MAX_REDIRECTS + 1):
            headers = {"User-Agent": "kubectl-instancetype"}
            if accept:
                headers["Accept"] = accept
            same_host = _split(url)[1:3] == _split(f"{self.scheme}://{self.reference.api_host}/")[1:3]
            if self.authorization and same_host:
                headers["Authorization"] = self.authorization
            response = self._send(url, headers)
            if response.status == 401 and same_host and not self.authorization:
                self.authorization = self._authorize(response.headers.get("www-authenticate", ""))
                continue
            if response.status in (301, 302, 303, 307, 308) and response.headers.get("location"):
                location = response.headers["location"]
                url = location if "://" in location else f"{self.scheme}://{self.reference.api_host}{location}"
                continue
            if response.status != 200:
                raise RegistryError(f"GET {url}: {_describe(response)}")
            if len(response.body) > MAX_DOCUMENT:
                raise RegistryError(f"GET {url}: {len(response.body)} bytes is too large for a manifest or config")
            return response
        raise RegistryError(f"GET {url}: more than {MAX_REDIRECTS} redirects")

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
            raise RegistryError(f"{self.reference.registry} asked for an unsupported authentication: {header!r}")
        from ..kube.resources import escape

        realm = challenge.params["realm"]
        query = []
        if challenge.params.get("service"):
            query.append(f"service={escape(challenge.params['service'])}")
        scope = challenge.params.get("scope") or f"repository:{self.reference.repository}:pull"
        query.append(f"scope={escape(scope)}")
        url = realm + ("&" if "?" in realm else "?") + "&".join(query)
        headers = {"User-Agent": "kubectl-instancetype"}
        if basic:
            headers["Authorization"] = basic
        response = self._send(url, headers)
        if response.status != 200:
            raise RegistryError(f"getting a pull token from {realm}: {_describe(response)}")
        try:
            answer = json.loads(response.body)
            token = answer.get("token") or answer.get("access_token")
        except (ValueError, AttributeError):
            token = None
        if not token:
            raise RegistryError(f"getting a pull token from {realm}: the answer holds no token")
        return f"Bearer {token}"

    def document(self, path: str, accept: str, digest: str = "") -> tuple[str, str, dict[str, Any]]:
        """GET a JSON document; returns its media type, digest and content. A digest asked for is verified."""
        response = self.get(path, accept)
        actual = "sha256:" + hashlib.sha256(response.body).hexdigest()
        if digest and digest.startswith("sha256:") and digest != actual:
            raise RegistryError(f"{path}: the content's digest {actual} is not the {digest} asked for")
        try:
            content = json.loads(response.body)
        except ValueError as exc:
            raise RegistryError(f"{path}: not JSON ({exc})") from exc
        if not isinstance(content, dict):
            raise RegistryError(f"{path}: not a JSON object")
        media_type = str(content.get("mediaType") or response.headers.get("content-type", "").split(";")[0])
        return media_type, response.headers.get("docker-content-digest") or actual, content


def read_image_config(
    reference: ImageReference,
    platform: Platform,
    *,
    insecure: bool = False,
    login: tuple[str, str] | None = None,
    log: Callable[[str], None] | None = None,
) -> ImageConfig:
    """The image config of ``reference`` for ``platform`` (through the image index when there is one)."""
    repository = reference.repository
    accept = ", ".join(imagedefaults.MANIFEST_TYPES)
    with Registry(reference, insecure=insecure, login=login, log=log) as registry:
        steps = []
        media_type, digest, manifest = registry.document(
            f"/v2/{repository}/manifests/{reference.reference}", accept, reference.digest
        )
        if media_type in imagedefaults.INDEX_TYPES or "manifests" in manifest:
            steps.append(Step("image index", digest))
            try:
                chosen = imagedefaults.select_manifest(manifest, platform)
            except ImageError as exc:
                raise RegistryError(f"{reference}: {exc}") from exc
            media_type, digest, manifest = registry.document(f"/v2/{repository}/manifests/{chosen}", accept, chosen)
        steps.append(Step(f"{platform} manifest", digest))
        config_digest = str((manifest.get("config") or {}).get("digest") or "")
        if not config_digest:
            raise RegistryError(f"{reference}: the manifest {digest} names no config ({media_type or 'no media type'})")
        _, _, config = registry.document(f"/v2/{repository}/blobs/{config_digest}", "", config_digest)
        steps.append(Step("config", config_digest))
    return ImageConfig(reference, platform, config, steps)


def _describe(response: Any) -> str:
    """``401 Unauthorized: UNAUTHORIZED: authentication required`` from the registry's error document."""
    text = f"{response.status} {response.reason}".strip()
    try:
        errors = json.loads(response.body).get("errors") or []
    except (ValueError, AttributeError):
        errors = []
    details = [f"{e.get('code', '')}: {e.get('message', '')}".strip(": ") for e in errors if isinstance(e, dict)]
    return f"{text}: {'; '.join(details)}" if details else text
