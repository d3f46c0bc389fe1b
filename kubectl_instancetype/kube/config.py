"""Kubeconfig resolution: a fast path for everything but auth providers and basic auth.

kubectl's loading rules (client-go ``clientcmd``) are followed: ``--kubeconfig`` names one file;
otherwise ``KUBECONFIG`` lists files separated by ``os.pathsep`` (missing ones skipped) that are merged so
that the first file to set a key wins; otherwise ``~/.kube/config``. Relative paths in a file are resolved
against that file's directory.

Each file is checked against clientcmd's schema as Go's ``encoding/json`` would decode it, and the selected
context is validated as clientcmd's ``ConfirmUsable`` does, so that a wrong kubeconfig reads as kubectl
reports it. Static credentials (server, CA, client certificate and key, token or tokenFile,
insecure-skip-tls-verify, tls-server-name, proxy-url, namespace) and exec credential plugins
(:mod:`.exec_credential`) are resolved here. Auth providers, basic auth and in-cluster service accounts are
handed to the official ``kubernetes`` client's loader (:mod:`.official`), imported only then.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigurationError
from .kubeconfig_model import (
    IN_CLUSTER_NAMESPACE_FILE,
    ClusterConfig,
    ConnectionOptions,
    KubeconfigFiles,
    check_authorization,
    go_os_error,
    read_token_file,
    trim_server,
)

__all__ = [
    "IN_CLUSTER_NAMESPACE_FILE",
    "ClusterConfig",
    "ConnectionOptions",
    "KubeconfigFiles",
    "NeedsOfficialLoader",
    "kubeconfig_paths",
    "load_cluster_config",
    "read_kubeconfig",
    "resolve_static",
]

# Larger kubeconfigs are refused rather than parsed: real ones are a few kilobytes, a runaway file would
# only cost memory and time before failing anyway.
MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024


class NeedsOfficialLoader(Exception):
    """Raised by the fast path when the selected context uses something only the official loader handles."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


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
    if isinstance(exc, RecursionError):
        return "yaml: exceeded max depth of 10000"
    if exc.__class__.__name__ == "ReaderError":  # a control character: go-yaml's words for it
        return "yaml: control characters are not allowed"
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is not None and problem:
        return f"yaml: line {mark.line + 1}: {problem}"
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"yaml: {first}" if first else "yaml: invalid document"


# --- clientcmd's schema (k8s.io/client-go/tools/clientcmd/api/v1), as encoding/json decodes into it ----------
# A type is a Go scalar name ("string", "bool", "[]uint8"), "any", ("list", element, Go name),
# ("map", value, Go name) or ("struct", Go name, fields).
_ANY = "any"
_EXTENSIONS = ("list", ("struct", "v1.NamedExtension", {"name": "string", "extension": _ANY}), "[]v1.NamedExtension")
_CLUSTER = (
    "struct",
    "v1.Cluster",
    {
        "server": "string",
        "tls-server-name": "string",
        "insecure-skip-tls-verify": "bool",
        "certificate-authority": "string",
        "certificate-authority-data": "[]uint8",
        "proxy-url": "string",
        "disable-compression": "bool",
        "extensions": _EXTENSIONS,
    },
)
_EXEC = (
    "struct",
    "v1.ExecConfig",
    {
        "command": "string",
        "args": ("list", "string", "[]string"),
        "env": ("list", ("struct", "v1.ExecEnvVar", {"name": "string", "value": "string"}), "[]v1.ExecEnvVar"),
        "apiVersion": "string",
        "installHint": "string",
        "provideClusterInfo": "bool",
        "interactiveMode": "string",
    },
)
_AUTH_INFO = (
    "struct",
    "v1.AuthInfo",
    {
        "client-certificate": "string",
        "client-certificate-data": "[]uint8",
        "client-key": "string",
        "client-key-data": "[]uint8",
        "token": "string",
        "tokenFile": "string",
        "as": "string",
        "as-uid": "string",
        "as-groups": ("list", "string", "[]string"),
        "as-user-extra": ("map", ("list", "string", "[]string"), "map[string][]string"),
        "username": "string",
        "password": "string",
        "auth-provider": (
            "struct",
            "v1.AuthProviderConfig",
            {"name": "string", "config": ("map", "string", "map[string]string")},
        ),
        "exec": _EXEC,
        "extensions": _EXTENSIONS,
    },
)
_CONTEXT = (
    "struct",
    "v1.Context",
    {"cluster": "string", "user": "string", "namespace": "string", "extensions": _EXTENSIONS},
)
_CONFIG = (
    "struct",
    "v1.Config",
    {
        "kind": "string",
        "apiVersion": "string",
        "preferences": ("struct", "v1.Preferences", {"colors": "bool", "extensions": _EXTENSIONS}),
        "clusters": (
            "list",
            ("struct", "v1.NamedCluster", {"name": "string", "cluster": _CLUSTER}),
            "[]v1.NamedCluster",
        ),
        "users": ("list", ("struct", "v1.NamedAuthInfo", {"name": "string", "user": _AUTH_INFO}), "[]v1.NamedAuthInfo"),
        "contexts": (
            "list",
            ("struct", "v1.NamedContext", {"name": "string", "context": _CONTEXT}),
            "[]v1.NamedContext",
        ),
        "current-context": "string",
        "extensions": _EXTENSIONS,
    },
)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string"  # str, and what YAML-to-JSON turns into strings (timestamps, binary)


