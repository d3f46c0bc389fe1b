"""``kubectl instancetype revisions vm/NAME``: the ControllerRevisions a VM's instance type and preference use.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

from typing import Annotated

import typer

from . import options

HELP = """Show which instance type and preference revision a VirtualMachine uses, and whether the live object
changed since.

KubeVirt stores the instance type and preference a VM started with in ControllerRevisions: the matcher's
revisionName when set (KubeVirt v1.4 and older write it; users pin one), else status.instancetypeRef /
status.preferenceRef (v1.5+), which counts only while it was stored for the matcher's current name. For each
matcher this prints the revision, the generation of the object it holds and the live object's generation;
below the table, a unified diff of the stored spec against the live one for every object that changed.

\b
Examples:
  kubectl instancetype revisions vm/my-vm
  kubectl instancetype revisions vm/my-vm -n prod"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("revisions", help=HELP, short_help="Show the ControllerRevisions a VirtualMachine uses.")(
        revisions_command
    )


def revisions_command(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="vm/NAME", help="A stored VirtualMachine.", show_default=False)],
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Print a table of the VM's matchers and their revisions, then the spec diffs of changed objects."""
    from ..kube.client import connect
    from ..output import messages
    from ..output.table import render_table

    env = ctx.obj
    env.verbosity = verbosity
    name = options.vm_target(target, "revisions")
    with connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
    ) as client:
        from ..kube.resources import VIRTUAL_MACHINES
        from ..usecases.revisions import matcher_report

        vm = client.get(VIRTUAL_MACHINES, name, client.namespace)
        reports = [matcher_report(client, vm, key) for key in ("instancetype", "preference")]
    from ..instancetype.expand.revisions import server_flavour

    rows = [report["row"] for report in reports if report]
    if not rows:
        messages.info(env, f"virtualmachine/{name} has no instance type and no preference")
        return
    env.stdout.write(
        render_table(("MATCHER", "KIND", "NAME", "REVISION", "RECORDED IN", "STORED GEN", "LIVE GEN", "CHANGED"), rows)
    )
    flavour = {"status-refs": "status references (KubeVirt v1.5+)", "spec-revision-name": "spec revisionName"}
    if server_flavour(vm) in flavour:
        env.stdout.write(f"\nRevisions recorded in: {flavour[server_flavour(vm)]}\n")
    from ..output.terminal import escape_lines

    for report in reports:
        if report and report["diff"]:
            env.stdout.write("\n" + escape_lines(report["diff"]))
