"""Creating one object on the cluster, checked first where a check applies.

The object is validated locally the way the API server would reject it (names, namespaces) before any
request, so that a mistake costs no round trip and reads the same; then pre-flight (for VirtualMachines),
then one POST (``dryRun=All`` for ``--dry-run=server``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource


def check_object_names(manifest: dict[str, Any], resource: Resource, namespace: str | None) -> None:
    """Refuse a name or namespace the API server would refuse, with the server's own message."""
    from ..kube.names import invalid_object_messages

    problems = invalid_object_messages(manifest, resource, namespace)
    if problems:
        raise UsageError(problems)


def create_object(
    client: Client,
    resource: Resource,
    manifest: dict[str, Any],
    namespace: str | None,
    *,
    server_dry_run: bool,
    preflight: bool = False,
) -> dict[str, Any]:
    """Check and create ``manifest``; return the server's answer (the object as stored or as it would be)."""
    check_object_names(manifest, resource, namespace)
    if preflight and resource.kind == "VirtualMachine" and namespace:
        from .preflight import check_vm

        check_vm(client, manifest, namespace)
    return client.create(resource, manifest, namespace, dry_run=server_dry_run)
