"""A small JSON client for the local plane's API server with keep-alive connections, one per thread.

The harness's simulated nodes (hack/localcluster/kwok.py), the simulated virt-handler heartbeat
(hack/localcluster/heartbeat.py) and the scale benchmark (bench/scale.py) write thousands of objects; one TLS
handshake per request (``ControlPlane.request``) would cost more than the writes. Harness code, not the plugin's
transport (kubectl_instancetype/kube/ is what the plugin uses and what the benchmarks measure).
"""

from __future__ import annotations

import http.client
import json
import ssl
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import yaml

T = TypeVar("T")
R = TypeVar("R")

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
# The API server's metadata-only list (PartialObjectMetadataList): names, labels and annotations, no spec/status.
METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"


class Api:
    """Requests as one bearer-token user; each thread keeps its own connection open."""

    def __init__(self, server: str, ca_file: str | Path, token: str, timeout: float = 30.0) -> None:
        parts = urlsplit(server)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 443
        self.context = ssl.create_default_context(cafile=str(ca_file))
        self.token = token
        self.timeout = timeout
        self.local = threading.local()

    @classmethod
    def from_kubeconfig(cls, path: str | Path) -> Api:
        """The server, CA file and token of a kubeconfig the harness wrote (one cluster, one token user)."""
        config = yaml.safe_load(Path(path).read_text())
        cluster = config["clusters"][0]["cluster"]
        return cls(cluster["server"], cluster["certificate-authority"], config["users"][0]["user"]["token"])

    def _connection(self) -> http.client.HTTPSConnection:
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=self.timeout)
            self.local.connection = connection
        return connection

    def request(
        self, method: str, path: str, body: object = None, content_type: str = JSON, accept: str = JSON
    ) -> tuple[int, dict | None]:
        """One request: (status, decoded JSON body or None). A dropped keep-alive connection is retried once."""
        headers = {"Authorization": f"Bearer {self.token}", "Accept": accept}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            connection = self._connection()
            try:
                connection.request(method, path, body=payload, headers=headers)
                response = connection.getresponse()
                data = response.read()
                break
            except (OSError, http.client.HTTPException):
                connection.close()
                self.local.connection = None
                if attempt == 2:
                    raise
        try:
            return response.status, json.loads(data) if data else None
        except ValueError:
            return response.status, {"raw": data.decode("utf-8", "replace")}

    def close(self) -> None:
        """Close this thread's connection."""
        connection = getattr(self.local, "connection", None)
        if connection is not None:
            connection.close()
            self.local.connection = None

    def map(self, function: Callable[[T], R], items: Iterable[T], workers: int = 8) -> list[R]:
        """``function`` over ``items`` on ``workers`` threads (each with its own connection), in order."""
        items = list(items)
        if len(items) <= 1 or workers <= 1:
            return [function(item) for item in items]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(function, items))
