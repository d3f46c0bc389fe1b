"""``kubectl instancetype describe TYPE/NAME...``: a kubectl-describe-style page per object.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

from typing import Any

from ..records import replace
from . import options
from .options import Annotated  # typing.Annotated to type checkers, a cheap record at run time

HELP = """Show the details of instance types and preferences: what they give and require, where they come
from, what they go with, and the VirtualMachines that use them.

For an instance type: its resources, the CPU topology and memory a VM gets, its labels and annotations,
the common-instancetypes release it comes from, and the preferences (with requirements) it satisfies. For a
preference: its requirements and every preferred setting, and the instance types that satisfy it, smallest
first. Both: the VMs whose matcher names it (every namespace for a cluster-scoped object).

TYPE/NAME as in get (vmcf/u1.medium, vmp/windows, virtualmachineclusterpreference/fedora), or a kind and
names; a NAME alone is looked up among the instance types, then the preferences.

\b
Examples:
  kubectl instancetype describe vmcf/u1.medium
  kubectl instancetype describe vmcp/fedora
  kubectl instancetype describe u1.large windows.11"""


def register(app: Any, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("describe", help=HELP, short_help="Show an instance type or preference in detail.")(
        options.command(DescribeOptions, run)
    )


@options.dataclass
class DescribeOptions:
    """Describe instance types or preferences."""

    args: Annotated[
        list[str],
        options.Argument(
            metavar="TYPE/NAME...",
            help="vmcf/NAME, vmf/NAME, vmcp/NAME, vmp/NAME (or a kind and names, or NAMEs).",
            show_default=False,
        ),
    ]
    connection: options.FleetConnectionFlags = options.field(default_factory=options.FleetConnectionFlags)
    query: Any = options.field(init=False, default=None)
    any_kind: bool = options.field(init=False, default=False)

    def validate(self) -> None:
        """The arguments name objects."""
        from ..instancetype.listing import Filters, RangeFilter
        from ..usecases.listing import Query
        from .list_options import KINDS, parse_words

        what, scope, names = parse_words(list(self.args), None)
        if not names:
            raise options.UsageError(
                "you must name the objects to describe: TYPE/NAME... (e.g. vmcf/u1.medium, vmcp/fedora)"
            )
        first = self.args[0]
        self.any_kind = "/" not in first and first.lower() not in KINDS
        self.query = Query(
            what=what,
            label_selector="",
            ranges=RangeFilter.from_filters(Filters(), what),
            cluster_only=scope == "cluster",
            namespaced_only=scope == "namespaced",
            names=names,
        )


def run(env, opts: DescribeOptions, session) -> None:
    """Describe each object; names that matched nothing fail after the others are printed."""
    from ..errors import PluginError
    from ..output import messages
    from ..output.describe import render_description
    from ..usecases.describe import describe
    from .list_options import KINDS

    result = describe(session, opts.query, fall_back_to_preferences=opts.any_kind)
    for warning in result.warnings:
        messages.warn(env, warning)
    pages = []
    for described in result.found:
        for warning in described.warnings:
            messages.warn(env, warning)
        pages.append(render_description(described, env.clock()))
    env.stdout.write("\n".join(pages))
    if result.missing:
        query = opts.query
        if opts.any_kind:
            query = replace(query, what="instancetypes or preferences")
        raise PluginError(_missing(query, result, list(KINDS)))


def _missing(query, result, kinds) -> str:
    from ..output.listing import not_found_message

    if query.what == "instancetypes or preferences":
        message = not_found_message(
            replace(query, what="instancetypes"), result.namespace, result.missing, result.seen, kinds
        )
        return message.replace("no instance type named", "no instance type or preference named").replace(
            "; preferences are listed with: list preferences NAME (or vmcp/NAME, vmp/NAME)", ""
        )
    return not_found_message(query, result.namespace, result.missing, result.seen, kinds)
