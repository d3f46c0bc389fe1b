"""Resolving the selected context to a :class:`~.model.ClusterConfig`: a fast path for everything but auth
providers and basic auth.

The context is validated as clientcmd's ``ConfirmUsable`` does (:mod:`.validation`), so that a wrong kubeconfig
reads as kubectl reports it. Static credentials (server, CA, client certificate and key, token or tokenFile,
insecure-skip-tls-verify, tls-server-name, proxy-url, namespace) and exec credential plugins
(:mod:`.exec_credential`) are resolved here. Auth providers, basic auth and in-cluster service accounts are
handed to the official ``kubernetes`` client's loader (:mod:`.official`), imported only then.
"""

from __future__ import annotations

from ...errors import ConfigurationError
from ...golang.strconv import go_quote
from .files import kubeconfig_paths, read_kubeconfig
from .model import ClusterConfig, ConnectionOptions, KubeconfigFiles, check_authorization, read_token_file, trim_server
from .validation import refuse, resolve_path, validate_cluster, validate_user

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


class NeedsOfficialLoader(Exception):
    """Raised by the fast path when the selected context uses something only the official loader handles."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


_OFFICIAL_ONLY_USER_KEYS = ("auth-provider", "username", "password")


def resolve_static(files: KubeconfigFiles, options: ConnectionOptions, exec_plugins: Any = None) -> ClusterConfig:
    """Resolve the selected context to a :class:`ClusterConfig`, validated as kubectl validates it.

    An exec credential plugin is configured but not run (:func:`load_cluster_config` runs it). Raises
    :class:`NeedsOfficialLoader` when the context needs an auth provider or basic auth.
    """
    context_name = options.context or files.current_context
    if not context_name:
        raise ConfigurationError("no context is selected: set current-context in the kubeconfig or pass --context")
    context = files.contexts.get(context_name)
    if context is None:
        raise context_not_found(context_name)
    cluster_name = str(context.get("cluster") or "")
    if options.cluster:
        # clientcmd's overrides.Context.Cluster: --cluster replaces the context's cluster. A name the kubeconfig
        # lacks leaves a cluster with no server (validateClusterInfo): kubectl v1.36.3 prints this, checked by
        # tests/unit/test_scope_and_cluster_flags.py against the real kubectl
        cluster_name = options.cluster
        if cluster_name not in files.clusters:
            raise ConfigurationError(f"no server found for cluster {go_quote(cluster_name)}")  # validation.go: %q
    cluster = files.clusters.get(cluster_name)
    if cluster is None:
        raise ConfigurationError(
            f"context {go_quote(context_name)} refers to cluster {go_quote(cluster_name)}, which is not in the kubeconfig"
        )
    user_name = str(context.get("user") or "")
    user = files.users.get(user_name, {}) if user_name else {}
    if user_name and user_name not in files.users:
        raise ConfigurationError(
            f"context {go_quote(context_name)} refers to user {go_quote(user_name)}, which is not in the kubeconfig"
        )
    cluster_dir = files.cluster_dirs.get(cluster_name, "")
    user_dir = files.user_dirs.get(user_name, "")
    acting_as = _impersonation_fields(user, options)
    problems = validate_user(user_name, user, user_dir)
    if acting_as is not None:
        from ..impersonation import problem

        problems += [why] if (why := problem(user_name, acting_as)) else []
    refuse(problems + validate_cluster(cluster_name, cluster, cluster_dir))
    for key in _OFFICIAL_ONLY_USER_KEYS:
        if user.get(key):
            raise NeedsOfficialLoader(f"user {key}")
    insecure = bool(cluster.get("insecure-skip-tls-verify"))
    if insecure and (cluster.get("certificate-authority") or cluster.get("certificate-authority-data")):
        raise ConfigurationError("specifying a root certificates file with the insecure flag is not allowed")
    namespace = options.namespace or str(context.get("namespace") or "") or "default"
    token = user.get("token")
    config = ClusterConfig(
        server=trim_server(str(cluster["server"])),
        namespace=namespace,
        namespace_explicit=bool(options.namespace),
        context=context_name,
        ca_data=_decode(cluster.get("certificate-authority-data")),
        ca_file=resolve_path(cluster.get("certificate-authority"), cluster_dir),
        client_cert_data=_decode(user.get("client-certificate-data")),
        client_cert_file=resolve_path(user.get("client-certificate"), user_dir),
        client_key_data=_decode(user.get("client-key-data")),
        client_key_file=resolve_path(user.get("client-key"), user_dir),
        token=str(token) if token else None,
        token_file=None if token else resolve_path(user.get("tokenFile"), user_dir),
        insecure=insecure,
        tls_server_name=str(cluster.get("tls-server-name") or "") or None,
        proxy_url=str(cluster.get("proxy-url") or "") or None,
        disable_compression=bool(cluster.get("disable-compression")),
        request_timeout=options.request_timeout,
        user=user_name,
        impersonation=_impersonation(acting_as, user_name),
    )
    if config.token:
        check_authorization(f"Bearer {config.token}")
    elif config.token_file:
        token = read_token_file(config.token_file)  # kubectl reads it before the first request
        if token:
            check_authorization(f"Bearer {token}")
    if user.get("exec") is not None:
        from .exec_credential import ExecCredentialPlugin

        info = _exec_cluster_info(cluster, config)

        def make() -> ExecCredentialPlugin:
            return ExecCredentialPlugin(user["exec"], info, user_dir)

        if exec_plugins is None:
            plugin = make()
        else:
            # one plugin per user and cluster info for a fleet's contexts (client-go's exec cacheKey)
            import json

            shown = info if user["exec"].get("provideClusterInfo") else None
            plugin = exec_plugins.shared((user_name, json.dumps(shown, sort_keys=True)), make)
        plugin.timeout = options.request_timeout
        config.exec_plugin = plugin
        config.authorization_source = plugin.authorization
    return config


def _impersonation_fields(user: dict[str, Any], options: ConnectionOptions) -> dict[str, Any] | None:
    """The user entry's impersonation with the --as flags over it; None when neither sets any."""
    keys = ("as", "as-uid", "as-groups", "as-user-extra")
    if not (options.as_user or options.as_uid or options.as_groups or any(user.get(key) for key in keys)):
        return None  # the common case: impersonation.py is not imported
    from ..impersonation import merged

    return merged(user, options.as_user, options.as_uid, options.as_groups)


