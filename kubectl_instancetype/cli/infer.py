"""``kubectl instancetype infer``: what KubeVirt's admission will make of ``inferFromVolume``, before it runs.

No ``from __future__ import annotations`` in command modules (typer would eval every annotation per run).
"""

import dataclasses
from typing import Annotated, Optional

import typer

from . import options

HELP = """Resolve instance type and preference inference (inferFromVolume) as KubeVirt's admission will.

For a VirtualMachine (-f FILE, -f - for stdin, or vm/NAME for a stored one) it shows what each matcher
resolves to, following the same volumes, DataVolumes, DataSources, PVCs and VolumeSnapshots with the same
labels (instancetype.kubevirt.io/default-instancetype[-kind], default-preference[-kind]) and messages as
KubeVirt v1.9. With -o yaml|json it prints the VirtualMachine as admission leaves it: inferred matchers
replaced by {name, kind}, ignored ones dropped, and for an instance type inferred under the Ignore policy
spec.template.spec.domain.memory removed. A failure the server would reject exits 1 with KubeVirt's message.

For a volume (pvc/NAME, dv/NAME, datasource/NAME or das/NAME, volumesnapshot/NAME) it shows the defaults that
volume yields to a VirtualMachine using it.

\b
Examples:
  kubectl instancetype infer -f vm.yaml
  kubectl instancetype create vm --volume-pvc src:fedora --dry-run=client -o yaml | kubectl instancetype infer -f -
  kubectl instancetype infer vm/my-vm -o wide
  kubectl instancetype infer pvc/fedora --explain
  kubectl instancetype infer datasource/fedora -n os-images -o yaml"""

# resource words kubectl accepts (singular, plural, short names, qualified) -> the kind inferred from
OUTPUT_FORMATS = (
    "",
    "wide",
    "yaml",
    "json",
    "jsonpath",
    "jsonpath-file",
    "jsonpath-as-json",
    "go-template",
    "go-template-file",
    "template",
    "templatefile",
    "custom-columns",
    "custom-columns-file",
)


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "infer", help=HELP, short_help="Resolve inferFromVolume as KubeVirt will (VM, PVC, DV, DataSource, snapshot)."
    )(options.command(InferOptions, run))


@options.dataclass
class InferOptions:
    """Resolve the inference of a VirtualMachine or the defaults of one volume."""

    target: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="TYPE/NAME or TYPE NAME: vm, pvc, dv, datasource (das) or volumesnapshot.",
            metavar="[TYPE/NAME]",
            show_default=False,
        ),
    ] = None
    filename: Annotated[
        Optional[str],
        options.file_option(
            "A VirtualMachine in YAML or JSON (- reads stdin), optionally with the PVCs, DataVolumes, DataSources "
            "and VolumeSnapshots its inference reads: those are read from the file before the cluster."
        ),
    ] = None
    output: Annotated[str, options.output_option(help="wide (the chain of objects read), yaml or json.")] = ""
    explain: Annotated[
        bool, options.bool_option("--explain", help="Print the chain of objects read for each matcher below the table.")
    ] = False
    platform: Annotated[
        str,
        options.value_option(
            "--platform", metavar="OS/ARCH[/VARIANT]", help="infer image: the platform to pick from an image index."
        ),
    ] = "linux/amd64"
    insecure_registry: Annotated[
        bool,
        options.bool_option(
            "--insecure-registry", help="infer image: an insecure registry (unverified HTTPS or plain HTTP)."
        ),
    ] = False
    checks: options.FieldValidation = dataclasses.field(default_factory=options.FieldValidation)
    connection: options.FleetConnectionFlags = dataclasses.field(default_factory=options.FleetConnectionFlags)
    kind: str = dataclasses.field(init=False, default="")
    name: str = dataclasses.field(init=False, default="")

    def validate(self) -> None:
        """-o is a format of infer's; exactly one of -f and TYPE/NAME."""
        from ..output.printers import check_output_format

        check_output_format(self.output, OUTPUT_FORMATS)
        self.kind, self.name = _parse_target(self.target or [])
        if self.filename is not None and self.kind:
            raise options.UsageError("specify either -f FILE or TYPE/NAME, not both")
        if self.filename is None and not self.kind:
            raise options.UsageError("you must specify -f FILE or TYPE/NAME (vm, pvc, dv, datasource, volumesnapshot)")


def run(env, opts: InferOptions, session) -> None:
    """Resolve through the use case, then print the table (or the objects)."""
    from ..output import messages
    from ..usecases.infer import IMAGE, InferRequest, VMInference, infer_target

    request = InferRequest(
        kind=opts.kind,
        name=opts.name,
        filename=opts.filename,
        stdin=env.stdin,
        platform=opts.platform,
        insecure_registry=opts.insecure_registry,
        validation=opts.checks.validation,
        warn=lambda line: messages.warn(env, line),
    )
    result = infer_target(session, request)
    from ..output import infer_report as printer

    if opts.kind == IMAGE:
        printer.print_image(env, result, opts.output, opts.explain)
    elif isinstance(result, VMInference):
        printer.print_vm(env, result, opts.output, opts.explain)
    else:
        printer.print_volume(env, result, opts.output, opts.explain)


def optional_value_flags() -> dict:
    """A bare --validate means strict, as kubectl's."""
    return dict(options.VALIDATE_OPTIONAL_VALUE)


def _parse_target(words: list[str]) -> tuple[str, str]:
    if not words:
        return "", ""
    if len(words) == 2 and words[0].lower() == "image":
        return "Image", words[1]
    if len(words) == 1 and words[0].lower().startswith("image/"):
        return "Image", words[0][len("image/") :]
    return options.object_target(
        words,
        ("VirtualMachine", "PersistentVolumeClaim", "DataVolume", "DataSource", "VolumeSnapshot"),
        'the server doesn\'t have a resource type "{word}" to infer from (vm, pvc, dv, datasource, volumesnapshot)',
    )
