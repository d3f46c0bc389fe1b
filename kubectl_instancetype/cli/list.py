"""``kubectl instancetype list [instancetypes|preferences]``.

No ``from __future__ import annotations`` in command modules: typer would have to eval every string
annotation on each run (measured: ~13 ms of a 40 ms warm run).
"""

from typing import Annotated, Any, NamedTuple, Optional

import typer

from . import options

# kubectl's spellings of the four kinds (short names, singular, plural, qualified) -> (what, scope);
# scope None: both
_GROUP = ".instancetype.kubevirt.io"
KINDS: dict[str, tuple[str, Optional[str]]] = {
    "instancetypes": ("instancetypes", None),
    "instancetype": ("instancetypes", None),
    "preferences": ("preferences", None),
    "preference": ("preferences", None),
}
for _names, _what, _scope in (
    (("vmcf", "virtualmachineclusterinstancetype"), "instancetypes", "cluster"),
    (("vmf", "virtualmachineinstancetype"), "instancetypes", "namespaced"),
    (("vmcp", "virtualmachineclusterpreference"), "preferences", "cluster"),
    (("vmp", "virtualmachinepreference"), "preferences", "namespaced"),
):
    _short, _long = _names
    for _spelling in (_short, _long, _long + "s", _long + _GROUP, _long + "s" + _GROUP):
        KINDS[_spelling] = (_what, _scope)
FILTER_PANEL = "Filters"
OUTPUT_PANEL = "Output"

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
or a kind followed by names (vmcf u1.medium u1.large). Without a kind, NAMEs are instance types of either
scope. The list filters and output flags apply as in list.

\b
Examples:
  kubectl instancetype get vmcf/u1.medium
  kubectl instancetype get vmcf u1.small u1.large -o custom-columns=NAME:.metadata.name,MEM:.spec.memory.guest
  kubectl instancetype get vmcp/fedora -o jsonpath='{.spec.devices}'"""


def _complete_kind(incomplete: str) -> list[tuple[str, str]]:
    names = ("instancetypes", "preferences", "vmcf", "vmf", "vmcp", "vmp")
    return [(name, f"list {name}") for name in names if name.startswith(incomplete)]


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app`` (``list``, and ``get`` when ``argv`` names it or none is named)."""
    selected = argv[0] if argv else ""
    if selected in ("", "list"):
        app.command(
            "list",
            help=HELP,
            short_help="List instance types or preferences by labels and ranges.",
            no_args_is_help=False,
        )(list_command)
    if selected in ("", "get"):
        app.command("get", help=GET_HELP, short_help="Print chosen instance types or preferences (TYPE/NAME).")(
            get_command()
        )


def optional_value_flags() -> dict[str, str]:
    """pflag's bare boolean flags that also take =VALUE."""
    return {"--allow-missing-template-keys": "true"}


def get_command():
    """``list``'s function, with at least one TYPE/NAME required (kubectl get's shape)."""
    import inspect

    signature = inspect.signature(list_command)

    def get(ctx: typer.Context, **values: Any) -> None:
        if not values.get("args"):
            from ..errors import UsageError

            raise UsageError(
                "you must specify the type of resource to get, e.g. kubectl instancetype get vmcf/u1.medium"
            )
        list_command(ctx, **values)

    parameters = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.name != "ctx" else p for p in signature.parameters.values()
    ]
    get.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    get.__annotations__ = {p.name: p.annotation for p in parameters}
    return get


