"""``kubectl instancetype create vm``: virtctl's ``create vm``, checked against the cluster and created."""

import typer

from . import flagtable


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``vm`` to the ``create`` group."""
    from ..instancetype import createvm

    command = flagtable.flag_command(createvm.VM_FLAGS, flagtable.common_options(skip_checks=True), run)
    help_text = (
        createvm.LONG_HELP.replace(
            "Create a VirtualMachine manifest.", "Create a VirtualMachine, after checking what it references.", 1
        )
        + "\n\nThe instance type and preference are looked up first (and the preference's requirements "
        "checked against them); --skip-checks skips that. Without -n, the VM goes to the context's "
        "namespace; metadata.namespace is written only when -n is given, as virtctl does."
        + "\n\nExamples:\n\n"
        + flagtable.verbatim(createvm.EXAMPLES.format(prog="kubectl instancetype"))
    )
    group.command("vm", help=help_text, short_help="Create a VirtualMachine (virtctl create vm flags).")(command)


def optional_value_flags() -> dict[str, str]:
    """Bare spellings this command accepts (its boolean flags, --dry-run)."""
    from ..instancetype import createvm

    return flagtable.optional_value_flags(createvm.VM_FLAGS)


def run(
    ctx: typer.Context,
    given: dict,
    *,
    dry_run: str,
    output: str,
    kubeconfig,
    context,
    namespace,
    request_timeout: str,
    verbosity: int,
    skip_checks: bool,
) -> None:
    """Build the manifest exactly as virtctl would, then check and create it (or print it)."""
    from ..instancetype import createvm
    from ..kube.resources import VIRTUAL_MACHINES
    from ..output.printers import OBJECT_FORMATS, check_output_format
    from ..usecases.creating import create_object

    env = ctx.obj
    env.verbosity = verbosity
    dry_run = flagtable.check_dry_run(dry_run)
    check_output_format(output, ("", *OBJECT_FORMATS))
    values = flagtable.parse_flags(createvm.VM_FLAGS_BY_NAME, given)
    options = createvm.VMOptions.from_flags(values, namespace=namespace)
    manifest, _ = createvm.build_vm(
        options,
        random_suffix=env.random_suffix,
        read_file=env.read_file,
        warn=lambda line: env.stderr.write(line + "\n"),
    )
    if dry_run == "client":
        flagtable.print_result(env, manifest, VIRTUAL_MACHINES, output, dry_run)
        return
    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        target = namespace or client.namespace
        answer = create_object(
            client, VIRTUAL_MACHINES, manifest, target, server_dry_run=dry_run == "server", preflight=not skip_checks
        )
    flagtable.print_created(env, answer, VIRTUAL_MACHINES, output, dry_run)