def _go_name(kind: Any) -> str:
    if isinstance(kind, str):
        return kind
    return str(kind[1] if kind[0] == "struct" else kind[2])


def go_base64_error(text: str) -> int | None:
    """The input byte Go's ``base64.StdEncoding`` reports as corrupt in ``text``, or None when it decodes."""
    valid = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    data, si = text.encode("utf-8", "surrogateescape"), 0
    while True:  # one quantum of four characters per turn, as decodeQuantum
        j = 0
        while j < 4:
            if si == len(data):
                if j == 0:
                    return None
                return si - j
            char = chr(data[si])
            si += 1
            if char in valid:
                j += 1
                continue
            if char in "\r\n":
                continue
            if char != "=" or j in (0, 1):
                return si - 1
            if j == 2:
                while si < len(data) and chr(data[si]) in "\r\n":
                    si += 1
                if si == len(data):
                    return len(data)
                if chr(data[si]) != "=":
                    return si - 1
                si += 1
            while si < len(data) and chr(data[si]) in "\r\n":
                si += 1
            return si if si < len(data) else None


class _ShapeError(Exception):
    pass


def _check_shape(value: Any, kind: Any, struct: str, path: str, seen: set[tuple[int, int]]) -> None:
    """Raise :class:`_ShapeError` with Go's ``UnmarshalTypeError`` sentence for the first misfit in ``value``."""
    if value is None or kind == _ANY:
        return
    if isinstance(value, (dict, list)):
        # YAML aliases make a graph of shared nodes: check each node once per type, or a few kilobytes of
        # nested aliases would take exponential time.
        key = (id(value), id(kind))
        if key in seen:
            return
        seen.add(key)

    def misfit() -> _ShapeError:
        where = f"Go struct field {struct}.{path}" if path else "Go value"
        return _ShapeError(f"json: cannot unmarshal {_json_kind(value)} into {where} of type {_go_name(kind)}")

    if kind == "string":
        if not isinstance(value, str) and _json_kind(value) != "string":
            raise misfit()
    elif kind == "bool":
        if not isinstance(value, bool):
            raise misfit()
    elif kind == "[]uint8":
        if _json_kind(value) != "string":
            raise misfit()
        offset = go_base64_error(str(value))
        if offset is not None:
            raise _ShapeError(f"illegal base64 data at input byte {offset}")
    elif kind[0] == "list":
        if not isinstance(value, list):
            raise misfit()
        for item in value:
            _check_shape(item, kind[1], struct, path, seen)
    elif kind[0] == "map":
        if not isinstance(value, dict):
            raise misfit()
        for item in value.values():
            _check_shape(item, kind[1], struct, path, seen)
    else:  # a struct: unknown keys are ignored, as encoding/json does
        if not isinstance(value, dict):
            raise misfit()
        inner = kind[1].split(".", 1)[-1]
        for field, field_kind in kind[2].items():
            if field in value:
                _check_shape(value[field], field_kind, inner, f"{path}.{field}" if path else field, seen)


