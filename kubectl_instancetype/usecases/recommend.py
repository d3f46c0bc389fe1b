"""Recommending instance types for a preference, from the cluster or the embedded catalog.

The preference is found first (cluster-scoped by default, namespaced with a ``virtualmachinepreference/``
prefix, as a VM's preference matcher names it); then every instance type of the source's scopes is judged
by :func:`..instancetype.recommend.evaluate` and ranked. ``list --compatible-with`` uses the same judgement
as a filter over any listing source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, PreflightError, UsageError
from ..instancetype import kinds as type_kinds
from ..instancetype.recommend import Minimums, Verdict, evaluate, near_miss, rank_key, series_of

if TYPE_CHECKING:
    from ..catalog import Catalog
    from ..kube.session import Session
    from .listing import Consume, Query, Source

CLUSTER_PREFERENCE = type_kinds.CLUSTER_PREFERENCE.singular
NAMESPACED_PREFERENCE = type_kinds.PREFERENCE.singular


@dataclass(frozen=True)
class PreferenceReference:
    """A preference as ``--preference`` names it: the lowercase kind and the name."""

    kind: str
    name: str


def parse_preference_reference(text: str) -> PreferenceReference:
    """``[kind/]name``; no kind means the cluster-scoped preference."""
    from ..instancetype.params import ParamError, split_prefixed_name

    try:
        prefix, name = split_prefixed_name(text)
    except ParamError as exc:
        raise UsageError(f'invalid preference "{text}": {exc}') from None
    # no kind is the cluster-scoped one; any kubectl spelling of the two preference kinds (instancetype.kinds)
    spelled = type_kinds.CLUSTER_PREFERENCE if prefix == "" else type_kinds.spelled(prefix)
    kind = spelled.singular if spelled is not None and spelled.what == type_kinds.PREFERENCES else None
    if kind is None:
        raise UsageError(
            f'invalid preference kind "{prefix}", supported values are: {NAMESPACED_PREFERENCE}, {CLUSTER_PREFERENCE}'
        )
    return PreferenceReference(kind, name)


def cluster_preference(session: Session, reference: str) -> dict[str, Any]:
    """The preference object ``reference`` names, from the cluster (namespaced ones in the Session's namespace).

    A missing preference fails with a did-you-mean hint, as ``create vm``'s pre-flight does."""
    from ..kube import resources
    from .references import not_found_message

    parsed = parse_preference_reference(reference)
    name = parsed.name
    resource = resources.PREFERENCES if parsed.kind == NAMESPACED_PREFERENCE else resources.CLUSTER_PREFERENCES
    client = session.client()
    namespace = session.namespace if resource.namespaced else None
    try:
        return client.get(resource, name, namespace)
    except NotFoundError:
        raise PreflightError(not_found_message(client, resource, name, namespace, session.namespace)) from None


def catalog_preference(catalog: Catalog, reference: str) -> dict[str, Any]:
    """The preference object ``reference`` names in the embedded catalog (namespaced copies are identical)."""
    from ..golang.cobra import did_you_mean

    name = parse_preference_reference(reference).name
    found = catalog.preference(name)
    if found is None:
        names = [str(obj["metadata"]["name"]) for obj in catalog.preferences]
        close = did_you_mean(name, names)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise PreflightError(
            f'preference "{name}" not found in the common-instancetypes {catalog.version} catalog{hint}'
        )
    return found


@dataclass
class Candidate:
    """One instance type judged against the preference."""

    obj: dict[str, Any]
    namespace: str | None
    verdict: Verdict
    key: tuple[Any, ...]


@dataclass
class Recommendation:
    """Fitting types ranked smallest first (at most ``--max``), near misses ranked too, and warnings."""

    fitting: list[Candidate] = field(default_factory=list)
    near_misses: list[Candidate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    considered: int = 0


def recommend(
    source: Source,
    query: Query,
    preference: dict[str, Any],
    *,
    minimums: Minimums = Minimums(),
    architecture: str | None = None,
    limit: int | None = None,
) -> Recommendation:
    """Judge every instance type ``source`` yields for ``query`` against ``preference`` (an object)."""
    spec = preference.get("spec") or {}
    result = Recommendation()

    def consume(obj: dict[str, Any], namespace: str | None) -> None:
        result.considered += 1
        instancetype = obj.get("spec") or {}
        verdict = evaluate(instancetype, spec, minimums, architecture)
        candidate = Candidate(obj, namespace, verdict, rank_key(instancetype, _name(obj), namespace))
        if verdict.fits:
            result.fitting.append(candidate)
        elif near_miss(verdict):
            result.near_misses.append(candidate)

    result.warnings = source.scan(query, consume)
    if not result.considered:
        from .listing import check_enumerated

        check_enumerated(source, query)
    result.fitting.sort(key=lambda candidate: candidate.key)
    # The nearest miss of each series and scope: the largest type that still falls short.
    nearest: dict[tuple[str, str], Candidate] = {}
    for candidate in sorted(result.near_misses, key=lambda candidate: candidate.key):
        nearest[(series_of(_name(candidate.obj)), candidate.namespace or "")] = candidate
    result.near_misses = sorted(nearest.values(), key=lambda candidate: candidate.key)
    if limit is not None:
        del result.fitting[limit:]
    return result


def _name(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


class CompatibleSource:
    """A listing source that passes on only the instance types fitting ``preference`` (``list --compatible-with``)."""

    def __init__(self, inner: Source, preference: dict[str, Any], architecture: str | None = None):
        self.inner = inner
        self.spec = preference.get("spec") or {}
        self.architecture = architecture

    @property
    def namespace(self) -> str:
        """The inner source's namespace."""
        return self.inner.namespace

    def scan(self, query: Query, consume: Consume) -> list[str]:
        """Scan the inner source, keeping the fitting instance types."""

        def fits(obj: dict[str, Any]) -> bool:
            return evaluate(obj.get("spec") or {}, self.spec, Minimums(), self.architecture).fits

        def keep(obj: dict[str, Any], namespace: str | None) -> None:
            if fits(obj):
                consume(obj, namespace)

        return self.inner.scan(query, keep)


def recommend_from(
    session: Session | None,
    reference: str | None,
    query: Query,
    *,
    catalog_version: str | None = None,
    namespace: str = "default",
    minimums: Minimums = Minimums(),
    architecture: str | None = None,
    limit: int | None = None,
) -> Recommendation:
    """``recommend``: the preference ``reference`` (None: no preference, only the minimums) and the instance types from the cluster through ``session``,
    or, when ``session`` is None, from the embedded catalog release ``catalog_version`` (namespaced copies in
    ``namespace``)."""
    from .listing import CatalogSource, ClusterSource

    source: Source
    if session is None:
        from ..catalog import DEFAULT_VERSION, load_catalog

        catalog = load_catalog(catalog_version or DEFAULT_VERSION)
        source = CatalogSource(catalog, namespace)
        preference = catalog_preference(catalog, reference) if reference is not None else {}
    else:
        source = ClusterSource(session)
        preference = cluster_preference(session, reference) if reference is not None else {}
    return recommend(source, query, preference, minimums=minimums, architecture=architecture, limit=limit)
