"""``kubectl instancetype fleet diff``: instance types and preferences compared across kubeconfig contexts.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from ..instancetype import kinds as type_kinds
from . import options

HELP = """List, per instance type and preference, the kubeconfig contexts where it is missing, where its fields
differ (as catalog diff compares them: labels, annotations and spec, without deployment metadata), or where it
comes from another common-instancetypes release (the instancetype.kubevirt.io/common-instancetypes-version label).

Each context is compared with the first context (in the kubeconfig's order) that has the object. Without
--context, --contexts or --all-contexts, every context of the kubeconfig is compared. Namespaced kinds are read in
each context's namespace (-n: that one; -A: every namespace). A context that cannot be read gives one warning
and is left out of the comparison; the exit status is then 1.

\b
Examples:
  kubectl instancetype fleet diff
  kubectl instancetype fleet diff --contexts '^prod-' --kind vmcf
  kubectl instancetype fleet diff -o diff
  kubectl instancetype fleet diff --exit-code -o json
  kubectl instancetype fleet diff vm/my-vm --to prod-eu

With vm/NAME --to CONTEXT: whether the VM (in the current context, or --context) could be recreated or migrated
in CONTEXT as it is: its instance type and preference exist there with the spec KubeVirt stored for the VM (its
ControllerRevisions), its preference's requirements hold with the target's objects, and a node there can take
it now (as kubectl instancetype fits judges it).
"""

KIND_HELP = "Only these kinds (vmcf, vmf, vmcp, vmp or their long names; repeatable or comma-separated)."
# cluster-scoped kinds first, then the namespaced ones (instancetype/kinds.py)
ALL_KINDS = tuple(kind.kind for kind in sorted(type_kinds.ALL, key=lambda kind: kind.namespaced))


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``diff`` to the ``fleet`` group."""
    group.command("diff", help=HELP, short_help="Compare instance types and preferences across contexts.")(
        options.command(FleetDiffOptions, run)
    )


@options.dataclass
class FleetDiffOptions:
    """Compare the contexts."""

    target: Annotated[
        Optional[str],
        typer.Argument(metavar="[vm/NAME]", help="A VirtualMachine to check against --to.", show_default=False),
    ] = None
    to: Annotated[
        Optional[str],
        typer.Option(
            "--to", metavar="CONTEXT", help="With vm/NAME: the context to check it against.", show_default=False
        ),
    ] = None
    kind: Annotated[Optional[list[str]], typer.Option("--kind", metavar="KIND", help=KIND_HELP)] = None
    all_namespaces: Annotated[
        bool, typer.Option("-A", "--all-namespaces", help="Namespaced kinds from every namespace.")
    ] = False
    exit_code: Annotated[bool, typer.Option("--exit-code", help="Exit with 1 when there are differences.")] = False
    output: Annotated[
        str,
        options.output_option(help="json or yaml (the findings as data), or diff (unified diffs, as catalog diff)."),
    ] = ""
    connection: options.FleetFlags = dataclasses.field(default_factory=options.FleetFlags)
    kinds: tuple = dataclasses.field(init=False, default=ALL_KINDS)
    vm: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        """-o, and the kinds."""
        if self.output not in ("", "json", "yaml", "diff"):
            raise options.UsageError(
                f'unable to match a printer suitable for the output format "{self.output}", '
                "allowed formats are: json,yaml,diff"
            )
        if self.target is not None:
            self.vm = options.vm_target(self.target, "fleet diff")
            if not self.to:
                raise options.UsageError("fleet diff vm/NAME needs --to CONTEXT: the context to check the VM against")
            if self.output == "diff" or self.kind or self.all_namespaces:
                raise options.UsageError("fleet diff vm/NAME takes --to and -o json|yaml only")
        elif self.to:
            raise options.UsageError("--to goes with vm/NAME: fleet diff vm/NAME --to CONTEXT")
        if self.kind:
            words = [word.strip() for value in self.kind for word in value.split(",") if word.strip()]
            kinds = []
            for word in words:
                kind, _ = options.type_target(f"{word}/x", "fleet diff --kind")
                kinds.append(kind)
            self.kinds = tuple(kind for kind in ALL_KINDS if kind in kinds)


def run(env, opts: FleetDiffOptions, session) -> int:
    """Compare and print; 1 when a context failed, or (--exit-code) when anything differs."""
    from ..output.fleet_diff import print_fleet_diff
    from ..usecases.fleet_diff import FleetDiffRequest, fleet_diff

    if opts.vm:
        from ..output.fleet_diff import print_transfer
        from ..usecases.vm_transfer import vm_transfer

        fleet = opts.connection.fleet(env)
        target = str(opts.to)
        transfer = vm_transfer(session, fleet.target(target), opts.vm, target)
        print_transfer(env, transfer, opts.output)
        return 1 if opts.exit_code and not transfer.ready else 0

    found = fleet_diff(opts.connection.fleet(env), FleetDiffRequest(opts.kinds, opts.all_namespaces))
    print_fleet_diff(env, found, opts.output)
    if found.failed:
        return 1
    return 1 if opts.exit_code and found.findings else 0
