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
    from ..errors import PreflightError, UsageError
    from ..instancetype.createvm import INSTANCETYPE_KINDS, PREFERENCE_KINDS, normalize_kind
    from ..instancetype.expand import preflight
    from ..instancetype.expand.resolve import ResolveError, find_spec
    from ..instancetype.expand.revisions import SPEC_REVISIONS, STATUS_REFS, server_flavour, switched
    from ..kube.client import connect
    from ..kube.resources import BY_LOWERCASE_KIND, VIRTUAL_MACHINES
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
    with connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
    ) as client:
        vm = client.get(VIRTUAL_MACHINES, name, client.namespace)
        flavour = server_flavour(vm)
        updated, cleared = vm, []
        for key, object_name, kind in changes:
            updated, was_cleared = switched(updated, key, object_name, kind)
            if was_cleared:
                cleared.append(key)

        def fetch(fetch_kind, fetch_name, fetch_namespace):
            from ..errors import NotFoundError

            resource = BY_LOWERCASE_KIND[fetch_kind.lower()]
            try:
                return client.get(resource, fetch_name, fetch_namespace if resource.namespaced else None)
            except NotFoundError:
                return None

        if not skip_checks:
            try:
                # the unchanged matcher keeps its revision; the new one resolves to the live object
                specs = [find_spec(updated, key, fetch)[0] for key in ("instancetype", "preference")]
            except ResolveError as exc:
                raise PreflightError(str(exc)) from exc
            problems = preflight(updated, specs[0], specs[1])
            if problems:
                for problem in problems[:-1]:
                    env.stderr.write(f"error: {problem}\n")
                raise PreflightError(problems[-1])
        for key in cleared:
            what = "written by the controller (KubeVirt v1.4 or older)" if flavour == SPEC_REVISIONS else "pinned"
            messages.info(env, f"clearing spec.{key}.revisionName ({what}) so that the new {key} is taken")
        if flavour == STATUS_REFS and verbosity:
            messages.info(env, "the cluster records revisions in status (KubeVirt v1.5+); it stores the new one itself")
        summary = ", ".join(f"{key} {_describe(vm, key)} -> {_describe(updated, key)}" for key, _, _ in changes)
        if dry_run:
            env.stdout.write(f"virtualmachine.kubevirt.io/{name} would switch: {summary} (dry run)\n")
            return
        client.transport.request("PUT", VIRTUAL_MACHINES.path(vm["metadata"].get("namespace"), name), updated)
    env.stdout.write(f"virtualmachine.kubevirt.io/{name} switched: {summary}\n")


def _describe(vm, key: str) -> str:
    matcher = (vm.get("spec") or {}).get(key)
    if not matcher:
        return "(none)"
    kind = matcher.get("kind")
    return f"{kind}/{matcher.get('name')}" if kind else str(matcher.get("name") or "(inferred)")
