"""clientcmd's validation of the selected context (``validateAuthInfo``, ``validateClusterInfo`` in
``k8s.io/client-go/tools/clientcmd/validation.go``), with kubectl's sentences."""

from __future__ import annotations

import os

from ...errors import ConfigurationError
from ...golang.goos import path_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def resolve_path(path: Any, directory: str) -> str | None:
    if not path:
        return None
    path = os.path.expanduser(str(path))
    return path if os.path.isabs(path) else os.path.join(directory, path)


def _unreadable(path: str) -> str | None:
    """Why ``path`` cannot be opened (Go's ``open PATH: reason``), or None."""
    try:
        with open(path, "rb"):
            return None
    except IsADirectoryError:
        return None  # Go opens a directory; reading it fails later, with its own message
    except OSError as exc:
        return path_error("open", path, exc)


def validate_user(name: str, user: dict[str, Any], user_dir: str) -> list[str]:
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
                path = resolve_path(user[field], user_dir) or ""
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
    from ...golang.neturl import URLError, parse_scheme

    try:
        scheme = parse_scheme(url)
    except URLError:
        return f"could not parse: {url}"
    if scheme not in ("http", "https", "socks5"):
        return f'unsupported scheme "{scheme}", must be http, https, or socks5'
    return None


def validate_cluster(name: str, cluster: dict[str, Any], cluster_dir: str) -> list[str]:
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
        path = resolve_path(cluster["certificate-authority"], cluster_dir) or ""
        why = _unreadable(path)
        if why:
            problems.append(f"unable to read certificate-authority {path} for {name} due to {why}")
    return problems


def refuse(problems: list[str]) -> None:
    if len(problems) == 1:
        raise ConfigurationError(problems[0])
    if problems:
        # kubectl lists several problems under "Error in configuration:"; we keep its list after "error:".
        raise ConfigurationError("\n" + "\n".join(f"* {problem}" for problem in problems))
