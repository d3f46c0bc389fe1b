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

        vm = client.get(VIRTUAL_MACHINES, name, client.namespace)
        reports = [_report(client, vm, key) for key in ("instancetype", "preference")]
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
    for report in reports:
        if report and report["diff"]:
            env.stdout.write("\n" + report["diff"])


def _report(client, vm, key: str):
    """One table row (and the spec diff when the live object changed) for matcher ``spec.<key>``."""
    from ..errors import NotFoundError
    from ..instancetype.expand.resolve import ResolveError, matcher_kind, revision_spec
    from ..instancetype.expand.revisions import (
        FROM_STATUS,
        KIND_LABEL,
        revision_generation,
        revision_in_use,
        revision_matches,
    )
    from ..kube.resources import BY_KIND, CONTROLLER_REVISIONS

    matcher = (vm.get("spec") or {}).get(key)
    if matcher is None:
        return None
    namespace = vm["metadata"].get("namespace")
    name = str(matcher.get("name") or "")
    try:
        kind = matcher_kind(key, str(matcher.get("kind") or ""))
    except ResolveError:
        kind = str(matcher.get("kind"))
    revision_name, recorded_in = revision_in_use(vm, key)
    row = [key, kind.lower(), name or f"(inferFromVolume {matcher.get('inferFromVolume')})", "-", "-", "-", "-", "-"]
    live = None
    if name and kind in BY_KIND:
        resource = BY_KIND[kind]
        try:
            live = client.get(resource, name, namespace if resource.namespaced else None)
            row[6] = str((live.get("metadata") or {}).get("generation", "-"))
        except NotFoundError:
            row[6] = "not found"
    if not revision_name:
        return {"row": row, "diff": ""}
    row[3], row[4] = revision_name, recorded_in
    try:
        revision = client.get(CONTROLLER_REVISIONS, revision_name, namespace)
    except NotFoundError:
        row[5] = "not found"
        return {"row": row, "diff": ""}
    if recorded_in == FROM_STATUS and not revision_matches(vm, key, revision):
        # KubeVirt ignores it: the matcher was switched since it was stored
        labels = (revision.get("metadata") or {}).get("labels") or {}
        row[4] = f"status (stale: for {labels.get('instancetype.kubevirt.io/object-name', '?')})"
        return {"row": row, "diff": ""}
    generation = revision_generation(revision)
    row[5] = "-" if generation is None else str(generation)
    stored = revision_spec(revision)
    kind_label = ((revision.get("metadata") or {}).get("labels") or {}).get(KIND_LABEL)
    if kind_label and row[1] == "-":
        row[1] = kind_label.lower()
    if live is None:
        return {"row": row, "diff": ""}
    changed = (live.get("spec") or {}) != stored
    row[7] = "yes" if changed else "no"
    diff = _spec_diff(stored, live.get("spec") or {}, revision_name, f"{kind.lower()}/{name}") if changed else ""
    return {"row": row, "diff": diff}


def _spec_diff(stored, live, revision_name: str, live_name: str) -> str:
    import difflib

    from ..output.goyaml import dump

    return "".join(
        difflib.unified_diff(
            dump(stored).splitlines(keepends=True),
            dump(live).splitlines(keepends=True),
            f"controllerrevision/{revision_name} spec",
            f"{live_name} spec (live)",
        )
    )
