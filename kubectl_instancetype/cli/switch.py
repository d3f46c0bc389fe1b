"""``kubectl instancetype switch vm/NAME --instancetype X [--preference Y]``.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

from typing import Annotated, Optional

import typer

from . import options

HELP = """Switch a VirtualMachine to another instance type and/or preference, after checking the new combination.

Before anything is written the new instance type and preference are read and the VM is checked as KubeVirt's
admission would (conflicts with the VM, spread divisibility, preference requirements). The VM is then updated
the way the server expects: the matcher's name (and kind) change, and a set revisionName is cleared, since
KubeVirt rejects a new name with the old revisionName ("the Matcher Name has been updated without updating the
RevisionName"). Whether the cluster records revisions in status (KubeVirt v1.5+) or in spec.revisionName
(v1.4 and older) is read from the VM. A running VM takes the new type on its next restart or, with the
LiveUpdate rollout strategy, as a hotplug.

\b
Examples:
  kubectl instancetype switch vm/my-vm --instancetype u1.large
  kubectl instancetype switch vm/my-vm --instancetype virtualmachineinstancetype/custom --preference rhel.9
  kubectl instancetype switch vm/my-vm --instancetype u1.2xlarge --dry-run"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("switch", help=HELP, short_help="Switch a VirtualMachine to another instance type or preference.")(
        switch_command
    )


def switch_command(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="vm/NAME", help="A stored VirtualMachine.", show_default=False)],
    instancetype: Annotated[
        Optional[str],
        typer.Option("--instancetype", metavar="[KIND/]NAME", help="The new instance type.", show_default=False),
    ] = None,
    preference: Annotated[
        Optional[str],
        typer.Option("--preference", metavar="[KIND/]NAME", help="The new preference.", show_default=False),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Check and print the new matchers; write nothing.")
    ] = False,
    skip_checks: Annotated[
        bool, typer.Option("--skip-checks", help="Do not check the new combination before writing.")
    ] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Check the new combination, then update the VM's matchers."""
    from ..errors import UsageError
    from ..instancetype.createvm import INSTANCETYPE_KINDS, PREFERENCE_KINDS, normalize_kind
    from ..instancetype.expand.revisions import SPEC_REVISIONS, STATUS_REFS
    from ..kube.client import connect
    from ..output import messages

    env = ctx.obj
    env.verbosity = verbosity
    name = options.vm_target(target, "switch")
    if instancetype is None and preference is None:
        raise UsageError("nothing to switch: give --instancetype and/or --preference")
    changes = []
    for key, value, kinds in (
        ("instancetype", instancetype, INSTANCETYPE_KINDS),
        ("preference", preference, PREFERENCE_KINDS),
    ):
        if value is None:
            continue
        prefix, _, object_name = value.rpartition("/")
        kind = normalize_kind(prefix, kinds)
        if kind is None or not object_name:
            raise UsageError(f'--{key}: "{value}" is not [KIND/]NAME with KIND one of {", ".join(kinds)}')
        changes.append((key, object_name, kind))
    from ..usecases.revisions import apply_switch, plan_switch

    with connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
        warn=lambda text: messages.warn(env, text),
    ) as client:
        plan = plan_switch(client, name, changes, check=not skip_checks)
        for key in plan.cleared:
            what = "written by the controller (KubeVirt v1.4 or older)" if plan.flavour == SPEC_REVISIONS else "pinned"
            messages.info(env, f"clearing spec.{key}.revisionName ({what}) so that the new {key} is taken")
        if plan.flavour == STATUS_REFS and verbosity:
            messages.info(env, "the cluster records revisions in status (KubeVirt v1.5+); it stores the new one itself")
        summary = ", ".join(
            f"{key} {_describe(plan.vm, key)} -> {_describe(plan.updated, key)}" for key, _, _ in changes
        )
        if dry_run:
            env.stdout.write(f"virtualmachine.kubevirt.io/{name} would switch: {summary} (dry run)\n")
            return
        apply_switch(client, plan)
    env.stdout.write(f"virtualmachine.kubevirt.io/{name} switched: {summary}\n")


def _describe(vm, key: str) -> str:
    matcher = (vm.get("spec") or {}).get(key)
    if not matcher:
        return "(none)"
    kind = matcher.get("kind")
    return f"{kind}/{matcher.get('name')}" if kind else str(matcher.get("name") or "(inferred)")
