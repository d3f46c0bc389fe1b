"""``kubectl instancetype matrix``: series by size, each cell ``vCPU/memory`` (printed by output/matrix.py)."""

import dataclasses
from typing import Annotated, Any

import typer

from . import options
from .catalog_options import CatalogSourceFlags
from .list_options import ScopeFlags, SelectionFlags, scope_bare_flags

HELP = """Show the instance types as a matrix: series (rows) by size (columns), each cell vCPU/memory.

Cluster-scoped instance types and those of the namespace are shown (--scope cluster|namespaced for one
scope; -l, --class and --hide-deprecated filter them as list does); --catalog shows the embedded common-instancetypes catalog instead (no cluster needed). The *1gi
sizes of cx1 and m1 (1Gi hugepages) have rows of their own; custom series and sizes come last.

\b
Examples:
  kubectl instancetype matrix
  kubectl instancetype matrix --catalog --format github
  kubectl instancetype matrix --catalog --hide-deprecated --class general.purpose
  kubectl instancetype matrix --catalog --class general.purpose -o name
  kubectl instancetype matrix --namespaced -n dev --format grid"""


bare_flags = scope_bare_flags  # registry.bare_flags: a bare --cluster is the deprecated --scope=cluster


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("matrix", help=HELP, short_help="Series by size matrix of the instance types.")(
        options.command(MatrixOptions, run)
    )


@options.dataclass
class MatrixOptions:
    """Print the size matrix."""

    source: CatalogSourceFlags = dataclasses.field(default_factory=CatalogSourceFlags)
    fmt: Annotated[
        str, options.value_option("--format", metavar="FORMAT", help="Table format: plain, github or grid.")
    ] = "plain"
    selection: SelectionFlags = dataclasses.field(default_factory=SelectionFlags)
    scope: ScopeFlags = dataclasses.field(default_factory=ScopeFlags)
    output: Annotated[
        str,
        options.output_option(
            help="Print the instance types of the matrix instead: yaml, json, name or a kubectl template "
            "(jsonpath=..., go-template=..., custom-columns=...)."
        ),
    ] = ""
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    query: Any = dataclasses.field(init=False, default=None)  # usecases.listing.Query, made by validate()

    def validate(self) -> None:
        """The format is tabulate's; one scope at most."""
        from ..output.printers import OBJECT_FORMATS, TEMPLATE_FORMATS, check_output_format

        if self.output:
            check_output_format(self.output, OBJECT_FORMATS + TEMPLATE_FORMATS)
        from ..output.matrix import FORMATS

        if self.fmt not in FORMATS:
            raise options.UsageError(f'--format must be one of {", ".join(FORMATS)} (got "{self.fmt}")')
        self.query = self.selection.query(self.scope, self.source.catalog)


def run(env, opts: MatrixOptions, session) -> None:
    """Build the matrix (the cluster's, or the catalog's with --catalog) and print it."""
    from ..output import messages
    from ..usecases.matrix import size_matrix

    result = size_matrix(
        None if opts.source.catalog else session,
        opts.query,
        catalog_version=opts.source.catalog_version,
        namespace=opts.connection.namespace or "default",
    )
    for warning in result.warnings:
        messages.warn(env, warning)
    if opts.output:
        from ..output.printers import print_objects

        print_objects(env, opts.output, [found.obj for found in result.objects])  # kubectl: an empty List
        return
    from ..output.matrix import print_matrix

    print_matrix(env, result.headers, result.rows, opts.fmt)
