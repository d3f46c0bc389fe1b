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
    resolve_inference: bool,
    infer_from_image: bool,
    insecure_registry: bool,
) -> None:
    """Build the manifest exactly as virtctl would, check it as KubeVirt's admission would, create it."""
    from ..instancetype import createvm
    from ..kube.resources import VIRTUAL_MACHINES
    from ..output.printers import OBJECT_FORMATS, check_output_format
    from ..usecases.creating import create_vm

    env = ctx.obj
    env.verbosity = verbosity
    dry_run = flagtable.check_dry_run(dry_run)
    check_output_format(output, ("", *OBJECT_FORMATS))
    values = flagtable.parse_flags(createvm.VM_FLAGS_BY_NAME, given)
    options = createvm.VMOptions.from_flags(values, namespace=namespace)
    manifest, _ = createvm.build_vm(
        options,
        random_suffix=env.random_suffix,
        read_file=env.read_file,
        warn=lambda line: env.stderr.write(line + "\n"),
    )
    report = lambda line: env.stderr.write(line + "\n")  # noqa: E731
    if infer_from_image:
        from ..output import messages
        from ..usecases.image_inference import apply_image_defaults

        manifest = apply_image_defaults(
            manifest,
            from_volumes={
                matcher: str(values[f"infer-{matcher}-from"])
                for matcher in ("instancetype", "preference")
                if values.get(f"infer-{matcher}-from")
            },
            environ=env.environ,
            home=env.home(),
            insecure=insecure_registry,
            log=messages.request_logger(env),
            report=report,
        )
    if dry_run == "client":
        if not skip_checks:
            manifest = _client_side_preflight(
                env, manifest, kubeconfig, context, namespace, request_timeout, resolve_inference, report
            )
        flagtable.print_result(env, manifest, VIRTUAL_MACHINES, output, dry_run)
        return
    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        answer = create_vm(
            client,
            manifest,
            namespace or client.namespace,
            server_dry_run=dry_run == "server",
            checks=not skip_checks,
            resolve_inference=resolve_inference,
            report=report,
        )
    flagtable.print_created(env, answer, VIRTUAL_MACHINES, output, dry_run)


# --dry-run=client checks against the cluster only when it answers at once: printing must not wait on it.
CLIENT_DRY_RUN_TIMEOUT = "5s"


def _client_side_preflight(env, manifest, kubeconfig, context, namespace, request_timeout, resolve_inference, report):
    """--dry-run=client: nothing is sent, so the pre-flight stands in for KubeVirt's webhooks, reading (GET only)
    the inference chain and the referenced types; a cluster that cannot be reached (or read) is no failure here,
    only what admission would refuse is, in the words the server would use."""
    from ..errors import APIError, ConfigurationError, TransportError
    from ..kube.resources import VIRTUAL_MACHINES
    from ..usecases.creating import check_object_names
    from ..usecases.inference import InferenceForbidden
    from ..usecases.preflight import AdmissionDenied, check_vm, explain, report_notes

    timeout = request_timeout if request_timeout not in ("", "0") else CLIENT_DRY_RUN_TIMEOUT
    try:
        with flagtable.connect(env, kubeconfig, context, namespace, timeout) as client:
            target = namespace or client.namespace
            check_object_names(manifest, VIRTUAL_MACHINES, target)
            verdict = check_vm(client, manifest, target)
    except (ConfigurationError, TransportError, APIError) as exc:
        if env.verbosity:
            report(f"pre-flight skipped: {exc.render()}")
        return manifest
    except InferenceForbidden as exc:
        report(f"Warning: pre-flight skipped: {exc.message}")
        return manifest
    report_notes(verdict, report)
    if verdict.denial is not None:
        raise AdmissionDenied(verdict.denial.as_api_error(), explain(verdict, verdict.denial.status_message))
    if resolve_inference:
        return {**verdict.vm, "metadata": manifest.get("metadata") or {}}
    return manifest
