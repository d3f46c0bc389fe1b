"""Listing a kind in several scopes with paging, degrading gracefully where RBAC forbids a scope."""

from __future__ import annotations

from ..errors import ForbiddenError, PluginError
from ..records import dataclass
from .client import Client
from .resources import Resource

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


@dataclass(frozen=True)
class Scope:
    """One list request target: a resource and (for namespaced ones) a namespace or all namespaces."""

    resource: Resource
    namespace: str | None = None  # None on a namespaced resource: all namespaces


class NothingListable(PluginError):
    """Every requested scope was forbidden."""


def list_scopes(
    client: Client,
    scopes: list[Scope],
    *,
    label_selector: str,
    chunk_size: int,
    consume: Callable[[Scope, dict[str, Any]], None],
    managed_fields: bool = True,
) -> list[tuple[Scope, ForbiddenError]]:
    """List every scope page by page, handing each object to ``consume`` as it arrives.

    Objects are not collected here, and each is decoded as its bytes arrive (:meth:`Client.list_items`), so a
    caller that keeps only table cells holds one socket buffer and one object, even for tens of thousands of
    objects (and one such buffer per context when several contexts list at once). A forbidden scope is skipped and returned; when every scope is
    forbidden, :class:`NothingListable` carries the server's messages. ``managed_fields``: as
    :meth:`Client.list_items`'.
    """
    forbidden: list[tuple[Scope, ForbiddenError]] = []
    for scope in scopes:
        try:
            for obj in client.list_items(
                scope.resource,
                scope.namespace,
                label_selector=label_selector,
                chunk_size=chunk_size,
                managed_fields=managed_fields,
            ):
                consume(scope, obj)
        except ForbiddenError as exc:
            forbidden.append((scope, exc))
    if scopes and len(forbidden) == len(scopes):
        raise NothingListable("; ".join(exc.message for _, exc in forbidden))
    return forbidden
