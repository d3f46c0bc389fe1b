"""A small API client over :class:`~.transport.Transport`: get, paged list, create, server version."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from .config import ClusterConfig, ConnectionOptions, load_cluster_config
from .resources import Resource
from .transport import Transport

DEFAULT_CHUNK_SIZE = 500


class Client:
    """The plugin's handle on one cluster; create it with :func:`connect`."""

    def __init__(self, config: ClusterConfig, environ: dict[str, str] | None = None,
                 log: Callable[[str], None] | None = None):
        self.config = config
        self.transport = Transport(config, environ, log)

    @property
    def namespace(self) -> str:
        """The namespace commands default to (``-n``, else the context's, else ``default``)."""
        return self.config.namespace

    @property
    def requests_sent(self) -> int:
        """How many HTTP requests this client has completed (benchmarks report it)."""
        return self.transport.requests_sent

    def close(self) -> None:
        """Close the connection."""
        self.transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def server_version(self) -> dict[str, Any]:
        """``GET /version``."""
        return self.transport.request("GET", "/version")

    def get(self, resource: Resource, name: str, namespace: str | None = None) -> dict[str, Any]:
        """Fetch one object."""
        return self.transport.request("GET", resource.path(namespace, name))

    def list_pages(
        self,
        resource: Resource,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
    ) -> Iterator[dict[str, Any]]:
        """Yield the list pages of ``resource`` (``limit``/``continue``), one request per page."""
        token: str | None = None
        while True:
            page = self.transport.request(
                "GET",
                resource.path(
                    namespace,
                    labelSelector=label_selector,
                    limit=chunk_size if chunk_size > 0 else None,
                    **{"continue": token},
                ),
            )
            yield page
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return

    def create(self, resource: Resource, body: dict[str, Any], namespace: str | None = None,
               *, dry_run: bool = False, field_manager: str = "kubectl-instancetype") -> dict[str, Any]:
        """POST ``body``; ``dry_run`` sends ``dryRun=All`` so the server validates without persisting."""
        path = resource.path(namespace, dryRun="All" if dry_run else None, fieldManager=field_manager)
        return self.transport.request("POST", path, body)

    def delete(self, resource: Resource, name: str, namespace: str | None = None) -> dict[str, Any]:
        """DELETE one object."""
        return self.transport.request("DELETE", resource.path(namespace, name))


def connect(options: ConnectionOptions, environ: dict[str, str], home: str,
            log: Callable[[str], None] | None = None) -> Client:
    """Resolve the kubeconfig for ``options`` and return a client (no request is sent yet).

    ``log``, when given, receives one line per HTTP request (``-v 6`` and up).
    """
    return Client(load_cluster_config(options, environ, home), dict(environ), log)
