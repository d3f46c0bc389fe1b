"""Pre-flight: what KubeVirt's admission would say about a VirtualMachine, before it is sent.

1. ``inferFromVolume`` matchers are resolved against the cluster exactly as the mutating webhook does
   (:mod:`..instancetype.infer`); what they resolve to is reported, and a resolution the server would reject
   fails here with KubeVirt's message.
2. Every referenced instance type and preference is fetched (:mod:`.references`: concurrently, one GET each);
   a missing one fails with a did-you-mean hint.
3. The expansion engine runs the validating webhook's checks on what was found: conflicts between the VM and
   the instance type, spread topology divisibility, and the preference's requirements, with KubeVirt's
   messages (joined with ", " as KubeVirt joins the causes of one denial).

Nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import PluginError, PreflightError

if TYPE_CHECKING:
    from ..kube.session import Session


class Found(NamedTuple):
    """The specs of the referenced objects that exist (None where the VM references none)."""

    instancetype: dict[str, Any] | None
    preference: dict[str, Any] | None


def fetch_references(session: Session, manifest: dict[str, Any], namespace: str) -> Found:
    """The specs of every instance type and preference ``manifest`` references (namespaced kinds in
    ``namespace``), through :func:`.references.require_types`: a missing one raises
    :class:`.references.MissingTypes`, other failures (RBAC, transport) as they are."""
    from ..instancetype.createvm import referenced_objects
    from .references import TypeReference, require_types

    references = [TypeReference(kind, name) for kind, name in referenced_objects(manifest)]
    found = require_types(session, references, namespace)
    specs = {
        "instancetype" if "instancetype" in reference.kind.lower() else "preference": obj.get("spec") or {}
        for reference, obj in zip(references, found)
    }
    return Found(specs.get("instancetype"), specs.get("preference"))


class Checked(NamedTuple):
    """The VM as admission's inference leaves it, and the specs its matchers reference."""

    vm: dict[str, Any]
    found: Found


def uses_inference(manifest: dict[str, Any]) -> bool:
    """True when a matcher of ``manifest`` asks for ``inferFromVolume``."""
    spec = manifest.get("spec") or {}
    return any(isinstance(spec.get(m), dict) and spec[m].get("inferFromVolume") for m in ("instancetype", "preference"))


def check_vm(
    session: Session,
    manifest: dict[str, Any],
    namespace: str,
    *,
    report: Callable[[str], None] | None = None,
) -> Checked:
    """Resolve inference, fetch the references and run admission's checks for ``manifest`` in ``namespace``.

    ``report`` receives what inference resolved to and what the server will drop (one line each). Raises
    :class:`PreflightError` with KubeVirt's message when admission would deny the VM.
    """
    from ..instancetype.expand import preflight

    vm = manifest
    if uses_inference(manifest):
        from .inference import dropped_warnings, resolve_vm, resolved_lines

        result = resolve_vm(session.client(), manifest, namespace)
        if report is not None:
            for line in resolved_lines(result):
                report(f"Inferred {line}")
            for line in dropped_warnings(result):
                report(f"Warning: {line}")
        if result.error:
            from .inference import explain_rejection

            raise PreflightError(explain_rejection(result))
        vm = result.vm
    found = fetch_references(session, vm, namespace)
    problems = preflight(vm, found.instancetype, found.preference)
    if problems:
        message = ", ".join(problems)
        if found.preference is not None and "failure checking preference requirements" in message:
            message += _fitting_hint(session, vm, found.preference)
        raise PreflightError(message)
    return Checked(vm, found)


FITTING_SHOWN = 3


def _fitting_hint(session: Session, vm: dict[str, Any], preference_spec: dict[str, Any]) -> str:
    """``; the smallest instance types that satisfy preference P: a, b, c`` (as recommend ranks them), or ""."""
    from ..instancetype.listing import INSTANCETYPES, Filters, RangeFilter
    from .listing import ClusterSource, Query
    from .recommend import recommend

    query = Query(INSTANCETYPES, "", RangeFilter.from_filters(Filters(), INSTANCETYPES))
    try:
        result = recommend(ClusterSource(session.client()), query, {"spec": preference_spec}, limit=FITTING_SHOWN)
    except PluginError:
        return ""  # the hint is a courtesy: RBAC or a failed list must not hide the real error
    names = [str((c.obj.get("metadata") or {}).get("name", "")) for c in result.fitting]
    if not names:
        return ""
    preference = ((vm.get("spec") or {}).get("preference") or {}).get("name", "")
    return (
        f"; the smallest instance types that satisfy preference {preference}: {', '.join(names)} "
        f"(kubectl instancetype recommend --preference {preference})"
    )