def list_command(
    ctx: typer.Context,
    args: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="instancetypes (default), preferences, vmcf, vmf, vmcp or vmp; then NAMEs (or TYPE/NAME...).",
            show_default=False,
            metavar="[KIND] [NAME...]",
            autocompletion=_complete_kind,
        ),
    ] = None,
    all_namespaces: Annotated[
        bool,
        typer.Option("-A", "--all-namespaces", help="Namespaced objects of every namespace, not just the current one."),
    ] = False,
    cluster_only: Annotated[bool, typer.Option("--cluster", help="Only cluster-scoped objects.")] = False,
    namespaced_only: Annotated[bool, typer.Option("--namespaced", help="Only namespaced objects.")] = False,
    cpu: Annotated[
        Optional[int],
        typer.Option(
            "--cpu",
            click_type=options.GO_INT,
            metavar="N",
            help="Exactly N vCPUs (label instancetype.kubevirt.io/cpu).",
            show_default=False,
            rich_help_panel=FILTER_PANEL,
        ),
    ] = None,
    memory: Annotated[
        Optional[str],
        typer.Option(
            "--memory",
            click_type=options.NON_BLANK,
            metavar="QUANTITY",
            help="Exactly this guest memory (label instancetype.kubevirt.io/memory).",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    klass: Annotated[
        Optional[str],
        typer.Option(
            "--class",
            click_type=options.NON_BLANK,
            metavar="CLASS",
            help="Series class, e.g. general.purpose, compute.exclusive.",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    size: Annotated[
        Optional[str],
        typer.Option(
            "--size",
            click_type=options.NON_BLANK,
            metavar="SIZE",
            help="Size, e.g. medium, 2xlarge.",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    hugepages: Annotated[
        Optional[str],
        typer.Option(
            "--hugepages",
            help="With hugepages; --hugepages=SIZE for one page size (2Mi, 1Gi).",
            metavar="[=SIZE]",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    dedicated_cpu: Annotated[
        bool, typer.Option("--dedicated-cpu", help="With dedicated CPU placement.", rich_help_panel=FILTER_PANEL)
    ] = False,
    isolate_emulator_thread: Annotated[
        bool,
        typer.Option(
            "--isolate-emulator-thread", help="With an isolated emulator thread.", rich_help_panel=FILTER_PANEL
        ),
    ] = False,
    numa: Annotated[
        bool, typer.Option("--numa", help="With guest NUMA passthrough.", rich_help_panel=FILTER_PANEL)
    ] = False,
    realtime: Annotated[
        bool, typer.Option("--realtime", help="Realtime instance types.", rich_help_panel=FILTER_PANEL)
    ] = False,
    gpus: Annotated[
        bool, typer.Option("--gpus", help="Instance types that bring GPUs.", rich_help_panel=FILTER_PANEL)
    ] = False,
    vendor: Annotated[
        Optional[str],
        typer.Option(
            "--vendor",
            click_type=options.NON_BLANK,
            metavar="VENDOR",
            help="Vendor label, e.g. kubevirt.io.",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    os_type: Annotated[
        Optional[str],
        typer.Option(
            "--os-type",
            click_type=options.NON_BLANK,
            metavar="OS",
            help="Preferences for linux, windows or legacy guests.",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    arch: Annotated[
        Optional[str],
        typer.Option(
            "--arch",
            click_type=options.NON_BLANK,
            metavar="ARCH",
            help="Preferences for one architecture (amd64, arm64, s390x).",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    selector: Annotated[
        Optional[str],
        typer.Option(
            "-l",
            "--selector",
            click_type=options.NON_BLANK,
            metavar="SELECTOR",
            help="A raw label selector, added to the filters (=, ==, !=, in, notin, exists).",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    min_cpu: Annotated[
        Optional[int],
        typer.Option(
            "--min-cpu",
            click_type=options.GO_INT,
            metavar="N",
            help="At least N vCPUs (evaluated on the spec).",
            show_default=False,
            rich_help_panel=FILTER_PANEL,
        ),
    ] = None,
    max_cpu: Annotated[
        Optional[int],
        typer.Option(
            "--max-cpu",
            click_type=options.GO_INT,
            metavar="N",
            help="At most N vCPUs (evaluated on the spec).",
            show_default=False,
            rich_help_panel=FILTER_PANEL,
        ),
    ] = None,
    min_memory: Annotated[
        Optional[str],
        typer.Option(
            "--min-memory",
            click_type=options.NON_BLANK,
            metavar="QUANTITY",
            help="At least this much guest memory, e.g. 16Gi.",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    max_memory: Annotated[
        Optional[str],
        typer.Option(
            "--max-memory",
            click_type=options.NON_BLANK,
            metavar="QUANTITY",
            help="At most this much guest memory.",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    hide_deprecated: Annotated[
        bool,
        typer.Option(
            "--hide-deprecated",
            help="Leave out deprecated objects (shown marked otherwise).",
            rich_help_panel=FILTER_PANEL,
        ),
    ] = False,
    output: Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            metavar="FORMAT",
            help="Output format: wide, yaml, json, name, jsonpath=..., jsonpath-file=..., jsonpath-as-json=..., "
            "go-template=..., go-template-file=..., custom-columns=..., custom-columns-file=... (kubectl's).",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = "",
    no_headers: Annotated[
        bool, typer.Option("--no-headers", help="Print table rows without the header.", rich_help_panel=OUTPUT_PANEL)
    ] = False,
    show_labels: Annotated[
        bool, typer.Option("--show-labels", help="Add a LABELS column.", rich_help_panel=OUTPUT_PANEL)
    ] = False,
    label_columns: Annotated[
        Optional[list[str]],
        typer.Option(
            "-L",
            "--label-columns",
            metavar="LABEL",
            help="A column for each of these labels (comma-separated, repeatable), headed by its last segment.",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = None,
    show_kind: Annotated[
        bool,
        typer.Option(
            "--show-kind", help="Name each object with its kind, as kind.group/name.", rich_help_panel=OUTPUT_PANEL
        ),
    ] = False,
    allow_missing_template_keys: Annotated[
        str,
        typer.Option(
            "--allow-missing-template-keys",
            metavar="BOOL",
            help="Templates (jsonpath, go-template) print nothing for a missing field or key; =false fails instead.",
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = "true",
    template: Annotated[
        Optional[str],
        typer.Option(
            "--template",
            metavar="TEMPLATE",
            help="The template of -o jsonpath|go-template|custom-columns, or the path of its file for -o *-file.",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = None,
    sort_by: Annotated[
        Optional[str],
        typer.Option(
            "--sort-by",
            click_type=options.NON_BLANK,
            metavar="KEY",
            help="Sort by name, cpu, memory, or a JSONPath such as .spec.cpu.guest as kubectl sorts "
            "(default: server order, cluster scope first).",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = None,
    chunk_size: Annotated[
        int,
        typer.Option(
            "--chunk-size",
            click_type=options.GO_INT,
            metavar="N",
            help="Objects per list request (paging); 0 disables paging.",
            show_default=False,
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = 500,
    compatible_with: Annotated[
        Optional[str],
        typer.Option(
            "--compatible-with",
            click_type=options.NON_BLANK,
            metavar="PREFERENCE",
            help="Only instance types that satisfy this preference's requirements (as recommend judges them).",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """List instance types or preferences."""
    ctx.obj.verbosity = verbosity
    query = build_query(dict(locals()))
    env = ctx.obj
    from ..kube.client import connect
    from ..output import messages
    from ..usecases.listing import ClusterSource

    connection = options.connection_options(kubeconfig, context, namespace, request_timeout)
    with connect(connection, env.environ, env.home(), messages.request_logger(env)) as client:
        source: Any = ClusterSource(client)
        if compatible_with:
            from ..usecases.recommend import CompatibleSource, cluster_preference

            source = CompatibleSource(source, cluster_preference(client, compatible_with))
        print_listing(env, source, query, printing=print_options(locals()))


class PrintOptions(NamedTuple):
    """How ``list`` (and ``catalog list``, ``get``) prints: the output flags, checked."""

    output: str = ""
    no_headers: bool = False
    show_labels: bool = False
    label_columns: tuple[str, ...] = ()
    show_kind: bool = False
    allow_missing_keys: bool = True
    all_namespaces: bool = False
    age: bool = True


def print_options(flags: dict) -> PrintOptions:
    """The :class:`PrintOptions` of the flag values (``--template`` folded into ``-o``)."""
    from ..errors import UsageError
    from ..golang.encoding_csv import go_read_csv_record
    from ..golang.strconv import GoNumError, go_parse_bool

    output = flags["output"]
    template = flags.get("template")
    if template:
        # cli-runtime: --template gives the template of -o jsonpath|go-template|custom-columns(-file)
        output = f"{output}={template}" if output and "=" not in output else output
    try:
        allow = go_parse_bool(flags.get("allow_missing_template_keys", "true"))
    except GoNumError as exc:
        raise UsageError(
            f'invalid argument "{flags["allow_missing_template_keys"]}" for "--allow-missing-template-keys" flag: {exc}'
        ) from None
    label_columns: list[str] = []
    for value in flags.get("label_columns") or ():
        label_columns.extend(go_read_csv_record(value) if value else [])
    return PrintOptions(
        output=output,
        no_headers=flags["no_headers"],
        show_labels=flags["show_labels"],
        label_columns=tuple(label_columns),
        show_kind=flags.get("show_kind", False),
        allow_missing_keys=allow,
        all_namespaces=flags.get("all_namespaces", False),
    )


def parse_words(words: list[str], hugepages: Optional[str]) -> tuple[str, Optional[str], tuple[str, ...]]:
    """``[KIND] [NAME...]`` or ``TYPE/NAME...`` -> (what, scope or None for both, names)."""
    from ..errors import UsageError

    if not words:
        return "instancetypes", None, ()
    first = words[0]
    if "/" not in first and first.lower() in KINDS:
        what, scope = KINDS[first.lower()]
        names = tuple(words[1:])
        if any("/" in name for name in names):
            raise UsageError(
                "there is no need to specify a resource type as a separate argument when passing "
                "arguments in resource/name form (e.g. 'kubectl instancetype get vmcf/u1.small')"
            )
        return what, scope, names
    if "/" in first:
        kinds = set()
        names_list = []
        for word in words:
            kind, slash, name = word.partition("/")
            if not slash:
                raise UsageError(f'arguments in resource/name form must have a single resource and name, got "{word}"')
            if kind.lower() not in KINDS:
                raise UsageError(_unknown_kind(kind))
            if not name:
                raise UsageError(f'arguments in resource/name form must have a single resource and name, got "{word}"')
            kinds.add(KINDS[kind.lower()])
            names_list.append(name)
        if len(kinds) > 1:
            raise UsageError("list and get take objects of one kind at a time (e.g. vmcf/u1.small vmcf/u1.large)")
        what, scope = kinds.pop()
        return what, scope, tuple(names_list)
    if hugepages == options.ANY_VALUE and first[:1].isdigit():
        raise UsageError(
            f'unknown kind "{first}": use instancetypes or preferences '
            f"(a page size goes with the flag: --hugepages={first})"
        )
    if first.lower() in options.KIND_SPELLINGS:  # a kubectl kind this command does not list (vm, pvc, ...)
        raise UsageError(_unknown_kind(first))
    # NAMEs alone: instance types of either scope
    return "instancetypes", None, tuple(words)


def _unknown_kind(word: str) -> str:
    import difflib

    close = difflib.get_close_matches(word.lower(), list(KINDS), n=1)
    hint = f'; did you mean "{close[0]}"?' if close else ""
    return (
        f'unknown kind "{word}": use instancetypes, preferences, vmcf, vmf, vmcp or vmp (or their kubectl names){hint}'
    )


def build_query(flags: dict):
    """The :class:`~..usecases.listing.Query` for the flag values of ``list`` (also ``catalog list``), checked."""
    from ..errors import UsageError
    from ..instancetype import listing
    from ..output.printers import OBJECT_FORMATS, TABLE_FORMATS, TEMPLATE_FORMATS, check_output_format
    from ..usecases.listing import Query

    hugepages, sort_by = flags["hugepages"], flags["sort_by"]
    what, scope, names = parse_words(list(flags.get("args") or ()), hugepages)
    cluster_only, namespaced_only, all_namespaces = (
        flags["cluster_only"] or scope == "cluster",
        flags["namespaced_only"] or scope == "namespaced",
        flags["all_namespaces"],
    )
    if flags["chunk_size"] < 0:
        raise UsageError(f"--chunk-size must not be negative (got {flags['chunk_size']}); 0 disables paging")
    if cluster_only and namespaced_only:
        if scope:
            raise UsageError(f"--{'namespaced' if scope == 'cluster' else 'cluster'} contradicts the kind named")
        raise UsageError("--cluster and --namespaced cannot be used together")
    if cluster_only and all_namespaces and not scope:
        raise UsageError("--cluster and --all-namespaces cannot be used together")
    if flags.get("compatible_with") and what != listing.INSTANCETYPES:
        raise UsageError("--compatible-with only applies to instance types")
    check_output_format(print_options(flags).output, TABLE_FORMATS + OBJECT_FORMATS + TEMPLATE_FORMATS)
    if sort_by and sort_by not in listing.SORT_KEYS:
        try:
            listing.PathSort(sort_by)
        except listing.FilterError as exc:
            raise UsageError(str(exc)) from None
    if hugepages == options.ANY_VALUE:
        hugepages = ""  # bare --hugepages: any page size
    filters = listing.Filters(
        **{name: flags[name] for name in listing.Filters._fields if name != "hugepages"}, hugepages=hugepages
    )
    try:
        filters.check_for(what)
        selector_text = listing.label_selector(filters, what)
        ranges = listing.RangeFilter.from_filters(filters, what)
    except listing.FilterError as exc:
        raise UsageError(str(exc)) from exc

    return Query(
        what=what,
        label_selector=selector_text,
        ranges=ranges,
        all_namespaces=all_namespaces,
        cluster_only=cluster_only,
        namespaced_only=namespaced_only,
        chunk_size=0 if sort_by else flags["chunk_size"],
        sort_by=sort_by,
        names=names,
    )


def _not_found(query, source, missing: tuple[str, ...], seen: list[str]) -> str:
    """The error for NAMEs that matched nothing: which kinds and scopes were read, and close names."""
    import difflib

    from ..instancetype.listing import INSTANCETYPES

    noun = "instance type" if query.what == INSTANCETYPES else "preference"
    cluster = "virtualmachinecluster" + ("instancetypes" if query.what == INSTANCETYPES else "preferences")
    namespaced = "virtualmachine" + ("instancetypes" if query.what == INSTANCETYPES else "preferences")
    places = []
    if not query.namespaced_only:
        places.append(f"cluster-wide ({cluster})")
    if not query.cluster_only:
        where = "any namespace" if query.all_namespaces else f'namespace "{source.namespace}"'
        places.append(f"in {where} ({namespaced})")
    quoted = ", ".join(f'"{name}"' for name in missing)
    filtered = " matching the filters" if query.label_selector or query.ranges.active else ""
    message = f"no {noun}{filtered} named {quoted} " + " or ".join(places)
    hints = []
    for name in missing:
        close = difflib.get_close_matches(name, seen, n=3)
        if close:
            hints.append(f'for "{name}" did you mean {", ".join(close)}?')
    if hints:
        message += "; " + "; ".join(hints)
    elif len(missing) == 1 and (kind := difflib.get_close_matches(missing[0].lower(), list(KINDS), n=1, cutoff=0.75)):
        message += f'; if "{missing[0]}" was meant as a kind: did you mean "{kind[0]}"?'
    elif query.what == INSTANCETYPES:
        message += "; preferences are listed with: list preferences NAME (or vmcp/NAME, vmp/NAME)"
    return message


class _NamesSeen:
    """A source that records every name it yields (for "did you mean" when NAMEs match nothing)."""

    def __init__(self, source, seen: list[str]):
        self.source, self.seen = source, seen

    @property
    def namespace(self) -> str:
        return self.source.namespace

    def scan(self, query, consume):
        def each(obj, namespace):
            self.seen.append(str((obj.get("metadata") or {}).get("name", "")))
            consume(obj, namespace)

        return self.source.scan(query, each)


def print_listing(env, source, query, *, printing: PrintOptions) -> None:
    """List ``query`` from ``source`` and print it as a table (kubectl's layout), objects, names or templates."""
    from ..errors import PluginError
    from ..instancetype.listing import INSTANCETYPES
    from ..kube import resources
    from ..output import messages
    from ..output.columns import CellContext, cells, columns_for, headers
    from ..output.printers import is_template_format
    from ..usecases.listing import list_rows

    output = printing.output
    cluster_resource, namespaced_resource = (
        (resources.CLUSTER_INSTANCETYPES, resources.INSTANCETYPES)
        if query.what == INSTANCETYPES
        else (resources.CLUSTER_PREFERENCES, resources.PREFERENCES)
    )
    objects_out = output in ("yaml", "json") or is_template_format(output)
    seen: list[str] = []
    if objects_out:
        row_of = lambda obj, namespace: obj  # noqa: E731
    elif output == "name":
        row_of = lambda obj, namespace: (namespaced_resource if namespace else cluster_resource).name_of(  # noqa: E731
            str((obj.get("metadata") or {}).get("name", ""))
        )
    else:
        columns = columns_for(
            query.what,
            wide=output == "wide",
            show_labels=printing.show_labels,
            age=printing.age,
            all_namespaces=query.all_namespaces and not query.cluster_only,
            show_kind=printing.show_kind,
            label_columns=printing.label_columns,
        )
        context = CellContext(env.clock())
        row_of = lambda obj, namespace: cells(columns, obj, namespace, context)  # noqa: E731
    listing = list_rows(_NamesSeen(source, seen) if query.names else source, query, row_of)
    for warning in listing.warnings:
        messages.warn(env, warning)
    rows = listing.rows
    missing_error = PluginError(_not_found(query, source, listing.missing, seen)) if listing.missing else None
    if not rows and not (objects_out and output in ("yaml", "json")):
        if missing_error is not None:
            raise missing_error
        if query.namespaced_only and not query.all_namespaces:
            messages.info(env, f"No resources found in {source.namespace} namespace.")
        else:
            messages.info(env, "No resources found")
        return
    if objects_out or output == "name":
        from ..output.printers import print_objects

        objects = rows if output != "name" else []
        names = rows if output == "name" else []
        single = len(query.names) == 1 and len(rows) == 1
        print_objects(
            env,
            output,
            objects,
            names,
            single=single,
            allow_missing_keys=printing.allow_missing_keys,
            no_headers=printing.no_headers,
        )
    else:
        from ..output.table import render_table

        env.stdout.write(render_table(None if printing.no_headers else headers(columns), rows))
    if missing_error is not None:
        raise missing_error
