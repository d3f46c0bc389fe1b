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
  kubectl instancetype fleet diff --exit-code -o json"""

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

    def validate(self) -> None:
        """-o, and the kinds."""
        if self.output not in ("", "json", "yaml", "diff"):
            raise options.UsageError(
                f'unable to match a printer suitable for the output format "{self.output}", '
                "allowed formats are: json,yaml,diff"
            )
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

    found = fleet_diff(opts.connection.fleet(env), FleetDiffRequest(opts.kinds, opts.all_namespaces))
    print_fleet_diff(env, found, opts.output)
    if found.failed:
        return 1
    return 1 if opts.exit_code and found.findings else 0
