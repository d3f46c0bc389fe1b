"""``kubectl instancetype derive SOURCE --name NAME [--memory Q] [--cpu N]``: a custom size from an existing type."""

import dataclasses
from typing import Annotated, Any, Optional

import typer

from . import flagtable, options
from .catalog_options import CatalogSourceFlags

HELP = """Create an instance type copied from an existing one, with new vCPUs and/or memory.

The source is a cluster instance type, virtualmachineinstancetype/NAME for one in the namespace, or
(with --catalog) a type of the embedded common-instancetypes catalog. The copy keeps the source's spec
(dedicated CPUs, hugepages, NUMA, overcommit) and is labelled like the catalog's types
(instancetype.kubevirt.io/cpu, instancetype.kubevirt.io/memory, instancetype.kubevirt.io/derived-from), so
list --cpu/--memory finds it. Overrides are checked first: memory against the hugepages page size and
maxGuest, --cpu against cpu.maxSockets (scaled along when it tracked the vCPUs, as on cx1).
The new type is cluster-scoped unless --namespaced or -n is given.

\b
Examples:
  kubectl instancetype derive u1.medium --name u1.medium.6g --memory 6Gi
  kubectl instancetype derive cx1.large --name cx1.large.6c --cpu 6 --namespaced -n dev
  kubectl instancetype derive u1.large --catalog --name u1.large.3c --cpu 3 --dry-run=client -o yaml"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("derive", help=HELP, short_help="Create a custom size from an existing instance type.")(
        options.command(DeriveOptions, run)
    )


def optional_value_flags() -> dict[str, str]:
    """A bare --dry-run means client, as kubectl's."""
    return dict(flagtable.OPTIONAL_VALUE_FLAGS)


@options.dataclass
class DeriveOptions:
    """Create the derived instance type."""

    source: Annotated[
        str,
        typer.Argument(help="The instance type to copy: NAME or virtualmachineinstancetype/NAME.", metavar="SOURCE"),
    ]
    name: Annotated[str, options.text_option("--name", metavar="NAME", help="Name of the new instance type.")]
    memory: Annotated[
        Optional[str], options.text_option("--memory", metavar="QUANTITY", help="New guest memory, e.g. 6Gi.")
    ] = None
    cpu: Annotated[Optional[int], options.int_option("--cpu", metavar="N", help="New number of vCPUs.")] = None
    namespaced: Annotated[
        bool, options.bool_option("--namespaced", help="Create a VirtualMachineInstancetype in the namespace.")
    ] = False
    source_catalog: CatalogSourceFlags = dataclasses.field(default_factory=CatalogSourceFlags)
    create: flagtable.CreateFlags = dataclasses.field(default_factory=flagtable.CreateFlags)
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    request: Any = dataclasses.field(init=False, default=None)  # usecases.derive.DeriveRequest

    def validate(self) -> None:
        """The source is [KIND/]NAME of an instance type kind."""
        from ..instancetype import kinds as type_kinds
        from ..instancetype.params import ParamError, split_prefixed_name
        from ..usecases.derive import DeriveRequest

        try:
            prefix, source_name = split_prefixed_name(self.source)
        except ParamError as exc:
            raise options.UsageError(f'invalid source "{self.source}": {exc}') from None
        kind = type_kinds.CLUSTER_INSTANCETYPE if prefix == "" else type_kinds.spelled(prefix)
        if kind is None or kind.what != type_kinds.INSTANCETYPES:
            raise options.UsageError(
                f'invalid source kind "{prefix.lower()}", supported values are: virtualmachineinstancetype, '
                "virtualmachineclusterinstancetype"
            )
        self.request = DeriveRequest(
            source_name=source_name,
            name=self.name,
            source_namespaced=kind.namespaced,
            memory=self.memory,
            cpu=self.cpu,
            namespaced=self.namespaced,
            catalog=self.source_catalog.catalog,
            catalog_version=self.source_catalog.catalog_version,
        )


def run(env, opts: DeriveOptions, session) -> None:
    """Derive, create (or print) and say so as kubectl create does."""
    from ..output.created import print_created
    from ..usecases.derive import derive_instancetype

    created = derive_instancetype(session, opts.request, dry_run=opts.create.dry_run)
    print_created(env, created, opts.create.output)