def _impersonation(fields: dict[str, Any] | None, user_name: str) -> Any:
    """The Impersonation the requests carry (None without one); clientcmd's refusal of groups without a user."""
    if fields is None:
        return None
    from ..impersonation import problem, resolve

    refuse([why] if (why := problem(user_name, fields)) else [])
    return resolve(fields)


def _decode(data: Any) -> bytes | None:
    if not data:
        return None
    from ...golang.encoding_base64 import std_decode  # already checked by schema.check_shape

    return std_decode(str(data))


def _exec_cluster_info(cluster: dict[str, Any], config: ClusterConfig) -> dict[str, Any]:
    """The ``spec.cluster`` an exec plugin is given when it asks for it (provideClusterInfo)."""
    info: dict[str, Any] = {"server": cluster.get("server") or ""}
    for key, field in (("tls-server-name", "tls-server-name"), ("proxy-url", "proxy-url")):
        if cluster.get(key):
            info[field] = cluster[key]
    if config.insecure:
        info["insecure-skip-tls-verify"] = True
    if cluster.get("certificate-authority-data"):
        info["certificate-authority-data"] = str(cluster["certificate-authority-data"])
    elif config.ca_file:
        import base64

        try:
            with open(config.ca_file, "rb") as handle:
                info["certificate-authority-data"] = base64.b64encode(handle.read()).decode("ascii")
        except OSError:
            pass
    for extension in cluster.get("extensions") or []:
        if isinstance(extension, dict) and extension.get("name") == "client.authentication.k8s.io/exec":
            info["config"] = extension.get("extension")
    return info


