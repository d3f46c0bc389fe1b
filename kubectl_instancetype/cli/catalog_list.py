"""``kubectl instancetype catalog list`` and ``catalog show``: the embedded catalog, offline.

``catalog list`` has exactly ``list``'s filters, columns and output formats (its options are taken from
``list``'s own signature, minus the connection flags), reading the embedded release instead of a cluster.
"""

import inspect
from typing import Annotated, Any, Optional

import typer

from . import options

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

# list's options that make no sense offline
_CLUSTER_ONLY = ("kubeconfig", "context", "request_timeout", "all_namespaces", "chunk_size")

Version = Annotated[
    Optional[str],
    typer.Option(
        "--version",
        click_type=options.NON_BLANK,
        metavar="VERSION",
        help="The embedded common-instancetypes release (default: the newest).",
        show_default=False,
    ),
]


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``list`` and ``show`` to the ``catalog`` group (only the one ``argv`` names, if any)."""
    selected = argv[0] if argv else ""
    if selected in ("", "list"):
        group.command("list", help=LIST_HELP, short_help="List the embedded catalog (list's filters).")(_list_command())
    if selected in ("", "show"):
        group.command("show", help=SHOW_HELP, short_help="Print catalog objects by name.")(show_command)


def _list_command():
    """``list``'s command function re-signed: the connection flags dropped, ``--version`` added."""
    from .list import list_command

    signature = inspect.signature(list_command)
    parameters = [p for name, p in signature.parameters.items() if name not in _CLUSTER_ONLY]
    parameters.insert(
        -1, inspect.Parameter("version", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Version)
    )
    parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.name != "ctx" else p for p in parameters]

    def catalog_list(ctx: typer.Context, **values: Any) -> None:
        run_list(ctx, values)

    catalog_list.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    catalog_list.__annotations__ = {p.name: p.annotation for p in parameters}
    return catalog_list


def run_list(ctx: typer.Context, values: dict) -> None:
    """List the embedded catalog with ``list``'s flag values ``values``."""
    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..usecases.listing import CatalogSource
    from .list import build_query, print_listing, print_options

    env = ctx.obj
    env.verbosity = values["verbosity"]
    flags = dict(values, all_namespaces=False, chunk_size=0)
    # The namespaced copies equal the cluster objects: show one scope, the cluster one unless asked.
    flags["cluster_only"] = flags["cluster_only"] or not flags["namespaced_only"]
    query = build_query(flags)
    catalog = load_catalog(values["version"] or DEFAULT_VERSION)
    namespace = values["namespace"] or "default"
    if values["namespace"]:
        from ..kube.names import invalid_namespace

        if problem := invalid_namespace(namespace):
            from ..errors import UsageError

            raise UsageError(problem)
    source: Any = CatalogSource(catalog, namespace)
    if values["compatible_with"]:
        from ..usecases.recommend import CompatibleSource, catalog_preference

        source = CompatibleSource(source, catalog_preference(catalog, values["compatible_with"]))
    print_listing(env, source, query, printing=print_options(flags)._replace(age=False))


def show_command(
    ctx: typer.Context,
    names: Annotated[list[str], typer.Argument(help="Instance type or preference names.", metavar="NAME...")],
    version: Version = None,
    namespaced: Annotated[
        bool, typer.Option("--namespaced", help="The namespaced copy (VirtualMachineInstancetype/Preference).")
    ] = False,
    namespace: options.Namespace = None,
    output: Annotated[
        str,
        typer.Option(
            "-o", "--output", metavar="FORMAT", help="yaml (default), json, name or wide.", show_default=False
        ),
    ] = "yaml",
    verbosity: options.Verbosity = 0,
) -> None:
    """Print catalog objects by name."""
    import difflib

    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..errors import PluginError, UsageError
    from ..kube import resources
    from ..output.printers import check_output_format, print_objects

    env = ctx.obj
    env.verbosity = verbosity
    check_output_format(output, ("", "wide", "yaml", "json", "name"))
    if namespace and not namespaced:
        raise UsageError("-n/--namespace goes with --namespaced")
    catalog = load_catalog(version or DEFAULT_VERSION)
    if namespaced:
        catalog = catalog.namespaced(namespace or "default")
    found: list[tuple[dict, str]] = []
    for name in names:
        obj, what = catalog.instancetype(name), "instancetypes"
        if obj is None:
            obj, what = catalog.preference(name), "preferences"
        if obj is None:
            known = [o["metadata"]["name"] for o in catalog.instancetypes + catalog.preferences]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise PluginError(f'"{name}" is not in the common-instancetypes {catalog.version} catalog{hint}')
        found.append((obj, what))
    if output in ("yaml", "json", "name"):
        names_out = [resources.BY_KIND[obj["kind"]].name_of(obj["metadata"]["name"]) for obj, _ in found]
        print_objects(env, output, [obj for obj, _ in found], names_out, single=True)
        return
    from ..output.columns import CellContext, cells, columns_for, headers
    from ..output.table import render_table

    context = CellContext(env.clock())
    # one table per kind, in the order first named
    for what in dict.fromkeys(what for _, what in found):
        columns = columns_for(what, wide=output == "wide")
        rows = [cells(columns, obj, catalog.namespace, context) for obj, kind in found if kind == what]
        env.stdout.write(render_table(headers(columns), rows))
