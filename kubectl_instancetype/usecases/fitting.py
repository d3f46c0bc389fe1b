"""What to do about a requirements failure (KubeVirt's ``failure checking preference requirements: insufficient
CPU resources ...``), wherever one surfaces: ``create vm`` and ``switch`` (the pre-flight, and the webhook's
denial), ``expand``, and the default types ``label`` and ``upload`` put on a volume.

The hint names the smallest instance types that satisfy the preference, as ``recommend`` ranks them (one list
of the instance types, on that failure path only), spelled as ``--instancetype`` takes them, and the
``recommend`` command that shows the rest. Where no cluster is used (an expansion from local files) the
embedded common-instancetypes catalog stands in, and the hint says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PluginError
from ..instancetype import kinds as type_kinds

if TYPE_CHECKING:
    from ..kube.session import Session
    from .listing import Source

FITTING_SHOWN = 3


@dataclass(frozen=True)
class PreferenceInUse:
    """The preference whose requirements failed: its kind as the VM's matcher or a label gives it (any KubeVirt
    spelling; empty is the cluster-scoped kind), its name, and its spec (None when it is not at hand)."""

    kind: str
    name: str
    spec: dict[str, Any] | None

    @property
    def namespaced(self) -> bool:
        kind = type_kinds.spelled(self.kind)  # "" (no kind) is the cluster-scoped one
        return kind is not None and kind.namespaced

    @property
    def reference(self) -> str:
        """As ``recommend --preference`` takes it: a bare name is the cluster-scoped kind."""
        return f"{type_kinds.PREFERENCE.short}/{self.name}" if self.namespaced else self.name


def is_requirements_failure(message: str) -> bool:
    """True when ``message`` holds KubeVirt's requirements failure for CPU or memory (``insufficient CPU resources``,
    ``insufficient Memory resources``), which another instance type fixes; an architecture one is not."""
    from ..instancetype.requirements import DENIAL_PREFIX

    return f"{DENIAL_PREFIX}insufficient " in message


def requirements_hint(session: Session | None, preference: PreferenceInUse, *, catalog: bool = False) -> str:
    """``the smallest instance types that satisfy preference NAME: a, b, c (kubectl instancetype recommend
    --preference NAME)``, from the cluster through ``session`` (its namespace for namespaced types), or from the
    embedded catalog with ``catalog``; when none can be named, what to choose instead. The hint is a courtesy:
    a failure to list is no failure here."""
    fitting = _fitting(session, preference.spec, catalog) if preference.spec is not None else []
    recommend = f" (kubectl instancetype recommend --preference {preference.reference})"
    if catalog:
        # recommend --catalog ranks for the catalog's own preference of that name only
        recommend = f" (kubectl instancetype recommend --catalog --preference {preference.name})"
        if preference.namespaced or _catalog().preference(preference.name) is None:
            recommend = ""
    if fitting:
        where = (
            "instance types"
            if not catalog
            else f"instance types of the common-instancetypes {_catalog().version} catalog"
        )
        return f"the smallest {where} that satisfy preference {preference.reference}: {', '.join(fitting)}{recommend}"
    return f"choose an instance type that meets the preference {preference.reference}'s requirements{recommend}"


def _catalog() -> Any:
    from ..catalog import load_catalog

    return load_catalog()


def _fitting(session: Session | None, preference_spec: dict[str, Any], catalog: bool) -> list[str]:
    """The smallest instance types that satisfy ``preference_spec``, each once and as ``--instancetype`` takes it."""
    from ..instancetype.listing import INSTANCETYPES, Filters, RangeFilter
    from .listing import Query
    from .recommend import recommend

    source: Source
    if catalog:
        from ..catalog import load_catalog
        from .listing import CatalogSource

        source = CatalogSource(load_catalog())
    elif session is not None:
        from .listing import ClusterSource

        source = ClusterSource(session)
    else:
        return []
    query = Query(INSTANCETYPES, "", RangeFilter.from_filters(Filters(), INSTANCETYPES), cluster_only=catalog)
    try:
        # twice as many: a namespaced copy of a cluster type of the same name is dropped below
        result = recommend(source, query, {"spec": preference_spec}, limit=2 * FITTING_SHOWN)
    except PluginError:
        return []
    # a bare name is the cluster-scoped kind (KubeVirt's default), so a namespaced type carries its short kind;
    # a name shows once, as the cluster type when both scopes hold it
    shown: dict[str, str] = {}
    for candidate in result.fitting:
        name = str((candidate.obj.get("metadata") or {}).get("name", ""))
        if name not in shown or not candidate.namespace:
            shown[name] = f"{type_kinds.INSTANCETYPE.short}/{name}" if candidate.namespace else name
    return list(shown.values())[:FITTING_SHOWN]


def with_hints(
    session: Session | None, problems: list[str], preference: PreferenceInUse, *, catalog: bool = False
) -> list[str]:
    """``problems`` (KubeVirt's messages) with the hint appended to a requirements failure (``message; hint``)."""
    return [
        f"{problem}; {requirements_hint(session, preference, catalog=catalog)}"
        if is_requirements_failure(problem)
        else problem
        for problem in problems
    ]


def matcher_preference(vm: dict[str, Any], spec: dict[str, Any] | None) -> PreferenceInUse | None:
    """The preference ``vm``'s matcher names (``spec``: its spec, when at hand); None without a named one."""
    matcher = (vm.get("spec") or {}).get("preference")
    if not isinstance(matcher, dict) or not matcher.get("name"):
        return None
    return PreferenceInUse(str(matcher.get("kind") or ""), str(matcher["name"]), spec)


def check_default_types(
    session: Session, instancetype: dict[str, Any] | None, preference: dict[str, Any] | None, *, volume: str, then: str
) -> None:
    """Refuse default types a volume is about to carry (``label``, ``upload``) when the instance type does not meet
    the preference's requirements: KubeVirt denies every VirtualMachine that infers both from ``volume``
    (``pvc/NAME``) with the message checked here. ``then`` is appended (what was not done, how to go on)."""
    from ..errors import PreflightError
    from ..instancetype.requirements import DENIAL_PREFIX, unmet_requirement

    if instancetype is None or preference is None:
        return
    problem = unmet_requirement(instancetype.get("spec") or {}, preference.get("spec") or {}, {})
    if problem is None:
        return
    metadata = preference.get("metadata") or {}
    used = PreferenceInUse(str(preference.get("kind") or ""), str(metadata.get("name") or ""), preference.get("spec"))
    raise PreflightError(
        f"a VirtualMachine inferring its instance type and preference from {volume} would be denied: "
        f"{DENIAL_PREFIX}{problem}; {requirements_hint(session, used)}{then}"
    )
