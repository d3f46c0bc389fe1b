"""``kubectl instancetype list [instancetypes|preferences]``.

The field annotations are strings (``from __future__ import annotations``), evaluated only when the Typer app is
built (:class:`.options.OptionField`): a ``list`` run evaluates none and imports no ``typing``.
"""

from __future__ import annotations

from . import list_options, options
from .list_options import (
    OUTPUT_PANEL,
    Kind,
    ListFilters,
    ListOutputFlags,
    ScopeFlags,
    build_query,
    optional_value_flags,
)
from .list_options import scope_bare_flags as bare_flags  # a bare --cluster: the deprecated --scope=cluster
from .options import Annotated  # typing.Annotated to type checkers, a cheap record at run time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["bare_flags", "optional_value_flags", "register"]

HELP = """List instance types (default) or preferences: cluster-wide ones plus those in the namespace.

KIND is instancetypes or preferences (both scopes), or one of kubectl's names for one scope: vmcf
(virtualmachineclusterinstancetypes), vmf, vmcp, vmp. NAMEs after it (or TYPE/NAME arguments) show only
those objects, as kubectl get does.

Exact filters (--cpu, --memory, --class, ...) are sent to the server as label selectors; range
filters (--min-cpu, --max-memory, ...) are evaluated on each object's spec, so 16Gi equals 16384Mi
and objects without labels are found too. For preferences, the CPU and memory filters match what the
preference requires (spec.requirements).

\b
Examples:
  kubectl instancetype list --min-cpu 4 --class general.purpose
  kubectl instancetype list --min-memory 16Gi --max-memory 64Gi -o wide
  kubectl instancetype list preferences --os-type windows
  kubectl instancetype list -A --hugepages=1Gi
  kubectl instancetype list vmcf u1.medium u1.large -o yaml
  kubectl instancetype list -o jsonpath='{.items[*].metadata.name}'
  kubectl instancetype list -o custom-columns=NAME:.metadata.name,CPU:.spec.cpu.guest --sort-by .spec.cpu.guest
  kubectl instancetype list -L instancetype.kubevirt.io/size --show-kind"""

GET_HELP = """Print chosen instance types and preferences, as kubectl get prints them.

TYPE/NAME arguments name the objects (vmcf/u1.medium, vmp/windows, virtualmachineclusterpreference/fedora),
or a kind followed by names (vmcf u1.medium u1.large); a kind alone prints every object of that kind, as
kubectl get vmcf does. Without a kind, NAMEs are instance types of either scope. The list filters and output
flags apply as in list.

\b
Examples:
  kubectl instancetype get vmcf/u1.medium
  kubectl instancetype get vmcp
  kubectl instancetype get vmcf u1.small u1.large -o custom-columns=NAME:.metadata.name,MEM:.spec.memory.guest
  kubectl instancetype get vmcp/fedora -o jsonpath='{.spec.devices}'"""


def register(app: Any, argv: list[str]) -> None:
    """Add the command to ``app`` (``list``, and ``get`` when ``argv`` names it or none is named)."""
    options.add_commands(
        app,
        argv,
        options.Command(
            "list",
            ListOptions,
            run,
            help=HELP,
            short_help="List instance types or preferences by labels and ranges.",
            no_args_is_help=False,
        ),
        options.Command(
            "get", GetOptions, run, help=GET_HELP, short_help="Print chosen instance types or preferences (TYPE/NAME)."
        ),
    )


