"""Pre-flight: what the cluster must hold before a VirtualMachine that references types is sent.

Every referenced instance type and preference is fetched (concurrently, one GET each); a missing one fails
with a did-you-mean hint (one list request, on that failure path only); then KubeVirt's preference
requirement check runs on what was found, with KubeVirt's message. Nothing is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import PluginError, PreflightError

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource


class Found(NamedTuple):
    """The specs of the referenced objects that exist (None where the VM references none)."""

    instancetype: dict[str, Any] | None
    preference: dict[str, Any] | None


def fetch_references(client: Client, manifest: dict[str, Any], namespace: str) -> Found:
    """GET every instance type and preference ``manifest`` references (namespaced kinds in ``namespace``).

    Raises :class:`PreflightError` naming every missing object; other failures (RBAC, transport) as they are.
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
        raise PreflightError("; ".join(missing))
    return Found(found.get("instancetype"), found.get("preference"))


def check_vm(client: Client, manifest: dict[str, Any], namespace: str) -> Found:
    """Fetch the references of ``manifest`` and check the preference's requirements against them.

    Raises :class:`PreflightError` with KubeVirt's admission message when a requirement is unmet.
    """
    from ..instancetype.requirements import DENIAL_PREFIX, unmet_requirement

    found = fetch_references(client, manifest, namespace)
    spec = manifest.get("spec") or {}
    template = (spec.get("template") or {}).get("spec") or {}
    # With an inferred instance type the VM's own CPU and memory are not what KubeVirt will check.
    if found.preference is not None and (spec.get("instancetype") is None or found.instancetype is not None):
        problem = unmet_requirement(found.instancetype, found.preference, template)
        if problem:
            raise PreflightError(DENIAL_PREFIX + problem)
    return found


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
