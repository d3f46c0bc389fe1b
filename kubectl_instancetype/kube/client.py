"""A small API client over :class:`~.transport.Transport`: get, paged list, create, patch, apply, delete, version."""

from __future__ import annotations

from ..errors import PluginError
from .kubeconfig import ClusterConfig, ConnectionOptions, KubeconfigFiles, load_cluster_config
from .resources import Resource
from .transport import Transport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from ..golang.k8sproto import Schema

DEFAULT_CHUNK_SIZE = 500
# A list that has not ended after this many pages is a server bug (100,000 pages of 500 objects would be
# 50 million objects): stop instead of looping forever.
MAX_PAGES = 100_000
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
# the server's metadata-only list, falling back to whole objects where it cannot (as kubectl get asks for tables)
METADATA_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"


class PagingError(PluginError):
    """The server's list pages did not end (a repeated continue token, or too many pages)."""


class Client:
    """The plugin's handle on one cluster; create it with :func:`connect`."""

    def __init__(
        self, config: ClusterConfig, environ: dict[str, str] | None = None, log: Callable[[str], None] | None = None
    ):
        self.config = config
        self.environ = environ
        self.transport = Transport(config, environ, log)

    @property
    def requests_sent(self) -> int:
        """How many HTTP requests this client has completed (benchmarks report it)."""
        return self.transport.requests_sent

    def close(self) -> None:
        """Close the connection."""
        self.transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def server_version(self) -> dict[str, Any]:
        """``GET /version``."""
        answer: dict[str, Any] = self.transport.request("GET", "/version")
        return answer

    def api_group(self, group: str) -> dict[str, Any]:
        """The discovery document of one API group (``/apis/<group>``): its versions and the preferred one.
        NotFound when the cluster does not serve the group."""
        answer: dict[str, Any] = self.transport.request("GET", f"/apis/{group}")
        return answer

    def api_resources(self, group: str, version: str) -> dict[str, Any]:
        """The ``APIResourceList`` of one group version (``/apis/<group>/<version>``): NotFound when the cluster
        does not serve it (an aggregated API whose server is not installed, for one)."""
        answer: dict[str, Any] = self.transport.request("GET", f"/apis/{group}/{version}")
        return answer

    def kubevirt_version(self) -> dict[str, Any]:
        """virt-api's ``GET /apis/subresources.kubevirt.io/v1/version`` (what ``virtctl version`` reads)."""
        from .resources import KUBEVIRT_SUBRESOURCES_GROUP, KUBEVIRT_SUBRESOURCES_VERSION

        path = f"/apis/{KUBEVIRT_SUBRESOURCES_GROUP}/{KUBEVIRT_SUBRESOURCES_VERSION}/version"
        answer: dict[str, Any] = self.transport.request("GET", path)
        return answer

    def expand_spec(self, name: str, namespace: str) -> dict[str, Any]:
        """The stored VirtualMachine ``name`` expanded by KubeVirt (virt-api's ``expand-spec`` subresource)."""
        from .resources import VM_SUBRESOURCES

        answer: dict[str, Any] = self.transport.request("GET", VM_SUBRESOURCES.path(namespace, name) + "/expand-spec")
        return answer

    def expand_vm_spec(self, vm: dict[str, Any], namespace: str) -> dict[str, Any]:
        """``vm`` expanded by KubeVirt as if it were created in ``namespace`` (virt-api's ``PUT expand-vm-spec``)."""
        from .resources import EXPAND_VM_SPEC

        answer: dict[str, Any] = self.transport.request("PUT", EXPAND_VM_SPEC.path(namespace), vm)
        return answer

    def subject_access_review(self, review: dict[str, Any]) -> dict[str, Any]:
        """POST a ``SubjectAccessReview`` and return it with the server's ``status`` (allowed, reason)."""
        from .resources import SUBJECT_ACCESS_REVIEWS

        answer: dict[str, Any] = self.transport.request("POST", SUBJECT_ACCESS_REVIEWS.path(), review)
        return answer

    def kubevirts(self) -> list[dict[str, Any]]:
        """Every KubeVirt CR, in any namespace (``GET /apis/kubevirt.io/v1/kubevirts``; a cluster has one, and
        virt-controller reads the one with a ``status.phase``)."""
        from .resources import KUBEVIRTS

        answer = self.transport.request("GET", KUBEVIRTS.path(None, limit=10))
        return [item for item in (answer.get("items") or []) if isinstance(item, dict)]

    def namespace_object(self, name: str) -> dict[str, Any]:
        """The Namespace ``name`` (its labels select auto CPU limits and the memory limit ratio)."""
        from .resources import NAMESPACES

        answer: dict[str, Any] = self.transport.request("GET", NAMESPACES.path(None, name))
        return answer

    def labelled_nodes(self, label: str) -> list[dict[str, Any]]:
        """The Nodes that carry ``label`` (a ``labelSelector`` of the key alone), every page."""
        from .resources import NODES

        return [
            item
            for page in self.list_pages(NODES, label_selector=label)
            for item in page.get("items") or ()
            if isinstance(item, dict)
        ]

    def priority_classes(self) -> list[dict[str, Any]]:
        """Every PriorityClass (``scheduling.k8s.io/v1``; a cluster has a handful), every page."""
        from .resources import PRIORITY_CLASSES

        return [
            item
            for page in self.list_pages(PRIORITY_CLASSES)
            for item in page.get("items") or ()
            if isinstance(item, dict)
        ]

    def runtime_class(self, name: str) -> dict[str, Any]:
        """The RuntimeClass ``name`` (``node.k8s.io/v1``): its pod overhead and scheduling."""
        from .resources import RUNTIME_CLASSES

        answer: dict[str, Any] = self.transport.request("GET", RUNTIME_CLASSES.path(None, name))
        return answer

    def limit_ranges(self, namespace: str) -> list[dict[str, Any]]:
        """The LimitRanges of ``namespace`` (the LimitRanger admission plugin defaults pods' resources from them);
        one bounded page, by name."""
        from .resources import LIMIT_RANGES

        answer = self.transport.request("GET", LIMIT_RANGES.path(namespace, limit=500))
        return [item for item in (answer.get("items") or []) if isinstance(item, dict)]

    def resource_quotas(self, namespace: str) -> list[dict[str, Any]]:
        """The ResourceQuotas of ``namespace`` (``limits.*`` in ``spec.hard`` turns on auto limits); a namespace
        holds a few, so one bounded page is read."""
        from .resources import RESOURCE_QUOTAS

        answer = self.transport.request("GET", RESOURCE_QUOTAS.path(namespace, limit=500))
        return [item for item in (answer.get("items") or []) if isinstance(item, dict)]

    def first_page(self, resource: Resource, namespace: str | None = None, *, limit: int = 1) -> dict[str, Any]:
        """One list request for at most ``limit`` objects (no further pages: where one object tells enough,
        such as the one KubeVirt or CDI resource of a cluster)."""
        answer: dict[str, Any] = self.transport.request("GET", resource.path(namespace, limit=limit))
        return answer

    def metadata_page(
        self,
        resource: Resource,
        namespace: str | None = None,
        *,
        limit: int,
        continue_token: str | None = None,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """One page of a metadata-only list (``PartialObjectMetadataList``: names, labels and annotations, about
        10% less to transfer and decode than whole objects), until ``deadline`` (``time.monotonic()``)."""
        path = resource.path(namespace, limit=limit, **{"continue": continue_token})
        answer: dict[str, Any] = self.transport.request(
            "GET", path, headers={"Accept": METADATA_ACCEPT}, deadline=deadline
        )
        return answer

    def get(self, resource: Resource, name: str, namespace: str | None = None) -> dict[str, Any]:
        """Fetch one object."""
        answer: dict[str, Any] = self.transport.request("GET", resource.path(namespace, name))
        return answer

    def read_back(
        self, resource: Resource, name: str, namespace: str | None = None, *, seconds: float = 10.0
    ) -> dict[str, Any] | None:
        """The object as the server holds it now, or None when it does not exist: after a request that was
        interrupted or failed on the way (it may or may not have been applied), on a fresh connection (the old one
        may hold half an answer) and within ``seconds``."""
        import time

        from ..errors import NotFoundError

        self.transport.close()
        try:
            answer: dict[str, Any] = self.transport.request(
                "GET", resource.path(namespace, name), deadline=time.monotonic() + seconds
            )
        except NotFoundError:
            return None
        return answer

    def get_all(self, requests: list[tuple[Resource, str, str | None]]) -> list[dict[str, Any] | PluginError]:
        """GET several objects concurrently: one request each, on connections of their own.

        Returns each object or the :class:`PluginError` its request ended in, in request order.
        """
        import threading

        results: list[Any] = [None] * len(requests)

        def fetch(index: int, client: Client) -> None:
            resource, name, namespace = requests[index]
            try:
                results[index] = client.get(resource, name, namespace)
            except PluginError as exc:
                results[index] = exc

        helpers = [Client(self.config, self.environ, self.transport.log) for _ in requests[1:]]
        if helpers:
            # One SSL context for all of them (loading CAs is the costly part of a first request; a context
            # may be shared between threads).
            self.transport.prepare_tls()
            for helper in helpers:
                helper.transport.share_tls(self.transport)
        threads = [threading.Thread(target=fetch, args=(index + 1, helper)) for index, helper in enumerate(helpers)]
        for thread in threads:
            thread.start()
        if requests:
            fetch(0, self)
        for thread in threads:
            thread.join()
        for helper in helpers:
            self.transport.requests_sent += helper.requests_sent
            helper.close()
        return results

    def list_names(self, resource: Resource, namespace: str | None = None) -> list[str]:
        """The names of every object of ``resource`` in the scope (paged)."""
        return [
            item["metadata"]["name"]
            for page in self.list_pages(resource, namespace)
            for item in page.get("items") or ()
        ]

    def list_pages(
        self,
        resource: Resource,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        fields: Schema | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield the list pages of ``resource`` (``limit``/``continue``), one request per page; ``field_selector``
        lets the server drop what is not needed (``spec.nodeName!=`` on pods: only bound ones).

        ``fields`` (a built-in resource only): the pages are asked for in protobuf, as client-go's typed clients
        ask, and each item holds only those fields (:mod:`..golang.k8sproto`): the server encodes less and the
        plugin skips what it does not read. A server that answers in JSON anyway gives whole items.

        After the first page, the next page is fetched by a background thread while the caller works on
        the current one: the server's time and ours overlap instead of adding up on long lists.
        """

        def path(token: str | None) -> str:
            return resource.path(
                namespace,
                labelSelector=label_selector,
                fieldSelector=field_selector,
                limit=chunk_size if chunk_size > 0 else None,
                **{"continue": token},
            )

        # With --request-timeout the whole paged list shares one deadline, so a list whose pages never
        # end stops there; without one, a repeated token or MAX_PAGES pages end it.
        deadline = self.transport.deadline()
        if fields is None:
            first = self.transport.request("GET", path(None), deadline=deadline)
        else:
            first = _page(self._get_page(path(None), deadline, fields), fields)
        yield first
        token = (first.get("metadata") or {}).get("continue")
        if not token:
            return
        yield from self._prefetched_pages(path, token, deadline, fields=fields)

    def _get_page(self, path: str, deadline: float | None, fields: Schema | None) -> bytes:
        """One list page's bytes; in protobuf (or JSON, the server's choice) when ``fields`` is given."""
        from ..golang import k8sproto

        headers = {"Accept": k8sproto.ACCEPT} if fields is not None else None
        body: bytes = self.transport.request("GET", path, raw=True, deadline=deadline, headers=headers)
        return body

    def watch(
        self,
        resource: Resource,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        resource_version: str | None = None,
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Watch ``resource`` from ``resource_version`` (client-go's ListWatch: ``?watch=1&resourceVersion=RV``)
        and yield each event's type (ADDED, MODIFIED, DELETED) and object as it arrives; bookmarks are not
        asked for. Ends when the server ends the watch or ``--request-timeout`` passes; an ERROR event (a
        resourceVersion too old, for one) raises the API error its Status carries."""
        import json

        from . import errors as kube_errors

        path = resource.path(namespace, watch=1, labelSelector=label_selector, resourceVersion=resource_version)
        pending = b""  # a value that continues on the next line (client-go's json.Decoder reads across lines)
        for line in self.transport.stream_lines(path):
            data = pending + line if pending else line
            if not data.strip():
                pending = b""
                continue
            events, pending = _watch_values(data)
            for event in events:
                if not isinstance(event, dict) or not isinstance(event.get("object"), dict):
                    raise PluginError("the watch stream sent an event without an object")
                kind = str(event.get("type", ""))
                obj: dict[str, Any] = event["object"]
                if kind == "ERROR":
                    code = obj.get("code")
                    raise kube_errors.api_error(
                        code if isinstance(code, int) else 500,
                        json.dumps(obj).encode(),
                        "GET",
                        path,
                        "application/json",
                    )
                if kind == "BOOKMARK":
                    continue
                yield kind, obj
        # A stream that ends inside a value: client-go's StreamWatcher logs io.ErrUnexpectedEOF (at -v 1) and ends
        # the watch as if the server had closed it.

    def list_items(
        self,
        resource: Resource,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        managed_fields: bool = True,
    ) -> Iterator[Any]:
        """The objects of :meth:`list_pages`' pages, one at a time, decoded as their bytes arrive from the socket
        (:class:`.liststream.ListStream`): a caller that keeps only a row of each holds one socket buffer and one
        object, never a page (a 500-object page of instance types is 400-750 kB of JSON and 2 MB of dicts), however
        many contexts list at once. The next page is asked for once this one's last byte is read (its continue
        token may come after its items); the server's streaming and our decoding overlap within a page. Without
        ``managed_fields`` (a caller that reads none), objects may come without ``metadata.managedFields``
        (:func:`.liststream.without_managed_fields`)."""
        from .liststream import ListStream

        def path(token: str | None) -> str:
            return resource.path(
                namespace,
                labelSelector=label_selector,
                limit=chunk_size if chunk_size > 0 else None,
                **{"continue": token},
            )

        # With --request-timeout the whole paged list shares one deadline, so a list whose pages never
        # end stops there; without one, a repeated token or MAX_PAGES pages end it.
        deadline = self.transport.deadline()
        token: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            pieces = self.transport.request("GET", path(token), stream=True, deadline=deadline)
            page = ListStream(pieces, self.transport.content_type, managed_fields=managed_fields)
            yield from page
            token = page.continue_token
            if not token:
                return
            if token in seen:
                raise PagingError("the server sent the same continue token twice; stopping the list instead of looping")
            seen.add(token)
        raise PagingError(f"the server's list did not end after {MAX_PAGES} pages; stopping")

    def _prefetched_pages(
        self,
        path: Callable[[str | None], str],
        token: str,
        deadline: float | None,
        *,
        ahead: int = 2,
        fields: Schema | None = None,
    ) -> Iterator[Any]:
        import queue
        import threading

        from .errors import decode_object

        bodies: queue.Queue[bytes | BaseException | None] = queue.Queue(maxsize=ahead)
        stop = threading.Event()

        def fetch(next_token: str | None) -> None:
            seen = {next_token}
            pages = 1
            try:
                while next_token and not stop.is_set():
                    pages += 1
                    if pages > MAX_PAGES:
                        raise PagingError(f"the server's list did not end after {MAX_PAGES} pages; stopping")
                    body = self._get_page(path(next_token), deadline, fields)
                    bodies.put(body)
                    next_token = continue_token(body)
                    if next_token in seen:
                        raise PagingError(
                            "the server sent the same continue token twice; stopping the list instead of looping"
                        )
                    seen.add(next_token)
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
                bodies.put(exc)
                return
            bodies.put(None)

        fetcher = threading.Thread(target=fetch, args=(token,), daemon=True)
        fetcher.start()
        interrupted = False
        try:
            while True:
                item = bodies.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield decode_object(item) if fields is None else _page(item, fields)
        except (KeyboardInterrupt, SystemExit):
            interrupted = True  # the process is ending: do not wait for a request in flight
            raise
        finally:
            stop.set()
            # Otherwise let the fetcher finish (a blocked put() included) before the connection is reused.
            while not interrupted and fetcher.is_alive():
                try:
                    bodies.get(timeout=0.05)
                except queue.Empty:
                    pass

    def create(
        self,
        resource: Resource,
        body: dict[str, Any],
        namespace: str | None = None,
        *,
        dry_run: bool = False,
        field_manager: str = "kubectl-instancetype",
        field_validation: str | None = None,
    ) -> dict[str, Any]:
        """POST ``body``; ``dry_run`` sends ``dryRun=All`` so the server validates without persisting;
        ``field_validation`` is kubectl's ``fieldValidation`` (``Strict``, ``Warn``, ``Ignore``)."""
        path = resource.path(
            namespace,
            dryRun="All" if dry_run else None,
            fieldManager=field_manager,
            fieldValidation=field_validation,
        )
        answer: dict[str, Any] = self.transport.request("POST", path, body)
        return answer

    def replace(
        self,
        resource: Resource,
        name: str,
        namespace: str | None,
        body: dict[str, Any],
        *,
        dry_run: bool = False,
        field_validation: str | None = None,
    ) -> dict[str, Any]:
        """PUT ``body`` over ``name`` (the server refuses it if ``metadata.resourceVersion`` is stale)."""
        path = resource.path(namespace, name, dryRun="All" if dry_run else None, fieldValidation=field_validation)
        answer: dict[str, Any] = self.transport.request("PUT", path, body)
        return answer

    def patch(
        self,
        resource: Resource,
        name: str,
        namespace: str | None,
        body: Any,
        content_type: str = MERGE_PATCH,
        *,
        dry_run: bool = False,
        field_manager: str = "kubectl-instancetype",
        subresource: str = "",
    ) -> dict[str, Any]:
        """PATCH ``name`` with ``body`` (a document, or bytes already encoded) as ``content_type``.

        ``content_type`` is one of the API server's patch types: merge (the default), strategic merge,
        JSON patch or apply; ``subresource`` ("status") patches that subresource (kubectl patch --subresource).
        """
        path = resource.path(
            namespace,
            name,
            subresource=subresource,
            dryRun="All" if dry_run else None,
            fieldManager=field_manager,
        )
        answer: dict[str, Any] = self.transport.request("PATCH", path, body, content_type=content_type)
        return answer

    def apply(
        self,
        resource: Resource,
        name: str,
        namespace: str | None,
        body: dict[str, Any],
        *,
        field_manager: str = "kubectl-instancetype",
        force: bool = False,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Server-side apply: PATCH ``body`` as application/apply-patch+yaml (JSON is YAML) for ``field_manager``.

        ``force`` takes over fields another manager owns (kubectl apply --server-side --force-conflicts).
        """
        path = resource.path(
            namespace,
            name,
            dryRun="All" if dry_run else None,
            fieldManager=field_manager,
            force="true" if force else None,
        )
        answer: dict[str, Any] = self.transport.request("PATCH", path, body, content_type=APPLY_PATCH)
        return answer

    def delete(
        self,
        resource: Resource,
        name: str,
        namespace: str | None = None,
        *,
        dry_run: bool = False,
        propagation_policy: str | None = None,
        preconditions: dict[str, str] | None = None,
    ) -> dict[str, Any] | None:
        """DELETE ``name``; returns what the server answers (the object, or a Status). ``preconditions``
        (``uid``, ``resourceVersion``: DeleteOptions.preconditions) make the server refuse with 409 Conflict
        when the object is no longer the one that was judged."""
        body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation_policy:
            body["propagationPolicy"] = propagation_policy
        if preconditions:
            body["preconditions"] = dict(preconditions)
        if dry_run:
            # the API server reads the query's options only when the request has no body (DeleteResource in
            # k8s.io/apiserver v0.36.3 pkg/endpoints/handlers/delete.go), so a body must say dryRun itself
            body["dryRun"] = ["All"]
        path = resource.path(namespace, name, dryRun="All" if dry_run else None)
        answer: dict[str, Any] | None = self.transport.request(
            "DELETE", path, body if propagation_policy or preconditions else None
        )
        return answer


# compiled on first use (re caches them): the streamed list path (ListStream) reads the token itself
_LIST_TAIL = rb'\],"kind":"[A-Za-z0-9]*","metadata":(\{[^{}]*\})\}\s*$'
_LIST_HEAD = rb'^\{"kind":"[A-Za-z0-9]*","apiVersion":"[^"]*","metadata":(\{[^{}]*\})'


def _page(body: bytes, fields: Schema) -> dict[str, Any]:
    """A list page asked for with :meth:`Client.list_pages`' ``fields``: read as protobuf when the server answered
    so (its 4-byte prefix, as apimachinery's protobuf serializer recognizes its data), else as JSON."""
    from ..golang import k8sproto
    from .errors import decode_object

    if not body.startswith(k8sproto.MAGIC):
        page: dict[str, Any] = decode_object(body)
        return page
    try:
        return k8sproto.list_page(body, fields)
    except k8sproto.ProtobufError as exc:
        raise PagingError(f"the server's protobuf list answer could not be read: {exc}") from None


def continue_token(body: bytes) -> str | None:
    """The ``metadata.continue`` of a list response without decoding its items.

    The list metadata is the last key of custom-resource lists and the first of built-in ones; when
    neither shape is found the whole body is decoded. A protobuf answer is read up to its list metadata.
    """
    import json
    import re

    from ..golang import k8sproto
    from .errors import decode_object

    if body.startswith(k8sproto.MAGIC):
        try:
            return k8sproto.list_continue(body)
        except k8sproto.ProtobufError as exc:
            raise PagingError(f"the server's protobuf list answer could not be read: {exc}") from None

    match = re.compile(_LIST_TAIL).search(body, max(0, len(body) - 4096)) or re.match(_LIST_HEAD, body)
    metadata = json.loads(match.group(1)) if match else (decode_object(body).get("metadata") or {})
    token = metadata.get("continue") if isinstance(metadata, dict) else None
    return str(token) if token else None


def _not_json(constant: str) -> Any:
    raise ValueError(constant)


def _watch_values(data: bytes) -> tuple[list[Any], bytes]:
    """The JSON values of ``data`` (watch events, one per line as the API server frames them) and what is left of
    a value the next line continues. A corrupt stream ends in the Status client-go makes of the decoder's error
    (apimachinery watch.StreamWatcher.receive: "unable to decode an event from the watch stream: %v", reported
    by rest.Request.Watch's NewClientErrorReporter(500, "GET", "ClientWatchDecoding") as an InternalError);
    a number of more digits than are decoded, or nesting too deep, reads as on the list path."""
    import json

    from ..golang.encoding_json import UNEXPECTED_EOF, syntax_error
    from . import errors as kube_errors
    from .http import human_size
    from .transport import MAX_STREAM_LINE

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")  # Go's encoding/json reads invalid UTF-8 as U+FFFD
    decoder = json.JSONDecoder(parse_constant=_not_json)  # NaN and Infinity are Python's, not JSON
    values: list[Any] = []
    index = 0
    while True:
        while index < len(text) and text[index] in " \t\r\n":
            index += 1
        if index >= len(text):
            return values, b""
        try:
            value, index = decoder.raw_decode(text, index)
        except RecursionError:
            raise kube_errors.ResponseError("the server sent JSON nested too deeply to decode") from None
        except ValueError as exc:
            if "integer string conversion" in str(exc):
                raise kube_errors.ResponseError(
                    f"the server sent a number with more than {kube_errors.MAX_INT_DIGITS} digits, which is not decoded"
                ) from None
            # Go's scanner reads the bytes as sent (an invalid byte is named as Go names it), from the line's start
            problem = syntax_error(data, stream=True) or UNEXPECTED_EOF
            if problem == UNEXPECTED_EOF:
                rest = text[index:].encode("utf-8")
                if len(rest) > MAX_STREAM_LINE:
                    raise kube_errors.ResponseError(
                        f"a watch event from the server is larger than {human_size(MAX_STREAM_LINE)}; stopped watching"
                    ) from None
                return values, rest
            from ..errors import APIError
            from ..golang.strconv import go_quote

            reported = go_quote(f"unable to decode an event from the watch stream: {problem}")
            raise APIError(
                500,
                f"an error on the server ({reported}) has prevented the request from succeeding",
                reason="InternalError",
            ) from None
        values.append(value)


def connect(
    options: ConnectionOptions,
    environ: dict[str, str],
    home: str,
    log: Callable[[str], None] | None = None,
    warn: Callable[[str], None] | None = None,
    *,
    files: KubeconfigFiles | None = None,
    exec_plugins: Any = None,
    shared_tls: Any = None,
) -> Client:
    """Resolve the kubeconfig for ``options`` and return a client (no request is sent yet).

    ``log``, when given, receives one line per HTTP request (``-v 6`` and up); ``warn`` each warning the
    server sends (``Warning`` headers: admission webhooks' warnings, deprecations), once. ``files`` are the
    kubeconfig files already read (the Session's), so that they are not read again; ``exec_plugins`` the exec
    credential plugins a fleet's sessions share (:class:`.fleet.ExecPlugins`), ``shared_tls`` their SSL contexts
    (:class:`.tls.SharedContexts`).
    """
    config = load_cluster_config(options, environ, home, files=files, exec_plugins=exec_plugins)
    client = Client(config, dict(environ), log)
    client.transport.warn = warn
    client.transport.shared_tls = shared_tls
    return client