@options.dataclass
class ListOptions:
    """List instance types or preferences."""

    kind: Kind = None
    all_namespaces: Annotated[
        bool, options.all_namespaces_option("Namespaced objects of every namespace, not just the current one.")
    ] = False
    scope: ScopeFlags = options.field(default_factory=ScopeFlags)
    filters: ListFilters = options.field(default_factory=ListFilters)
    output: ListOutputFlags = options.field(default_factory=ListOutputFlags)
    chunk_size: Annotated[
        int,
        options.int_option(
            "--chunk-size",
            metavar="N",
            help="Objects per list request (paging); 0 disables paging.",
            panel=OUTPUT_PANEL,
        ),
    ] = 500
    watch: Annotated[
        bool,
        options.bool_option(
            "-w",
            "--watch",
            help="After listing, watch for changes and print a row for each (one scope: vmcf, vmf, vmcp, vmp, "
            "--scope cluster|namespaced); --request-timeout or Ctrl-C ends it.",
            panel=OUTPUT_PANEL,
        ),
    ] = False
    watch_only: Annotated[
        bool, options.bool_option("--watch-only", help="Watch for changes without listing first.", panel=OUTPUT_PANEL)
    ] = False
    output_watch_events: Annotated[
        bool,
        options.bool_option(
            "--output-watch-events",
            help="With --watch: an EVENT column (ADDED, MODIFIED, DELETED), or watch events as -o json/yaml objects.",
            panel=OUTPUT_PANEL,
        ),
    ] = False
    fits: Annotated[
        bool, list_options.fits_option("the --compatible-with preference", panel=list_options.FILTER_PANEL)
    ] = False
    connection: options.FleetConnectionFlags = options.field(default_factory=options.FleetConnectionFlags)
    query: Any = options.field(init=False, default=None)  # usecases.listing.Query, made by validate()

    def validate(self) -> None:
        """The flags combine, and make a query."""
        self.query = build_query(
            self.kind,
            self.filters,
            self.output,
            all_namespaces=self.all_namespaces,
            cluster_only=self.scope.cluster_only,
            namespaced_only=self.scope.namespaced_only,
            chunk_size=self.chunk_size,
        )
        if self.watch or self.watch_only:
            query = self.query
            if not (query.cluster_only or query.namespaced_only):
                # kubectl get: "watch is only supported on individual resources and resource collections, but N
                # resources were found" (k8s.io/kubectl/pkg/cmd/get/get.go); both scopes are two resources.
                raise options.UsageError(
                    "watch is only supported on individual resources and resource collections, but 2 resources "
                    "were found: watch one scope, e.g. list vmcf -w (cluster-wide) or list vmf -w (namespaced), "
                    "or add --scope=cluster or --scope=namespaced"
                )
            if self.filters.compatible_with:
                raise options.UsageError("--compatible-with cannot be used with --watch or --watch-only")
            if self.fits:
                raise options.UsageError("--fits cannot be used with --watch or --watch-only")
            if self.connection.several:
                raise options.UsageError("--watch watches one context: it cannot be used with several contexts")
        if self.fits and self.query.what != "instancetypes":
            raise options.UsageError("--fits only applies to instance types")


@options.dataclass
class GetOptions(ListOptions):
    """Print chosen instance types or preferences."""

    def validate(self) -> None:
        """A kind, TYPE/NAME... or KIND NAME... (kubectl get refuses nothing at all)."""
        super().validate()
        if not self.kind:
            # kubectl get: "You must specify the type of resource to get." (k8s.io/kubectl/pkg/cmd/get/get.go)
            raise options.UsageError(
                "you must specify the type of resource to get: a kind (vmcf, vmf, vmcp, vmp, instancetypes, "
                "preferences), TYPE/NAME... or KIND NAME..., e.g. kubectl instancetype get vmcf/u1.medium"
            )


def run(env, opts: ListOptions, session) -> None:
    """List from the cluster and print."""
    from ..usecases.list_cluster_or_catalog import list_cluster

    query = opts.query
    out = opts.output
    namespace_column = query.all_namespaces and not query.cluster_only
    row_of, columns = out.row_function(query.what, env.clock(), age=True, namespace_column=namespace_column)
    if opts.watch or opts.watch_only:
        from ..output.listing import print_watch
        from ..usecases.watching import watch_cluster

        try:
            watching = watch_cluster(session, query, row_of, watch_only=opts.watch_only)
            print_watch(
                env,
                watching,
                out.format,
                columns,
                no_headers=out.no_headers,
                with_events=opts.output_watch_events,
                allow_missing_keys=out.allow_missing_keys,
            )
        except KeyboardInterrupt:
            # kubectl's interrupt handler ends a watch on SIGINT with exit 1 and no message
            # (k8s.io/kubectl/pkg/util/interrupt).
            env.stdout.flush()
            import typer

            raise typer.Exit(1) from None
        return
    listing = list_cluster(session, query, row_of, compatible_with=opts.filters.compatible_with, fits=opts.fits)
    out.print_listing(env, listing, columns, query, in_namespace=query.namespaced_only and not query.all_namespaces)
