"""``kubectl instancetype catalog install``: the embedded catalog onto the cluster, by server-side apply."""

import dataclasses
from typing import Annotated

import typer

from . import flagtable, options
from .catalog_options import SelectionFlags, skew_line

HELP = """Install the embedded common-instancetypes catalog with server-side apply (field manager kubectl-instancetype).

Prints one line per object, as kubectl apply words it: created, unchanged or configured. Running it again
changes nothing. Objects managed by virt-operator are refused unless --force (which also takes over fields
other managers own). When the cluster's schema lacks a field the catalog uses (an older KubeVirt), the other
objects are applied and the command names the fields and objects; --drop-unknown-fields applies those
objects without the fields. The CRD schemas are read first, so the fields are named before anything is
written; --strict then writes nothing.

\b
Examples:
  kubectl instancetype catalog install
  kubectl instancetype catalog install --namespaced -n dev --instancetypes-only
  kubectl instancetype catalog install --dry-run=server
  kubectl instancetype catalog install --drop-unknown-fields
  kubectl instancetype catalog install --strict"""


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``install`` to the ``catalog`` group."""
    group.command("install", help=HELP, short_help="Apply the catalog to the cluster (server-side apply).")(
        options.command(InstallOptions, run)
    )


def optional_value_flags() -> dict[str, str]:
    """A bare --dry-run means client, as kubectl's."""
    return dict(flagtable.OPTIONAL_VALUE_FLAGS)


@options.dataclass
class InstallOptions:
    """Install the catalog."""

    selection: SelectionFlags = dataclasses.field(default_factory=SelectionFlags)
    dry_run: Annotated[
        str,
        options.path_option(
            "--dry-run",
            metavar="[=none|client|server]",
            help='"client": compare with the cluster and send no writes; "server": apply with dryRun=All; '
            '"none" (default): apply. A bare --dry-run means client.',
        ),
    ] = "none"
    force: Annotated[
        bool,
        options.bool_option("--force", help="Apply objects virt-operator manages, and take over conflicting fields."),
    ] = False
    drop_unknown_fields: Annotated[
        bool,
        options.bool_option(
            "--drop-unknown-fields", help="Apply objects without the fields the cluster's schema lacks."
        ),
    ] = False
    strict: Annotated[
        bool,
        options.bool_option(
            "--strict", help="Write nothing when any object would lose a field the cluster's CRD schema lacks."
        ),
    ] = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)

    def validate(self) -> None:
        """kubectl's --dry-run values; --strict and --drop-unknown-fields contradict each other."""
        self.dry_run = flagtable.check_dry_run(self.dry_run)
        if self.strict and self.drop_unknown_fields:
            raise options.UsageError("--strict refuses what --drop-unknown-fields would apply: give one of them")


def run(env, opts: InstallOptions, session) -> None:
    """Apply, printing one line per object as it is applied; name the fields the cluster's schema lacks."""
    from ..errors import PluginError
    from ..output import messages
    from ..usecases.catalog_install import install_catalog

    suffix = {"client": " (dry run)", "server": " (server dry run)"}.get(opts.dry_run, "")

    def report(outcome) -> None:
        if outcome.dropped:
            messages.warn(
                env, f"{outcome.name}: applied without {', '.join(outcome.dropped)} (not in the cluster's schema)"
            )
        env.stdout.write(f"{outcome.name} {outcome.verb}{suffix}\n")
        env.stdout.flush()

    def skew_report(skew) -> None:
        for warning in skew.warnings:
            messages.warn(env, warning)
        if opts.drop_unknown_fields:
            return  # each object applied without a field says so itself
        for path, names in skew.fields.items():
            messages.warn(env, skew_line(path, names))

    result = install_catalog(
        session,
        opts.selection.selection(),
        dry_run=opts.dry_run,
        force=opts.force,
        drop_unknown_fields=opts.drop_unknown_fields,
        report=report,
        strict=opts.strict,
        skew_report=skew_report,
    )
    if result.unknown_fields:
        raise PluginError(result.unknown_fields_message())
