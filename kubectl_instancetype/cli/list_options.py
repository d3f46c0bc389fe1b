"""What ``list`` and ``catalog list`` share: the KIND argument, the filters, the output flags, the query.

``catalog list`` has exactly ``list``'s filters, columns and output formats, reading the embedded release
instead of a cluster; both declare these groups, neither imports the other.
The field annotations are strings (``from __future__ import annotations``), evaluated only when the Typer app
is built (:class:`.options.OptionField`): a ``list`` run evaluates none and imports no ``typing``.
"""

from __future__ import annotations

from ..instancetype import kinds as type_kinds
from ..records import fields
from . import options
from .options import Annotated  # typing.Annotated to type checkers, a cheap record at run time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# every spelling of the four kinds kubectl reads (instancetype.kinds), and the two words for both scopes
# -> (what, scope); scope None: both
KINDS: dict[str, tuple[str, str | None]] = {
    "instancetypes": ("instancetypes", None),
    "instancetype": ("instancetypes", None),
    "preferences": ("preferences", None),
    "preference": ("preferences", None),
}
for _kind in type_kinds.ALL:
    for _spelling in _kind.spellings():
        for _word in (_spelling, f"{_spelling}.{type_kinds.GROUP}"):
            KINDS[_word] = (_kind.what, "namespaced" if _kind.namespaced else "cluster")
FILTER_PANEL = "Filters"
OUTPUT_PANEL = "Output"


def filter_text(*names_metavar_help: str) -> Any:
    """A filter with a value (never blank), in the Filters panel of the help: ``(*names, metavar, help)``."""
    *names, metavar, help = names_metavar_help
    return options.text_option(*names, metavar=metavar, help=help, panel=FILTER_PANEL)


def filter_int(*names_metavar_help: str) -> Any:
    """A filter with an integer value (pflag's int), in the Filters panel: ``(*names, metavar, help)``."""
    *names, metavar, help = names_metavar_help
    return options.int_option(*names, metavar=metavar, help=help, panel=FILTER_PANEL)


def filter_switch(*names_help: str) -> Any:
    """A boolean filter, in the Filters panel of the help: ``(*names, help)``."""
    *names, help = names_help
    return options.bool_option(*names, help=help, panel=FILTER_PANEL)


def fits_option(preference: str, panel: str | None = None) -> Any:
    """``--fits`` (list, recommend): ``preference`` says which preference the VM has."""
    return options.bool_option(
        "--fits",
        help=f"Only instance types whose VM (with {preference}) fits some node now, as kubectl instancetype fits "
        "judges it; without nodes nothing is left out (a warning says so).",
        panel=panel,
    )


# Flags declared once for every command that takes them (list, catalog list, recommend, matrix).
SeriesClass = Annotated[
    str | None,
    filter_text("--class", "CLASS", "Series class, e.g. general.purpose, compute.exclusive."),
]
Selector = Annotated[
    str | None,
    filter_text(
        "-l", "--selector", "SELECTOR", "A raw label selector, added to the filters (=, ==, !=, in, notin, exists)."
    ),
]
NoHeaders = Annotated[
    bool, options.bool_option("--no-headers", help="Print table rows without the header.", panel=OUTPUT_PANEL)
]


def _complete_kind(incomplete: str) -> list[tuple[str, str]]:
    names = (type_kinds.INSTANCETYPES, type_kinds.PREFERENCES, *(kind.short for kind in type_kinds.ALL))
    return [(name, f"list {name}") for name in names if name.startswith(incomplete)]


Kind = Annotated[
    list[str] | None,
    options.Argument(
        help="instancetypes (default), preferences, vmcf, vmf, vmcp or vmp; then NAMEs (or TYPE/NAME...).",
        show_default=False,
        metavar="[KIND] [NAME...]",
        autocompletion=_complete_kind,
    ),
]


SCOPES = ("cluster", "namespaced", "all")