def _decode_file(path: str) -> dict[str, Any]:
    """One kubeconfig file as a mapping that fits clientcmd's schema, or kubectl's sentence about it."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_KUBECONFIG_BYTES + 1)
    except IsADirectoryError as exc:
        raise ConfigurationError(f'error loading config file "{path}": {go_os_error("read", path, exc)}') from None
    except OSError as exc:
        raise ConfigurationError(f'error loading config file "{path}": {go_os_error("open", path, exc)}') from None
    if len(raw) > MAX_KUBECONFIG_BYTES:
        raise ConfigurationError(
            f'error loading config file "{path}": the file is larger than {MAX_KUBECONFIG_BYTES // 1048576} MiB'
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigurationError(f'error loading config file "{path}": yaml: invalid leading UTF-8 octet') from None
    try:
        document = _yaml_load(text)
    except Exception as exc:  # noqa: BLE001 - yaml.YAMLError (caught without importing yaml), RecursionError
        raise ConfigurationError(f'error loading config file "{path}": {_yaml_problem(exc)}') from None
    if document is None or isinstance(document, list):
        return {}  # kubectl reads an empty file, or a YAML list, as an empty kubeconfig
    try:
        if not isinstance(document, dict):
            raise _ShapeError(
                "couldn't get version/kind; json parse error: json: cannot unmarshal "
                f'{_json_kind(document)} into Go value of type struct {{ APIVersion string "json:\\"apiVersion,'
                'omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
            )
        _check_shape(document, _CONFIG, "Config", "", set())
    except _ShapeError as exc:
        raise ConfigurationError(f'error loading config file "{path}": {exc}') from None
    except RecursionError:
        raise ConfigurationError(f'error loading config file "{path}": yaml: exceeded max depth of 10000') from None
    return document


def _named(entries: Any, key: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name") is not None:
            out.append((str(entry["name"]), entry.get(key) or {}))
    return out


def read_kubeconfig(paths: list[str]) -> KubeconfigFiles:
    """Read and merge ``paths``: for every name and for current-context, the first file to set it wins."""
    merged = KubeconfigFiles(paths=list(paths))
    for path in paths:
        document = _decode_file(path)
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


def _resolve(path: Any, directory: str) -> str | None:
    if not path:
        return None
    path = os.path.expanduser(str(path))
    return path if os.path.isabs(path) else os.path.join(directory, path)


def _decode(data: Any) -> bytes | None:
    if not data:
        return None
    import base64  # only kubeconfigs with *-data fields need it (already checked by _check_shape)

    return base64.b64decode(str(data).replace("\n", "").replace("\r", ""))


def _unreadable(path: str) -> str | None:
    """Why ``path`` cannot be opened (Go's ``open PATH: reason``), or None."""
    try:
        with open(path, "rb"):
            return None
    except IsADirectoryError:
        return None  # Go opens a directory; reading it fails later, with its own message
    except OSError as exc:
        return go_os_error("open", path, exc)


def _validate_user(name: str, user: dict[str, Any], user_dir: str) -> list[str]:
    """clientcmd's ``validateAuthInfo`` (and the mirror case it leaves to a password prompt)."""
    problems: list[str] = []
    methods = []
    if user.get("token"):
        methods.append("token")
    if user.get("username") or user.get("password"):
        methods.append("basicAuth")
    has_cert = bool(user.get("client-certificate") or user.get("client-certificate-data"))
    has_key = bool(user.get("client-key") or user.get("client-key-data"))
    if has_cert:
        if user.get("client-certificate") and user.get("client-certificate-data"):
            problems.append(
                f"client-cert-data and client-cert are both specified for {name}. client-cert-data will override."
            )
        if user.get("client-key") and user.get("client-key-data"):
            problems.append(
                f"client-key-data and client-key are both specified for {name}; client-key-data will override"
            )
        if not has_key:
            problems.append(
                f"client-key-data or client-key must be specified for {name} to use the clientCert authentication method."
            )
        for field, label in (("client-certificate", "client-cert"), ("client-key", "client-key")):
            if user.get(field):
                path = _resolve(user[field], user_dir) or ""
                why = _unreadable(path)
                if why:
                    problems.append(f"unable to read {label} {path} for {name} due to {why}")
    elif has_key:
        # kubectl validates nothing here and, finding no usable credential, prompts for a password (or fails
        # with EOF); a key without its certificate is refused with the mirror of kubectl's sentence instead.
        problems.append(
            f"client-cert-data or client-cert must be specified for {name} to use the clientCert authentication method."
        )
    exec_config = user.get("exec")
    if exec_config is not None:
        from .exec_credential import validate

        problems += validate(name, exec_config, user.get("auth-provider") is not None)
    if len(methods) > 1:
        problems.append(
            f"more than one authentication method found for {name}; found [{' '.join(methods)}], only one is allowed"
        )
    return problems


def _proxy_url_problem(url: str) -> str | None:
    """clientcmd's ``parseProxyURL``: what is wrong with ``url`` (Go's url.Parse, then the scheme), or None."""
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in url) or url.startswith(":"):
        return f"could not parse: {url}"
    scheme, colon, _ = url.partition(":")
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if not colon or not scheme or scheme[0] not in letters or not all(c in letters + "0123456789+-." for c in scheme):
        if colon and "/" not in url.split(":", 1)[0]:  # a first path segment with a colon: url.Parse refuses it
            return f"could not parse: {url}"
        scheme = ""
    scheme = scheme.lower()
    if scheme not in ("http", "https", "socks5"):
        return f'unsupported scheme "{scheme}", must be http, https, or socks5'
    return None


