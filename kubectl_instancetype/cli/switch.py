"""``kubectl instancetype switch vm/NAME --instancetype X [--preference Y] [--plan|--wait] | --refresh``.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
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


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("switch", help=HELP, short_help="Switch a VirtualMachine to another instance type or preference.")(
        options.command(SwitchOptions, run)
    )


@options.dataclass
class SwitchOptions:
    """Plan, then (unless --plan) write and optionally wait."""

    target: Annotated[str, typer.Argument(metavar="vm/NAME", help="A stored VirtualMachine.", show_default=False)]
    instancetype: Annotated[Optional[str], options.reference_option("--instancetype", "The new instance type.")] = None
    preference: Annotated[Optional[str], options.reference_option("--preference", "The new preference.")] = None
    refresh: Annotated[
        bool,
        options.bool_option("--refresh", help="Move the VM to the current generation of the types it already names."),
    ] = False
    plan_only: Annotated[
        bool, options.bool_option("--plan", help="Print what KubeVirt will do with the VM; write nothing.")
    ] = False
    dry_run: Annotated[bool, options.bool_option("--dry-run", help="The same as --plan.")] = False
    wait: Annotated[
        bool, options.bool_option("--wait", help="After writing, wait for the controller and report what it did.")
    ] = False
    timeout: Annotated[
        str, options.value_option("--timeout", metavar="DURATION", help="How long --wait waits (30s, 2m).")
    ] = "60s"
    output: Annotated[
        str,
        options.output_option(
            help="yaml, json or a kubectl template (jsonpath=..., go-template=...): the plan (and outcome) as data."
        ),
    ] = ""
    skip_checks: Annotated[
        bool, options.bool_option("--skip-checks", help="Do not check the new combination before writing.")
    ] = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    name: str = dataclasses.field(init=False, default="")
    changes: list = dataclasses.field(init=False, default_factory=list)
    wait_seconds: float = dataclasses.field(init=False, default=0.0)

    def validate(self) -> None:
        """The flags go together; the timeout is a duration; the kinds are instance type / preference kinds."""
        from ..errors import UsageError
        from ..golang.duration import DurationError, parse_duration
        from ..instancetype.kinds import matcher_kind, singulars
        from ..output.printers import DOCUMENT_FORMATS, check_output_format
        from ..usecases.switching import MatcherTarget

        self.name = options.vm_target(self.target, "switch")
        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        if self.refresh and (self.instancetype is not None or self.preference is not None):
            raise UsageError("--refresh keeps the types the VM names: give it without --instancetype and --preference")
        if not self.refresh and self.instancetype is None and self.preference is None:
            raise UsageError("nothing to switch: give --instancetype and/or --preference, or --refresh")
        self.plan_only = self.plan_only or self.dry_run
        if self.wait and self.plan_only:
            raise UsageError("--wait waits for a write: it cannot go with --plan or --dry-run")
        try:
            self.wait_seconds = parse_duration(self.timeout) / 1e9
        except DurationError as exc:
            raise UsageError(f'invalid argument "{self.timeout}" for "--timeout" flag: {exc}') from None
        if self.wait_seconds < 0:
            raise UsageError(f'invalid argument "{self.timeout}" for "--timeout" flag: must not be negative')
        for key, value in (("instancetype", self.instancetype), ("preference", self.preference)):
            if value is None:
                continue
            prefix, _, object_name = value.rpartition("/")
            kind = matcher_kind(prefix, key, short_names=True)
            if kind is None or not object_name:
                raise UsageError(f'--{key}: "{value}" is not [KIND/]NAME with KIND one of {", ".join(singulars(key))}')
            self.changes.append(MatcherTarget(key, object_name, kind.singular if prefix else ""))


def run(env, opts: SwitchOptions, session) -> None:
    """Plan, print, write, wait."""
    import time

    from ..errors import PluginError
    from ..instancetype.expand.revisions import SPEC_REVISIONS
    from ..output import messages
    from ..output.switchplan import outcome_document, plan_document, render_outcome, render_plan
    from ..output.terminal import escape
    from ..usecases.switching import SwitchRequest, switch

    def show_plan(plan) -> None:
        for warning in plan.warnings:
            messages.warn(env, warning)
        for change in plan.changes:
            if change.cleared_revision:
                # Only KubeVirt v1.4 and older write revisionName; on v1.5+ a user pins it. The VM alone cannot
                # tell the two apart without status references, so neither is claimed then.
                what = (
                    "written by the controller on KubeVirt v1.4 or older, or pinned"
                    if plan.flavour == SPEC_REVISIONS
                    else "pinned"
                )
                messages.info(
                    env, f"clearing spec.{change.key}.revisionName ({what}) so that the new {change.key} is taken"
                )
        if not opts.output:
            env.stdout.write(render_plan(plan))

    def say_written(plan) -> None:
        if not opts.output:
            summary = ", ".join(f"{c.key} {c.before} -> {c.after}" for c in plan.changes)
            verb = "refreshed" if opts.refresh else "switched"
            env.stdout.write(escape(f"virtualmachine.kubevirt.io/{opts.name} {verb}: {summary}") + "\n")

    request = SwitchRequest(
        name=opts.name,
        changes=tuple(opts.changes),
        check=not opts.skip_checks,
        refresh=opts.refresh,
        plan_only=opts.plan_only,
        wait=opts.wait,
        wait_seconds=opts.wait_seconds,
        clock=env.clock,
        sleep=time.sleep,
    )
    result = switch(session, request, planned=show_plan, written=say_written)
    plan = result.plan
    if plan.noop and not opts.refresh:
        # kubectl apply's word for an object left as it is; nothing is sent
        dry = " (dry run)" if opts.plan_only else ""
        env.stdout.write(escape(f"virtualmachine.kubevirt.io/{opts.name} unchanged{dry}") + "\n")
        return
    document = plan_document(plan)
    if result.written is None:  # --plan, or a refresh with nothing to refresh
        if opts.output:
            _print_document(env, opts.output, document)
        elif plan.noop:
            env.stdout.write(escape(f"virtualmachine.kubevirt.io/{opts.name} unchanged") + "\n")
        return
    if result.pins_kept:
        messages.warn(
            env,
            "the controller has not recorded the refreshed revisions yet: spec.*.revisionName stays "
            "pinned to them (KubeVirt honours it; clear it once status.*Ref names them)",
        )
    if opts.wait and result.outcome is not None:
        outcome = result.outcome
        document["outcome"] = outcome_document(outcome)
        if not opts.output:
            env.stdout.write(render_outcome(plan, outcome, opts.timeout))
        if outcome.timed_out:
            if opts.output:
                _print_document(env, opts.output, document)
            raise PluginError(
                f"timed out after {opts.timeout} waiting for the controller; see kubectl get vm {opts.name} -o yaml"
            )
    if opts.output:
        _print_document(env, opts.output, document)


def _print_document(env, output: str, document) -> None:
    from ..output.printers import print_document

    print_document(env, output, document)
