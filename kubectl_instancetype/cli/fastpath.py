"""The hot commands without Typer: ``list``, ``get``, ``describe``, ``create vm`` and ``version``, parsed from a
generated table.

Importing Typer (and its vendored Click) and assembling the app costs more than a small ``list`` does. The Typer
app stays the one definition of the CLI: :mod:`.fastpath_data` is generated from it (``make fastpath-table``,
:mod:`.fastpath_spec`), and this module reads that table to parse the few command lines it fully understands,
as Click would, into the same parameter values Typer would hand to the command. It then runs the command
exactly as the Typer command does (:func:`.options.invoke`: the same options class, warnings, validate() and
run()).

Anything it does not fully understand is left to Typer, which then parses, explains or refuses it exactly
as before: ``-h``/``--help``, an unknown flag, a missing or surplus argument, a flag value that does not
convert (Typer words that error), combined short flags (``-Aw``), ``--flag=value`` on a boolean, a flag
without its value, and shell completion requested through Click's environment variable.
``tests/unit/test_fastpath.py`` generates command lines from the table plus garbage and requires that the
fast path either defers or yields exactly the values Typer parses (hypothesis), and that the table is current.
"""

from __future__ import annotations

import os

from ..errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["Parsed", "command_path", "parse"]


class Parsed:
    """A command line the fast path understood: the command's table entry and its parameter values."""

    __slots__ = ("entry", "path", "values")

    def __init__(self, path: str, entry: dict[str, Any], values: dict[str, Any]):
        self.path, self.entry, self.values = path, entry, values

    def command(self) -> tuple[type, Any]:
        """(the options class, the run function), from the command's module."""
        import sys

        __import__(self.entry["module"])  # importlib.import_module, without importing importlib (and warnings)
        module = sys.modules[self.entry["module"]]
        return getattr(module, self.entry["options"]), getattr(module, self.entry["run"])

    def run(self, env: Any) -> Any:
        """Run the command as its Typer command would (:func:`.options.invoke`)."""
        from .options import invoke

        options_class, run = self.command()
        return invoke(env, options_class, run, dict(self.values), self.entry["extra"])


def command_path(args: Sequence[str]) -> str | None:
    """The hot command ``args`` (normalised: aliases replaced, global flags after the command) names, or None."""
    from .fastpath_data import TABLE

    if len(args) >= 2 and f"{args[0]} {args[1]}" in TABLE:
        return f"{args[0]} {args[1]}"
    if args and args[0] in TABLE and " " not in args[0]:
        return args[0]
    return None


def parse(args: Sequence[str], complete_var: str = "") -> Parsed | None:
    """The parameter values of the hot command ``args`` names, parsed as Click parses them; None when the
    command is not a hot one or the line is anything the fast path leaves to Typer (see the module's doc)."""
    path = command_path(args)
    if path is None or (complete_var and complete_var in os.environ):
        return None
    from .fastpath_data import TABLE
    from .options import expand_bare_flags, expand_optional_values

    entry: dict[str, Any] = TABLE[path]
    words = list(args[len(path.split()) :])
    words = expand_bare_flags(expand_optional_values(words, entry["optional_values"]), entry["bare"])
    values = _parse(entry, words)
    return None if values is None else Parsed(path, entry, values)


def _parse(entry: dict[str, Any], words: list[str]) -> dict[str, Any] | None:
    """Click's OptionParser on ``words`` for the subset the table describes, then Click's and Typer's value
    processing; None to defer."""
    params = entry["params"]
    long_names: dict[str, dict[str, Any]] = {}
    short_names: dict[str, dict[str, Any]] = {}
    for param in params:
        for name in param["opts"]:
            (long_names if name.startswith("--") or len(name) != 2 else short_names)[name] = param
    given: dict[str, list[Any]] = {}
    positionals: list[str] = []
    index = 0
    if not words and entry["no_args_is_help"]:
        return None
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            positionals += words[index:]
            break
        if word in entry["help"]:
            return None
        if word[:1] != "-" or len(word) == 1:
            positionals.append(word)
            if not entry["interspersed"]:
                positionals += words[index:]
                break
            continue
        name, equals, attached = word.partition("=")
        param = long_names.get(name)
        if param is None:
            if word[:2] == "--" or word[:2] not in short_names:
                return None  # unknown: Typer says so (with its suggestion)
            param, equals, attached = short_names[word[:2]], "", word[2:]
            if param["flag"] and attached:
                return None  # -Aw: combined short flags
            equals = "=" if attached else ""
        if param["flag"]:
            if equals:
                return None  # --flag=value: Click refuses it
            given.setdefault(param["name"], []).append(True)
            continue
        if not equals:
            if index >= len(words):
                return None  # the value is missing
            attached = words[index]
            index += 1
        given.setdefault(param["name"], []).append(attached)
    values: dict[str, Any] = {}
    arguments = [param for param in params if param["kind"] == "argument"]
    if len(arguments) > 1 or (not arguments and positionals):
        return None
    for param in params:
        raw = positionals if param["kind"] == "argument" else given.get(param["name"])
        if not raw:
            if param["required"]:
                return None
            values[param["name"]] = param["default"]
            continue
        try:
            converted = [_convert(param, value) for value in raw]
        except UsageError:
            return None  # Typer words the error
        if param["multiple"]:
            values[param["name"]] = converted
        elif param["kind"] == "argument":
            if len(converted) != 1:
                return None
            values[param["name"]] = converted[0]
        else:
            values[param["name"]] = converted[-1]  # the last occurrence wins, as in Click
    return values


def _convert(param: dict[str, Any], value: Any) -> Any:
    kind = param["type"]
    if kind == "bool":
        return value
    if kind == "string":
        return str(value)
    from . import options

    converter = options.GO_INT if kind == "go_int" else options.NON_BLANK
    return converter.convert(value, param["flag_names"])
