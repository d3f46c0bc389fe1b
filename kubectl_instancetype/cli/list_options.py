"""What ``list`` and ``catalog list`` share: the KIND argument, the filters, the output flags, the query.

``catalog list`` has exactly ``list``'s filters, columns and output formats, reading the embedded release
instead of a cluster; both declare these groups, neither imports the other.
No ``from __future__ import annotations`` (Typer reads the field types as objects).
"""

from typing import Annotated, Any, Optional

import typer

from . import options

KINDS = {
    "instancetypes": "instancetypes",
    "instancetype": "instancetypes",
    "preferences": "preferences",
    "preference": "preferences",
}
FILTER_PANEL = "Filters"
OUTPUT_PANEL = "Output"


def _complete_kind(incomplete: str) -> list[tuple[str, str]]:
    return [(name, f"list {name}") for name in ("instancetypes", "preferences") if name.startswith(incomplete)]


Kind = Annotated[
    str,
    typer.Argument(
        help="instancetypes (default) or preferences.",
        show_default=False,
        metavar="[KIND]",
        autocompletion=_complete_kind,
    ),
]


@options.dataclass
class ScopeFlags:
    """One scope only."""

    cluster_only: Annotated[bool, typer.Option("--cluster", help="Only cluster-scoped objects.")] = False
    namespaced_only: Annotated[bool, typer.Option("--namespaced", help="Only namespaced objects.")] = False

    def validate(self) -> None:
        """Not both."""
        if self.cluster_only and self.namespaced_only:
            raise options.UsageError("--cluster and --namespaced cannot be used together")


@options.dataclass
class ListFilters:
    """The filters: exact ones sent as label selectors, ranges evaluated on each object's spec."""

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
    ] = None
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
    ] = None
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
    ] = None
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
    ] = None
    hugepages: Annotated[
        Optional[str],
        typer.Option(
            "--hugepages",
            help="With hugepages; --hugepages=SIZE for one page size (2Mi, 1Gi).",
            metavar="[=SIZE]",
            rich_help_panel=FILTER_PANEL,
            show_default=False,
        ),
    ] = None
    dedicated_cpu: Annotated[
        bool, typer.Option("--dedicated-cpu", help="With dedicated CPU placement.", rich_help_panel=FILTER_PANEL)
    ] = False
    isolate_emulator_thread: Annotated[
        bool,
        typer.Option(
            "--isolate-emulator-thread", help="With an isolated emulator thread.", rich_help_panel=FILTER_PANEL
        ),
    ] = False
    numa: Annotated[bool, typer.Option("--numa", help="With guest NUMA passthrough.", rich_help_panel=FILTER_PANEL)] = (
        False
    )
    realtime: Annotated[
        bool, typer.Option("--realtime", help="Realtime instance types.", rich_help_panel=FILTER_PANEL)
    ] = False
    gpus: Annotated[
        bool, typer.Option("--gpus", help="Instance types that bring GPUs.", rich_help_panel=FILTER_PANEL)
    ] = False
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
    ] = None
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
    ] = None
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
    ] = None
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
    ] = None
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
    ] = None
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
    ] = None
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
    ] = None
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
    ] = None
    hide_deprecated: Annotated[
        bool,
        typer.Option(
            "--hide-deprecated",
            help="Leave out deprecated objects (shown marked otherwise).",
            rich_help_panel=FILTER_PANEL,
        ),
    ] = False
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
    ] = None


@options.dataclass
class ListOutputFlags:
    """How the list is printed."""

    output: Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            metavar="FORMAT",
            help="Output format: wide, yaml, json or name.",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = ""
    no_headers: Annotated[
        bool, typer.Option("--no-headers", help="Print table rows without the header.", rich_help_panel=OUTPUT_PANEL)
    ] = False
    show_labels: Annotated[
        bool, typer.Option("--show-labels", help="Add a LABELS column.", rich_help_panel=OUTPUT_PANEL)
    ] = False
    sort_by: Annotated[
        Optional[str],
        typer.Option(
            "--sort-by",
            click_type=options.NON_BLANK,
            metavar="KEY",
            help="Sort by name, cpu or memory (default: server order, cluster scope first).",
            rich_help_panel=OUTPUT_PANEL,
            show_default=False,
        ),
    ] = None


def build_query(
    kind: str,
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
    from ..output.printers import OBJECT_FORMATS, TABLE_FORMATS, check_output_format
    from ..usecases.listing import Query

    UsageError = options.UsageError
    hugepages = filters.hugepages
    what = KINDS.get(kind.lower())
    if what is None:
        hint = ""
        if hugepages == options.ANY_VALUE and kind[:1].isdigit():
            hint = f" (a page size goes with the flag: --hugepages={kind})"
        raise UsageError(f'unknown kind "{kind}": use instancetypes or preferences{hint}')
    if chunk_size < 0:
        raise UsageError(f"--chunk-size must not be negative (got {chunk_size}); 0 disables paging")
    if cluster_only and namespaced_only:
        raise UsageError("--cluster and --namespaced cannot be used together")
    if cluster_only and all_namespaces:
        raise UsageError("--cluster and --all-namespaces cannot be used together")
    if filters.compatible_with and what != listing.INSTANCETYPES:
        raise UsageError("--compatible-with only applies to instance types")
    check_output_format(output.output, TABLE_FORMATS + OBJECT_FORMATS)
    if output.sort_by and output.sort_by not in listing.SORT_KEYS:
        raise UsageError(f'--sort-by must be one of {", ".join(listing.SORT_KEYS)} (got "{output.sort_by}")')
    if hugepages == options.ANY_VALUE:
        hugepages = ""  # bare --hugepages: any page size
    given = {name: getattr(filters, name) for name in listing.Filters._fields if name != "hugepages"}
    selected = listing.Filters(**given, hugepages=hugepages)
    try:
        selected.check_for(what)
        selector_text = listing.label_selector(selected, what)
        ranges = listing.RangeFilter.from_filters(selected, what)
    except listing.FilterError as exc:
        raise UsageError(str(exc)) from exc

    return Query(
        what=what,
        label_selector=selector_text,
        ranges=ranges,
        all_namespaces=all_namespaces,
        cluster_only=cluster_only,
        namespaced_only=namespaced_only,
        chunk_size=chunk_size,
        sort_by=output.sort_by,
    )
