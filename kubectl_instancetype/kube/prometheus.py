"""Prometheus's HTTP query API (``/api/v1/query``), as Prometheus, Thanos Querier and Mimir serve it.

Two ways to the server, both over the one transport (:mod:`.transport`: deadlines, retries, proxies, TLS):

* ``--prometheus-url URL``: straight to the query API. TLS trusts ``--prometheus-ca-file`` (else the system's
  roots); ``--prometheus-token-file`` is sent as ``Authorization: Bearer``. The kubeconfig's credentials are never
  sent to a server other than the API server.
* ``--prometheus-service NAMESPACE/NAME:PORT``: through the API server's service proxy
  (``/api/v1/namespaces/NAMESPACE/services/NAME:PORT/proxy/...``) with the user's own kubeconfig credentials, so
  that RBAC decides (``get`` on ``services/proxy``), as OpenShift's ``openshift-monitoring/thanos-querier`` is
  reached. ``NAME`` may carry the proxy's scheme prefix (``https:thanos-querier:9091``).

Every query is a GET (the service proxy maps GET to RBAC's ``get``; POST would need ``create``), bounded by the
deadline the caller gives and by :data:`MAX_ANSWER_BYTES`. A failure becomes one :class:`PrometheusError` line that
names the server and what failed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import PluginError

if TYPE_CHECKING:
    from .client import Client
    from .transport import Transport

MAX_ANSWER_BYTES = 64 << 20  # one query's answer: ~300 bytes a VM, so room for 200,000 VMs
QUERY_PATH = "/api/v1/query"


class PrometheusError(PluginError):
    """The metrics server could not answer: unreachable, forbidden, a query it refused, or an answer too large."""


class Sample(NamedTuple):
    """One element of an instant vector: the series' labels and its value. A tuple: made 10,000 at a time per answer,
    it costs a third of what a frozen dataclass does (whose ``__init__`` sets each field through
    ``object.__setattr__``)."""

    labels: Mapping[str, str]
    value: float


class Prometheus:
    """Instant queries against one Prometheus-compatible query API. ``described`` names it in messages."""

    def __init__(self, transport: Transport, prefix: str, described: str):
        self.transport = transport
        self.prefix = prefix
        self.described = described
        self.queries_sent = 0

    def query(self, promql: str, at: float, timeout: float) -> list[Sample]:
        """The instant vector ``promql`` evaluates to at ``at`` (Unix seconds), within ``timeout`` seconds."""
        from urllib.parse import quote

        path = f"{self.prefix}{QUERY_PATH}?query={quote(promql, safe='')}&time={at:.3f}&timeout={int(timeout)}s"
        deadline = time.monotonic() + timeout
        self.queries_sent += 1
        try:
            raw = self.transport.request("GET", path, raw=True, deadline=deadline)
        except PluginError as exc:
            raise PrometheusError(f"{self.described}: {_reason(exc)}") from exc
        return parse_vector(raw, self.described)


def _reason(exc: PluginError) -> str:
    from ..errors import APIError, ConnectionRefused

    if isinstance(exc, ConnectionRefused):
        return "connection refused: is it running there, and is the URL right?"

    if isinstance(exc, APIError):
        if exc.code in (401, 403):
            return f"{'forbidden' if exc.code == 403 else 'unauthorized'} ({exc.code}): {exc.message}"
        return f"the server answered {exc.code}: {exc.message}"
    return exc.message


# An answer as Prometheus's API writes it (web/api/v1 through jsoniter: compact, the labels sorted by name) whose
# samples are each labelled by name and namespace alone, or with source: what rightsize's queries by (namespace,
# name) answer, 10,000 samples at a time at 10,000 VMs. Its samples are read with one pattern (20 ms per 10,000
# against 24-30 ms through the JSON scanner, bench/README.md "Right-sizing"): a JSON number for the time, strings
# without an escape or a control character (those that have one, and any other shape, go through the scanner).
_VECTOR_HEAD = b'{"status":"success","data":{"resultType":"vector","result":['
_VECTOR_TAIL = b"]}}"
_STRING = rb'"([^"\\\x00-\x1f]*)"'
_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_VM_SAMPLE = (
    rb'\{"metric":\{"name":'
    + _STRING
    + rb',"namespace":'
    + _STRING
    + rb'(,"source":'
    + _STRING
    + rb')?\},"value":\[('
    + _NUMBER
    + rb"),"
    + _STRING
    + rb"\]\}"
)
# the bytes of a sample outside its groups (name, namespace, the source with its label name, time, value)
_VM_SAMPLE_FRAME = len(b'{"metric":{"name":"","namespace":""},"value":[,""]}')


def _vm_samples(raw: bytes) -> list[Sample] | None:
    """The samples of an answer in the shape above, the same as :func:`parse_vector` reads through the scanner;
    None: the answer is not in that shape (a sample with other labels or an escape, a warning after the result),
    or not only of such samples."""
    import re

    if not (raw.startswith(_VECTOR_HEAD) and raw.endswith(_VECTOR_TAIL)):
        return None
    found = re.findall(_VM_SAMPLE, raw)
    # the matches are the whole result, one after the other with a comma between (so nothing else is in it: an
    # element without "metric", a space): every {"metric": opens a match (a string cannot hold that text unescaped),
    # the first right after the head and each other one right after a comma, and the matches and those commas add up
    # to the result's length
    count = len(found)
    result = len(raw) - len(_VECTOR_HEAD) - len(_VECTOR_TAIL)
    if count == 0:
        return [] if result == 0 else None
    if raw.count(b'{"metric":') != count or raw.count(b',{"metric":') != count - 1:
        return None
    if not raw.startswith(b'{"metric":', len(_VECTOR_HEAD)):
        return None
    names, namespaces, sourced, _, times, values = zip(*found, strict=True)
    matched = sum(sum(map(len, column)) for column in (names, namespaces, sourced, times, values))
    if count * _VM_SAMPLE_FRAME + matched + count - 1 != result:
        return None
    out: list[Sample] = []
    append = out.append
    try:
        # (the source's group with its label name: a value of "" is a label too)
        for name, namespace, with_source, source, _time, value in found:
            if with_source:
                labels = {"name": name.decode(), "namespace": namespace.decode(), "source": source.decode()}
            else:
                labels = {"name": name.decode(), "namespace": namespace.decode()}
            append(Sample(labels, float(value)))
    except (UnicodeDecodeError, ValueError):
        return None
    return out


def parse_vector(raw: bytes, described: str) -> list[Sample]:
    """The ``data.result`` of a ``resultType: vector`` answer (``NaN`` and infinities kept as floats)."""
    fast = _vm_samples(raw)
    return fast if fast is not None else _scanned_vector(raw, described)


def _scanned_vector(raw: bytes, described: str) -> list[Sample]:
    """:func:`parse_vector` through the JSON scanner, whatever the answer's shape."""
    from . import jsonscan

    try:
        document = jsonscan.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise PrometheusError(f"{described}: the answer is not JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise PrometheusError(f"{described}: the answer is not a Prometheus API response")
    if document.get("status") != "success":
        raise PrometheusError(f"{described}: {document.get('errorType', 'error')}: {document.get('error', '')}")
    data = document.get("data") or {}
    if data.get("resultType") != "vector":
        raise PrometheusError(f"{described}: expected a vector, the server answered {data.get('resultType')!r}")
    out: list[Sample] = []
    append = out.append
    for item in data.get("result") or ():
        try:
            labels = item.get("metric") or {}
            try:
                "".join(labels.values())  # every value a string (a JSON object's keys are): the labels as they are
            except TypeError:
                labels = {str(k): str(v) for k, v in labels.items()}
            append(Sample(labels, float(item["value"][1])))
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise PrometheusError(f"{described}: a malformed sample: {item!r:.200}") from exc
    return out


def _bounded(config: Any, environ: Mapping[str, str], log: Any) -> Transport:
    """A transport whose answers are bounded by :data:`MAX_ANSWER_BYTES` and whose error answers in Prometheus's
    JSON (``{"status": "error", "errorType": ..., "error": ...}``) keep Prometheus's words."""
    from .transport import Transport

    class Bounded(Transport):
        def _connect(self, target: Any = None) -> Any:
            connection = super()._connect(target)
            connection.max_body = MAX_ANSWER_BYTES
            return connection

        def _decode(self, method: str, path: str, response: Any, raw: bool) -> Any:
            if response.status >= 400 and b'"status":"error"' in response.body[:64]:
                from . import jsonscan

                try:
                    document = jsonscan.loads(response.body)
                except ValueError:
                    document = {}
                if isinstance(document, dict) and document.get("error"):
                    raise QueryRefused(f"{response.status} {document.get('errorType', '')}: {document['error']}")
            return super()._decode(method, path, response, raw)

    return Bounded(config, dict(environ), log)


class QueryRefused(PluginError):
    """Prometheus refused a query, in its own words."""


def direct(
    url: str,
    *,
    ca_file: str | None,
    token_file: str | None,
    environ: Mapping[str, str],
    log: Any = None,
) -> Prometheus:
    """``--prometheus-url``: the query API at ``url`` (its path is the API's prefix: ``https://host/prometheus``)."""
    from .kubeconfig import ClusterConfig

    try:
        transport = _bounded(ClusterConfig(server=url, ca_file=ca_file, token_file=token_file), environ, log)
    except PluginError as exc:
        raise PrometheusError(f"--prometheus-url {url}: {exc.message}") from exc
    return Prometheus(transport, "", f"Prometheus at {url}")


def via_service(client: Client, service: str, environ: Mapping[str, str], log: Any = None) -> Prometheus:
    """``--prometheus-service NAMESPACE/NAME:PORT``: the API server's service proxy, with the user's credentials
    (the API client's configuration, on a connection of its own)."""
    from .names import invalid_namespace

    namespace, _, target = service.partition("/")
    problem = invalid_namespace(namespace)
    if problem:
        raise PrometheusError(f"--prometheus-service {service}: {problem}")
    prefix = f"/api/v1/namespaces/{namespace}/services/{target}/proxy"
    transport = _bounded(client.transport.config, environ, log)
    return Prometheus(transport, prefix, f"Prometheus service {service} (through the API server's proxy)")


def parse_service(text: str) -> str:
    """``NAMESPACE/NAME:PORT`` checked (the scheme prefix ``https:`` or ``http:`` allowed before NAME); raises
    ValueError with what is wrong."""
    namespace, slash, target = text.partition("/")
    parts = target.split(":")
    if parts and parts[0] in ("http", "https"):
        parts = parts[1:]
    if not slash or not namespace or len(parts) != 2 or not all(parts):
        raise ValueError(
            f"--prometheus-service {text!r}: expected NAMESPACE/NAME:PORT (e.g. monitoring/prometheus:9090)"
        )
    return text
