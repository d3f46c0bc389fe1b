"""The fast path's table, generated from the Typer app (``make fastpath-table``; ``make generate`` runs it).

For each hot command (:data:`HOT`): the module, options class and run function its Typer command was made
from (:func:`.options.command` records them), the flags whose bare spelling means another value, and every
parameter as Click declares it (names, flag or value, repeated or not, value type, the value Typer hands over
when it is absent). A Click feature the fast path does not implement (a callback, an environment variable,
a prompt, a count, a type it cannot convert, ...) stops the generation with the parameter's name, so the fast
path can never silently parse a flag differently from Typer. tests/unit/test_fastpath.py keeps the table
equal to what this generates.
"""

from __future__ import annotations

import inspect
import pprint
from pathlib import Path
from typing import Any

# the hot commands: what a user runs often and expects at kubectl's speed (version: `version --client` is what
# scripts and install checks run, and it has nothing to wait for but the start-up)
HOT = ("list", "get", "describe", "create vm", "version")

_TYPES = {"StringParamType": "string", "BoolParamType": "bool", "GoInt": "go_int", "NonBlank": "non_blank"}


def _leaf(path: str) -> tuple[Any, Any, list[Any]]:
    """(the Click command of ``path``, its context, the leaf modules the registry registered)."""
    import typer._click as click
    from typer.main import get_command

    from .registry import build

    app, leaves = build(path.split())
    command: Any = get_command(app)
    ctx = click.Context(command, info_name="kubectl instancetype", **(command.context_settings or {}))
    for word in path.split():
        command = command.get_command(ctx, word)
        ctx = click.Context(command, info_name=word, parent=ctx, **(command.context_settings or {}))
    return command, ctx, leaves


def _unsupported(path: str, param: Any, what: str) -> ValueError:
    return ValueError(
        f"{path}: {param.name}: {what}: teach cli/fastpath.py (and its test) first, or leave it out of HOT"
    )


def _param(path: str, param: Any, ctx: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    from .options import flag_names

    kind = param.param_type_name
    if param.envvar or param.callback or param.is_eager or getattr(param, "prompt", None):
        raise _unsupported(path, param, "an environment variable, callback, eager flag or prompt")
    if (
        getattr(param, "count", False)
        or getattr(param, "secondary_opts", [])
        or getattr(param, "_flag_needs_value", False)
    ):
        raise _unsupported(path, param, "a counted flag, a --flag/--no-flag pair or a flag with an optional value")
    type_name = _TYPES.get(type(param.type).__name__)
    if type_name is None:
        raise _unsupported(path, param, f"the Click type {type(param.type).__name__}")
    is_flag = bool(getattr(param, "is_flag", False))
    if is_flag and (type_name != "bool" or not getattr(param, "is_bool_flag", False) or param.default is not False):
        raise _unsupported(path, param, "a flag that is not a boolean, off by default")
    if param.nargs not in (1, -1) or (kind == "option" and param.nargs != 1):
        raise _unsupported(path, param, f"nargs={param.nargs}")
    multiple = bool(param.multiple) or param.nargs == -1
    default = param.get_default(ctx)
    if multiple:
        # Click gives a tuple; Typer's list convertor makes it a list, or None when empty and the default is None
        cast = tuple(param.type_cast_value(ctx, default)) if default is not None else ()
        value = None if defaults.get(param.name) is None and not cast else list(cast)
    else:
        value = None if default is None else param.type_cast_value(ctx, default)
    return {
        "name": param.name,
        "kind": kind,
        "opts": list(param.opts) if kind == "option" else [],
        "flag_names": flag_names(param),
        "flag": is_flag,
        "multiple": multiple,
        "type": type_name,
        "required": bool(param.required),
        "default": value,
    }


def build_table() -> dict[str, Any]:
    """``{command path: entry}`` for every hot command, from the Typer app."""
    from .registry import bare_flags, optional_value_flags

    table: dict[str, Any] = {}
    for path in HOT:
        command, ctx, leaves = _leaf(path)
        callback = command.callback
        options_class, run = callback.options_class, callback.run
        if run.__module__ != options_class.__module__:
            raise ValueError(f"{path}: the options class and run() must live in one module")
        defaults = {name: p.default for name, p in inspect.signature(callback).parameters.items()}
        if command.ignore_unknown_options or command.allow_extra_args or not command.allow_interspersed_args:
            raise ValueError(f"{path}: Click's context settings differ from the defaults the fast path implements")
        help_option = command.get_help_option(ctx)
        table[path] = {
            "module": options_class.__module__,
            "options": options_class.__qualname__,
            "run": run.__name__,
            "extra": list(callback.extra),
            "optional_values": dict(sorted(optional_value_flags(leaves).items())),
            "bare": dict(sorted(bare_flags(leaves).items())),
            "help": sorted(help_option.opts) if help_option is not None else [],
            "no_args_is_help": bool(command.no_args_is_help),
            "interspersed": True,
            "params": [_param(path, param, ctx, defaults) for param in command.params],
        }
    return table


DATA_FILE = Path(__file__).with_name("fastpath_data.py")
HEADER = '''"""Generated by ``make fastpath-table`` (kubectl_instancetype.cli.fastpath_spec.write_table): do not edit.

How the hot commands parse, read from the Typer app, for the fast path (:mod:`.fastpath`) that runs them
without Typer; tests/unit/test_fastpath.py keeps it equal to what the app declares.
"""

# fmt: off
TABLE = '''


def render_table(table: dict[str, Any]) -> str:
    """The source text of :mod:`.fastpath_data` for ``table``."""
    return HEADER + pprint.pformat(table, width=120, sort_dicts=False) + "\n"


def write_table() -> None:
    """Regenerate :mod:`.fastpath_data` from the app."""
    DATA_FILE.write_text(render_table(build_table()))


if __name__ == "__main__":
    write_table()
