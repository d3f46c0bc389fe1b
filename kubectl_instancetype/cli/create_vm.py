"""``kubectl instancetype create vm``: virtctl's ``create vm``, checked against the cluster and created."""

from typing import Any

from . import flagtable, options
from .options import Annotated  # typing.Annotated to type checkers, a cheap record at run time


def register(group: Any, argv: list[str]) -> None:
    """Add ``vm`` to the ``create`` group."""
    from ..instancetype import createvm

    command = flagtable.table_command(createvm.VM_FLAGS, CreateVMOptions, run)
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

    return flagtable.optional_value_flags(createvm.VM_FLAGS) | flagtable.OPTIONAL_VALUE_FLAGS


@options.dataclass
class VMCheckFlags:
    """What is checked or resolved against the cluster (and the image registry) before the VM is sent."""

    skip_checks: Annotated[
        bool,
        options.bool_option(
            "--skip-checks", help="Send the VM as built: no inference, look-ups, conflict or requirement checks first."
        ),
    ] = False
    resolve_inference: Annotated[
        bool,
        options.bool_option(
            "--resolve-inference",
            help="Write the instance type and preference that inferFromVolume resolves to into the VM "
            "({name, kind}) instead of leaving inference to the server.",
        ),
    ] = False
    infer_from_image: Annotated[
        bool,
        options.bool_option(
            "--infer-from-image",
            help="Read the default instance type and preference from the image of a --volume-containerdisk "
            "or --volume-import type:registry volume (its INSTANCETYPE_KUBEVIRT_IO_DEFAULT_* variables) and "
            "write them as explicit matchers: KubeVirt cannot infer from images.",
        ),
    ] = False
    insecure_registry: Annotated[
        bool,
        options.bool_option(
            "--insecure-registry", help="--infer-from-image: an insecure registry (unverified HTTPS or plain HTTP)."
        ),
    ] = False


@options.dataclass
class CreateVMOptions:
    """virtctl's create vm flags (the table, in ``extra``), create's, the connection's and the checks'."""

    create: flagtable.CreateFlags = options.field(default_factory=flagtable.CreateFlags)
    connection: options.ConnectionFlags = options.field(default_factory=options.ConnectionFlags)
    checks: VMCheckFlags = options.field(default_factory=VMCheckFlags)
    extra: dict = options.field(init=False, default_factory=dict)  # the table's flags, raw
    vm: Any = options.field(init=False, default=None)  # instancetype.createvm.VMOptions: every flag, parsed

    def validate(self) -> None:
        """The table's values parse (pflag's errors) and combine (virtctl's checks)."""
        from ..instancetype import createvm

        # parsed once, into the options that travel (the namespace is the Session's: the use case reads it)
        self.vm = flagtable.parse_table(createvm.VMOptions, createvm.VM_FLAGS, self.extra)


def run(env, opts: CreateVMOptions, session) -> None:
    """Build the manifest exactly as virtctl would, check it as KubeVirt's admission would, create it."""
    from ..output.created import print_created
    from ..usecases.creating import VMRequest, create_vm_from_flags

    def report(line: str) -> None:
        from ..output.terminal import escape

        # one line each, naming what an image or the cluster holds: its control characters (a line break too)
        # are shown escaped, never written to the terminal
        env.stderr.write(escape(line) + "\n")

    request = VMRequest(
        vm=opts.vm,
        dry_run=opts.create.dry_run,
        checks=not opts.checks.skip_checks,
        resolve_inference=opts.checks.resolve_inference,
        infer_from_image=opts.checks.infer_from_image,
        insecure_registry=opts.checks.insecure_registry,
        random_suffix=env.random_suffix,
        read_file=env.read_file,
    )
    print_created(env, create_vm_from_flags(session, request, report=report), opts.create.output)
