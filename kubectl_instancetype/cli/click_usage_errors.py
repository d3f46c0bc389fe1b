"""Click's usage errors in the words cobra and pflag use, because kubectl users meet cobra's everywhere else.

kubectl and virtctl are cobra programs: an extra positional argument reads ``unknown command "x" for
"kubectl instancetype create vm"``, a missing flag value ``flag needs an argument: --cpu``, an unknown flag
``unknown flag: --bogus``. Only the first line of cobra's message is kept (the one-line error contract); the
``Run '... --help' for usage.`` line cobra adds is left out, as for every other error.
"""

from __future__ import annotations

import ast
import re
from typing import Any

_NO_SUCH_COMMAND = re.compile(r"^No such command ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\.")


def _commands_of(exc: Any) -> list[str]:
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command", None)
    if command is not None and ctx is not None and hasattr(command, "list_commands"):
        names = list(command.list_commands(ctx))
        if ctx.parent is None:  # the root: the whole table (only the command being run is registered)
            from .commands import COMMANDS

            names = sorted(set(names) | set(COMMANDS))
        return [name for name in names if not getattr(command.get_command(ctx, name), "hidden", False)]
    from .commands import COMMANDS

    return sorted(COMMANDS)


_EXTRA_ARGUMENTS = re.compile(r"^Got unexpected extra argument(?:\(s\)|s?) \((.*)\)$", re.DOTALL)


def _command_path(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    return ctx.command_path if ctx is not None else "kubectl instancetype"


def _flag(name: str) -> str:
    """pflag names a shorthand as ``'n' in -n`` and a long flag as ``--name``."""
    if len(name) == 2 and name[0] == "-" and name[1] != "-":
        return f"'{name[1]}' in {name}"
    return name


def _flag_names(param: Any) -> str:
    """pflag's ``"-n, --namespace"`` spelling of an option (long name alone when it has no shorthand)."""
    opts = list(getattr(param, "opts", []) or [])
    short = [o for o in opts if len(o) == 2 and o[0] == "-" and o[1] != "-"]
    long = [o for o in opts if o.startswith("--")]
    if short and long:
        return f"{short[0]}, {long[0]}"
    return (long or short or [getattr(param, "name", "") or ""])[0]


def cobra_message(exc: Any) -> str:
    """The one ``error: ...`` line for a Click exception, worded as cobra/pflag would word it."""
    from typer._click import exceptions as click_exceptions

    if isinstance(exc, click_exceptions.NoSuchOption):
        name = exc.option_name
        if len(name) == 2 and name[0] == "-" and name[1] != "-":
            return f"error: unknown shorthand flag: {_flag(name)}"
        return f"error: unknown flag: {name.split('=', 1)[0]}"
    if isinstance(exc, click_exceptions.BadOptionUsage):
        message = exc.format_message()
        if "requires" in message:
            return f"error: flag needs an argument: {_flag(exc.option_name)}"
        if "does not take a value" in message:
            # pflag: a bool flag given "=value" parses the value; a non-bool one cannot get here.
            return f"error: invalid argument for {_flag(exc.option_name)} flag: this flag does not take a value"
        return f"error: {message}"
    if isinstance(exc, click_exceptions.MissingParameter):
        param = exc.param
        if param is not None and getattr(param, "param_type_name", "") == "option":
            return f'error: required flag(s) "{_flag_names(param).split(", ")[-1].lstrip("-")}" not set'
        return "error: accepts 1 arg(s), received 0"
    if isinstance(exc, click_exceptions.BadParameter):
        param = exc.param
        if param is not None and getattr(param, "param_type_name", "") == "option":
            detail = exc.message
            return f'error: invalid argument for "{_flag_names(param)}" flag: {detail}'
        return f"error: {exc.format_message()}"
    if isinstance(exc, click_exceptions.UsageError):
        message = exc.format_message()
        found = _NO_SUCH_COMMAND.match(message)
        if found:
            name = _literal(found.group(1))
            from ..golang.cobra import did_you_mean  # cobra's SuggestionsFor rule, the one policy

            suggestions = did_you_mean(name, _commands_of(exc))
            hint = f"; did you mean {' or '.join(suggestions)}?" if suggestions else ""
            return f'error: unknown command "{name}" for "{_command_path(exc)}"{hint}'
        found = _EXTRA_ARGUMENTS.match(message)
        if found:
            first = found.group(1).split(" ", 1)[0]
            return f'error: unknown command "{first}" for "{_command_path(exc)}"'
        return f"error: {message}"
    return f"error: {exc.format_message()}"


def _literal(text: str) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text.strip("'\"")
    return str(value)
