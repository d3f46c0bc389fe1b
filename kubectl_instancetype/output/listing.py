"""Printing a list of instance types or preferences as kubectl prints one: a table, objects, names or templates."""

from __future__ import annotations

from ..env import Environment
from ..records import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    Row = Callable[[dict[str, Any], "str | None"], Any]


@dataclass(frozen=True)
class TableOptions:
    """The table flags kubectl get has (-L, --show-kind, --show-labels, -A's NAMESPACE column).

    A record, not a ``typing.NamedTuple``: NamedTuple compiles each string annotation (``ForwardRef``), and the
    first ``compile`` of a run sets up the compiler (about 9M instructions, 4% of a ``list``)."""

    show_labels: bool = False
    label_columns: Sequence[str] = ()
    show_kind: bool = False
    all_namespaces: bool = False


def row_function(
    what: str, output: str, *, show_labels: bool = False, age: bool, now: float, table: TableOptions | None = None
) -> tuple[Row, Any]:
    """What to keep of each listed object for ``-o output`` (the object, its name, or table cells), and the
    table's columns (None unless a table is printed)."""
    from ..instancetype.listing import INSTANCETYPES
    from ..kube import resources
    from .printers import is_template_format

    table = table or TableOptions(show_labels=show_labels)
    if output in ("yaml", "json", "kyaml") or is_template_format(output):
        return (lambda obj, namespace: obj), None
    if output == "name":
        cluster, namespaced = (
            (resources.CLUSTER_INSTANCETYPES, resources.INSTANCETYPES)
            if what == INSTANCETYPES
            else (resources.CLUSTER_PREFERENCES, resources.PREFERENCES)
        )
        return (
            lambda obj, namespace: (namespaced if namespace else cluster).name_of(
                str((obj.get("metadata") or {}).get("name", ""))
            )
        ), None
    from .columns import CellContext, columns_for, row_maker

    columns = columns_for(
        what,
        wide=output == "wide",
        show_labels=table.show_labels,
        age=age,
        all_namespaces=table.all_namespaces,
        show_kind=table.show_kind,
        label_columns=table.label_columns,
    )
    return row_maker(columns, CellContext(now)), columns


def not_found_message(
    query: Any, namespace: str, missing: Sequence[str], seen: Sequence[str], kinds: Sequence[str]
) -> str:
    """The error for NAMEs that matched nothing: the kinds and scopes that were read, and close names (or, for a
    lone word close to a kind spelling in ``kinds``, that kind)."""
    from ..golang.cobra import did_you_mean
    from ..golang.strconv import go_quote
    from ..instancetype.listing import INSTANCETYPES

    noun = "instance type" if query.what == INSTANCETYPES else "preference"
    plural = "instancetypes" if query.what == INSTANCETYPES else "preferences"
    places = []
    if not query.namespaced_only:
        places.append(f"cluster-wide (virtualmachinecluster{plural})")
    if not query.cluster_only:
        where = "any namespace" if query.all_namespaces else f"namespace {go_quote(namespace)}"
        places.append(f"in {where} (virtualmachine{plural})")
    quoted = ", ".join(go_quote(name) for name in missing)  # as apimachinery's "%s %q not found"
    filtered = " matching the filters" if query.label_selector or query.ranges.active else ""
    message = f"no {noun}{filtered} named {quoted} " + " or ".join(places)
    hints = []
    for name in missing:
        close = did_you_mean(name, seen)
        if close:
            hints.append(f'for "{name}" did you mean {" or ".join(close)}?')
    if hints:
        return message + "; " + "; ".join(hints)
    if len(missing) == 1 and missing[0].lower() in kinds:
        # kubectl get vmcp vmp reads vmp as a name too; kubectl's vmcp,vmp (several kinds) is not taken here
        return message + f'; "{missing[0]}" is a kind: list one kind at a time (list {missing[0]})'
    if len(missing) == 1 and (close_kinds := did_you_mean(missing[0].lower(), kinds)):
        meant = " or ".join(f'"{kind}"' for kind in close_kinds)
        return message + f'; if "{missing[0]}" was meant as a kind: did you mean {meant}?'
    if query.what == INSTANCETYPES:
        return message + "; preferences are listed with: list preferences NAME (or vmcp/NAME, vmp/NAME)"
    return message


def print_listing(
    env: Environment,
    listing: Any,
    output: str,
    columns: Any,
    *,
    no_headers: bool,
    in_namespace: bool,
    query: Any = None,
    allow_missing_keys: bool = True,
    kinds: Sequence[str] = (),
) -> None:
    """Print ``listing`` (a :class:`~..usecases.listing.Listing` of :func:`row_function` rows): warnings first;
    kubectl's "No resources found" (naming the namespace when only it was listed, ``in_namespace``) on stderr.
    NAMEs of ``query`` that matched nothing fail after the others are printed, as kubectl get does."""
    from ..errors import PluginError
    from . import messages
    from .printers import is_template_format

    for warning in listing.warnings:
        messages.warn(env, warning)
    rows = listing.rows
    missing = getattr(listing, "missing", ())
    error = PluginError(not_found_message(query, listing.namespace, missing, listing.seen, kinds)) if missing else None
    objects_out = output in ("yaml", "json", "kyaml") or is_template_format(output)
    if not rows and error is not None:
        raise error
    if not rows and not objects_out and output != "name":
        # kubectl get's table path only; its other printers print the empty List (printGeneric: [], 0, a header)
        if error is not None:
            raise error
        if in_namespace:
            messages.info(env, f"No resources found in {listing.namespace} namespace.")
        else:
            messages.info(env, "No resources found")
        return
    if objects_out or output == "name":
        from .printers import print_objects

        names = tuple(query.names) if query is not None else ()
        print_objects(
            env,
            output,
            rows if output != "name" else [],
            rows if output == "name" else [],
            single=len(names) == 1 and len(rows) == 1,  # kubectl prints one object named alone, not a List
            allow_missing_keys=allow_missing_keys,
            no_headers=no_headers,
        )
    else:
        from .columns import headers
        from .table import render_table

        env.stdout.write(render_table(None if no_headers else headers(columns), rows))
    if error is not None:
        raise error


