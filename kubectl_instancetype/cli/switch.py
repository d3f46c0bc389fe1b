"""``kubectl instancetype switch vm/NAME --instancetype X [--preference Y] [--plan|--wait] | --refresh``.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

from typing import Annotated, Optional

import typer

from . import options

HELP = """Switch a VirtualMachine to another instance type and/or preference, saying first what KubeVirt will do
with it.

Before anything is written the new instance type and preference are read and the VM is checked as KubeVirt's
admission would (conflicts with the VM, spread divisibility, preference requirements). Then the plan: which
fields of the VM's template change (sockets, cores, memory, dedicated CPUs, hugepages, node selector...) and,
for a running VM, whether each one is hot-plugged or waits for a restart, with the RestartRequired message
KubeVirt's controller will set (its rules: only sockets within maxSockets, guest memory within maxGuest on a
migratable VM, node selector, affinity and tolerations change live under the LiveUpdate rollout strategy, read
from the KubeVirt CR). A stopped VM gets the new values when it starts.

The VM is then updated the way the server expects: the matcher's name (and kind) change, and a set
revisionName is cleared, since KubeVirt rejects a new name with the old revisionName. With --wait the command
waits (at most --timeout) for the controller and reports what it did: the new ControllerRevision, the
RestartRequired condition, the VMI's hot-plug conditions, and whether that matches the plan.

--refresh moves a VM to the current generation of the types it already names (KubeVirt keeps the revision it
stored until the matcher's name, kind or inferFromVolume changes): a ControllerRevision of the current object
is stored as KubeVirt stores it and pinned; once the controller records it, the pin is removed.

\b
Examples:
  kubectl instancetype switch vm/my-vm --instancetype u1.large --plan
  kubectl instancetype switch vm/my-vm --instancetype u1.large --wait
  kubectl instancetype switch vm/my-vm --instancetype virtualmachineinstancetype/custom --preference rhel.9
  kubectl instancetype switch vm/my-vm --refresh --wait
  kubectl instancetype switch vm/my-vm --instancetype u1.2xlarge --plan -o yaml"""

PLAN_FORMATS = ("", "yaml", "json")


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
    refresh: Annotated[
        bool,
        typer.Option("--refresh", help="Move the VM to the current generation of the types it already names."),
    ] = False,
    plan_only: Annotated[
        bool, typer.Option("--plan", help="Print what KubeVirt will do with the VM; write nothing.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="The same as --plan.")] = False,
    wait: Annotated[
        bool,
        typer.Option("--wait", help="After writing, wait for the controller and report what it did."),
    ] = False,
    timeout: Annotated[
        str,
        typer.Option("--timeout", metavar="DURATION", help="How long --wait waits (30s, 2m)."),
    ] = "60s",
    output: Annotated[
        str,
        typer.Option("-o", "--output", metavar="FORMAT", help="yaml or json: the plan (and outcome) as data."),
    ] = "",
    skip_checks: Annotated[
        bool, typer.Option("--skip-checks", help="Do not check the new combination before writing.")
    ] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Plan, then (unless --plan) write and optionally wait."""
    import time

    from ..errors import PluginError, UsageError
    from ..golang.duration import DurationError, parse_duration
    from ..instancetype.createvm import INSTANCETYPE_KINDS, PREFERENCE_KINDS, normalize_kind
    from ..instancetype.expand.revisions import SPEC_REVISIONS
    from ..kube.client import connect
    from ..output import messages
    from ..output.printers import check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    name = options.vm_target(target, "switch")
    check_output_format(output, PLAN_FORMATS)
    if refresh and (instancetype is not None or preference is not None):
        raise UsageError("--refresh keeps the types the VM names: give it without --instancetype and --preference")
    if not refresh and instancetype is None and preference is None:
        raise UsageError("nothing to switch: give --instancetype and/or --preference, or --refresh")
    plan_only = plan_only or dry_run
    if wait and plan_only:
        raise UsageError("--wait waits for a write: it cannot go with --plan or --dry-run")
    try:
        wait_seconds = parse_duration(timeout) / 1e9
    except DurationError as exc:
        raise UsageError(f'invalid argument "{timeout}" for "--timeout" flag: {exc}') from None
    if wait_seconds < 0:
        raise UsageError(f'invalid argument "{timeout}" for "--timeout" flag: must not be negative')
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
    from ..output.switchplan import outcome_document, plan_document, render_outcome, render_plan
    from ..usecases.switching import apply_switch, observe, plan_switch, unpin_refreshed

    with connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
    ) as client:
        plan = plan_switch(client, name, changes, check=not skip_checks, refresh=refresh)
        document = plan_document(plan)
        for warning in plan.warnings:
            messages.warn(env, warning)
        for change in plan.changes:
            if change.cleared_revision:
                what = (
                    "written by the controller (KubeVirt v1.4 or older)" if plan.flavour == SPEC_REVISIONS else "pinned"
                )
                messages.info(
                    env, f"clearing spec.{change.key}.revisionName ({what}) so that the new {change.key} is taken"
                )
        if not output:
            env.stdout.write(render_plan(plan))
        if plan_only or plan.noop:
            if output:
                _print_document(env, output, document)
            elif plan.noop:
                env.stdout.write(f"virtualmachine.kubevirt.io/{name} unchanged\n")
            return
        written = apply_switch(client, plan)
        summary = ", ".join(f"{c.key} {c.before} -> {c.after}" for c in plan.changes)
        if not output:
            verb = "refreshed" if refresh else "switched"
            env.stdout.write(f"virtualmachine.kubevirt.io/{name} {verb}: {summary}\n")
        if wait or refresh:
            outcome = observe(
                client,
                plan,
                written,
                timeout=wait_seconds if wait else min(wait_seconds, 10.0),
                clock=env.clock,
                sleep=time.sleep,
            )
            if refresh and plan.refresh:
                unpinned = unpin_refreshed(client, plan, _vm(client, plan))
                if unpinned is None:
                    messages.warn(
                        env,
                        "the controller has not recorded the refreshed revisions yet: spec.*.revisionName stays "
                        "pinned to them (KubeVirt honours it; clear it once status.*Ref names them)",
                    )
            if wait:
                document["outcome"] = outcome_document(outcome)
                if not output:
                    env.stdout.write(render_outcome(plan, outcome, timeout))
                if outcome.timed_out:
                    if output:
                        _print_document(env, output, document)
                    raise PluginError(
                        f"timed out after {timeout} waiting for the controller; see kubectl get vm {name} -o yaml"
                    )
        if output:
            _print_document(env, output, document)


def _vm(client, plan):
    from ..kube.resources import VIRTUAL_MACHINES

    return client.get(VIRTUAL_MACHINES, plan.name, plan.namespace)


def _print_document(env, output: str, document) -> None:
    import json

    if output == "json":
        env.stdout.write(json.dumps(document, indent=4) + "\n")
    else:
        from ..output.goyaml import dump

        env.stdout.write(dump(document))
