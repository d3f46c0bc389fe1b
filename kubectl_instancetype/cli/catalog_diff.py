"""``kubectl instancetype catalog diff``: how the cluster's objects differ from the embedded catalog."""

import dataclasses
from typing import Annotated

import typer

from . import options
from .catalog_options import SelectionFlags, skew_line

HELP = """Show how the cluster's objects differ from the embedded catalog, as a unified diff per object.

Compared: what the catalog says of each object (labels, annotations, spec); deployment metadata such as
app.kubernetes.io/* labels is left out. Objects the cluster lacks are diffed from /dev/null; vendor objects
(instancetype.kubevirt.io/vendor=kubevirt.io) the catalog no longer has, to /dev/null. The cluster's CRD
schemas are compared with the catalog too: a field this cluster's KubeVirt does not know (an older release)
is named with the objects that would lose it; --strict fails then. When nothing differs, stdout stays empty
(as with diff and kubectl diff) and one line on stderr says so.

\b
Examples:
  kubectl instancetype catalog diff
  kubectl instancetype catalog diff --namespaced -n dev --preferences-only
  kubectl instancetype catalog diff --exit-code >/dev/null || echo "the cluster differs"
"""


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``diff`` to the ``catalog`` group."""
    group.command("diff", help=HELP, short_help="Diff the cluster's objects against the catalog.")(
        options.command(DiffOptions, run)
    )


@options.dataclass
class DiffOptions:
    """Print the differences."""

    selection: SelectionFlags = dataclasses.field(default_factory=SelectionFlags)
    exit_code: Annotated[bool, options.bool_option("--exit-code", help="Exit with 1 when there are differences.")] = (
        False
    )
    strict: Annotated[
        bool,
        options.bool_option(
            "--strict", help="Fail when any catalog object would lose a field the cluster's schema lacks."
        ),
    ] = False
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)


def run(env, opts: DiffOptions, session) -> int:
    """Print the diffs; with --exit-code, exit 1 when there are any."""
    from ..errors import PluginError
    from ..output import messages
    from ..usecases.catalog_install import diff_catalog

    found = diff_catalog(session, opts.selection.selection())
    diffs, skew = found.diffs, found.skew
    env.stdout.write("".join(diffs))
    if not diffs:
        # diff(1) and kubectl diff print nothing when equal; a silent success reads as "did nothing", so one
        # status line goes to stderr (stdout, the patch, stays empty) and the exit status keeps diff's meaning
        messages.info(
            env, f"No differences: the cluster's {found.compared} object(s) match common-instancetypes {found.version}"
        )
    for warning in skew.warnings:
        messages.warn(env, warning)
    for path, names in skew.fields.items():
        messages.warn(env, skew_line(path, names))
    if opts.strict and skew.fields:
        raise PluginError(
            f"{skew.objects} catalog object(s) would lose fields this cluster's KubeVirt does not know (listed above)"
        )
    return 1 if diffs and opts.exit_code else 0