@options.dataclass
class ScopeFlags:
    """One scope only: ``--scope cluster|namespaced`` (or the kind: ``list vmcf``).

    ``--cluster`` was this group's yes/no flag; ``--cluster NAME`` is kubectl's kubeconfig cluster
    (:class:`~.options.ConnectionFlags`), so the yes/no spelling is deprecated as pflag deprecates a flag: hidden,
    still working, and announced with pflag's line. A bare ``--cluster`` (last, or before another flag) reaches
    this group as ``--cluster-only`` (:func:`~.options.expand_bare_flags`). ``--namespaced`` (the word create,
    derive and catalog install use for the namespaced kinds) stays, as ``--scope=namespaced``.
    """

    scope: Annotated[
        str | None,
        options.path_option(
            "--scope",
            metavar="SCOPE",
            help="Only objects of one scope: cluster or namespaced (all: both, the default).",
        ),
    ] = None
    deprecated_cluster: Annotated[bool, options.Option("--cluster-only", hidden=True)] = False
    deprecated_namespaced: Annotated[
        bool, options.bool_option("--namespaced", help="Only namespaced objects (the same as --scope=namespaced).")
    ] = False
    # derived by validate()
    cluster_only: bool = options.field(init=False, default=False)
    namespaced_only: bool = options.field(init=False, default=False)

    def warnings(self) -> list[str]:
        """pflag's deprecation line (spf13/pflag flag.go: ``Flag --%s has been deprecated, %s``)."""
        return ["Flag --cluster has been deprecated, use --scope=cluster"] if self.deprecated_cluster else []

    def validate(self) -> None:
        """One scope, however it is spelled."""
        if self.scope is not None and self.scope not in SCOPES:
            raise options.UsageError(
                f'invalid argument "{self.scope}" for "--scope" flag: must be cluster, namespaced or all'
            )
        if self.deprecated_cluster and self.deprecated_namespaced:
            raise options.UsageError("--cluster and --namespaced cannot be used together")
        given = "cluster" if self.deprecated_cluster else "namespaced" if self.deprecated_namespaced else None
        if given and self.scope not in (None, given):
            raise options.UsageError(f"--scope={self.scope} and --{given} cannot be used together")
        chosen = self.scope or given
        self.cluster_only = chosen == "cluster"
        self.namespaced_only = chosen == "namespaced"


def bare_flags(always: bool = False) -> dict[str, tuple[str, bool]]:
    """The deprecated bare ``--cluster`` of the commands with :class:`ScopeFlags` (see
    :func:`~.options.expand_bare_flags`); ``always`` for a command without kubeconfig flags."""
    return {"--cluster": ("--cluster-only", always)}


def scope_bare_flags() -> dict[str, tuple[str, bool]]:
    """A command's ``bare_flags`` hook for :class:`ScopeFlags` with the kubeconfig's ``--cluster NAME`` beside it:
    a bare ``--cluster`` is the deprecated ``--scope=cluster``."""
    return bare_flags(False)


@options.dataclass
class ListFilters:
    """The filters: exact ones sent as label selectors, ranges evaluated on each object's spec."""

    cpu: Annotated[int | None, filter_int("--cpu", "N", "Exactly N vCPUs (label instancetype.kubevirt.io/cpu).")] = None
    memory: Annotated[
        str | None,
        filter_text("--memory", "QUANTITY", "Exactly this guest memory (label instancetype.kubevirt.io/memory)."),
    ] = None
    klass: SeriesClass = None
    size: Annotated[str | None, filter_text("--size", "SIZE", "Size, e.g. medium, 2xlarge.")] = None
    hugepages: Annotated[
        str | None,
        options.path_option(
            "--hugepages",
            metavar="[=SIZE]",
            help="With hugepages; --hugepages=SIZE for one page size (2Mi, 1Gi).",
            panel=FILTER_PANEL,
        ),
    ] = None
    dedicated_cpu: Annotated[bool, filter_switch("--dedicated-cpu", "With dedicated CPU placement.")] = False
    isolate_emulator_thread: Annotated[
        bool, filter_switch("--isolate-emulator-thread", "With an isolated emulator thread.")
    ] = False
    numa: Annotated[bool, filter_switch("--numa", "With guest NUMA passthrough.")] = False
    realtime: Annotated[bool, filter_switch("--realtime", "Realtime instance types.")] = False
    gpus: Annotated[bool, filter_switch("--gpus", "Instance types that bring GPUs.")] = False
    vendor: Annotated[str | None, filter_text("--vendor", "VENDOR", "Vendor label, e.g. kubevirt.io.")] = None
    os_type: Annotated[
        str | None, filter_text("--os-type", "OS", "Preferences for linux, windows or legacy guests.")
    ] = None
    arch: Annotated[
        str | None, filter_text("--arch", "ARCH", "Preferences for one architecture (amd64, arm64, s390x).")
    ] = None
    selector: Selector = None
    min_cpu: Annotated[int | None, filter_int("--min-cpu", "N", "At least N vCPUs (evaluated on the spec).")] = None
    max_cpu: Annotated[int | None, filter_int("--max-cpu", "N", "At most N vCPUs (evaluated on the spec).")] = None
    min_memory: Annotated[
        str | None, filter_text("--min-memory", "QUANTITY", "At least this much guest memory, e.g. 16Gi.")
    ] = None
    max_memory: Annotated[str | None, filter_text("--max-memory", "QUANTITY", "At most this much guest memory.")] = None
    hide_deprecated: Annotated[
        bool, filter_switch("--hide-deprecated", "Leave out deprecated objects (shown marked otherwise).")
    ] = False
    compatible_with: Annotated[
        str | None,
        filter_text(
            "--compatible-with",
            "PREFERENCE",
            "Only instance types that satisfy this preference's requirements (as recommend judges them).",
        ),
    ] = None

    def warnings(self) -> list[str]:
        """A memory filter without a unit is bytes (Kubernetes quantities): ``--min-memory 16`` matches
        everything. Say so, with the value the user probably meant, when the number is too small to be a VM's
        memory."""
        return memory_unit_warnings(
            (("--memory", self.memory), ("--min-memory", self.min_memory), ("--max-memory", self.max_memory))
        )


