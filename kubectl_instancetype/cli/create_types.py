"""``kubectl instancetype create instancetype`` and ``create preference``: virtctl's commands, created on the cluster."""

import dataclasses
from typing import Any

import typer

from . import flagtable, options


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``instancetype`` and ``preference`` to the ``create`` group (only the one ``argv`` names, if any)."""
    from ..instancetype import createtypes as types

    def spec(name: str, kind: str, flags: Any, examples: str, options_class: type) -> options.Command:
        return options.Command(
            name,
            options_class,
            run,
            help=f"Create a VirtualMachineCluster{kind}, or a VirtualMachine{kind} with --namespaced or -n "
            f"(virtctl create {name} flags).\n\nExamples:\n\n"
            + flagtable.verbatim(examples.format(prog="kubectl instancetype")),
            short_help=f"Create a VirtualMachine(Cluster){kind} (virtctl flags).",
            make=lambda options_class, run: flagtable.table_command(flags, options_class, run),
        )

    options.add_commands(
        group,
        argv,
        spec(
            "instancetype",
            "Instancetype",
            types.INSTANCETYPE_FLAGS,
            types.INSTANCETYPE_EXAMPLES,
            CreateInstancetypeOptions,
        ),
        spec("preference", "Preference", types.PREFERENCE_FLAGS, types.PREFERENCE_EXAMPLES, CreatePreferenceOptions),
    )


def optional_value_flags() -> dict[str, str]:
    """Bare spellings these commands accept (their boolean flags, --dry-run)."""
    from ..instancetype import createtypes as types

    return (
        flagtable.optional_value_flags(types.INSTANCETYPE_FLAGS)
        | flagtable.optional_value_flags(types.PREFERENCE_FLAGS)
        | flagtable.OPTIONAL_VALUE_FLAGS
    )


@options.dataclass
class CreateInstancetypeOptions:
    """virtctl's create instancetype flags (the table, in ``extra``), create's and the connection's."""

    create: flagtable.CreateFlags = dataclasses.field(default_factory=flagtable.CreateFlags)
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    extra: dict = dataclasses.field(init=False, default_factory=dict)  # the table's flags, raw
    built: Any = dataclasses.field(init=False, default=None)  # the table's options (createtypes.*Options)

    def validate(self) -> None:
        """The table's values parse (pflag's errors) and combine (virtctl's checks)."""
        from ..instancetype import createtypes as types

        self.built = flagtable.parse_table(types.InstancetypeOptions, types.INSTANCETYPE_FLAGS, self.extra)

    def build(self, random_suffix, namespace) -> dict:
        """The object, as virtctl builds it (``namespace``: ``-n`` as given, the Session's)."""
        from dataclasses import replace

        from ..instancetype import createtypes as types

        return types.build_instancetype(replace(self.built, namespace=namespace), random_suffix=random_suffix)


@options.dataclass
class CreatePreferenceOptions(CreateInstancetypeOptions):
    """virtctl's create preference flags (the table, in ``extra``), create's and the connection's."""

    def validate(self) -> None:
        """The table's values parse (pflag's errors) and combine (virtctl's checks)."""
        from ..instancetype import createtypes as types

        self.built = flagtable.parse_table(types.PreferenceOptions, types.PREFERENCE_FLAGS, self.extra)

    def build(self, random_suffix, namespace) -> dict:
        """The object, as virtctl builds it (``namespace``: ``-n`` as given, the Session's)."""
        from dataclasses import replace

        from ..instancetype import createtypes as types

        return types.build_preference(replace(self.built, namespace=namespace), random_suffix=random_suffix)


def run(env, opts: CreateInstancetypeOptions, session) -> None:
    """Build the instance type or preference as virtctl would, then create it (or print it)."""
    from ..kube.resources import BY_KIND
    from ..output.created import print_created
    from ..usecases.creating import create_object

    # -n comes from the Session alone: virtctl writes metadata.namespace (and picks the namespaced kind) only
    # when it was given; without it a namespaced object goes to the context's namespace (session.namespace)
    manifest = opts.build(env.random_suffix, session.namespace_flag)
    resource = BY_KIND[manifest["kind"]]
    dry_run = opts.create.dry_run
    namespace = session.namespace if resource.namespaced and dry_run != "client" else None
    created = create_object(session, resource, manifest, namespace, dry_run=dry_run)
    print_created(env, created, opts.create.output)
