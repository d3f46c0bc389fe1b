"""``kubectl instancetype create vm``: virtctl's ``create vm``, checked against the cluster and created."""

import typer

from . import flagtable


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``vm`` to the ``create`` group."""
    from ..instancetype import createvm

    command = flagtable.flag_command(createvm.VM_FLAGS, flagtable.common_options(skip_checks=True), run)
    help_text = (
        createvm.LONG_HELP.replace(
            "Create a VirtualMachine manifest.", "Create a VirtualMachine, after checking what it references.", 1
        )
        + "\n\nThe instance type and preference are looked up first (and the preference's requirements "
        "checked against them); --skip-checks skips that. Without -n, the VM goes to the context's "
        "namespace; metadata.namespace is written only when -n is given, as virtctl does."
        + "\n\nExamples:\n\n"
        + flagtable.verbatim(createvm.EXAMPLES.format(prog="kubectl instancetype"))
    )
    group.command("vm", help=help_text, short_help="Create a VirtualMachine (virtctl create vm flags).")(command)


def optional_value_flags() -> dict[str, str]:
    """Bare spellings this command accepts (its boolean flags, --dry-run)."""
    from ..instancetype import createvm

    return flagtable.optional_value_flags(createvm.VM_FLAGS) | flagtable.OPTIONAL_VALUE_FLAGS


def run(
    ctx: typer.Context,
    given: dict,
    *,
    dry_run: str,
    output: str,
    kubeconfig,
    context,
    namespace,
    request_timeout: str,
    verbosity: int,
    skip_checks: bool,
) -> None:
    """Build the manifest exactly as virtctl would, then check and create it (or print it)."""
    from ..instancetype import createvm
    from ..kube.resources import VIRTUAL_MACHINES
    from ..output.printers import OBJECT_FORMATS, check_output_format

    env = ctx.obj
    env.verbosity = verbosity
    dry_run = flagtable.check_dry_run(dry_run)
    check_output_format(output, ("",) + OBJECT_FORMATS)
    values = flagtable.parse_flags(createvm.VM_FLAGS_BY_NAME, given)
    options = createvm.VMOptions.from_flags(values, namespace=namespace)
    manifest, _ = createvm.build_vm(options, warn=lambda line: env.stderr.write(line + "\n"))
    if dry_run == "client":
        flagtable.print_result(env, manifest, VIRTUAL_MACHINES, output, dry_run)
        return
    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        target = namespace or client.namespace
        if not skip_checks:
            check_references(client, manifest, target)
        answer = client.create(VIRTUAL_MACHINES, manifest, target, dry_run=dry_run == "server")
    flagtable.print_result(env, answer, VIRTUAL_MACHINES, output, dry_run)


def check_references(client, manifest: dict, namespace: str) -> None:
    """GET every referenced instance type and preference (concurrently); fail on a missing one or on
    an unmet preference requirement, with KubeVirt's message."""
    from ..errors import PluginError, PreflightError
    from ..instancetype.createvm import referenced_objects
    from ..instancetype.requirements import DENIAL_PREFIX, unmet_requirement
    from ..kube.resources import BY_LOWERCASE_KIND

    references = referenced_objects(manifest)
    if not references:
        return
    requests = []
    for kind, name in references:
        resource = BY_LOWERCASE_KIND[kind]
        requests.append((resource, name, namespace if resource.namespaced else None))
    results = client.get_all(requests)
    missing, found = [], {}
    for (kind, name), (resource, _, scope), result in zip(references, requests, results):
        if isinstance(result, PluginError):
            if getattr(result, "code", None) != 404:
                raise result
            missing.append(_not_found(client, resource, name, scope))
        else:
            found["instancetype" if "instancetype" in kind else "preference"] = result.get("spec") or {}
    if missing:
        raise PreflightError("; ".join(missing))
    template = ((manifest.get("spec") or {}).get("template") or {}).get("spec") or {}
    instancetype_ref = (manifest.get("spec") or {}).get("instancetype")
    if "preference" in found and (instancetype_ref is None or "instancetype" in found):
        # With an inferred instance type the VM's own CPU and memory are not what KubeVirt will check.
        problem = unmet_requirement(found.get("instancetype"), found["preference"], template)
        if problem:
            raise PreflightError(DENIAL_PREFIX + problem)


def _not_found(client, resource, name: str, namespace) -> str:
    """``<kind> "<name>" not found``, with the closest existing name as a hint (one list, on failure only)."""
    import difflib

    from ..errors import PluginError

    where = f' in namespace "{namespace}"' if namespace else ""
    message = f'{resource.singular} "{name}" not found{where}'
    try:
        names = client.list_names(resource, namespace)
    except PluginError:
        return message
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"{message} (did you mean {close[0]}?)" if close else message