@options.dataclass
class ListOutputFlags:
    """How the list is printed."""

    output: Annotated[
        str,
        options.output_option(
            help="Output format: wide, yaml, json, kyaml, name, jsonpath=..., jsonpath-file=..., jsonpath-as-json=..., "
            "go-template=..., go-template-file=..., custom-columns=..., custom-columns-file=... (kubectl's).",
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = ""
    no_headers: NoHeaders = False
    show_labels: Annotated[
        bool, options.bool_option("--show-labels", help="Add a LABELS column.", panel=OUTPUT_PANEL)
    ] = False
    label_columns: Annotated[
        list[str] | None,
        options.path_option(
            "-L",
            "--label-columns",
            metavar="LABEL",
            help="A column for each of these labels (comma-separated, repeatable), headed by its last segment.",
            panel=OUTPUT_PANEL,
        ),
    ] = None
    show_kind: Annotated[
        bool,
        options.bool_option(
            "--show-kind", help="Name each object with its kind, as kind.group/name.", panel=OUTPUT_PANEL
        ),
    ] = False
    sort_by: Annotated[
        str | None,
        options.text_option(
            "--sort-by",
            metavar="KEY",
            help="Sort by name, cpu, memory, or a JSONPath such as .spec.cpu.guest as kubectl sorts "
            "(default: server order, cluster scope first).",
            panel=OUTPUT_PANEL,
        ),
    ] = None
    allow_missing_template_keys: Annotated[
        str,
        options.value_option(
            "--allow-missing-template-keys",
            metavar="BOOL",
            help="Templates (jsonpath, go-template) print nothing for a missing field or key; =false fails instead.",
            panel=OUTPUT_PANEL,
        ),
    ] = "true"
    template: Annotated[
        str | None,
        options.path_option(
            "--template",
            metavar="TEMPLATE",
            help="The template of -o jsonpath|go-template|custom-columns, or the path of its file for -o *-file.",
            panel=OUTPUT_PANEL,
        ),
    ] = None
    # derived by validate()
    format: str = options.field(init=False, default="")
    allow_missing_keys: bool = options.field(init=False, default=True)
    labels: tuple = options.field(init=False, default=())

    def validate(self) -> None:
        """-o with --template folded in, --allow-missing-template-keys as pflag parses a bool, -L's CSV values."""
        from ..golang.strconv import GoNumError, go_parse_bool
        from ..output.printers import (
            KYAML_FORMATS,
            OBJECT_FORMATS,
            TABLE_FORMATS,
            TEMPLATE_FORMATS,
            check_output_format,
        )

        output = self.output
        if self.template:
            # cli-runtime: --template gives the template of -o jsonpath|go-template|custom-columns(-file)
            output = f"{output}={self.template}" if output and "=" not in output else output
        if output.lower() in ("json", "yaml", "kyaml"):
            output = output.lower()  # cli-runtime's JSONYamlPrintFlags takes them in any case
        check_output_format(output, TABLE_FORMATS + OBJECT_FORMATS + KYAML_FORMATS + TEMPLATE_FORMATS)
        self.format = output
        try:
            self.allow_missing_keys = go_parse_bool(self.allow_missing_template_keys)
        except GoNumError as exc:
            raise options.UsageError(
                f'invalid argument "{self.allow_missing_template_keys}" for "--allow-missing-template-keys" flag: {exc}'
            ) from None
        labels: list[str] = []
        if self.label_columns:
            # encoding/csv only for -L values: a list without them does not load it
            from ..golang.encoding_csv import go_read_csv_record

            for value in self.label_columns:
                labels.extend(go_read_csv_record(value) if value else [])
        self.labels = tuple(labels)

    def row_function(self, what: str, now: float, *, age: bool, namespace_column: bool = False) -> Any:
        """(row_of, columns): one row of ``what`` as these flags print it (output.listing.row_function; AGE only
        for objects the cluster created, NAMESPACE with -A)."""
        from ..output.listing import TableOptions, row_function

        table = TableOptions(self.show_labels, self.labels, self.show_kind, namespace_column)
        return row_function(what, self.format, age=age, now=now, table=table)

    def print_listing(self, env: Any, listing: Any, columns: Any, query: Any, *, in_namespace: bool) -> None:
        """Print ``listing`` as ``list`` and ``catalog list`` print it (kubectl get's table, -o formats, messages)."""
        from ..output.listing import print_listing

        print_listing(
            env,
            listing,
            self.format,
            columns,
            no_headers=self.no_headers,
            in_namespace=in_namespace,
            query=query,
            allow_missing_keys=self.allow_missing_keys,
            kinds=list(KINDS),
        )


def optional_value_flags() -> dict[str, str]:
    """pflag's bare boolean flags that also take =VALUE."""
    return {"--allow-missing-template-keys": "true"}


def memory_unit_warnings(flags: Sequence[tuple[str, str | None]]) -> list[str]:
    """A memory flag without a unit is bytes (``--min-memory 16`` matches everything): a warning with the value
    probably meant, for each (flag, value) pair whose number is too small to be a VM's memory."""
    lines = []
    for flag, value in flags:
        digits = (value or "").strip()
        if digits.isascii() and digits.isdigit() and int(digits) < 1 << 20:  # [0-9]+: bytes
            lines.append(
                f"Warning: {flag} {value} is {value} bytes (a quantity without a unit); "
                f"instance types have GiB of memory: did you mean {flag} {value}Gi?"
            )
    return lines


def build_query(
    words: list[str] | None,
    filters: ListFilters,
    output: ListOutputFlags,
    *,
    all_namespaces: bool = False,
    cluster_only: bool = False,
    namespaced_only: bool = False,
    chunk_size: int = 0,
) -> Any:
    """The :class:`~..usecases.listing.Query` for the flags, checked (pure: raises :class:`UsageError`)."""
    from ..instancetype import listing
    from ..usecases.listing import Query

    UsageError = options.UsageError
    hugepages = filters.hugepages
    what, scope, names = parse_words(list(words or ()), hugepages)
    cluster_only = cluster_only or scope == "cluster"
    namespaced_only = namespaced_only or scope == "namespaced"
    if chunk_size < 0:
        raise UsageError(f"--chunk-size must not be negative (got {chunk_size}); 0 disables paging")
    if cluster_only and namespaced_only:
        if scope:
            raise UsageError(f"--scope={'namespaced' if scope == 'cluster' else 'cluster'} contradicts the kind named")
        raise UsageError("--scope=cluster and --namespaced cannot be used together")
    if cluster_only and all_namespaces and not scope:
        raise UsageError("--scope=cluster and --all-namespaces cannot be used together")
    if filters.compatible_with and what != listing.INSTANCETYPES:
        raise UsageError("--compatible-with only applies to instance types")
    sort_by = None
    if output.sort_by:
        try:
            sort_by = listing.SortBy(output.sort_by)  # parsed here only: the query carries it
        except listing.FilterError as exc:
            raise UsageError(str(exc)) from None
    if hugepages == options.ANY_VALUE:
        hugepages = ""  # bare --hugepages: any page size
    given = {spec.name: getattr(filters, spec.name) for spec in fields(listing.Filters) if spec.name != "hugepages"}
    selected = listing.Filters(**given, hugepages=hugepages)
    try:
        selected.check_for(what)
        selector_text = listing.label_selector(selected, what)
        ranges = listing.RangeFilter.from_filters(selected, what)
    except listing.FilterError as exc:
        raise UsageError(str(exc)) from exc

    table = (output.format or output.output) in ("", "wide")
    return Query(
        what=what,
        label_selector=selector_text,
        enumerated=enumerated_filters(filters),
        ranges=ranges,
        all_namespaces=all_namespaces,
        cluster_only=cluster_only,
        namespaced_only=namespaced_only,
        chunk_size=0 if sort_by is not None else chunk_size,  # kubectl reads everything before sorting
        sort_by=sort_by,
        names=names,
        table=table,
        # a table's cells and the named sort keys read no managedFields; a --sort-by JSONPath may
        without_managed_fields=table and (sort_by is None or sort_by.path is None),
    )


# the filters whose values are label values the objects carry (checked after an empty answer)
ENUMERATED = (
    ("--class", "klass", "class"),
    ("--size", "size", "size"),
    ("--vendor", "vendor", "vendor"),
    ("--os-type", "os_type", "os-type"),
    ("--arch", "arch", "arch"),
)


def enumerated_filters(filters: Any) -> tuple[tuple[str, str, str], ...]:
    """(flag, label key, value) of each enumerated filter given (``filters``: ListFilters or SelectionFlags)."""
    from ..instancetype.listing import LABEL_PREFIX

    return tuple(
        (flag, LABEL_PREFIX + label, str(getattr(filters, field)))
        for flag, field, label in ENUMERATED
        if getattr(filters, field, None)
    )


def parse_words(words: list[str], hugepages: str | None) -> tuple[str, str | None, tuple[str, ...]]:
    """``[KIND] [NAME...]`` or ``TYPE/NAME...`` -> (what, scope or None for both, names)."""
    UsageError = options.UsageError
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
    from ..golang.cobra import did_you_mean

    usual = ["instancetypes", "preferences", *(kind.short for kind in type_kinds.ALL)]
    # the usual words first: "vms" means "vmp" more likely than the plural short name "vmps"
    close = did_you_mean(word.lower(), usual) or did_you_mean(word.lower(), list(KINDS))
    meant = " or ".join(f'"{kind}"' for kind in close)
    hint = f"; did you mean {meant}?" if close else ""
    return (
        f'unknown kind "{word}": use instancetypes, preferences, vmcf, vmf, vmcp or vmp (or their kubectl names){hint}'
    )


@options.dataclass
class SelectionFlags:
    """The list filters ``recommend`` and ``matrix`` share with ``list``: a raw label selector, ``--class`` and
    ``--hide-deprecated``."""

    selector: Selector = None
    hide_deprecated: Annotated[bool, filter_switch("--hide-deprecated", "Leave out deprecated instance types.")] = False
    klass: SeriesClass = None

    def query_parts(self) -> tuple[str, Any]:
        """(the label selector, the client-side RangeFilter) for the instance types these flags select."""
        from ..instancetype import listing

        selected = listing.Filters(klass=self.klass, selector=self.selector, hide_deprecated=self.hide_deprecated)
        try:
            return (
                listing.label_selector(selected, listing.INSTANCETYPES),
                listing.RangeFilter.from_filters(selected, listing.INSTANCETYPES),
            )
        except listing.FilterError as exc:
            raise options.UsageError(str(exc)) from exc

    def query(self, scope: ScopeFlags, catalog: bool, all_namespaces: bool = False) -> Any:
        """The :class:`~..usecases.listing.Query` of the instance types these flags select in ``scope``
        (``matrix`` and ``recommend``); with ``catalog``, the cluster scope unless another is asked for: the
        catalog's namespaced copies equal its cluster objects."""
        from ..instancetype.listing import INSTANCETYPES
        from ..usecases.listing import Query

        label_selector, ranges = self.query_parts()
        return Query(
            what=INSTANCETYPES,
            label_selector=label_selector,
            ranges=ranges,
            cluster_only=scope.cluster_only or (catalog and not (scope.namespaced_only or scope.scope == "all")),
            namespaced_only=scope.namespaced_only,
            all_namespaces=all_namespaces,
            enumerated=enumerated_filters(self),
        )
