"""``kubectl instancetype catalog install``: the embedded catalog onto the cluster, by server-side apply."""

from typing import Annotated, Optional

import typer

from . import flagtable, options

HELP = """Install the embedded common-instancetypes catalog with server-side apply (field manager kubectl-instancetype).

Prints one line per object, as kubectl apply words it: created, unchanged or configured. Running it again
changes nothing. Objects managed by virt-operator are refused unless --force (which also takes over fields
other managers own). When the cluster's schema lacks a field the catalog uses (an older KubeVirt), the other
objects are applied and the command names the fields and objects; --drop-unknown-fields applies those
objects without the fields.

\b
Examples:
  kubectl instancetype catalog install
  kubectl instancetype catalog install --namespaced -n dev --instancetypes-only
  kubectl instancetype catalog install --dry-run=server
  kubectl instancetype catalog install --drop-unknown-fields"""

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
Namespaced = Annotated[
    bool, typer.Option("--namespaced", help="The namespaced kinds, in the namespace (-n), not the cluster-scoped ones.")
]
InstancetypesOnly = Annotated[bool, typer.Option("--instancetypes-only", help="Only the instance types.")]
PreferencesOnly = Annotated[bool, typer.Option("--preferences-only", help="Only the preferences.")]


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``install`` to the ``catalog`` group."""
    group.command("install", help=HELP, short_help="Apply the catalog to the cluster (server-side apply).")(
        install_command
    )


def optional_value_flags() -> dict[str, str]:
    """A bare --dry-run means client, as kubectl's."""
    return dict(flagtable.OPTIONAL_VALUE_FLAGS)


def scope_of(client, namespaced: bool, instancetypes_only: bool, preferences_only: bool):
    """The use case's scope for the flags (namespaced kinds in the client's namespace)."""
    from ..usecases.catalog_install import Scope

    return Scope(
        namespace=client.namespace if namespaced else None,
        instancetypes=not preferences_only,
        preferences=not instancetypes_only,
    )


def check_kinds(instancetypes_only: bool, preferences_only: bool) -> None:
    """The two -only flags exclude each other."""
    from ..errors import UsageError

    if instancetypes_only and preferences_only:
        raise UsageError("--instancetypes-only and --preferences-only cannot be used together")


def install_command(
    ctx: typer.Context,
    version: Version = None,
    namespaced: Namespaced = False,
    instancetypes_only: InstancetypesOnly = False,
    preferences_only: PreferencesOnly = False,
    dry_run: Annotated[
        str,
        typer.Option(
            "--dry-run",
            metavar="[=none|client|server]",
            show_default=False,
            help='"client": compare with the cluster and send no writes; "server": apply with dryRun=All; '
            '"none" (default): apply. A bare --dry-run means client.',
        ),
    ] = "none",
    force: Annotated[
        bool,
        typer.Option("--force", help="Apply objects virt-operator manages, and take over conflicting fields."),
    ] = False,
    drop_unknown_fields: Annotated[
        bool,
        typer.Option("--drop-unknown-fields", help="Apply objects without the fields the cluster's schema lacks."),
    ] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Install the catalog."""
    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..errors import PluginError
    from ..output import messages
    from ..usecases import catalog_install as use

    env = ctx.obj
    env.verbosity = verbosity
    dry_run = flagtable.check_dry_run(dry_run)
    check_kinds(instancetypes_only, preferences_only)
    catalog = load_catalog(version or DEFAULT_VERSION)
    suffix = {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")

    def report(outcome) -> None:
        if outcome.dropped:
            messages.warn(
                env, f"{outcome.name}: applied without {', '.join(outcome.dropped)} (not in the cluster's schema)"
            )
        env.stdout.write(f"{outcome.name} {outcome.verb}{suffix}\n")
        env.stdout.flush()

    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        scope = scope_of(client, namespaced, instancetypes_only, preferences_only)
        objects = use.catalog_objects(catalog, scope)
        kinds = list(dict.fromkeys(resource for resource, _ in objects))
        existing = use.existing_objects(client, kinds, scope.namespace)
        if not force:
            use.refuse_operator_managed(objects, existing)
        result = use.install(
            client,
            objects,
            existing,
            dry_run=dry_run,
            force=force,
            drop_unknown_fields=drop_unknown_fields,
            report=report,
        )
    if result.unknown_fields:
        raise PluginError(result.unknown_fields_message())
