"""What the ``create`` commands share: Typer commands made from a virtctl flag table, and create's own flags.

The ``create`` flags are declared once, as data, in the domain (:mod:`..instancetype.createvm`,
:mod:`..instancetype.createtypes`: virtctl's flags, help texts and defaults); :func:`table_command` turns such
a table, plus a typed options class for the plugin's own flags, into a Typer command, so that help, completion
and parsing come from the same table. Values are parsed by the table (pflag's exact error texts), not by Click.
:class:`CreateFlags` is kubectl create's ``--dry-run`` and ``-o``, shared with ``derive``.
No ``from __future__ import annotations`` (Typer reads the field types as objects).
"""

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Optional

from . import options

FLAG_PREFIX = "flag_"
# kubectl's --dry-run: a bare --dry-run means client (the commands with a --dry-run=none|client|server flag)
OPTIONAL_VALUE_FLAGS = {"--dry-run": "client"}
DRY_RUN_VALUES = ("none", "client", "server")


@options.dataclass
class CreateFlags:
    """kubectl create's ``--dry-run`` and ``-o`` (yaml, json, name) for the commands that create one object."""

    dry_run: Annotated[
        str,
        options.path_option(
            "--dry-run",
            metavar="[=none|client|server]",
            help='"client": print or name the object and write nothing; the reads that check it still happen '
            "(create vm GETs the instance type and preference it references and the volumes inferFromVolume names, "
            "unless --skip-checks; derive reads the type it starts from; create instancetype/preference read "
            'nothing); "server": submit it with dryRun=All; "none" (default): create it. A bare --dry-run means client.',
        ),
    ] = "none"
    output: Annotated[
        str,
        options.output_option(
            help="Print the object as yaml or json (the server's answer when one was sent), name it (name), or "
            "through a kubectl template (jsonpath=..., go-template=..., custom-columns=...)."
        ),
    ] = ""

    def validate(self) -> None:
        """kubectl's --dry-run values (true/false are its deprecated spellings of client/none) and -o."""
        from ..output.printers import OBJECT_FORMATS, TEMPLATE_FORMATS, check_output_format

        self.dry_run = check_dry_run(self.dry_run)
        check_output_format(self.output, ("", *OBJECT_FORMATS, *TEMPLATE_FORMATS))


def check_dry_run(value: str) -> str:
    """kubectl's --dry-run values (true/false are its deprecated spellings of client/none)."""
    value = {"true": "client", "false": "none"}.get(value, value)
    if value not in DRY_RUN_VALUES:
        raise options.UsageError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')
    return value


def verbatim(text: str) -> str:
    """Mark every paragraph of ``text`` so that Click prints it as written (examples keep their lines)."""
    return "\n\n".join("\b\n" + paragraph for paragraph in text.strip("\n").split("\n\n"))


def optional_value_flags(specs: Sequence[Any]) -> dict[str, str]:
    """Bare spellings of a flag table's booleans (``--namespaced`` means ``--namespaced=true``)."""
    return {f"--{spec.name}": "true" for spec in specs if not spec.takes_value}


def table_command(specs: Sequence[Any], options_class: type, run: Callable[..., Any]) -> Callable[..., Any]:
    """The Typer command of ``options_class`` (:func:`.options.command`) with the flags of the table ``specs``
    first (raw strings); the options receive ``opts.extra`` = ``{flag name: [raw occurrences]}`` for the table's
    flags that were on the command line, in table order."""
    import inspect  # only here, when the Typer app is built: the fast path never needs it

    parameters = []
    for spec in specs:
        help_text = f"{spec.help} {spec.default_text}".strip()
        if spec.repeatable:
            annotation: Any = Annotated[
                Optional[list[str]],
                options.Option(f"--{spec.name}", help=help_text, metavar=spec.value_name, show_default=False),
            ]
        else:
            annotation = Annotated[
                Optional[str],
                options.Option(
                    f"--{spec.name}", help=help_text, metavar=spec.value_name or "[=true|false]", show_default=False
                ),
            ]
        parameters.append(
            inspect.Parameter(
                FLAG_PREFIX + spec.field, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        )
    return options.command(options_class, run, extra=parameters)


def parse_table(options_class: Any, specs: Sequence[Any], values: dict[str, Any], namespace: str | None = None) -> Any:
    """The table's flags that were given (``values`` as :func:`table_command` hands them over, under each
    flag's field name) parsed with the table (pflag's errors, in the table's order) straight into
    ``options_class`` (an ``instancetype.params.FlagOptions``): one pass, each key read once."""
    from ..instancetype.params import accumulate

    fields: dict[str, object] = {}
    changed: list[str] = []
    for spec in specs:
        value = values.get(FLAG_PREFIX + spec.field)
        if value is not None:
            fields[spec.field] = accumulate(spec, list(value) if isinstance(value, list) else [value])
            changed.append(spec.name)
    return options_class.from_parsed(fields, changed, namespace=namespace)