def print_watch(
    env: Environment,
    watching: Any,
    output: str,
    columns: Any,
    *,
    no_headers: bool,
    with_events: bool = False,
    allow_missing_keys: bool = True,
) -> None:
    """Print a :class:`~..usecases.watching.Watching` as kubectl get --watch does: every listed object, then one
    per event as it arrives (flushed at once). A table's header comes once, with the first row; each later row is
    laid out on its own, as kubectl's tab writer flushed per event lays it out. ``with_events``
    (--output-watch-events): an EVENT column, or each object wrapped in a watch event {"type", "object"}."""

    from ..golang.goyaml import dump
    from .printers import is_template_format, print_objects, without_managed_fields
    from .terminal import escape, json_text

    state = {"header": no_headers, "documents": 0}
    layout = WatchTable()

    def emit(kind: str, row: Any) -> None:
        if columns is not None:
            # cli-runtime's table printer pads the event type to the longest one ("ADDED   ")
            cells = [f"{kind:<8}", *row] if with_events else list(row)
            block = [[escape(cell) for cell in cells]]
            if not state["header"]:
                from .columns import headers

                block.insert(0, (["EVENT"] if with_events else []) + list(headers(columns)))
                state["header"] = True
            env.stdout.write(layout.render(block))
        elif output == "name":
            env.stdout.write(escape(str(row)) + "\n")
        elif with_events and output == "json":
            # kubectl prints a metav1.WatchEvent as json.Marshal does: one line, the object as the server sent it
            from ..golang.encoding_json import marshal

            env.stdout.write(json_text(f'{{"type":{marshal(kind)},"object":{marshal(row)}}}') + "\n")
        elif output in ("json", "yaml", "kyaml") or is_template_format(output):
            obj = without_managed_fields(row) if output in ("json", "yaml", "kyaml") else row
            document = {"type": kind, "object": obj} if with_events else obj
            if output == "json":
                from ..golang.encoding_json import marshal_indent

                env.stdout.write(json_text(marshal_indent(document)) + "\n")
            elif output == "kyaml":
                from ..golang.kyaml import dump_kyaml

                env.stdout.write(dump_kyaml(document))
            elif output == "yaml":
                # kubectl's YAML printer starts every object after the first with a document separator
                env.stdout.write(("---\n" if state["documents"] else "") + dump(document))
            else:
                # custom-columns prints its header once, with the first object (its printer remembers the type)
                print_objects(
                    env,
                    output,
                    [document],
                    [],
                    single=True,
                    allow_missing_keys=allow_missing_keys,
                    no_headers=no_headers or bool(state["documents"]),
                )
            state["documents"] += 1
        env.stdout.flush()

    if watching.listing is not None:
        from . import messages

        for warning in watching.listing.warnings:
            messages.warn(env, warning)
        for row in watching.listing.rows:
            emit("ADDED", row)
    for event in watching.events:
        emit(event.type, event.row)


class WatchTable:
    """kubectl's watch table layout: each block of rows (the listing, then each event) is lined up on its own, but
    a column is never narrower than it was in an earlier block (the tab writer of k8s.io/cli-runtime/pkg/printers,
    github.com/liggitt/tabwriter with RememberWidths: minimum width 6, padding 3, the last cell unpadded)."""

    def __init__(self) -> None:
        self.widths: list[int] = []

    def render(self, rows: list[list[str]]) -> str:
        """The rows (cells already escaped) laid out, each ended by a newline."""
        for row in rows:
            for column, cell in enumerate(row[:-1]):
                width = max(6, len(cell) + 3)
                if column >= len(self.widths):
                    self.widths.append(width)
                elif width > self.widths[column]:
                    self.widths[column] = width
        lines = []
        for row in rows:
            padded = [cell.ljust(self.widths[column]) for column, cell in enumerate(row[:-1])]
            lines.append("".join(padded) + (row[-1] if row else "") + "\n")
        return "".join(lines)


def print_found(env: Environment, output: str, found: Sequence[Any], namespace: str | None) -> None:
    """Objects found by name (``catalog show``: each with its ``what`` and ``obj``): yaml/json/names/a template
    (one object alone, several as a List), or one table per kind in the order first named."""
    from .printers import print_objects, prints_objects

    if prints_objects(output):
        print_objects(env, output, [each.obj for each in found], single=True)
        return
    from .columns import CellContext, cells, columns_for, headers
    from .table import render_table

    context = CellContext(env.clock())
    for what in dict.fromkeys(each.what for each in found):
        columns = columns_for(what, wide=output == "wide")
        rows = [cells(columns, each.obj, namespace, context) for each in found if each.what == what]
        env.stdout.write(render_table(headers(columns), rows))
