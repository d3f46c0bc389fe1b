"""``kubectl instancetype infer``: what KubeVirt's admission will make of ``inferFromVolume``, before it runs.

No ``from __future__ import annotations`` in command modules (typer would eval every annotation per run).
"""

from typing import Annotated, Any, Optional

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
OUTPUT_FORMATS = ("", "wide", "yaml", "json")
NONE = "<none>"


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "infer", help=HELP, short_help="Resolve inferFromVolume as KubeVirt will (VM, PVC, DV, DataSource, snapshot)."
    )(infer_command)


def infer_command(
    ctx: typer.Context,
    target: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="TYPE/NAME or TYPE NAME: vm, pvc, dv, datasource (das) or volumesnapshot.",
            metavar="[TYPE/NAME]",
            show_default=False,
        ),
    ] = None,
    filename: Annotated[
        Optional[str],
        typer.Option(
            "-f",
            "--filename",
            metavar="FILE",
            help="A VirtualMachine in YAML or JSON; - reads stdin.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            metavar="FORMAT",
            help="wide (the chain of objects read), yaml or json.",
            show_default=False,
        ),
    ] = "",
    explain: Annotated[
        bool, typer.Option("--explain", help="Print the chain of objects read for each matcher below the table.")
    ] = False,
    platform: Annotated[
        str,
        typer.Option(
            "--platform", metavar="OS/ARCH[/VARIANT]", help="infer image: the platform to pick from an image index."
        ),
    ] = "linux/amd64",
    insecure_registry: Annotated[
        bool, typer.Option("--insecure-registry", help="infer image: talk plain HTTP to the registry.")
    ] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Resolve the inference of a VirtualMachine or the defaults of one volume."""
    from ..errors import UsageError
    from ..output.printers import check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    check_output_format(output, OUTPUT_FORMATS)
    kind, name = _parse_target(target or [])
    if filename is not None and kind:
        raise UsageError("specify either -f FILE or TYPE/NAME, not both")
    if filename is None and not kind:
        raise UsageError("you must specify -f FILE or TYPE/NAME (vm, pvc, dv, datasource, volumesnapshot)")
    if kind == "Image":
        _report_image(env, name, platform, insecure_registry, output, explain)
        return
    vm = _read_vm(env, filename) if filename is not None else None
    with _connect(env, kubeconfig, context, namespace, request_timeout) as client:
        target_namespace = namespace or client.namespace
        if vm is not None:
            vm_namespace = _file_namespace(vm, namespace, target_namespace)
            _report_vm(env, client, vm, vm_namespace, output, explain)
        elif kind == "VirtualMachine":
            from ..kube.resources import VIRTUAL_MACHINES

            stored = client.get(VIRTUAL_MACHINES, name, target_namespace)
            _report_vm(env, client, stored, target_namespace, output, explain)
        else:
            _report_volume(env, client, kind, name, target_namespace, output, explain)


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


def _read_vm(env: Any, filename: str) -> dict:
    from ..errors import InputError
    from ..usecases.manifests import read_manifests

    documents = read_manifests(filename, env.stdin)
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise InputError(f"expected one VirtualMachine in {filename}, found {len(documents)} documents")
    vm = documents[0]
    if vm.get("kind") != "VirtualMachine":
        raise InputError(f"expected a VirtualMachine in {filename}, found kind {vm.get('kind')!r}")
    return vm


def _file_namespace(vm: dict, flag: Optional[str], default: str) -> str:
    from ..errors import UsageError

    own = (vm.get("metadata") or {}).get("namespace")
    if own and flag and own != flag:
        # kubectl create -f's check
        raise UsageError(
            f'the namespace from the provided object "{own}" does not match the namespace "{flag}". '
            f"You must pass '--namespace={own}' to perform this operation."
        )
    return own or default


def _report_vm(env: Any, client: Any, vm: dict, namespace: str, output: str, explain: bool) -> None:
    from ..output import messages
    from ..usecases.inference import InferenceRejected, dropped_warnings, resolve_vm

    result = resolve_vm(client, vm, namespace)
    if result.error is not None:
        raise InferenceRejected(result.error)
    for line in dropped_warnings(result):
        messages.warn(env, line)
    if output in ("yaml", "json"):
        from ..output.printers import print_objects

        admitted = result.vm
        if not (vm.get("metadata") or {}).get("namespace"):
            admitted["metadata"].pop("namespace", None)  # as given: the file can still be created anywhere
        print_objects(env, output, [admitted], [], single=True)
        return
    if not result.outcomes:
        messages.info(env, "The VirtualMachine has no instancetype or preference matcher.")
        return
    rows = []
    for outcome in result.outcomes:
        chain = outcome.resolution.chain_text() if outcome.resolution else "set in the VirtualMachine"
        row = [
            outcome.matcher,
            outcome.volume or NONE,
            outcome.name or NONE,
            outcome.kind or NONE,
            outcome.policy or NONE,
            {"given": "given"}.get(outcome.action, outcome.action),
        ]
        rows.append(row + [chain] if output == "wide" else row)
    headers = ["MATCHER", "VOLUME", "NAME", "KIND", "POLICY", "RESULT"] + (["CHAIN"] if output == "wide" else [])
    _print_table(env, headers, rows)
    if explain:
        for outcome in result.outcomes:
            if outcome.resolution is not None:
                env.stdout.write(escape(f"{outcome.matcher}: {outcome.resolution.chain_text()}") + "\n")


def _report_volume(env: Any, client: Any, kind: str, name: str, namespace: str, output: str, explain: bool) -> None:
    from ..usecases.inference import InferenceRejected, resolve_volume_object

    defaults = resolve_volume_object(client, kind, name, namespace)
    resolutions = (("instancetype", defaults.instancetype), ("preference", defaults.preference))
    for _, resolution in resolutions:
        if not resolution.ok and not resolution.ignorable:
            raise InferenceRejected(resolution.error or "")
    if output in ("yaml", "json"):
        from ..output import messages
        from ..output.printers import print_objects

        for matcher, resolution in resolutions:
            if not resolution.ok:
                messages.warn(env, f"{matcher}: {resolution.error}")
        print_objects(env, output, [defaults.as_dict()], [], single=True)
        return
    rows = []
    for matcher, resolution in resolutions:
        row = [
            matcher,
            resolution.name or NONE if resolution.ok else NONE,
            resolution.kind or NONE if resolution.ok else NONE,
            "inferred" if resolution.ok else resolution.error or "",
        ]
        rows.append(row + [resolution.chain_text()] if output == "wide" else row)
    _print_table(env, ["MATCHER", "NAME", "KIND", "RESULT"] + (["CHAIN"] if output == "wide" else []), rows)
    if explain:
        for matcher, resolution in resolutions:
            env.stdout.write(escape(f"{matcher}: {resolution.chain_text()}") + "\n")


def _report_image(env: Any, text: str, platform_text: str, insecure: bool, output: str, explain: bool) -> None:
    from ..instancetype import imagedefaults
    from ..output import messages
    from ..usecases.inference import image_defaults

    result = image_defaults(
        text, platform_text, insecure=insecure, environ=env.environ, home=env.home(), log=messages.request_logger(env)
    )
    image, defaults = result.image, result.defaults
    reference, platform = image.reference, image.platform
    chain = " -> ".join([f"image {reference}"] + [step.text() for step in image.steps] + ["env"])
    if output in ("yaml", "json"):
        from ..output.printers import print_objects

        for matcher, found in defaults.items():
            if not found.ok:
                messages.warn(env, f"{matcher}: {found.problem}")
        document = {
            "image": str(reference),
            "platform": str(platform),
            "digest": image.steps[-2].digest if len(image.steps) > 1 else "",
            **{
                matcher: {"name": default.name, "kind": default.kind} if default.ok else None
                for matcher, default in defaults.items()
            },
            "labels": imagedefaults.labels_from_config(image.config),
            "chain": [{"what": step.what, "digest": step.digest} for step in image.steps],
        }
        print_objects(env, output, [document], [], single=True)
        return
    rows = []
    for matcher, found in defaults.items():
        row = [matcher, found.name or NONE, found.kind or NONE, "inferred" if found.ok else found.problem]
        rows.append(row + [chain] if output == "wide" else row)
    _print_table(env, ["MATCHER", "NAME", "KIND", "RESULT"] + (["CHAIN"] if output == "wide" else []), rows)
    if explain:
        env.stdout.write(escape(f"chain: {chain}") + "\n")


def escape(text: str) -> str:
    """Cluster and registry data with its control characters shown (output/terminal.py)."""
    from ..output.terminal import escape as escape_controls

    return escape_controls(text)


def _print_table(env: Any, headers: list[str], rows: list[list[str]]) -> None:
    from ..output.table import render_table

    env.stdout.write(render_table(headers, rows))


def _connect(env: Any, kubeconfig: Optional[str], context: Optional[str], namespace: Optional[str], timeout: str):
    from ..kube.client import connect
    from ..output import messages

    return connect(
        options.connection_options(kubeconfig, context, namespace, timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
    )
