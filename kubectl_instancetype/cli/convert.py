"""``kubectl instancetype convert``: legacy flavors, alpha objects, ``spec.flavor`` VMs and presets to v1beta1."""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

EXAMPLES = """\
  # Convert flavors, v1alpha1/v1alpha2 objects and VMs using spec.flavor; print the v1beta1 objects
  kubectl instancetype convert -f old.yaml

  # Convert presets and the VMs or VMIs of the same file; report which of them each preset matches
  kubectl instancetype convert -f presets-and-vms.yaml

  # Convert presets and report which VMs of another file they match, with the conflicts KubeVirt would have reported
  kubectl instancetype convert -f presets.yaml --vms vms.yaml

  # The same against the VMs of the current namespace: check everything, create the converted objects and
  # point the VMs the presets applied to at them
  kubectl instancetype convert -f presets.yaml --from-cluster --apply
"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "convert",
        help="Convert flavor.kubevirt.io/v1alpha1 flavors and preferences, instancetype.kubevirt.io "
        "v1alpha1/v1alpha2 objects, VirtualMachines using spec.flavor and VirtualMachineInstancePresets to "
        "instancetype.kubevirt.io/v1beta1 objects and kubevirt.io/v1 VirtualMachines (spec.running becomes "
        "spec.runStrategy; deprecated preference spellings are rewritten as lint --fix rewrites them). Fields "
        "without a v1beta1 home are named in Warning lines on stderr. VMs a preset applied to are rewritten to "
        "reference what it became (--keep-preset-vms leaves them). Nothing is created unless --apply, which "
        "checks everything first (a server-side dry run of every object, KubeVirt's conflicts between each VM "
        "and its new types) and writes nothing when anything would be refused.\n\nExamples:\n\n"
        # "\b" keeps Click from rewrapping each example paragraph.
        + "\n\n".join("\b\n" + paragraph for paragraph in EXAMPLES.strip("\n").split("\n\n")),
        short_help="Convert legacy flavors, alpha objects and presets to v1beta1.",
    )(options.command(ConvertOptions, run))


@options.dataclass
class ConvertOptions:
    """Convert the objects in ``--filename``; print them, or create them with ``--apply``."""

    filename: Annotated[
        str,
        typer.Option(
            "-f",
            "--filename",
            metavar="FILE",
            help="The objects to convert: a YAML or JSON file (a List too), a directory of them, or - for stdin.",
        ),
    ]
    output: Annotated[
        str,
        options.output_option(
            help="Output format: yaml, json, or a kubectl template (jsonpath=..., go-template=..., custom-columns=...)."
        ),
    ] = "yaml"
    vms: Annotated[
        Optional[str],
        typer.Option(
            "--vms", metavar="FILE", help="VirtualMachines to match the presets against (YAML, JSON or a List)."
        ),
    ] = None
    from_cluster: Annotated[
        bool,
        options.bool_option("--from-cluster", help="Match the presets against the VirtualMachines of the namespace."),
    ] = False
    apply: Annotated[
        bool,
        options.bool_option(
            "--apply", help="Check everything with a server-side dry run, then create the converted objects."
        ),
    ] = False
    keep_preset_vms: Annotated[
        bool,
        options.bool_option(
            "--keep-preset-vms",
            help="Leave the VMs a preset applied to as they are (they are rewritten to reference the converted types).",
        ),
    ] = False
    memory: Annotated[
        Optional[str],
        options.path_option(
            "--memory", metavar="QUANTITY", help="memory.guest for flavors that have none (v1beta1 requires it)."
        ),
    ] = None
    offline: options.Offline = False
    connection: options.ConnectionFlags = dataclasses.field(default_factory=options.ConnectionFlags)

    def validate(self) -> None:
        """-o is yaml or json; --vms or --from-cluster; --memory is a quantity (written canonical)."""
        from ..output.printers import TEMPLATE_FORMATS, check_output_format

        check_output_format(self.output, ("yaml", "json", *TEMPLATE_FORMATS))
        if self.vms and self.from_cluster:
            raise options.UsageError("--vms and --from-cluster cannot be used together")
        if self.memory is not None:
            from ..golang.quantity import canonical_quantity, is_quantity

            if not is_quantity(self.memory):
                raise options.UsageError(
                    f"invalid argument {self.memory!r} for --memory: quantities must match the regular expression"
                )
            self.memory = canonical_quantity(self.memory)


def run(env, opts: ConvertOptions, session) -> None:
    """Convert, warn, report the presets' matches, then print the objects or create them."""
    from ..output import messages
    from ..usecases.converting import ConvertRequest, convert

    def report(found) -> None:
        for warning in found.warnings:
            messages.warn(env, warning)
        for line in found.presets or ():
            messages.info(env, line)
        if found.nothing_written is not None:
            messages.warn(env, found.nothing_written)

    request = ConvertRequest(
        filename=opts.filename,
        stdin=env.stdin,
        default_memory=opts.memory,
        vms_file=opts.vms,
        from_cluster=opts.from_cluster,
        apply=opts.apply,
        keep_preset_vms=opts.keep_preset_vms,
        offline=opts.offline,
    )
    from ..output.terminal import escape

    result = convert(
        session,
        request,
        converted=report,
        created=lambda line: env.stdout.write(f"{line}\n"),
        refused=lambda line: env.stdout.write(escape(line) + "\n"),
    )
    if result.converted.nothing_written is None and not opts.apply:
        from ..output.printers import print_all

        print_all(env, opts.output, result.converted.conversion.objects)
    judged = result.judged
    if judged is not None:
        if judged.offline:
            messages.info(env, judged.offline)
        for line in judged.denied:
            messages.error(env, line if line.startswith("Error from server") else f"error: {line}")
        if judged.denied:
            from ..errors import PluginError

            total = len(result.converted.conversion.objects)
            raise PluginError(f"KubeVirt denies {len(judged.denied)} of the {total} converted object(s) (above)")
