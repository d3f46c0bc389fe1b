"""What the ``create`` commands share: Typer commands made from a virtctl flag table, and submitting.

The ``create`` flags are declared once, as data, in the domain (:mod:`..instancetype.createvm`,
:mod:`..instancetype.createtypes`: virtctl's flags, help texts and defaults); :func:`flag_command` turns such
a table into a Typer command, so that help, completion and parsing come from the same table. Values are
parsed by the table (pflag's exact error texts), not by Click.
"""

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Optional

import typer

from . import options

FLAG_PREFIX = "flag_"
# kubectl's --dry-run: a bare --dry-run means client (the commands with a --dry-run=none|client|server flag)
OPTIONAL_VALUE_FLAGS = {"--dry-run": "client"}
DRY_RUN_VALUES = ("none", "client", "server")

DryRun = Annotated[
    str,
    typer.Option(
        "--dry-run",
        metavar="[=none|client|server]",
        show_default=False,
        help='"client": print or name the object, send nothing; "server": submit it with dryRun=All; '
        '"none" (default): create it. A bare --dry-run means client.',
    ),
]
Output = Annotated[
    str,
    typer.Option(
        "-o",
        "--output",
        metavar="FORMAT",
        show_default=False,
        help="Print the object as yaml or json (the server's answer when one was sent), or name it (name).",
    ),
]


def verbatim(text: str) -> str:
    """Mark every paragraph of ``text`` so that Click prints it as written (examples keep their lines)."""
    return "\n\n".join("\b\n" + paragraph for paragraph in text.strip("\n").split("\n\n"))


def optional_value_flags(specs: Sequence[Any]) -> dict[str, str]:
    """Bare spellings of a flag table's booleans (``--namespaced`` means ``--namespaced=true``)."""
    return {f"--{spec.name}": "true" for spec in specs if not spec.takes_value}


def flag_command(specs: Sequence[Any], common: dict[str, Any], run: Callable[..., None]) -> Callable[..., None]:
    """A Typer command function whose options are ``specs`` (raw strings) plus the ``common`` options.

    ``run(ctx, given, **common_values)`` receives ``given``: ``{flag name: [raw occurrences]}`` for the
    flags that were on the command line, in table order.
    """
    parameters = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    for spec in specs:
        help_text = f"{spec.help} {spec.default_text}".strip()
        if spec.repeatable:
            annotation: Any = Annotated[
                Optional[list[str]],
                typer.Option(f"--{spec.name}", help=help_text, metavar=spec.value_name, show_default=False),
            ]
        else:
            annotation = Annotated[
                Optional[str],
                typer.Option(
                    f"--{spec.name}", help=help_text, metavar=spec.value_name or "[=true|false]", show_default=False
                ),
            ]
        parameters.append(
            inspect.Parameter(
                FLAG_PREFIX + spec.field, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        )
    for name, (annotation, default) in common.items():
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )

    def command(ctx: typer.Context, **values: Any) -> None:
        given = {}
        for spec in specs:
            value = values.pop(FLAG_PREFIX + spec.field)
            if value is not None:
                given[spec.name] = list(value) if isinstance(value, list) else [value]
        run(ctx, given, **values)

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    # typer reads annotations too (get_type_hints), not only the signature
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    return command


def common_options(*, skip_checks: bool = False) -> dict[str, Any]:
    """The options every create command has, as {parameter: (annotation, default)}."""
    common: dict[str, Any] = {
        "dry_run": (DryRun, "none"),
        "output": (Output, ""),
        "kubeconfig": (options.Kubeconfig, None),
        "context": (options.Context, None),
        "namespace": (options.Namespace, None),
        "request_timeout": (options.RequestTimeout, "0"),
        "verbosity": (options.Verbosity, 0),
    }
    if skip_checks:
        common["skip_checks"] = (
            Annotated[
                bool,
                typer.Option(
                    "--skip-checks",
                    help="Send the VM as built: no inference, look-ups, conflict or requirement checks first.",
                ),
            ],
            False,
        )
        common["resolve_inference"] = (
            Annotated[
                bool,
                typer.Option(
                    "--resolve-inference",
                    help="Write the instance type and preference that inferFromVolume resolves to into the VM "
                    "({name, kind}) instead of leaving inference to the server.",
                ),
            ],
            False,
        )
        common["infer_from_image"] = (
            Annotated[
                bool,
                typer.Option(
                    "--infer-from-image",
                    help="Read the default instance type and preference from the image of a --volume-containerdisk "
                    "or --volume-import type:registry volume (its INSTANCETYPE_KUBEVIRT_IO_DEFAULT_* variables) and "
                    "write them as explicit matchers: KubeVirt cannot infer from images.",
                ),
            ],
            False,
        )
        common["insecure_registry"] = (
            Annotated[
                bool, typer.Option("--insecure-registry", help="--infer-from-image: plain HTTP to the registry.")
            ],
            False,
        )
    return common


def parse_flags(specs_by_name: dict[str, Any], given: dict[str, list[str]]) -> dict[str, object]:
    """Convert the raw occurrences of each given flag with the table (pflag's errors)."""
    from ..instancetype.params import accumulate

    return {name: accumulate(specs_by_name[name], raws) for name, raws in given.items()}


def check_dry_run(value: str) -> str:
    """kubectl's --dry-run values (true/false are its deprecated spellings of client/none)."""
    from ..errors import UsageError

    value = {"true": "client", "false": "none"}.get(value, value)
    if value not in DRY_RUN_VALUES:
        raise UsageError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')
    return value


def print_result(env: Any, obj: dict, resource: Any, output: str, dry_run: str) -> None:
    """kubectl's answer to a create: the object (-o yaml|json), its name (-o name), or ``... created``."""
    from ..output.printers import print_objects

    name = obj.get("metadata", {}).get("name", "")
    if output:
        print_objects(env, output, [obj], [resource.name_of(name)], single=True)
        return
    suffix = {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")
    env.stdout.write(f"{resource.name_of(name)} created{suffix}\n")


def print_created(env: Any, obj: dict, resource: Any, output: str, dry_run: str) -> None:
    """:func:`print_result` for an object the server has accepted: if printing fails (stdout closed), say
    that it exists instead of failing as if nothing had happened."""
    try:
        print_result(env, obj, resource, output, dry_run)
        env.stdout.flush()
    except OSError as exc:
        from ..errors import PluginError

        name = resource.name_of(obj.get("metadata", {}).get("name", ""))
        done = {"server": "passed the server dry run"}.get(dry_run, "was created")
        raise PluginError(f"{name} {done}, but printing the result failed: {exc.strerror or exc}") from exc


def connect(
    env: Any, kubeconfig: Optional[str], context: Optional[str], namespace: Optional[str], request_timeout: str
):
    """A client for the global flags (the create commands talk to the cluster unless --dry-run=client)."""
    from ..kube.client import connect as kube_connect
    from ..output import messages

    return kube_connect(
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        env.environ,
        env.home(),
        messages.request_logger(env),
        warn=lambda text: messages.warn(env, text),
    )
