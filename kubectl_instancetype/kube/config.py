"""Kubeconfig resolution: a fast path for static credentials, the official loader for everything else.

kubectl's loading rules (client-go ``clientcmd``) are followed: ``--kubeconfig`` names one file;
otherwise ``KUBECONFIG`` lists files separated by ``os.pathsep`` (missing ones skipped) that are merged so
that the first file to set a key wins; otherwise ``~/.kube/config``. Relative paths in a file are resolved
against that file's directory.

Static credentials (server, CA, client certificate and key, token or tokenFile, insecure-skip-tls-verify,
tls-server-name, namespace) are resolved here, with PyYAML's C loader and no other import, because that is
most of a plugin's start-up budget. Exec credential plugins, auth providers, ``proxy-url``, basic auth and
in-cluster service accounts are handed to the official ``kubernetes`` client's loader (see :mod:`.official`),
which is imported only then; its result is used by the same transport.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigurationError

IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


@dataclass(frozen=True)
class ConnectionOptions:
    """The kubectl-style global flags a command was given (None/empty when not given)."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    request_timeout: float | None = None


@dataclass
class ClusterConfig:
    """Everything the transport needs to reach and authenticate to one API server.

    Certificates are held as PEM bytes or file paths; ``token`` may be refreshed through
    ``token_source`` (set for credentials from the official loader, e.g. exec plugins).
    """

    server: str
    namespace: str = "default"
    namespace_explicit: bool = False
    context: str = ""
    ca_data: bytes | None = None
    ca_file: str | None = None
    client_cert_data: bytes | None = None
    client_cert_file: str | None = None
    client_key_data: bytes | None = None
    client_key_file: str | None = None
    token: str | None = None
    token_file: str | None = None
    insecure: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    request_timeout: float | None = None
    # For credentials from the official loader: returns the whole Authorization header value and lets
    # the loader refresh it (exec plugins, in-cluster token rotation) before every request.
    authorization_source: Callable[[], str | None] | None = field(default=None, repr=False)
    via_official_loader: bool = False

    def authorization(self) -> str | None:
        """The ``Authorization`` header to send now, or None (client certificates, anonymous)."""
        if self.authorization_source is not None:
            return self.authorization_source()
        token = self.bearer_token()
        return f"Bearer {token}" if token else None

    def bearer_token(self) -> str | None:
        """The static token: the ``token`` field, or tokenFile read afresh each time."""
        if self.token_file:
            # client-go re-reads tokenFile periodically so that rotated tokens are picked up.
            try:
                with open(self.token_file, encoding="utf-8") as handle:
                    return handle.read().strip()
            except OSError as exc:
                raise ConfigurationError(f"unable to read tokenFile {self.token_file}: {exc.strerror}") from exc
        return self.token

    def __repr__(self) -> str:  # never show credentials, even in a traceback
        return f"ClusterConfig(server={self.server!r}, context={self.context!r}, namespace={self.namespace!r})"


class NeedsOfficialLoader(Exception):
    """Raised by the fast path when the selected context uses something only the official loader handles."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


@dataclass
class KubeconfigFiles:
    """The merged view of the kubeconfig files kubectl would read."""

    paths: list[str]
    current_context: str = ""
    contexts: dict[str, dict] = field(default_factory=dict)
    clusters: dict[str, dict] = field(default_factory=dict)
    users: dict[str, dict] = field(default_factory=dict)
    # the directory of the file that defined each cluster/user, for relative paths
    cluster_dirs: dict[str, str] = field(default_factory=dict)
    user_dirs: dict[str, str] = field(default_factory=dict)


def kubeconfig_paths(explicit: str | None, environ: Mapping[str, str], home: str) -> list[str]:
    """The files to read, in precedence order, following clientcmd's loading rules."""
    if explicit:
        if not os.path.exists(explicit):
            raise ConfigurationError(f"stat {explicit}: no such file or directory")
        return [explicit]
    listed = environ.get("KUBECONFIG", "")
    if listed:
        seen: list[str] = []
        for path in listed.split(os.pathsep):
            if path and path not in seen and os.path.exists(path):
                seen.append(path)
        return seen
    default = os.path.join(home, ".kube", "config")
    return [default] if os.path.exists(default) else []


def _yaml_load(text: str) -> Any:
    if text.lstrip().startswith("{"):
        # JSON is YAML too; json is imported anyway, PyYAML costs ~14 ms of start-up.
        import json

        try:
            return json.loads(text)
        except ValueError:
            pass
    from .kubeconfig_yaml import UNSUPPORTED, load

    document = load(text)
    if document is not UNSUPPORTED:
        return document
    import yaml  # only for kubeconfigs outside the common block-style subset

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


def _yaml_problem(exc: Exception) -> str:
    """One line for a YAML error, in the shape Go's yaml package reports (``yaml: line N: problem``)."""
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is not None and problem:
        return f"yaml: line {mark.line + 1}: {problem}"
    return str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__


def _named(entries: Any, key: str) -> list[tuple[str, dict]]:
    out = []
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name") is not None:
            out.append((str(entry["name"]), entry.get(key) or {}))
    return out


