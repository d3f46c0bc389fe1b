"""``kubectl instancetype recommend --preference NAME``: the instance types that fit a preference, smallest first."""

from typing import Annotated, Optional

import typer

from . import options

HELP = """Rank the instance types that satisfy a preference's requirements, smallest first.

An instance type fits when a VirtualMachine using it with the preference would pass KubeVirt's admission:
enough vCPUs (and a vCPU count the preference's spread topology can divide), enough memory, the required
architecture; and when it meets --min-cpu and --min-memory. Ranking: vCPUs, then memory, then overcommit
(none first), then the fewest special features (dedicated CPUs, hugepages, NUMA, realtime), then name.
Cluster-scoped instance types and those of the namespace are considered; --catalog uses the embedded
common-instancetypes catalog instead (no cluster needed).

\b
Examples:
  kubectl instancetype recommend --preference fedora
  kubectl instancetype recommend --preference windows.11 --class general.purpose --max 3 -o wide
  kubectl instancetype recommend --preference rhel.9.dpdk --catalog --show-rejected
  kubectl instancetype recommend --preference virtualmachinepreference/my-pref -n dev -o name"""

OUTPUT_PANEL = "Output"


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("recommend", help=HELP, short_help="Rank the instance types that fit a preference.")(recommend_command)


def recommend_command(
    ctx: typer.Context,
    preference: Annotated[
        str,
        typer.Option(
            "--preference",
            click_type=options.NON_BLANK,
            metavar="[KIND/]NAME",
            help="The preference: a cluster preference, or virtualmachinepreference/NAME for one in the namespace.",
            show_default=False,
        ),
    ],
    min_cpu: Annotated[
        Optional[int],
        typer.Option("--min-cpu", click_type=options.GO_INT, metavar="N", help="At least N vCPUs.", show_default=False),
    ] = None,
    min_memory: Annotated[
        Optional[str],
        typer.Option(
            "--min-memory",
            click_type=options.NON_BLANK,
            metavar="QUANTITY",
            help="At least this much guest memory, e.g. 8Gi.",
            show_default=False,
        ),
    ] = None,
    klass: Annotated[
        Optional[str],
        typer.Option(
            "--class",
            click_type=options.NON_BLANK,
            metavar="CLASS",
            help="Only this series class, e.g. general.purpose.",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        Optional[int],
        typer.Option(
            "--max", click_type=options.GO_INT, metavar="N", help="Show at most N instance types.", show_default=False
        ),
    ] = None,
    arch: Annotated[
        Optional[str],
        typer.Option(
            "--arch",
            click_type=options.NON_BLANK,
            metavar="ARCH",
            help="The architecture the VM will request (default: the preference's preferredArchitecture).",
            show_default=False,
        ),
    ] = None,
    catalog: Annotated[
        bool, typer.Option("--catalog", help="Use the embedded common-instancetypes catalog, not the cluster.")
    ] = False,
    catalog_version: Annotated[
        Optional[str],
        typer.Option(
            "--catalog-version",
            click_type=options.NON_BLANK,
            metavar="VERSION",
            help="The embedded catalog release for --catalog (default: the newest).",
            show_default=False,
        ),
    ] = None,
    show_rejected: Annotated[
        bool,
        typer.Option(
            "--show-rejected",
            help="Also list near misses (the nearest type of each series that falls short in one respect) and why.",
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = False,
    output: Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            metavar="FORMAT",
            help="Output format: wide (adds REASON), yaml, json or name.",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = "",
    no_headers: Annotated[
        bool, typer.Option("--no-headers", help="Print table rows without the header.", rich_help_panel=OUTPUT_PANEL)
    ] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Rank the instance types that fit a preference."""
    from ..errors import UsageError
    from ..instancetype.listing import INSTANCETYPES, LABEL_PREFIX, RangeFilter
    from ..instancetype.quantity import QuantityError, parse_quantity
    from ..instancetype.recommend import Minimums
    from ..output.printers import OBJECT_FORMATS, TABLE_FORMATS, check_output_format
    from ..usecases.listing import Query
    from ..usecases.recommend import parse_preference_reference, recommend

    env = ctx.obj
    env.verbosity = verbosity
    check_output_format(output, TABLE_FORMATS + OBJECT_FORMATS)
    for flag, value in (("--min-cpu", min_cpu), ("--max", limit)):
        if value is not None and value < 0:
            raise UsageError(f"{flag} must not be negative")
    if min_memory is not None:
        try:
            parse_quantity(min_memory)
        except QuantityError as exc:
            raise UsageError(f"invalid --min-memory quantity {min_memory!r}: {exc}") from None
    if catalog_version and not catalog:
        raise UsageError("--catalog-version goes with --catalog")
    parse_preference_reference(preference)  # a malformed reference fails before any request
    query = Query(
        what=INSTANCETYPES,
        label_selector=f"{LABEL_PREFIX}class={klass}" if klass else "",
        ranges=RangeFilter(what=INSTANCETYPES),
        cluster_only=catalog,
    )
    minimums = Minimums(min_cpu, min_memory)

    def run(source, preference_obj) -> None:
        result = recommend(source, query, preference_obj, minimums=minimums, architecture=arch, limit=limit)
        _print(env, result, preference, output=output, no_headers=no_headers, show_rejected=show_rejected)

    if catalog:
        from ..catalog import DEFAULT_VERSION, load_catalog
        from ..usecases.listing import CatalogSource
        from ..usecases.recommend import catalog_preference

        embedded = load_catalog(catalog_version or DEFAULT_VERSION)
        run(CatalogSource(embedded, namespace or "default"), catalog_preference(embedded, preference))
        return
    from ..kube.client import connect
    from ..output import messages
    from ..usecases.listing import ClusterSource
    from ..usecases.recommend import cluster_preference

    connection = options.connection_options(kubeconfig, context, namespace, request_timeout)
    with connect(connection, env.environ, env.home(), messages.request_logger(env)) as client:
        run(ClusterSource(client), cluster_preference(client, preference))


def _print(env, result, preference: str, *, output: str, no_headers: bool, show_rejected: bool) -> None:
    from ..kube import resources
    from ..output import messages

    for warning in result.warnings:
        messages.warn(env, warning)
    if output in ("yaml", "json", "name"):
        from ..output.printers import print_objects

        objects = [candidate.obj for candidate in result.fitting]
        names = [
            (resources.INSTANCETYPES if c.namespace else resources.CLUSTER_INSTANCETYPES).name_of(
                c.obj["metadata"]["name"]
            )
            for c in result.fitting
        ]
        print_objects(env, output, objects, names)
        if not objects:
            messages.info(env, f'No instance type fits preference "{preference}"')
        return
    from ..output.columns import CellContext
    from ..output.recommend_columns import recommend_columns, recommend_headers, recommend_row
    from ..output.table import render_table

    with_reason = output == "wide" or show_rejected
    columns = recommend_columns(wide=output == "wide")
    context = CellContext(env.clock())
    rows = [
        recommend_row(columns, c.obj, c.namespace, context, c.verdict.reason if with_reason else None)
        for c in result.fitting
    ]
    if show_rejected:
        rows += [
            recommend_row(columns, c.obj, c.namespace, context, "rejected: " + c.verdict.reason)
            for c in result.near_misses
        ]
    if not result.fitting:
        messages.info(env, f'No instance type fits preference "{preference}" ({result.considered} considered)')
    if rows:
        env.stdout.write(render_table(None if no_headers else recommend_headers(columns, reason=with_reason), rows))
