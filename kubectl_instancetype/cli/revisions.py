"""``kubectl instancetype revisions vm/NAME``: the ControllerRevisions a VM's instance type and preference use.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated

import typer

from . import options

HELP = """Show which instance type and preference revision a VirtualMachine uses, and whether the live object
changed since.

KubeVirt stores the instance type and preference a VM started with in ControllerRevisions: the matcher's
revisionName when set (KubeVirt v1.4 and older write it; users pin one), else status.instancetypeRef /
status.preferenceRef (v1.5+), which counts only while it was stored for the matcher's current name. For each
matcher this prints the revision, the generation of the object it holds and the live object's generation;
below the table, notes saying in words what a "-", "not found" or stale reference means (no revision stored
yet; a status reference stored for the name the matcher had before a switch, which KubeVirt ignores), then a unified diff of the stored spec against the live one for every object that changed.

\b
Examples:
  kubectl instancetype revisions vm/my-vm
  kubectl instancetype revisions vm/my-vm -n prod
  kubectl instancetype revisions vm/my-vm -o jsonpath='{.items[*].revision}'"""

HEADERS = ("MATCHER", "KIND", "NAME", "REVISION", "RECORDED IN", "STORED GEN", "LIVE GEN", "CHANGED")
FLAVOURS = {"status-refs": "status references (KubeVirt v1.5+)", "spec-revision-name": "spec revisionName"}


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("revisions", help=HELP, short_help="Show the ControllerRevisions a VirtualMachine uses.")(
        options.command(RevisionsOptions, run)
    )


@options.dataclass
class RevisionsOptions:
    """Print a table of the VM's matchers and their revisions, then the spec diffs of changed objects."""

    target: Annotated[str, typer.Argument(metavar="vm/NAME", help="A stored VirtualMachine.", show_default=False)]
    output: Annotated[
        str,
        options.output_option(
            help="yaml, json or a kubectl template (jsonpath=..., go-template=..., custom-columns=...): the rows as data."
        ),
    ] = ""
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    name: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        """The argument names a VirtualMachine."""
        from ..output.printers import DOCUMENT_FORMATS, check_output_format

        check_output_format(self.output, ("", *DOCUMENT_FORMATS))
        self.name = options.vm_target(self.target, "revisions")


def run(env, opts: RevisionsOptions, session) -> None:
    """Read the revisions and print them."""
    from ..output import messages
    from ..output.table import render_table
    from ..usecases.revisions import vm_revisions

    result = vm_revisions(session, opts.name)
    if opts.output:
        from ..output.printers import print_document
        from ..output.revisions import revisions_document

        print_document(env, opts.output, revisions_document(result, session.namespace, FLAVOURS))
        return
    if not result.matchers:
        messages.info(env, f"virtualmachine/{result.name} has no instance type and no preference")
        return
    rows = [
        (m.matcher, m.kind, m.name, m.revision, m.recorded_in, m.stored_generation, m.live_generation, m.changed)
        for m in result.matchers
    ]
    env.stdout.write(render_table(HEADERS, rows))
    if result.flavour in FLAVOURS:
        env.stdout.write(f"\nRevisions recorded in: {FLAVOURS[result.flavour]}\n")
    from ..output.terminal import escape_lines

    notes = [f"  {m.matcher}: {note}" for m in result.matchers for note in m.notes]
    if notes:
        env.stdout.write("\nNotes:\n" + escape_lines("\n".join(notes) + "\n"))
    for matcher in result.matchers:
        if matcher.diff:
            env.stdout.write("\n" + escape_lines(matcher.diff))
