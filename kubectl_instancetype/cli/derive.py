"""``kubectl instancetype derive SOURCE --name NAME [--memory Q] [--cpu N]``: a custom size from an existing type."""

from typing import Annotated, Optional

import typer

from . import flagtable, options

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
    app.command("derive", help=HELP, short_help="Create a custom size from an existing instance type.")(derive_command)


def optional_value_flags() -> dict[str, str]:
    """A bare --dry-run means client, as kubectl's."""
    return dict(flagtable.OPTIONAL_VALUE_FLAGS)


_NAMESPACED_PREFIXES = ("virtualmachineinstancetype", "virtualmachineinstancetypes", "vminstancetype", "vmf", "vmfs")
_CLUSTER_PREFIXES = ("", "virtualmachineclusterinstancetype", "virtualmachineclusterinstancetypes", "vmcf", "vmcfs")


def derive_command(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(help="The instance type to copy: NAME or virtualmachineinstancetype/NAME.", metavar="SOURCE"),
    ],
    name: Annotated[
        str,
        typer.Option(
            "--name",
            click_type=options.NON_BLANK,
            metavar="NAME",
            help="Name of the new instance type.",
            show_default=False,
        ),
    ],
    memory: Annotated[
        Optional[str],
        typer.Option(
            "--memory",
            click_type=options.NON_BLANK,
            metavar="QUANTITY",
            help="New guest memory, e.g. 6Gi.",
            show_default=False,
        ),
    ] = None,
    cpu: Annotated[
        Optional[int],
        typer.Option("--cpu", click_type=options.GO_INT, metavar="N", help="New number of vCPUs.", show_default=False),
    ] = None,
    namespaced: Annotated[
        bool, typer.Option("--namespaced", help="Create a VirtualMachineInstancetype in the namespace.")
    ] = False,
    catalog: Annotated[
        bool, typer.Option("--catalog", help="Copy from the embedded common-instancetypes catalog.")
    ] = False,
    catalog_version: Annotated[
        Optional[str],
        typer.Option(
            "--catalog-version",
            click_type=options.NON_BLANK,
            metavar="VERSION",
            help="The embedded catalog release for --catalog (default: the newest).",
            show_default=False,
        ),
    ] = None,
    dry_run: flagtable.DryRun = "none",
    output: flagtable.Output = "",
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Create the derived instance type."""
    from ..errors import PreflightError, UsageError
    from ..instancetype.derive import DeriveError, derive
    from ..instancetype.params import ParamError, split_prefixed_name
    from ..kube import resources
    from ..output.printers import OBJECT_FORMATS, check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    dry_run = flagtable.check_dry_run(dry_run)
    check_output_format(output, ("",) + OBJECT_FORMATS)
    if catalog_version and not catalog:
        raise UsageError("--catalog-version goes with --catalog")
    try:
        prefix, source_name = split_prefixed_name(source)
    except ParamError as exc:
        raise UsageError(f'invalid source "{source}": {exc}') from None
    prefix = prefix.lower()
    if prefix in _NAMESPACED_PREFIXES:
        source_resource = resources.INSTANCETYPES
    elif prefix in _CLUSTER_PREFIXES:
        source_resource = resources.CLUSTER_INSTANCETYPES
    else:
        raise UsageError(
            f'invalid source kind "{prefix}", supported values are: virtualmachineinstancetype, '
            "virtualmachineclusterinstancetype"
        )
    target_namespaced = namespaced or bool(namespace)
    target = resources.INSTANCETYPES if target_namespaced else resources.CLUSTER_INSTANCETYPES

    def build(source_obj: dict, target_namespace) -> dict:
        try:
            return derive(source_obj, name=name, memory=memory, cpu=cpu, namespace=target_namespace)
        except DeriveError as exc:
            raise UsageError(str(exc)) from None

    if catalog:
        from ..catalog import DEFAULT_VERSION, load_catalog

        embedded = load_catalog(catalog_version or DEFAULT_VERSION)
        source_obj = embedded.instancetype(source_name)
        if source_obj is None:
            import difflib

            close = difflib.get_close_matches(
                source_name, [o["metadata"]["name"] for o in embedded.instancetypes], 1, 0.6
            )
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise PreflightError(
                f'instance type "{source_name}" not found in the common-instancetypes {embedded.version} catalog{hint}'
            )
        if dry_run == "client":
            from ..usecases.creating import check_object_names

            manifest = build(source_obj, (namespace or "default") if target_namespaced else None)
            check_object_names(manifest, target, manifest["metadata"].get("namespace"))
            flagtable.print_result(env, manifest, target, output, dry_run)
            return
    else:
        source_obj = None
    from ..usecases.creating import create_object

    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        if source_obj is None:
            from ..errors import NotFoundError
            from ..usecases.preflight import not_found_message

            scope = client.namespace if source_resource.namespaced else None
            try:
                source_obj = client.get(source_resource, source_name, scope)
            except NotFoundError:
                raise PreflightError(not_found_message(client, source_resource, source_name, scope)) from None
        target_namespace = client.namespace if target_namespaced else None
        manifest = build(source_obj, target_namespace)
        if dry_run == "client":
            from ..usecases.creating import check_object_names

            check_object_names(manifest, target, target_namespace)
            flagtable.print_result(env, manifest, target, output, dry_run)
            return
        answer = create_object(client, target, manifest, target_namespace, server_dry_run=dry_run == "server")
    flagtable.print_created(env, answer, target, output, dry_run)
