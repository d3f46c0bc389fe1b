"""Hand-over to the official ``kubernetes`` client's loader for credentials we never reimplement.

Auth providers (oidc), basic auth and in-cluster service accounts are resolved by ``kubernetes.config``;
what it yields (host, CA, client certificate, Authorization header and its refresh hook, proxy,
tls-server-name) is copied into a :class:`~.model.ClusterConfig` for our transport. Importing the
client costs 200-290 ms, so this module is imported only on that path. (Exec credential plugins are run by
:mod:`.exec_credential`: this loader logs a failing plugin and carries on without credentials.)

Nothing the official client says crosses into our messages unredacted: its exceptions quote whole kubeconfig
entries (an oidc user without ``id-token`` prints client-secret and refresh-token), so every message is
passed through :func:`~.model.redact` with every credential of the user entry, and raised without
the original exception attached (``-v`` prints the chain of causes).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from ...errors import ConfigurationError, PluginError
from .model import (
    IN_CLUSTER_NAMESPACE_FILE,
    ClusterConfig,
    ConnectionOptions,
    KubeconfigFiles,
    check_authorization,
    redact,
    trim_server,
    user_secrets,
)


class _Discard(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        """Drop the record: the loader's log lines may quote credentials, and its failures are raised anyway."""


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """Keep the official client's ``logging.error(...)`` calls off stderr while it runs.

    With no handler on the root logger, ``logging.error`` configures one that prints to stderr; a handler
    of our own that drops records prevents that for the duration of the call.
    """
    root = logging.getLogger()
    handler = _Discard()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)


def _without_entries(text: str) -> str:
    """``text`` with each quoted kubeconfig entry (``{'name': 'u', 'user': {...}}``) replaced by ``users[name=u]``.

    The official loader names a node by the repr of the whole list entry it came from.
    """
    out, index = [], 0
    while True:
        start = text.find("{'name': ", index)
        if start == -1:
            out.append(text[index:])
            return "".join(out)
        depth, end, quote = 0, start, ""
        while end < len(text):
            char = text[end]
            if quote:
                if char == "\\":
                    end += 1
                elif char == quote:
                    quote = ""
            elif char in "'\"":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    break
            end += 1
        entry = text[start : end + 1]
        name_end = entry.find("'", 10)
        name = entry[10:name_end] if name_end > 10 else ""
        section = next((s for s in ("user", "cluster", "context") if f"'{s}': " in entry), "")
        out.append(text[index:start] + (f"{section}s[name={name}]" if section else "[entry]"))
        index = end + 1


def _sanitised(exc: BaseException, secrets: list[str]) -> ConfigurationError:
    """A :class:`ConfigurationError` telling what ``exc`` says, minus every credential."""
    if isinstance(exc, PluginError):
        text = exc.message
    else:
        text = str(exc) or exc.__class__.__name__
    return ConfigurationError(_without_entries(redact(text, secrets)))


def _configuration() -> Any:
    from kubernetes.client.configuration import Configuration

    return Configuration()


def _guarded(secrets: list[str], source: Callable[[], str | None]) -> Callable[[], str | None]:
    """``source`` with its failures sanitised and its result checked as a header value."""

    def authorization() -> str | None:
        try:
            with _quiet_root_logger():
                value = source()
        except Exception as exc:  # noqa: BLE001 - a refresh may fail in any way; say so without its secrets
            raise _sanitised(exc, secrets) from None
        return check_authorization(value) if value else None

    return authorization


def _to_cluster_config(
    cfg: Any,
    *,
    namespace: str,
    namespace_explicit: bool,
    context: str,
    options: ConnectionOptions,
    secrets: list[str],
) -> ClusterConfig:
    def authorization() -> str | None:
        # get_api_key_with_prefix runs the loader's refresh hook (token expiry, in-cluster token files).
        return cfg.get_api_key_with_prefix("BearerToken", alias="authorization") or (
            cfg.get_basic_auth_token() if cfg.username or cfg.password else None
        )

    config = ClusterConfig(
        server=trim_server(str(cfg.host)),
        namespace=namespace,
        namespace_explicit=namespace_explicit,
        context=context,
        ca_file=cfg.ssl_ca_cert or None,
        client_cert_file=cfg.cert_file or None,
        client_key_file=cfg.key_file or None,
        insecure=not cfg.verify_ssl,
        tls_server_name=getattr(cfg, "tls_server_name", None) or None,
        proxy_url=cfg.proxy or None,
        request_timeout=options.request_timeout,
        authorization_source=_guarded(secrets, authorization),
        via_official_loader=True,
    )
    config.authorization()  # refused now, before any request, if the credential is not a valid header value
    return config


def load_from_kubeconfig(files: KubeconfigFiles, options: ConnectionOptions, selected: dict[str, Any]) -> ClusterConfig:
    """Resolve the selected context of ``files`` with the official loader, given ``selected``: a kubeconfig of that
    context alone, its cluster and its user (relative paths already absolute). Its messages name the file that
    defined the user, as the loader names the file it read."""
    context_name = options.context or files.current_context
    context = files.contexts.get(context_name, {})
    user = files.users.get(str(context.get("user") or ""), {})
    secrets = user_secrets(user)
    try:
        from kubernetes.config.kube_config import ConfigNode, load_kube_config_from_dict

        cfg = _configuration()
        with _quiet_root_logger():
            # the selected context alone, from the files already read: the loader's own KubeConfigMerger would
            # parse every file again and deep-copy the whole merged config (150,000 contexts: seconds)
            user_name = str(context.get("user") or "")
            load_kube_config_from_dict(
                ConfigNode(files.user_files.get(user_name, "kube-config"), selected),
                context=context_name or None,
                client_configuration=cfg,
                persist_config=False,
            )
    except Exception as exc:  # noqa: BLE001 - ConfigException, OSError, KeyError, oauth errors: one sanitised line
        raise _sanitised(exc, secrets) from None
    namespace = options.namespace or str(context.get("namespace") or "") or "default"
    config = _to_cluster_config(
        cfg,
        namespace=namespace,
        namespace_explicit=bool(options.namespace),
        context=context_name,
        options=options,
        secrets=secrets,
    )
    # the Python client's Configuration has no disable-compression: read from the selected cluster, as client-go does
    clusters = selected.get("clusters") or [{}]
    config.disable_compression = bool((clusters[0].get("cluster") or {}).get("disable-compression"))
    return config


def load_in_cluster(options: ConnectionOptions) -> ClusterConfig:
    """Resolve the pod's service account with ``kubernetes.config.load_incluster_config``."""
    secrets: list[str] = []
    try:
        from kubernetes.config.incluster_config import SERVICE_TOKEN_FILENAME, load_incluster_config

        with contextlib.suppress(OSError), open(SERVICE_TOKEN_FILENAME, encoding="utf-8", errors="replace") as token:
            secrets.append(token.read().strip())
        cfg = _configuration()
        with _quiet_root_logger():
            load_incluster_config(client_configuration=cfg)
    except Exception as exc:  # noqa: BLE001 - as above
        raise _sanitised(exc, secrets) from None
    namespace = options.namespace
    if not namespace:
        try:
            with open(IN_CLUSTER_NAMESPACE_FILE, encoding="utf-8") as handle:
                namespace = handle.read().strip()
        except OSError:
            namespace = ""
    return _to_cluster_config(
        cfg,
        namespace=namespace or "default",
        namespace_explicit=bool(options.namespace),
        context="",
        options=options,
        secrets=secrets,
    )