def _selected(files: KubeconfigFiles, context_name: str) -> dict[str, Any]:
    """A kubeconfig holding only ``context_name``, its cluster and its user, their relative paths made absolute against
    the file that defined each: the official loader, given the files, would parse them again and deep-copy the whole
    merged config (KubeConfigMerger: seconds for 150,000 contexts), and resolves a dict's paths against the current
    directory."""
    context = files.contexts.get(context_name) or {}
    cluster_name, user_name = str(context.get("cluster") or ""), str(context.get("user") or "")
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": context_name,
        "contexts": [{"name": context_name, "context": context}],
        "clusters": [],
        "users": [],
    }
    if cluster_name in files.clusters:
        cluster = dict(files.clusters[cluster_name])
        if cluster.get("certificate-authority"):
            directory = files.cluster_dirs.get(cluster_name, "")
            cluster["certificate-authority"] = resolve_path(cluster["certificate-authority"], directory)
        config["clusters"].append({"name": cluster_name, "cluster": cluster})
    if user_name in files.users:
        user = dict(files.users[user_name])
        for key in ("client-certificate", "client-key", "tokenFile"):
            if user.get(key):
                user[key] = resolve_path(user[key], files.user_dirs.get(user_name, ""))
        config["users"].append({"name": user_name, "user": user})
    return config


def _run_exec_plugin(config: ClusterConfig, environ: Mapping[str, str], exec_plugins: Any = None) -> ClusterConfig:
    """Run the context's exec plugin now, as kubectl does before its first request; fail as kubectl fails. A
    fleet's shared plugin (``exec_plugins``) runs once for all its contexts."""
    plugin = config.exec_plugin
    if plugin is not None:
        plugin.base_environ = dict(environ)
        if exec_plugins is None:
            plugin.refresh()
        else:
            exec_plugins.ensure(plugin)
        if plugin.cert_pem and plugin.key_pem:
            config.client_cert_data, config.client_key_data = plugin.cert_pem, plugin.key_pem
            config.client_cert_file = config.client_key_file = None
    return config


def load_cluster_config(
    options: ConnectionOptions,
    environ: Mapping[str, str],
    home: str,
    *,
    files: KubeconfigFiles | None = None,
    exec_plugins: Any = None,
) -> ClusterConfig:
    """The connection settings for ``options``: fast path first, official loader when it must. ``files``: the
    kubeconfig files already read and merged for ``options`` (they are read here otherwise)."""
    paths = files.paths if files is not None else kubeconfig_paths(options.kubeconfig, environ, home)
    if not paths:
        if environ.get("KUBERNETES_SERVICE_HOST") and environ.get("KUBERNETES_SERVICE_PORT"):
            from . import official

            config = official.load_in_cluster(options)
            config.impersonation = _impersonation(_impersonation_fields({}, options), "")
            return config
        raise ConfigurationError(
            "no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config"
        )
    if files is None:
        files = read_kubeconfig(paths)
    try:
        config = resolve_static(files, options, exec_plugins)
    except NeedsOfficialLoader as exc:
        from . import official

        if options.cluster:
            raise ConfigurationError(
                f"--cluster is not supported with a kubeconfig user that needs the official loader ({exc.why}): "
                "use a context that names the cluster (--context)"
            ) from None

        config = official.load_from_kubeconfig(
            files, options, _selected(files, options.context or files.current_context)
        )
        context = files.contexts.get(options.context or files.current_context) or {}
        user_name = str(context.get("user") or "")
        config.impersonation = _impersonation(_impersonation_fields(files.users.get(user_name, {}), options), user_name)
        return config
    return _run_exec_plugin(config, environ, exec_plugins)


def context_not_found(name: str) -> ConfigurationError:
    """clientcmd's ``ErrNoContext`` (validation.go: ``context was not found for specified context: %v``). A name
    holding a control character (a newline in a kubeconfig's ``current-context``) is printed Go-quoted instead, so
    that the error stays one line and moves no cursor: a deliberate difference from kubectl, which prints it raw."""
    return ConfigurationError(
        f"context was not found for specified context: {name if name.isprintable() else go_quote(name)}"
    )
