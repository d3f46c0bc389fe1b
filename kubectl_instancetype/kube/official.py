"""Hand-over to the official ``kubernetes`` client's loader for credentials we never reimplement.

Exec credential plugins, auth providers (oidc, gcp, azure), basic auth, ``proxy-url`` and in-cluster
service accounts are resolved by ``kubernetes.config``; what it yields (host, CA, client certificate,
Authorization header and its refresh hook, proxy, tls-server-name) is copied into a
:class:`~.config.ClusterConfig` for our transport. Importing the client costs 200-290 ms, so this module is
imported only on that path.
"""

from __future__ import annotations

import os

from ..errors import ConfigurationError
from .config import IN_CLUSTER_NAMESPACE_FILE, ClusterConfig, ConnectionOptions, KubeconfigFiles


def _configuration():
    from kubernetes.client.configuration import Configuration

    return Configuration()


def _to_cluster_config(
    cfg, *, namespace: str, namespace_explicit: bool, context: str, options: ConnectionOptions
) -> ClusterConfig:
    def authorization() -> str | None:
        # get_api_key_with_prefix runs the loader's refresh hook (exec plugin expiry, token files).
        return cfg.get_api_key_with_prefix("BearerToken", alias="authorization") or (
            cfg.get_basic_auth_token() if cfg.username or cfg.password else None
        )

    return ClusterConfig(
        server=str(cfg.host).rstrip("/"),
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
        authorization_source=authorization,
        via_official_loader=True,
    )


def load_from_kubeconfig(files: KubeconfigFiles, options: ConnectionOptions) -> ClusterConfig:
    """Resolve the selected context of ``files`` with ``kubernetes.config.load_kube_config``."""
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import load_kube_config

    cfg = _configuration()
    context_name = options.context or files.current_context
    try:
        load_kube_config(
            config_file=os.pathsep.join(files.paths),
            context=context_name or None,
            client_configuration=cfg,
            persist_config=False,
        )
    except ConfigException as exc:
        raise ConfigurationError(str(exc)) from exc
    except OSError as exc:
        # exec plugin binaries that cannot be started surface as OSError
        raise ConfigurationError(f"getting credentials: {exc}") from exc
    context = files.contexts.get(context_name, {})
    namespace = options.namespace or str(context.get("namespace") or "") or "default"
    return _to_cluster_config(
        cfg, namespace=namespace, namespace_explicit=bool(options.namespace), context=context_name, options=options
    )


def load_in_cluster(options: ConnectionOptions) -> ClusterConfig:
    """Resolve the pod's service account with ``kubernetes.config.load_incluster_config``."""
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.incluster_config import load_incluster_config

    cfg = _configuration()
    try:
        load_incluster_config(client_configuration=cfg)
    except ConfigException as exc:
        raise ConfigurationError(str(exc)) from exc
    namespace = options.namespace
    if not namespace:
        try:
            with open(IN_CLUSTER_NAMESPACE_FILE, encoding="utf-8") as handle:
                namespace = handle.read().strip()
        except OSError:
            namespace = ""
    return _to_cluster_config(
        cfg, namespace=namespace or "default", namespace_explicit=bool(options.namespace), context="", options=options
    )
