"""``kubectl instancetype usage [TYPE/NAME] [--check-delete]``: who uses which instance type and preference.

(The module is ``usage_cmd``: ``cli/usage.py`` words Click's usage errors as cobra does.) No
``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

from typing import Annotated, Optional

import typer

from . import options

HELP = """Show which VirtualMachines, VirtualMachinePools and VirtualMachineTemplates use each instance type and
preference, and the ControllerRevisions that hold copies of them.

A VM uses an object through its matcher, by name or through inferFromVolume; pools and templates (read when
the cluster serves them; a template's ${PARAMETER} takes the parameter's value) through the VM they describe.
For each VM the GENERATION column says whether the revision it runs holds the object's live generation or an
older one (switch --refresh moves it). Without TYPE/NAME, one row per object in scope with the counts and
the vCPUs and memory of the VMs (every pool replica) using each instance type.

--check-delete TYPE/NAME lists what deleting the object (or a controllerrevision/NAME) would break and exits
non-zero while anything still needs it: a VM without a stored copy stops with FailedFindInstancetype, a pool
cannot create replicas, a template cannot make VMs; a VM on a stored copy keeps running but cannot switch back
or refresh. Deleting a ControllerRevision a VM records sends the VM back to the live object.

\b
Examples:
  kubectl instancetype usage -A
  kubectl instancetype usage virtualmachineclusterinstancetype/u1.small -A
  kubectl instancetype usage vmcf/u1.small --check-delete -A
  kubectl instancetype usage controllerrevision/my-vm-u1.small-v1beta1-0e1f-1 --check-delete
  kubectl instancetype usage -A -o yaml"""

FORMATS = ("", "yaml", "json")
KINDS = {
    "VirtualMachineInstancetype": ("virtualmachineinstancetype", "vminstancetype", "vmf"),
    "VirtualMachineClusterInstancetype": ("virtualmachineclusterinstancetype", "vmclusterinstancetype", "vmcf"),
    "VirtualMachinePreference": ("virtualmachinepreference", "vmpref", "vmp"),
    "VirtualMachineClusterPreference": ("virtualmachineclusterpreference", "vmcp"),
    "ControllerRevision": ("controllerrevision",),
}
SUMMARY_HEADERS = ("NAME", "VMS", "RUNNING", "OLDER", "POOLS", "TEMPLATES", "REVISIONS", "VCPUS", "MEMORY")
DETAIL_HEADERS = ("USER", "NAMESPACE", "VIA", "REVISION", "GENERATION", "VCPUS", "MEMORY")


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("usage", help=HELP, short_help="Show who uses which instance type and preference.")(usage_command)


def parse_target(text: str) -> tuple[str, str]:
    """(kind, name) of TYPE/NAME: the kinds' singular, plural, short names and ``.instancetype.kubevirt.io``."""
    from ..errors import UsageError

    word, slash, name = text.partition("/")
    lowered = word.lower().removesuffix(".instancetype.kubevirt.io").removesuffix(".apps")
    for kind, spellings in KINDS.items():
        if lowered in spellings or (lowered.endswith("s") and lowered[:-1] in spellings):
            if not slash or not name:
                raise UsageError(f"resource name may not be empty ({word}/NAME)")
            return kind, name
    known = ", ".join(spellings[0] for spellings in KINDS.values())
    raise UsageError(f'usage takes TYPE/NAME with TYPE one of {known}, not "{text}"')


def usage_command(
    ctx: typer.Context,
    target: Annotated[
        Optional[str],
        typer.Argument(metavar="[TYPE/NAME]", help="One instance type or preference.", show_default=False),
    ] = None,
    all_namespaces: Annotated[
        bool, typer.Option("-A", "--all-namespaces", help="Look at every namespace, not only the current one.")
    ] = False,
    check_delete: Annotated[
        bool,
        typer.Option(
            "--check-delete", help="List what deleting TYPE/NAME would break; exit 1 while anything needs it."
        ),
    ] = False,
    output: Annotated[str, typer.Option("-o", "--output", metavar="FORMAT", help="yaml or json.")] = "",
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Read the cluster, then print the table, the details of one object, or the delete check."""
    from ..errors import PluginError, UsageError
    from ..instancetype.usage import Target
    from ..kube.client import connect
    from ..output import messages
    from ..output.printers import check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    check_output_format(output, FORMATS)
    chosen = parse_target(target) if target else None
    if check_delete and chosen is None:
        raise UsageError("--check-delete needs the TYPE/NAME it would delete")
    if chosen and chosen[0] == "ControllerRevision" and not check_delete:
        raise UsageError("controllerrevision/NAME goes with --check-delete; to see copies, name their object")
    from ..output import usage as printer
    from ..usecases.usage import collect, revision_users

    with connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
    ) as client:
        scope = None if all_namespaces else client.namespace
        if chosen and chosen[0] == "ControllerRevision":
            users = revision_users(client, chosen[1], client.namespace)
            env.stdout.write(printer.render_revision_check(chosen[1], users))
            if users:
                raise PluginError(
                    f"controllerrevision/{chosen[1]} is recorded by {len(users)} VM(s): deleting it sends them back "
                    "to the live object (or stops them when that is gone)"
                )
            return
        only = None
        if chosen:
            kind, name = chosen
            only = Target(kind, "" if "Cluster" in kind else client.namespace, name)
        report = collect(client, scope, only)
    for warning in report.warnings:
        messages.warn(env, warning)
    if output:
        printer.print_document(env, output, printer.document(report))
    elif check_delete and only is not None:
        env.stdout.write(printer.render_delete_check(report, only))
    elif only is not None:
        env.stdout.write(printer.render_details(report, only))
    else:
        if not report.targets:
            messages.info(env, "No instance types or preferences found")
            return
        env.stdout.write(printer.render_summary(report, all_namespaces))
    if check_delete and only is not None:
        blocking = [use for use in report.uses_of(only) if use.breaks]
        if blocking:
            raise PluginError(
                f"{only} is still used by {len(blocking)} object(s) (listed above): delete or switch them first"
            )
