"""Printing a list of instance types or preferences as kubectl prints one: a table, objects or names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..env import Environment

Row = Callable[[dict[str, Any], "str | None"], Any]


def row_function(what: str, output: str, *, show_labels: bool, age: bool, now: float) -> tuple[Row, Any]:
    """What to keep of each listed object for ``-o output`` (the object, its name, or table cells), and the
    table's columns (None unless a table is printed)."""
    from ..instancetype.listing import INSTANCETYPES
    from ..kube import resources

    if output in ("yaml", "json"):
        return (lambda obj, namespace: obj), None
    if output == "name":
        cluster, namespaced = (
            (resources.CLUSTER_INSTANCETYPES, resources.INSTANCETYPES)
            if what == INSTANCETYPES
            else (resources.CLUSTER_PREFERENCES, resources.PREFERENCES)
        )
        return (
            lambda obj, namespace: (namespaced if namespace else cluster).name_of(
                str((obj.get("metadata") or {}).get("name", ""))
            )
        ), None
    from .columns import CellContext, cells, columns_for

    columns = columns_for(what, wide=output == "wide", show_labels=show_labels, age=age)
    context = CellContext(now)
    return (lambda obj, namespace: cells(columns, obj, namespace, context)), columns


def print_listing(
    env: Environment, listing: Any, output: str, columns: Any, *, no_headers: bool, in_namespace: bool
) -> None:
    """Print ``listing`` (a :class:`~..usecases.listing.Listing` of :func:`row_function` rows): warnings first;
    kubectl's "No resources found" (naming the namespace when only it was listed, ``in_namespace``) on stderr."""
    from . import messages

    for warning in listing.warnings:
        messages.warn(env, warning)
    rows = listing.rows
    if not rows and output not in ("yaml", "json"):
        if in_namespace:
            messages.info(env, f"No resources found in {listing.namespace} namespace.")
        else:
            messages.info(env, "No resources found")
        return
    if output in ("yaml", "json", "name"):
        from .printers import print_objects

        print_objects(env, output, rows if output != "name" else [], rows if output == "name" else [])
        return
    from .columns import headers
    from .table import render_table

    env.stdout.write(render_table(None if no_headers else headers(columns), rows))
