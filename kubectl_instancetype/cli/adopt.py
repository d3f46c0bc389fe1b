"""``kubectl instancetype adopt vm/NAME | -f FILE [--instancetype X] [--preference Y] [--apply]``.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Move VirtualMachines that set their own CPU, memory and device tuning onto an instance type and a
preference, with the proof that nothing changes.

The instance type is the smallest that fits (recommend's order: vCPUs, memory, overcommit, fewest special
features) among those with the VM's dedicated-CPU and hugepages settings; the preference is named after the
guest OS the VM carries (annotation vm.kubevirt.io/os, os.template.kubevirt.io/* labels, a containerdisk image
name), meets its requirements with that type, and changes the fewest fields. The fields the instance type would
conflict with are removed (KubeVirt's conflict rules); the VM's own device settings stay (a preference only fills
what is unset).

The proof: the original VM and the adopted one are each expanded as KubeVirt expands them and compared field by
field; every field that differs is listed. -o yaml prints the adopted VMs (for kubectl apply -f -). --apply
writes a stored VM: refused while the proof lists changes unless --allow-changes; a running VM gets the
live-update plan first (what is hot-plugged, what waits for a restart). Without --apply and --catalog, each
adopted VM is judged by KubeVirt with a server-side dry run (--offline: not); a VM it denies is not adopted.

\b
Examples:
  kubectl instancetype adopt vm/legacy-db
  kubectl instancetype adopt -f flat-vms.yaml --catalog
  kubectl instancetype adopt vm/legacy-db --instancetype u1.xlarge --preference rhel.9 --apply
  kubectl instancetype adopt -f flat-vms.yaml -o yaml | kubectl apply -f -"""


def optional_value_flags() -> dict:
    """A bare --validate means strict, as kubectl's."""
    return dict(options.VALIDATE_OPTIONAL_VALUE)


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("adopt", help=HELP, short_help="Move flat VirtualMachines onto an instance type and preference.")(
        options.command(AdoptOptions, run)
    )


@options.dataclass
class AdoptOptions:
    """Adopt the VMs; print the choice, the fields removed and the proof (or the adopted VMs)."""

    target: options.VMTarget = None
    filename: Annotated[Optional[str], options.file_option("VirtualMachine manifests; - reads stdin.")] = None
    instancetype: Annotated[Optional[str], options.reference_option("--instancetype", "Use this instance type.")] = None
    preference: Annotated[Optional[str], options.reference_option("--preference", "Use this preference.")] = None
    catalog: Annotated[
        bool,
        options.bool_option(
            "--catalog", help="Choose from the embedded common-instancetypes catalog, not the cluster."
        ),
    ] = False
    apply: Annotated[bool, options.bool_option("--apply", help="Write the adopted VM (vm/NAME only).")] = False
    allow_changes: Annotated[
        bool, options.bool_option("--allow-changes", help="With --apply: write even when the proof lists changes.")
    ] = False
    output: Annotated[
        str,
        options.output_option(
            help="yaml, json, name or a kubectl template (jsonpath=..., go-template=..., custom-columns=...): the adopted VMs."
        ),
    ] = ""
    checks: options.FileChecks = dataclasses.field(default_factory=options.FileChecks)
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)
    name: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        """One source; --apply only for a stored VM."""
        from ..errors import UsageError
        from ..output.printers import PRINT_FORMATS, check_output_format

        check_output_format(self.output, ("", *PRINT_FORMATS))
        if bool(self.target) == bool(self.filename):
            raise UsageError("adopt takes vm/NAME or -f FILE")
        if self.target:
            self.name = options.vm_target(self.target, "adopt")
        if self.apply and self.filename:
            raise UsageError("--apply writes stored VMs: use vm/NAME, or pipe -o yaml into kubectl apply -f -")
        if self.allow_changes and not self.apply:
            raise UsageError("--allow-changes goes with --apply")


def run(env, opts: AdoptOptions, session) -> None:
    """Adopt, print, write."""
    from ..errors import PluginError
    from ..output import adopt as printer
    from ..output import messages
    from ..usecases.adopting import AdoptRequest, adopt

    report = adopt(
        session,
        AdoptRequest(
            name=opts.name,
            filename=opts.filename,
            stdin=env.stdin,
            catalog=opts.catalog,
            instancetype=opts.instancetype,
            preference=opts.preference,
            apply=opts.apply,
            allow_changes=opts.allow_changes,
            validation=opts.checks.validation,
            offline=opts.checks.offline,
            warn=lambda line: messages.warn(env, line),
        ),
    )
    for warning in report.warnings:
        if warning.startswith("checked offline"):
            messages.info(env, warning)
        else:
            messages.warn(env, warning)
    if opts.output:
        printer.print_vms(env, opts.output, [a.vm for a in report.adoptions if a.vm is not None])
    else:
        env.stdout.write(printer.render(report))
    failed = [a for a in report.adoptions if a.vm is None]
    if failed:
        raise PluginError(f"{len(failed)} of {len(report.adoptions)} VM(s) could not be adopted (see above)")
