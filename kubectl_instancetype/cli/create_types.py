"""``kubectl instancetype create instancetype`` and ``create preference``: virtctl's commands, created on the cluster."""

import typer

from . import flagtable


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``instancetype`` and ``preference`` to the ``create`` group (only the one ``argv`` names, if any)."""
    selected = argv[0] if argv else ""
    from ..instancetype import createtypes as types

    commands = (
        ("instancetype", "Instancetype", types.INSTANCETYPE_FLAGS, types.INSTANCETYPE_EXAMPLES, run_instancetype),
        ("preference", "Preference", types.PREFERENCE_FLAGS, types.PREFERENCE_EXAMPLES, run_preference),
    )
    for name, kind, flags, examples, run in commands:
        if selected not in ("", name):
            continue
        group.command(
            name,
            help=f"Create a VirtualMachineCluster{kind}, or a VirtualMachine{kind} with --namespaced or -n "
            f"(virtctl create {name} flags).\n\nExamples:\n\n"
            + flagtable.verbatim(examples.format(prog="kubectl instancetype")),
            short_help=f"Create a VirtualMachine(Cluster){kind} (virtctl flags).",
        )(flagtable.flag_command(flags, flagtable.common_options(), run))


def optional_value_flags() -> dict[str, str]:
    """Bare spellings these commands accept (their boolean flags, --dry-run)."""
    from ..instancetype import createtypes as types

    return (
        flagtable.optional_value_flags(types.INSTANCETYPE_FLAGS)
        | flagtable.optional_value_flags(types.PREFERENCE_FLAGS)
        | flagtable.OPTIONAL_VALUE_FLAGS
    )


def run_instancetype(ctx: typer.Context, given: dict, **common) -> None:
    """Build the instance type as virtctl would, then create it (or print it)."""
    from ..instancetype import createtypes as types

    _submit(ctx, given, types.INSTANCETYPE_FLAGS_BY_NAME, types.InstancetypeOptions, types.build_instancetype, **common)


def run_preference(ctx: typer.Context, given: dict, **common) -> None:
    """Build the preference as virtctl would, then create it (or print it)."""
    from ..instancetype import createtypes as types

    _submit(ctx, given, types.PREFERENCE_FLAGS_BY_NAME, types.PreferenceOptions, types.build_preference, **common)


def _submit(
    ctx: typer.Context,
    given: dict,
    specs_by_name: dict,
    options_class,
    build,
    *,
    dry_run: str,
    output: str,
    kubeconfig,
    context,
    namespace,
    request_timeout: str,
    verbosity: int,
) -> None:
    from ..kube.resources import BY_KIND
    from ..output.printers import OBJECT_FORMATS, check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    dry_run = flagtable.check_dry_run(dry_run)
    check_output_format(output, ("",) + OBJECT_FORMATS)
    manifest = build(
        options_class.from_flags(flagtable.parse_flags(specs_by_name, given), namespace=namespace),
        random_suffix=env.random_suffix,
    )
    resource = BY_KIND[manifest["kind"]]
    if dry_run == "client":
        flagtable.print_result(env, manifest, resource, output, dry_run)
        return
    from ..usecases.creating import create_object

    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        target = (namespace or client.namespace) if resource.namespaced else None
        answer = create_object(client, resource, manifest, target, server_dry_run=dry_run == "server")
    flagtable.print_created(env, answer, resource, output, dry_run)