def read_kubeconfig(paths: list[str]) -> KubeconfigFiles:
    """Read and merge ``paths``: for every name and for current-context, the first file to set it wins."""
    merged = KubeconfigFiles(paths=list(paths))
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                document = _yaml_load(handle.read()) or {}
        except OSError as exc:
            raise ConfigurationError(f'error loading config file "{path}": {exc.strerror}') from exc
        except Exception as exc:  # yaml.YAMLError, caught without importing yaml eagerly
            raise ConfigurationError(f'error loading config file "{path}": {_yaml_problem(exc)}') from exc
        if not isinstance(document, dict):
            raise ConfigurationError(f'error loading config file "{path}": not a kubeconfig mapping')
        directory = os.path.dirname(os.path.abspath(path))
        if not merged.current_context and document.get("current-context"):
            merged.current_context = str(document["current-context"])
        for name, body in _named(document.get("contexts"), "context"):
            merged.contexts.setdefault(name, body)
        for name, body in _named(document.get("clusters"), "cluster"):
            if name not in merged.clusters:
                merged.clusters[name] = body
                merged.cluster_dirs[name] = directory
        for name, body in _named(document.get("users"), "user"):
            if name not in merged.users:
                merged.users[name] = body
                merged.user_dirs[name] = directory
    return merged


def _resolve(path: str | None, directory: str) -> str | None:
    if not path:
        return None
    path = os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(directory, path)


def _decode(data: Any, what: str) -> bytes | None:
    if not data:
        return None
    import base64  # only kubeconfigs with *-data fields need it

    try:
        return base64.b64decode(str(data), validate=False)
    except ValueError as exc:
        raise ConfigurationError(f"{what}: illegal base64 data") from exc


_OFFICIAL_ONLY_USER_KEYS = ("exec", "auth-provider", "username", "password")


def resolve_static(files: KubeconfigFiles, options: ConnectionOptions) -> ClusterConfig:
    """Resolve the selected context to a :class:`ClusterConfig` from static credentials.

    Raises :class:`NeedsOfficialLoader` when the context needs exec, an auth provider, basic auth or a proxy.
    """
    context_name = options.context or files.current_context
    if not context_name:
        raise ConfigurationError("no context is selected: set current-context in the kubeconfig or pass --context")
    context = files.contexts.get(context_name)
    if context is None:
        raise ConfigurationError(f"context was not found for specified context: {context_name}")
    cluster_name = str(context.get("cluster") or "")
    cluster = files.clusters.get(cluster_name)
    if cluster is None:
        raise ConfigurationError(
            f'context "{context_name}" refers to cluster "{cluster_name}", which is not in the kubeconfig'
        )
    user_name = str(context.get("user") or "")
    user = files.users.get(user_name, {}) if user_name else {}
    if user_name and user_name not in files.users:
        raise ConfigurationError(
            f'context "{context_name}" refers to user "{user_name}", which is not in the kubeconfig'
        )
    for key in _OFFICIAL_ONLY_USER_KEYS:
        if user.get(key):
            raise NeedsOfficialLoader(f"user {key}")
    if cluster.get("proxy-url"):
        raise NeedsOfficialLoader("cluster proxy-url")
    server = str(cluster.get("server") or "")
    if not server:
        raise ConfigurationError(f'cluster "{cluster_name}" has no server')
    cluster_dir = files.cluster_dirs.get(cluster_name, "")
    user_dir = files.user_dirs.get(user_name, "")
    namespace = options.namespace or str(context.get("namespace") or "") or "default"
    token = user.get("token")
    return ClusterConfig(
        server=server.rstrip("/"),
        namespace=namespace,
        namespace_explicit=bool(options.namespace),
        context=context_name,
        ca_data=_decode(cluster.get("certificate-authority-data"), "certificate-authority-data"),
        ca_file=_resolve(cluster.get("certificate-authority"), cluster_dir),
        client_cert_data=_decode(user.get("client-certificate-data"), "client-certificate-data"),
        client_cert_file=_resolve(user.get("client-certificate"), user_dir),
        client_key_data=_decode(user.get("client-key-data"), "client-key-data"),
        client_key_file=_resolve(user.get("client-key"), user_dir),
        token=str(token) if token else None,
        token_file=None if token else _resolve(user.get("tokenFile"), user_dir),
        insecure=bool(cluster.get("insecure-skip-tls-verify")),
        tls_server_name=cluster.get("tls-server-name") or None,
        request_timeout=options.request_timeout,
    )


def load_cluster_config(options: ConnectionOptions, environ: Mapping[str, str], home: str) -> ClusterConfig:
    """The connection settings for ``options``: fast path first, official loader when it must."""
    paths = kubeconfig_paths(options.kubeconfig, environ, home)
    if not paths:
        if environ.get("KUBERNETES_SERVICE_HOST") and environ.get("KUBERNETES_SERVICE_PORT"):
            from . import official

            return official.load_in_cluster(options)
        raise ConfigurationError(
            "no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config"
        )
    files = read_kubeconfig(paths)
    try:
        return resolve_static(files, options)
    except NeedsOfficialLoader:
        from . import official

        return official.load_from_kubeconfig(files, options)
