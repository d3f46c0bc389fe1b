"""The one "referenced types exist" check (:func:`check_types`): ``create vm`` (and ``expand``'s admission
verdict), ``upload``, ``label``, ``switch`` and ``derive`` GET the instance types and preferences they
are about to reference (concurrently, one request each) before anything is written, and a missing one fails with
a hint (:func:`require_types`), or, for ``create vm``, is a warning with that hint.

The hint costs requests only on that failure path: one list of the kind's names (the closest ones by edit
distance are suggested), and one GET of the same name in the other scope (a cluster-wide type named where a
namespaced one was looked for, and the reverse, is the most common slip). That hint spells the reference as the
command takes it (:class:`Spelling`): ``--instancetype vmf/NAME``, ``--default-preference-kind ...``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PluginError, PreflightError

if TYPE_CHECKING:
    from ..instancetype.kinds import TypeKind
    from ..kube.client import Client
    from ..kube.resources import Resource
    from ..kube.session import Session


class MissingTypes(PreflightError):
    """Referenced instance types or preferences do not exist (the message names each, with a hint)."""


@dataclass(frozen=True)
class Spelling:
    """How a command takes a type reference, to tell what to type instead: ``flag`` followed by ``KIND/NAME``
    (``--instancetype vmf/NAME``; no flag: a positional ``vmf/NAME``), or, with ``kind_flag``, the name and the
    kind as two flags (``label``, ``upload``: ``--default-instancetype NAME --default-instancetype-kind ...``).
    A cluster-scoped type is spelled by its bare name: KubeVirt's default kind."""

    flag: str = ""
    kind_flag: str = ""

    def spell(self, resource: Resource, name: str) -> str:
        """What to type to name ``resource``/``name``."""
        if self.kind_flag:
            if resource.namespaced:
                return f"{self.flag} {name} {self.kind_flag} {resource.singular}"
            return f"{self.flag} {name} without {self.kind_flag}"
        from ..instancetype.kinds import BY_KIND

        reference = f"{BY_KIND[resource.kind].short}/{name}" if resource.namespaced else name
        return f"{self.flag} {reference}" if self.flag else reference


# the flags of create vm and switch (--instancetype/--preference KIND/NAME), by matcher
MATCHER_FLAGS = {"instancetype": Spelling("--instancetype"), "preference": Spelling("--preference")}
# the flags of label and upload (a name flag and a kind flag), by matcher
DEFAULT_FLAGS = {
    "instancetype": Spelling("--default-instancetype", "--default-instancetype-kind"),
    "preference": Spelling("--default-preference", "--default-preference-kind"),
}


@dataclass(frozen=True)
class TypeReference:
    """An instance type or preference a command is about to reference: its kind (read from what the user or the
    VM wrote by :func:`..instancetype.kinds.matcher_kind`), name, and how the command takes it (for the hint of a
    missing one)."""

    kind: TypeKind
    name: str
    spelling: Spelling = Spelling()

    @property
    def resource(self) -> Resource:
        from ..kube.resources import BY_KIND

        return BY_KIND[self.kind.kind]


@dataclass(frozen=True)
class CheckedTypes:
    """What :func:`check_types` read: per reference, the object (None when it is missing), and one message (with
    its hint) per missing reference."""

    objects: tuple[dict[str, Any] | None, ...]
    missing: tuple[str, ...] = ()


def check_types(client: Client, references: Sequence[TypeReference], namespace: str) -> CheckedTypes:
    """The one "referenced types exist" check: GET every referenced type (namespaced kinds in ``namespace``,
    concurrently, one request each) and say, with a hint, which ones are missing.

    Other failures (RBAC, transport) are raised as they are. A command that must not go on without them calls
    :func:`require_types`; ``create vm``'s pre-flight keeps the missing ones as warnings (KubeVirt v1.6+ admits
    a VM whose types do not exist yet).
    """
    requests = [
        (reference.resource, reference.name, namespace if reference.resource.namespaced else None)
        for reference in references
    ]
    results = client.get_all(requests) if requests else []
    missing: list[str] = []
    objects: list[dict[str, Any] | None] = []
    for reference, (resource, name, scope), result in zip(references, requests, results):
        if isinstance(result, PluginError):
            if getattr(result, "code", None) != 404:
                raise result
            missing.append(not_found_message(client, resource, name, scope, namespace, reference.spelling))
            objects.append(None)
        else:
            objects.append(result)
    return CheckedTypes(tuple(objects), tuple(missing))


def require_types(
    session: Session, references: Sequence[TypeReference], namespace: str, *, then: str = ""
) -> list[dict[str, Any]]:
    """:func:`check_types`, failing when one is missing: return the objects, in order.

    Raises :class:`MissingTypes` naming every missing one (``then`` is appended: what was not done, how to go on);
    other failures (RBAC, transport) as they are.
    """
    if not references:
        return []
    checked = check_types(session.client(), references, namespace)
    if checked.missing:
        raise MissingTypes("; ".join(checked.missing) + then)
    return [obj for obj in checked.objects if obj is not None]


def not_found_message(
    client: Client,
    resource: Resource,
    name: str,
    scope: str | None,
    namespace: str | None = None,
    spelling: Spelling = Spelling(),
) -> str:
    """``<kind> "<name>" not found [in namespace "<ns>"]``, with a hint: the same name in the other scope and how
    to name it there (``spelling``), else the closest names of the kind (``namespace`` is where a namespaced kind
    of the other scope is looked for)."""
    from ..golang.strconv import go_quote
    from ..kube.resources import other_scope

    where = f" in namespace {go_quote(scope)}" if scope else ""

    message = f"{resource.singular} {go_quote(name)} not found{where}"  # apimachinery's "%s %q not found"
    other = other_scope(resource)
    if other is not None:
        other_namespace = (scope or namespace) if other.namespaced else None
        if not other.namespaced or other_namespace:
            try:
                client.get(other, name, other_namespace)
            except PluginError:
                pass
            else:
                there = f" in namespace {go_quote(other_namespace or '')}" if other.namespaced else ""
                use = spelling.spell(other, name)
                return f"{message} (a {other.kind} named {go_quote(name)} exists{there}: use {use})"
    try:
        names = client.list_names(resource, scope)
    except PluginError:
        return message
    from ..golang.cobra import did_you_mean

    close = did_you_mean(name, sorted(names))
    return f"{message} (did you mean {' or '.join(close)}?)" if close else message