def _validate_cluster(name: str, cluster: dict[str, Any], cluster_dir: str) -> list[str]:
    """clientcmd's ``validateClusterInfo``."""
    problems: list[str] = []
    if not cluster.get("server"):
        problems.append(f'no server found for cluster "{name}"' if name else "default cluster has no server defined")
    proxy_url = str(cluster.get("proxy-url") or "")
    if proxy_url:
        why = _proxy_url_problem(proxy_url)
        if why:
            problems.append(f'invalid \'proxy-url\' "{proxy_url}" for cluster "{name}": {why}')
    if cluster.get("certificate-authority") and cluster.get("certificate-authority-data"):
        problems.append(
            f"certificate-authority-data and certificate-authority are both specified for {name}. "
            "certificate-authority-data will override."
        )
    if cluster.get("certificate-authority"):
        path = _resolve(cluster["certificate-authority"], cluster_dir) or ""
        why = _unreadable(path)
        if why:
            problems.append(f"unable to read certificate-authority {path} for {name} due to {why}")
    return problems


def _refuse(problems: list[str]) -> None:
    if len(problems) == 1:
        raise ConfigurationError(problems[0])
    if problems:
        # kubectl lists several problems under "Error in configuration:"; we keep its list after "error:".
        raise ConfigurationError("\n" + "\n".join(f"* {problem}" for problem in problems))


_OFFICIAL_ONLY_USER_KEYS = ("auth-provider", "username", "password")


