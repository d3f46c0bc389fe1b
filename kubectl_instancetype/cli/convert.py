"""``kubectl instancetype convert``: legacy flavors, alpha objects, ``spec.flavor`` VMs and presets to v1beta1."""

from typing import Optional

import typer

from . import options

EXAMPLES = """\
  # Convert flavors, v1alpha1/v1alpha2 objects and VMs using spec.flavor; print the v1beta1 objects
  kubectl instancetype convert -f old.yaml

  # Convert presets and report which VMs of a file they match, with the conflicts KubeVirt would have reported
  kubectl instancetype convert -f presets.yaml --vms vms.yaml

  # The same against the VMs of the current namespace, then create the converted objects
  kubectl instancetype convert -f presets.yaml --from-cluster --apply
"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "convert",
        help="Convert flavor.kubevirt.io/v1alpha1 flavors and preferences, instancetype.kubevirt.io "
        "v1alpha1/v1alpha2 objects, VirtualMachines using spec.flavor and VirtualMachineInstancePresets to "
        "instancetype.kubevirt.io/v1beta1 objects and kubevirt.io/v1 VirtualMachines. Fields without a v1beta1 "
        "home are named in Warning lines on stderr. Nothing is created unless --apply.\n\nExamples:\n\n"
        # "\b" keeps Click from rewrapping each example paragraph.
        + "\n\n".join("\b\n" + paragraph for paragraph in EXAMPLES.strip("\n").split("\n\n")),
        short_help="Convert legacy flavors, alpha objects and presets to v1beta1.",
    )(convert)


def convert(
    ctx: typer.Context,
    filename: str = typer.Option(
        ...,
        "-f",
        "--filename",
        metavar="FILE",
        help="The objects to convert: a YAML or JSON file (a List too), a directory of them, or - for stdin.",
    ),
    output: str = typer.Option("yaml", "-o", "--output", metavar="FORMAT", help="Output format: yaml or json."),
    vms: Optional[str] = typer.Option(
        None, "--vms", metavar="FILE", help="VirtualMachines to match the presets against (YAML, JSON or a List)."
    ),
    from_cluster: bool = typer.Option(
        False, "--from-cluster", help="Match the presets against the VirtualMachines of the namespace."
    ),
    apply: bool = typer.Option(False, "--apply", help="Create the converted objects on the cluster."),
    memory: Optional[str] = typer.Option(
        None,
        "--memory",
        metavar="QUANTITY",
        help="memory.guest for flavors that have none (v1beta1 requires it).",
        show_default=False,
    ),
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Convert the objects in ``--filename``; print them, or create them with ``--apply``."""
    from ..errors import UsageError
    from ..instancetype import convert as conversion
    from ..output import messages
    from ..output.printers import check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    check_output_format(output, ("yaml", "json"))
    if vms and from_cluster:
        raise UsageError("--vms and --from-cluster cannot be used together")
    if memory is not None:
        from ..instancetype.quantity import canonical_quantity, is_quantity

        if not is_quantity(memory):
            raise UsageError(f"invalid argument {memory!r} for --memory: quantities must match the regular expression")
        memory = canonical_quantity(memory)
    objects = _objects(env, filename)
    if not objects:
        from ..errors import InputError

        raise InputError("no objects passed to convert")  # kubectl create's words for an empty input
    result = conversion.convert(objects, default_memory=memory)
    vm_objects = _objects(env, vms) if vms else None
    for warning in result.warnings:
        messages.warn(env, warning)
    if not (from_cluster or apply):
        _report(env, result, vm_objects)
        _print(env, output, result.objects)
        return
    from ..kube.client import connect

    with connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
        warn=lambda text: messages.warn(env, text),
    ) as client:
        if from_cluster:
            from ..kube.resources import VIRTUAL_MACHINES

            target = namespace or client.namespace
            vm_objects = [
                item for page in client.list_pages(VIRTUAL_MACHINES, target) for item in page.get("items") or ()
            ]
        _report(env, result, vm_objects)
        if not apply:
            _print(env, output, result.objects)
            return
        _create_all(env, client, conversion.apply_order(result.objects), namespace)


def _objects(env, path: str) -> list:
    """The objects in a file, stdin (``-``) or, as kubectl reads a directory, its .json/.yaml/.yml files."""
    import os

    from ..instancetype.convert import parse_documents

    if path != "-" and os.path.isdir(path):
        names = sorted(name for name in os.listdir(path) if name.endswith((".json", ".yaml", ".yml")))
        return [obj for name in names for obj in parse_documents(_read(env, os.path.join(path, name)))]
    return parse_documents(_read(env, path))


def _read(env, path: str) -> str:
    from ..usecases.manifests import read_text

    return read_text(path, env.stdin)


def _report(env, result, vm_objects) -> None:
    from ..instancetype.convert import report_presets
    from ..output import messages

    if vm_objects is None:
        return
    if not result.presets:
        messages.info(env, "no VirtualMachineInstancePresets in the input: nothing to match against VirtualMachines")
        return
    for line in report_presets(result.presets, vm_objects):
        messages.info(env, line)


def _print(env, output: str, objects: list) -> None:
    if output == "json":
        import json

        from ..output.printers import as_list

        env.stdout.write(json.dumps(as_list(objects), indent=4, sort_keys=True, ensure_ascii=False) + "\n")
        return
    from ..output.goyaml import dump_all

    env.stdout.write(dump_all(objects))


def _create_all(env, client, objects: list, namespace: Optional[str]) -> None:
    """Create each object in order; on a failure say what exists and what was not created, then fail."""
    from ..errors import PluginError, UsageError
    from ..kube.resources import BY_KIND

    created: list[str] = []
    planned = []
    for obj in objects:
        resource = BY_KIND[obj["kind"]]
        own = (obj.get("metadata") or {}).get("namespace")
        if resource.namespaced and own and namespace and own != namespace:
            raise UsageError(
                f'the namespace from the provided object "{own}" does not match the namespace "{namespace}". '
                f"You must pass '--namespace={own}' to perform this operation."
            )
        target = (own or namespace or client.namespace) if resource.namespaced else None
        planned.append((resource, obj, target, resource.name_of(obj["metadata"]["name"])))
    for index, (resource, obj, target, name) in enumerate(planned):
        try:
            client.create(resource, obj, target)
        except PluginError as exc:
            rest = [entry[3] for entry in planned[index + 1 :]]
            summary = f"created: {', '.join(created)}" if created else "nothing was created"
            if rest:
                summary += f"; not attempted: {', '.join(rest)}"
            raise PluginError(f"{exc.render().removeprefix('error: ')}; {name} was not created; {summary}") from exc
        created.append(name)
        env.stdout.write(f"{name} created\n")
