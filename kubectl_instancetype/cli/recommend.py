"""``kubectl instancetype recommend --preference NAME``: the instance types that fit a preference, smallest first."""

import dataclasses
from typing import Annotated, Any, Optional

import typer

from . import list_options, options
from .catalog_options import CatalogSourceFlags
from .list_options import NoHeaders, ScopeFlags, SelectionFlags, scope_bare_flags

HELP = """Rank the instance types that satisfy a preference's requirements (or --min-cpu/--min-memory), smallest
first.

An instance type fits when a VirtualMachine using it with the preference would pass KubeVirt's admission:
enough vCPUs (and a vCPU count the preference's spread topology can divide), enough memory, the required
architecture; and when it meets --min-cpu and --min-memory. Without --preference only the minimums count.
Ranking (the cost order): vCPUs, then memory, then overcommit (none first), then the fewest special features
(dedicated CPUs, hugepages, NUMA, realtime), then name: at the same size a general-purpose type comes before a
dedicated, realtime or hugepages one. -o wide adds REASON: the fit, and what ranked the type after the one
above it. Cluster-scoped instance types and those of the namespace are considered (--scope cluster|namespaced
for one scope); --catalog uses the embedded common-instancetypes catalog instead (no cluster needed).

\b
Examples:
  kubectl instancetype recommend --preference fedora
  kubectl instancetype recommend --min-cpu 4 --min-memory 16Gi --hide-deprecated --catalog -o wide
  kubectl instancetype recommend --preference windows.11 --class general.purpose --max 3 -o wide
  kubectl instancetype recommend --preference rhel.9.dpdk --catalog --show-rejected
  kubectl instancetype recommend --preference virtualmachinepreference/my-pref -n dev -o name"""

OUTPUT_PANEL = "Output"


bare_flags = scope_bare_flags  # registry.bare_flags: a bare --cluster is the deprecated --scope=cluster


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("recommend", help=HELP, short_help="Rank the instance types that fit a preference.")(
        options.command(RecommendOptions, run)
    )


@options.dataclass
class RecommendOptions:
    """Rank the instance types that fit a preference."""

    preference: Annotated[
        Optional[str],
        options.reference_option(
            "--preference",
            "The preference: a cluster preference, or virtualmachinepreference/NAME for one in the namespace.",
        ),
    ] = None
    min_cpu: Annotated[Optional[int], options.int_option("--min-cpu", metavar="N", help="At least N vCPUs.")] = None
    min_memory: Annotated[
        Optional[str],
        options.text_option("--min-memory", metavar="QUANTITY", help="At least this much guest memory, e.g. 8Gi."),
    ] = None
    limit: Annotated[Optional[int], options.int_option("--max", metavar="N", help="Show at most N instance types.")] = (
        None
    )
    arch: Annotated[
        Optional[str],
        options.text_option(
            "--arch",
            metavar="ARCH",
            help="The architecture the VM will request (default: the preference's preferredArchitecture).",
        ),
    ] = None
    source: CatalogSourceFlags = dataclasses.field(default_factory=CatalogSourceFlags)
    selection: SelectionFlags = dataclasses.field(default_factory=SelectionFlags)
    scope: ScopeFlags = dataclasses.field(default_factory=ScopeFlags)
    all_namespaces: Annotated[
        bool, options.all_namespaces_option("Namespaced instance types of every namespace, not just the current one.")
    ] = False
    show_rejected: Annotated[
        bool,
        options.bool_option(
            "--show-rejected",
            help="Also list near misses (the nearest type of each series that falls short in one respect) and why.",
            panel=OUTPUT_PANEL,
        ),
    ] = False
    fits: Annotated[bool, list_options.fits_option("the preference")] = False
    output: Annotated[
        str,
        options.output_option(
            help="Output format: wide (adds REASON), yaml, json or name.", rich_help_panel=OUTPUT_PANEL
        ),
    ] = ""
    no_headers: NoHeaders = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    query: Any = dataclasses.field(init=False, default=None)  # usecases.listing.Query, made by validate()

    def warnings(self) -> list[str]:
        """Lines printed before anything runs (a memory minimum given in bytes)."""
        from .list_options import memory_unit_warnings

        return memory_unit_warnings((("--min-memory", self.min_memory),))

    def validate(self) -> None:
        """-o, the minimums and the preference reference are well-formed (before any request)."""
        from ..golang.quantity import QuantityError, parse_quantity
        from ..output.printers import OBJECT_FORMATS, TABLE_FORMATS, TEMPLATE_FORMATS, check_output_format
        from ..usecases.recommend import parse_preference_reference

        check_output_format(self.output, TABLE_FORMATS + OBJECT_FORMATS + TEMPLATE_FORMATS)
        for flag, value in (("--min-cpu", self.min_cpu), ("--max", self.limit)):
            if value is not None and value < 0:
                raise options.UsageError(f"{flag} must not be negative")
        if self.limit == 0:  # "show at most 0" would always answer that nothing fits
            raise options.UsageError('invalid argument "0" for "--max" flag: must be at least 1')
        if self.min_memory is not None:
            try:
                parse_quantity(self.min_memory)
            except QuantityError as exc:
                raise options.UsageError(f"invalid --min-memory quantity {self.min_memory!r}: {exc}") from None
        if self.preference is None:
            if self.min_cpu is None and self.min_memory is None:
                raise options.UsageError("specify --preference, --min-cpu or --min-memory")
        else:
            parse_preference_reference(self.preference)  # a malformed reference fails before any request
        if self.fits and self.source.catalog:
            raise options.UsageError("--fits looks at the cluster's nodes: it cannot go with --catalog")
        self.query = self.selection.query(self.scope, self.source.catalog, self.all_namespaces)


def run(env, opts: RecommendOptions, session) -> None:
    """Rank (the cluster's types, or the catalog's with --catalog) and print."""
    from ..instancetype.recommend import Minimums
    from ..usecases.ranking import recommend_types

    result = recommend_types(
        None if opts.source.catalog else session,
        opts.preference,
        opts.query,
        fits=opts.fits,
        catalog_version=opts.source.catalog_version,
        namespace=opts.connection.namespace or "default",
        minimums=Minimums(opts.min_cpu, opts.min_memory),
        architecture=opts.arch,
        limit=opts.limit,
    )
    from ..output.recommend_columns import print_recommendations

    print_recommendations(
        env,
        result,
        opts.preference,
        output=opts.output,
        no_headers=opts.no_headers,
        show_rejected=opts.show_rejected,
        # kubectl's NAMESPACE column first with -A (empty for cluster-scoped rows, as list prints them)
        namespace_column=opts.query.all_namespaces and not opts.query.cluster_only,
    )
