"""What the kubeconfig resolves to, shared by the fast path (:mod:`.resolve`), the hand-over to the official
client (:mod:`.official`), exec credential plugins (:mod:`.exec_credential`) and TLS (:mod:`..tls`).

This module depends on none of them, so that none of them depends on another through it: :mod:`.resolve`
imports :mod:`.official` and :mod:`.exec_credential` (lazily), and they import only this module.
It also holds the one place that keeps credentials out of messages (:func:`redact`).
"""

from __future__ import annotations

from ...errors import ConfigurationError, TransportError
from ...records import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
REDACTED = "REDACTED"  # what `kubectl config view` prints instead of secret data


@dataclass(frozen=True)
class ConnectionOptions:
    """The kubectl-style global flags a command was given (None/empty when not given)."""

    kubeconfig: str | None = None
    context: str | None = None
    cluster: str | None = None  # --cluster: replaces the context's cluster (clientcmd's overrides.Context.Cluster)
    namespace: str | None = None
    request_timeout: float | None = None
    # --as, --as-uid, --as-group: override the kubeconfig user's as, as-uid, as-groups
    as_user: str | None = None
    as_uid: str | None = None
    as_groups: tuple[str, ...] = ()


@dataclass
class ClusterConfig:
    """Everything the transport needs to reach and authenticate to one API server.

    Certificates are held as PEM bytes or file paths; the Authorization header may come from
    ``authorization_source`` (exec plugins, the official loader's refresh hook).
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
    # the cluster's disable-compression: no Accept-Encoding: gzip (client-go's rest.Config.DisableCompression)
    disable_compression: bool = False
    request_timeout: float | None = None
    # Returns the whole Authorization header value, refreshing it when it must (exec plugin expiry,
    # the official loader's hooks) before every request.
    authorization_source: Callable[[], str | None] | None = field(default=None, repr=False)
    via_official_loader: bool = False
    user: str = ""  # the kubeconfig user's name, for messages
    # The user's exec credential plugin (an .exec_credential.ExecCredentialPlugin), run before the first request.
    exec_plugin: Any = field(default=None, repr=False)
    # Who every request acts as (an .impersonation.Impersonation: Impersonate-* headers), or None.
    impersonation: Any = None

    def authorization(self) -> str | None:
        """The ``Authorization`` header to send now, or None (client certificates, anonymous)."""
        if self.authorization_source is not None:
            return self.authorization_source()
        token = self.bearer_token()
        return check_authorization(f"Bearer {token}") if token else None

    def bearer_token(self) -> str | None:
        """The static token: the ``token`` field, or tokenFile read afresh each time."""
        if self.token_file:
            # client-go re-reads tokenFile periodically so that rotated tokens are picked up.
            return read_token_file(self.token_file)
        return self.token

    def __repr__(self) -> str:  # never show credentials, even in a traceback
        return f"ClusterConfig(server={self.server!r}, context={self.context!r}, namespace={self.namespace!r})"


@dataclass
class KubeconfigFiles:
    """The merged view of the kubeconfig files kubectl would read."""

    paths: list[str]
    current_context: str = ""
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict)
    clusters: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the directory of the file that defined each cluster/user, for relative paths
    cluster_dirs: dict[str, str] = field(default_factory=dict)
    user_dirs: dict[str, str] = field(default_factory=dict)
    user_files: dict[str, str] = field(default_factory=dict)  # the file that defined each user, for messages


def check_authorization(value: str) -> str:
    """``value`` unchanged, unless it would break or inject an HTTP header (CR, LF, NUL, other controls).

    Go's net/http refuses such a header value before sending anything; kubectl then prints this sentence.
    """
    if not value.isprintable() and any((ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F for char in value):
        raise TransportError('net/http: invalid header field value for "Authorization"')
    return value


MAX_TOKEN_FILE_BYTES = 1 << 20


def read_token_file(path: str) -> str:
    """The token in ``path`` (surrounding whitespace removed), as client-go reads tokenFile."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TOKEN_FILE_BYTES + 1)
    except OSError as exc:  # Go opens a directory and fails reading it: read_file_error says which
        from ...golang.goos import read_file_error

        raise ConfigurationError(read_file_error(path, exc)) from None
    if len(raw) > MAX_TOKEN_FILE_BYTES:
        raise ConfigurationError(f"the tokenFile {path} is larger than 1 MiB, more than a token holds")
    try:
        token = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigurationError(f"the token in tokenFile {path} is not UTF-8 text") from None
    if not token:
        # kubectl sends the file's bare whitespace, which Go's net/http refuses as a header value.
        raise TransportError('net/http: invalid header field value for "Authorization"')
    return token


# The keys whose values are credentials anywhere in a user entry (auth-provider configs included).
SECRET_KEYS = frozenset(
    [
        "token",
        "password",
        "client-secret",
        "refresh-token",
        "id-token",
        "access-token",
        "client-key-data",
        "client-certificate-data",
        "idp-certificate-authority-data",
        "clientKeyData",
        "clientCertificateData",
        "secret",
        "apikey",
        "api-key",
    ]
)


def _leaves(node: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for child_key, child in node.items():
            yield from _leaves(child, str(child_key))
    elif isinstance(node, list):
        for child in node:
            yield from _leaves(child, key)
    else:
        yield key, node


def user_secrets(user: Any) -> list[str]:
    """Every credential value in a kubeconfig user entry (and in the files it names for them).

    Secret-named keys anywhere, every value of an auth-provider's ``config`` (its keys vary by provider),
    every exec ``env`` value, and the contents of ``tokenFile``.
    """
    if not isinstance(user, dict):
        return []
    found: list[Any] = [value for key, value in _leaves(user) if key in SECRET_KEYS]
    provider = user.get("auth-provider")
    if isinstance(provider, dict) and isinstance(provider.get("config"), dict):
        found += [value for key, value in _leaves(provider["config"]) if key not in ("client-id", "idp-issuer-url")]
    exec_config = user.get("exec")
    if isinstance(exec_config, dict) and isinstance(exec_config.get("env"), list):
        found += [item.get("value") for item in exec_config["env"] if isinstance(item, dict)]
    token_file = user.get("tokenFile")
    if isinstance(token_file, str) and token_file:
        try:
            with open(token_file, "rb") as handle:
                found.append(handle.read(65536).decode("utf-8", "replace").strip())
        except OSError:
            pass
    return [str(value) for value in found if value is not None and not isinstance(value, bool)]


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by ``REDACTED``, in the forms a message may show it.

    Besides the value itself: its ``repr`` (how a dict in an exception message shows it), its JSON form,
    and each of its lines (a multi-line PEM key quoted in part).
    """
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) < 4:  # too short to be a credential, and replacing it would garble the message
            continue
        forms.update((secret, repr(secret)[1:-1], secret.encode("unicode_escape").decode("ascii")))
        forms.update(line.strip() for line in secret.splitlines() if len(line.strip()) >= 8)
        if "\\" in secret or '"' in secret:
            forms.add(secret.replace("\\", "\\\\").replace('"', '\\"'))
    for form in sorted(forms, key=len, reverse=True):
        if form:
            text = text.replace(form, REDACTED)
    return text


def trim_server(server: str) -> str:
    """The server URL without trailing slashes, unless they are all it has after the scheme (``https://``
    stays as written, so that the transport refuses it with client-go's words)."""
    trimmed = server.rstrip("/")
    return trimmed if "://" in trimmed else server