def resolve_static(files: KubeconfigFiles, options: ConnectionOptions) -> ClusterConfig:
    """Resolve the selected context to a :class:`ClusterConfig`, validated as kubectl validates it.

    An exec credential plugin is configured but not run (:func:`load_cluster_config` runs it). Raises
    :class:`NeedsOfficialLoader` when the context needs an auth provider or basic auth.
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
    cluster_dir = files.cluster_dirs.get(cluster_name, "")
    user_dir = files.user_dirs.get(user_name, "")
    acting_as = _impersonation_fields(user, options)
    problems = _validate_user(user_name, user, user_dir)
    if acting_as is not None:
        from .impersonation import problem

        problems += [why] if (why := problem(user_name, acting_as)) else []
    _refuse(problems + _validate_cluster(cluster_name, cluster, cluster_dir))
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
        ca_file=_resolve(cluster.get("certificate-authority"), cluster_dir),
        client_cert_data=_decode(user.get("client-certificate-data")),
        client_cert_file=_resolve(user.get("client-certificate"), user_dir),
        client_key_data=_decode(user.get("client-key-data")),
        client_key_file=_resolve(user.get("client-key"), user_dir),
        token=str(token) if token else None,
        token_file=None if token else _resolve(user.get("tokenFile"), user_dir),
        insecure=insecure,
        tls_server_name=str(cluster.get("tls-server-name") or "") or None,
        proxy_url=str(cluster.get("proxy-url") or "") or None,
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

        plugin = ExecCredentialPlugin(user["exec"], _exec_cluster_info(cluster, config), user_dir)
        plugin.timeout = options.request_timeout
        config.exec_plugin = plugin
        config.authorization_source = plugin.authorization
    return config


def _impersonation_fields(user: dict[str, Any], options: ConnectionOptions) -> dict[str, Any] | None:
    """The user entry's impersonation with the --as flags over it; None when neither sets any."""
    keys = ("as", "as-uid", "as-groups", "as-user-extra")
    if not (options.as_user or options.as_uid or options.as_groups or any(user.get(key) for key in keys)):
        return None  # the common case: impersonation.py is not imported
    from .impersonation import merged

    return merged(user, options.as_user, options.as_uid, options.as_groups)


def _impersonation(fields: dict[str, Any] | None, user_name: str) -> Any:
    """The Impersonation the requests carry (None without one); clientcmd's refusal of groups without a user."""
    if fields is None:
        return None
    from .impersonation import problem, resolve

    _refuse([why] if (why := problem(user_name, fields)) else [])
    return resolve(fields)


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


def _run_exec_plugin(config: ClusterConfig, environ: Mapping[str, str]) -> ClusterConfig:
    """Run the context's exec plugin now, as kubectl does before its first request; fail as kubectl fails."""
    plugin = config.exec_plugin
    if plugin is not None:
        plugin.base_environ = dict(environ)
        plugin.refresh()
        if plugin.cert_pem and plugin.key_pem:
            config.client_cert_data, config.client_key_data = plugin.cert_pem, plugin.key_pem
            config.client_cert_file = config.client_key_file = None
    return config


def load_cluster_config(options: ConnectionOptions, environ: Mapping[str, str], home: str) -> ClusterConfig:
    """The connection settings for ``options``: fast path first, official loader when it must."""
    paths = kubeconfig_paths(options.kubeconfig, environ, home)
    if not paths:
        if environ.get("KUBERNETES_SERVICE_HOST") and environ.get("KUBERNETES_SERVICE_PORT"):
            from . import official

            config = official.load_in_cluster(options)
            config.impersonation = _impersonation(_impersonation_fields({}, options), "")
            return config
        raise ConfigurationError(
            "no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config"
        )
    files = read_kubeconfig(paths)
    try:
        config = resolve_static(files, options)
    except NeedsOfficialLoader:
        from . import official

        config = official.load_from_kubeconfig(files, options)
        context = files.contexts.get(options.context or files.current_context) or {}
        user_name = str(context.get("user") or "")
        user = files.users.get(user_name, {})
        config.impersonation = _impersonation(_impersonation_fields(user, options), user_name)
        return config
    return _run_exec_plugin(config, environ)
