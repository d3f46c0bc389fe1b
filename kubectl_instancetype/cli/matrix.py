"""``kubectl instancetype matrix``: series by size, each cell ``vCPU/memory``, rendered with tabulate.

tabulate is imported here only (about 25 ms, measured in docs/finding.md): no other command pays for it.
"""

from typing import Annotated, Optional

import typer

from . import options

FORMATS = ("plain", "github", "grid")

HELP = """Show the instance types as a matrix: series (rows) by size (columns), each cell vCPU/memory.

Cluster-scoped instance types and those of the namespace are shown (--cluster or --namespaced for one
scope); --catalog shows the embedded common-instancetypes catalog instead (no cluster needed). The *1gi
sizes of cx1 and m1 (1Gi hugepages) have rows of their own; custom series and sizes come last.

\b
Examples:
  kubectl instancetype matrix
  kubectl instancetype matrix --catalog --format github
  kubectl instancetype matrix --namespaced -n dev --format grid"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("matrix", help=HELP, short_help="Series by size matrix of the instance types.")(matrix_command)


def matrix_command(
    ctx: typer.Context,
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
    fmt: Annotated[
        str,
        typer.Option("--format", metavar="FORMAT", help="Table format: plain, github or grid."),
    ] = "plain",
    cluster_only: Annotated[bool, typer.Option("--cluster", help="Only cluster-scoped instance types.")] = False,
    namespaced_only: Annotated[bool, typer.Option("--namespaced", help="Only namespaced instance types.")] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Print the size matrix."""
    from ..errors import UsageError
    from ..instancetype.listing import INSTANCETYPES, RangeFilter
    from ..usecases.listing import Query

    env = ctx.obj
    env.verbosity = verbosity
    if fmt not in FORMATS:
        raise UsageError(f'--format must be one of {", ".join(FORMATS)} (got "{fmt}")')
    if cluster_only and namespaced_only:
        raise UsageError("--cluster and --namespaced cannot be used together")
    if catalog_version and not catalog:
        raise UsageError("--catalog-version goes with --catalog")
    query = Query(
        what=INSTANCETYPES,
        label_selector="",
        ranges=RangeFilter(what=INSTANCETYPES),
        # the catalog's namespaced copies equal its cluster objects
        cluster_only=cluster_only or (catalog and not namespaced_only),
        namespaced_only=namespaced_only,
    )
    if catalog:
        from ..catalog import DEFAULT_VERSION, load_catalog
        from ..usecases.listing import CatalogSource

        _print(env, CatalogSource(load_catalog(catalog_version or DEFAULT_VERSION), namespace or "default"), query, fmt)
        return
    from ..kube.client import connect
    from ..output import messages
    from ..usecases.listing import ClusterSource

    connection = options.connection_options(kubeconfig, context, namespace, request_timeout)
    with connect(connection, env.environ, env.home(), messages.request_logger(env)) as client:
        _print(env, ClusterSource(client), query, fmt)


def _print(env, source, query, fmt: str) -> None:
    from ..instancetype.matrix import build_matrix
    from ..output import messages

    pairs: list = []
    for warning in source.scan(
        query, lambda obj, namespace: pairs.append((obj["metadata"]["name"], obj.get("spec") or {}))
    ):
        messages.warn(env, warning)
    if not pairs:
        messages.info(env, "No resources found")
        return
    matrix = build_matrix(pairs)
    env.stdout.write(render(matrix.headers, matrix.rows, fmt) + "\n")


def render(headers: list[str], rows: list[list[str]], fmt: str) -> str:
    """The matrix in tabulate's ``fmt`` (cells are text: ``1/4Gi`` must not be read as a number)."""
    from tabulate import tabulate

    return tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)
