"""The kubeconfig: which files (:mod:`.files`), their schema (:mod:`.schema`), the selected context validated
(:mod:`.validation`) and resolved (:mod:`.resolve`) to a :class:`~.model.ClusterConfig`; exec credential plugins
(:mod:`.exec_credential`); the official client's loader for what we never reimplement (:mod:`.official`).
"""

from __future__ import annotations

from .files import kubeconfig_paths, read_kubeconfig
from .model import IN_CLUSTER_NAMESPACE_FILE, ClusterConfig, ConnectionOptions, KubeconfigFiles
from .resolve import NeedsOfficialLoader, load_cluster_config, resolve_static

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
