"""``kubectl instancetype catalog list`` and ``catalog show``: the embedded catalog, offline.

``catalog list`` has exactly ``list``'s filters, columns and output formats (the groups of
:mod:`.list_options`), minus the connection flags, reading the embedded release instead of a cluster.
"""

import dataclasses
from typing import Annotated, Any

import typer

from . import options
from .catalog_options import OfflineFlags, Version
from .list_options import Kind, ListFilters, ListOutputFlags, ScopeFlags, build_query, optional_value_flags

__all__ = ["bare_flags", "optional_value_flags", "register"]

LIST_HELP = """List the instance types (default) or preferences of the embedded common-instancetypes catalog.

No cluster and no kubeconfig are needed. Filters, columns and output formats are those of list;
--namespaced lists the namespaced copies (VirtualMachineInstancetype/VirtualMachinePreference, in -n).

\b
Examples:
  kubectl instancetype catalog list --min-cpu 4 --class general.purpose
  kubectl instancetype catalog list preferences --os-type windows -o wide
  kubectl instancetype catalog list --compatible-with windows.11 -o name
  kubectl instancetype catalog list --version v1.7.0 --sort-by memory"""

SHOW_HELP = """Print instance types or preferences of the embedded catalog (yaml by default).

\b
Examples:
  kubectl instancetype catalog show u1.medium
  kubectl instancetype catalog show fedora windows.11 -o json
  kubectl instancetype catalog show cx1.large -o wide"""


def bare_flags() -> dict[str, tuple[str, bool]]:
    """The deprecated bare ``--cluster`` (``--scope=cluster``) : this command has no kubeconfig flags."""
    from .list_options import bare_flags as scope_bare_flags

    return scope_bare_flags(True)


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``list`` and ``show`` to the ``catalog`` group (only the one ``argv`` names, if any)."""
    options.add_commands(
        group,
        argv,
        options.Command(
            "list",
            CatalogListOptions,
            run_list,
            help=LIST_HELP,
            short_help="List the embedded catalog (list's filters).",
        ),
        options.Command(
            "show", CatalogShowOptions, run_show, help=SHOW_HELP, short_help="Print catalog objects by name."
        ),
    )


@options.dataclass
class CatalogListOptions:
    """List the embedded catalog with ``list``'s filters."""

    kind: Kind = None
    scope: ScopeFlags = dataclasses.field(default_factory=ScopeFlags)
    filters: ListFilters = dataclasses.field(default_factory=ListFilters)
    output: ListOutputFlags = dataclasses.field(default_factory=ListOutputFlags)
    version: Version = None
    offline: OfflineFlags = dataclasses.field(default_factory=OfflineFlags)
    query: Any = dataclasses.field(init=False, default=None)  # usecases.listing.Query, made by validate()

    def validate(self) -> None:
        """The flags combine, and make a query."""
        # The namespaced copies equal the cluster objects: show one scope, the cluster one unless asked.
        self.query = build_query(
            self.kind,
            self.filters,
            self.output,
            cluster_only=self.scope.cluster_only or not (self.scope.namespaced_only or self.scope.scope == "all"),
            namespaced_only=self.scope.namespaced_only,
        )


def run_list(env, opts: CatalogListOptions) -> None:
    """List the embedded catalog and print it as list prints (no AGE: catalog objects were never created)."""
    from ..usecases.list_cluster_or_catalog import list_catalog

    query, out = opts.query, opts.output
    row_of, columns = out.row_function(query.what, env.clock(), age=False)
    namespace = opts.offline.namespace or "default"
    listing = list_catalog(opts.version, namespace, query, row_of, compatible_with=opts.filters.compatible_with)
    out.print_listing(env, listing, columns, query, in_namespace=query.namespaced_only)


@options.dataclass
class CatalogShowOptions:
    """Print catalog objects by name."""

    names: Annotated[
        list[str],
        typer.Argument(
            help="Instance type or preference names, or TYPE/NAME (vmcf/u1.large, vmcp/fedora; vmf/, vmp/ with "
            "--namespaced).",
            metavar="NAME...",
        ),
    ]
    version: Version = None
    namespaced: Annotated[
        bool, options.bool_option("--namespaced", help="The namespaced copy (VirtualMachineInstancetype/Preference).")
    ] = False
    output: Annotated[str, options.output_option(help="yaml (default), json, name or wide.")] = "yaml"
    offline: OfflineFlags = dataclasses.field(default_factory=OfflineFlags)

    def validate(self) -> None:
        """-o is one of the formats; -n goes with --namespaced."""
        from ..output.printers import TEMPLATE_FORMATS, check_output_format

        check_output_format(self.output, ("", "wide", "yaml", "json", "name", *TEMPLATE_FORMATS))
        if self.offline.namespace and not self.namespaced:
            raise options.UsageError("-n/--namespace goes with --namespaced")
        from ..instancetype import kinds

        for word in self.names:
            if "/" not in word:
                continue
            kind = kinds.spelled(word.partition("/")[0])
            if kind is None:
                raise options.UsageError(
                    f'catalog show takes NAME or TYPE/NAME with an instance type or preference kind, not "{word}"'
                )
            if kind.namespaced != self.namespaced:
                fix = "add --namespaced" if kind.namespaced else "without --namespaced, or name its namespaced kind"
                raise options.UsageError(
                    f'"{word}" names the {"namespaced" if kind.namespaced else "cluster-scoped"} kind: {fix}'
                )


def run_show(env, opts: CatalogShowOptions) -> None:
    """Print the named objects: yaml/json/names, or one table per kind in the order first named."""
    from ..usecases.catalog_show import catalog_objects_named

    shown = catalog_objects_named(
        opts.version, opts.names, (opts.offline.namespace or "default") if opts.namespaced else None
    )
    from ..output.listing import print_found

    print_found(env, opts.output, shown.objects, shown.namespace)
