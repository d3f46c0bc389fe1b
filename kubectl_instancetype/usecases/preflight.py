"""Pre-flight: what KubeVirt's admission would say about a VirtualMachine, before it is sent.

1. ``inferFromVolume`` matchers are resolved against the cluster exactly as the mutating webhook does
   (:mod:`..instancetype.infer`); what they resolve to is reported, and a resolution the server would reject
   fails here with KubeVirt's message.
2. Every referenced instance type and preference is fetched (concurrently, one GET each); a missing one fails
   with a did-you-mean hint (one list request, on that failure path only).
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
    from ..kube.client import Client
    from ..kube.resources import Resource


class Found(NamedTuple):
    """The specs of the referenced objects that exist (None where the VM references none)."""

    instancetype: dict[str, Any] | None
    preference: dict[str, Any] | None


class MissingReferences(PreflightError):
    """Referenced instance types or preferences do not exist (the message names each, with a hint)."""


def fetch_references(client: Client, manifest: dict[str, Any], namespace: str) -> Found:
    """GET every instance type and preference ``manifest`` references (namespaced kinds in ``namespace``).

    Raises :class:`MissingReferences` naming every missing object; other failures (RBAC, transport) as they are.
    """
    from ..instancetype.createvm import referenced_objects
    from ..kube.resources import BY_LOWERCASE_KIND

    references = referenced_objects(manifest)
    requests: list[tuple[Resource, str, str | None]] = []
    for kind, name in references:
        resource = BY_LOWERCASE_KIND[kind]
        requests.append((resource, name, namespace if resource.namespaced else None))
    results = client.get_all(requests) if requests else []
    missing: list[str] = []
    found: dict[str, dict[str, Any]] = {}
    for (kind, name), (resource, _, scope), result in zip(references, requests, results):
        if isinstance(result, PluginError):
            if getattr(result, "code", None) != 404:
                raise result
            missing.append(not_found_message(client, resource, name, scope))
        else:
            found["instancetype" if "instancetype" in kind else "preference"] = result.get("spec") or {}
    if missing:
        raise MissingReferences("; ".join(missing))
    return Found(found.get("instancetype"), found.get("preference"))


class Checked(NamedTuple):
    """The VM as admission's inference leaves it, and the specs its matchers reference."""

    vm: dict[str, Any]
    found: Found


def uses_inference(manifest: dict[str, Any]) -> bool:
    """True when a matcher of ``manifest`` asks for ``inferFromVolume``."""
    spec = manifest.get("spec") or {}
    return any(isinstance(spec.get(m), dict) and spec[m].get("inferFromVolume") for m in ("instancetype", "preference"))


def check_vm(
    client: Client,
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

        result = resolve_vm(client, manifest, namespace)
        if report is not None:
            for line in resolved_lines(result):
                report(f"Inferred {line}")
            for line in dropped_warnings(result):
                report(f"Warning: {line}")
        if result.error:
            raise PreflightError(result.error)
        vm = result.vm
    found = fetch_references(client, vm, namespace)
    problems = preflight(vm, found.instancetype, found.preference)
    if problems:
        raise PreflightError(", ".join(problems))
    return Checked(vm, found)


def not_found_message(client: Client, resource: Resource, name: str, namespace: str | None) -> str:
    """``<kind> "<name>" not found``, with the closest existing name as a hint (one list, on failure only)."""
    import difflib

    where = f' in namespace "{namespace}"' if namespace else ""
    message = f'{resource.singular} "{name}" not found{where}'
    try:
        names = client.list_names(resource, namespace)
    except PluginError:
        return message
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"{message} (did you mean {close[0]}?)" if close else message
