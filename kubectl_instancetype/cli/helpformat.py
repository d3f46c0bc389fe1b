"""``--help`` in cobra's layout, so that ``kubectl instancetype ... --help`` reads like ``kubectl`` and ``virtctl``.

cobra prints the long description, then ``Usage:``, ``Aliases:``, ``Examples:``, ``Available Commands:``,
``Flags:`` and, for groups, ``Use "... [command] --help" for more information about a command.``; flags are
laid out by pflag (``  -n, --namespace string   usage (default "x")``, the usage column aligned for all
flags). The registry installs these classes on every registered command (:func:`install`), so command
modules keep using ``app.command()``.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand, TyperGroup

from .commands import ALIASES

MIN_NAME_PADDING = 11  # cobra's minNamePadding
EXAMPLES_HEADING = "Examples:"


def split_help(text: str) -> tuple[str, str]:
    """(long description, examples): Click's ``\\b`` markers removed, examples after an ``Examples:`` line."""
    lines = [line for line in (text or "").replace("\r\n", "\n").split("\n") if line != "\b"]
    for index, line in enumerate(lines):
        if line.strip() == EXAMPLES_HEADING:
            long_text = "\n".join(lines[:index]).strip()
            examples = [example for example in lines[index + 1 :]]
            while examples and not examples[0].strip():
                examples.pop(0)
            body = "\n".join(
                example if example.startswith("  ") or not example else "  " + example for example in examples
            )
            return long_text, body.rstrip()
    return "\n".join(lines).strip(), ""


_PFLAG_TYPES = frozenset(
    {"string", "stringArray", "strings", "int", "int32", "uint", "uint32", "ints", "uints", "duration", "bool"}
)


def _type_name(param: Any) -> str:
    """pflag's value name for an option: empty for booleans, else the Go type pflag would show.

    Flags made from a virtctl flag table carry their pflag type as the metavar (``stringArray``, ``uint32``;
    ``[=true|false]`` for booleans); the other options are typed by their Click type.
    """
    metavar = getattr(param, "metavar", None) or ""
    if getattr(param, "is_flag", False) or metavar == "[=true|false]":
        return ""
    if metavar in _PFLAG_TYPES:
        return "" if metavar == "bool" else metavar
    if getattr(param, "multiple", False):
        return "stringArray"
    type_name = getattr(param.type, "name", "text")
    return "int" if type_name in ("integer", "int") else "string"


def _default_text(param: Any, type_name: str) -> str:
    """pflag's `` (default ...)`` suffix; zero values (empty, 0, false) print none."""
    default = param.default
    if getattr(param, "is_flag", False) or default in (None, "", 0, False, (), []) or callable(default):
        return ""
    return f' (default "{default}")' if type_name == "string" else f" (default {default})"


def flag_usages(params: list[Any], command_name: str, optional_values: dict[str, str] | None = None) -> str:
    """pflag's ``FlagUsages``: one line per option, the usage column aligned, help option first as cobra adds it."""
    optional_values = optional_values or {}
    entries: list[tuple[str, str]] = []
    for param in params:
        if getattr(param, "param_type_name", "") != "option" or getattr(param, "hidden", False):
            continue
        opts = list(param.opts) + list(getattr(param, "secondary_opts", []))
        short = next((o for o in opts if len(o) == 2 and o[0] == "-" and o[1] != "-"), None)
        long = next((o for o in opts if o.startswith("--")), None)
        if long is None and short is not None:
            long, short = short, None
        is_help = "--help" in opts
        line = f"  {short}, {long}" if short else f"      {long}"
        type_name = "" if is_help else _type_name(param)
        if type_name:
            line += " " + type_name
        if long in optional_values and not (type_name == "" and optional_values[long] == "true"):
            # pflag shows NoOptDefVal, except "true" on a boolean flag
            line += f'[="{optional_values[long]}"]' if type_name == "string" else f"[={optional_values[long]}]"
        usage = f"help for {command_name}" if is_help else (param.help or "").strip()
        if not is_help:
            usage += _default_text(param, type_name)
        entries.append((line, usage))
    help_first = sorted(entries, key=lambda entry: entry[0].split("--", 1)[1].split(" ", 1)[0])
    width = max((len(line) for line, _ in help_first), default=0) + 1
    # pflag keeps the newlines of a usage text and indents what follows them to the usage column.
    indent = "\n" + " " * (width + 1)
    return "\n".join(
        f"{line} {' ' * (width - len(line))}{usage.replace(chr(10), indent)}".rstrip() for line, usage in help_first
    )


def cobra_help(command: Any, ctx: Any) -> str:
    """The whole ``--help`` text of ``command`` in cobra's layout."""
    long_text, examples = split_help(command.help or command.short_help or "")
    path = ctx.command_path
    is_group = hasattr(command, "list_commands")
    parts = []
    if long_text:
        parts.append(long_text)
    usage = ["Usage:"]
    if not is_group or getattr(command, "invoke_without_command", False):
        arguments = " ".join(
            param.make_metavar(ctx) if hasattr(param, "make_metavar") else param.name.upper()
            for param in command.get_params(ctx)
            if getattr(param, "param_type_name", "") == "argument"
        )
        usage.append(f"  {path} {arguments + ' ' if arguments else ''}[flags]")
    if is_group:
        usage.append(f"  {path} [command]")
    parts.append("\n".join(usage))
    aliases = [alias for alias, target in ALIASES.items() if target == command.name and ctx.parent is not None]
    if aliases:
        parts.append(f"Aliases:\n  {', '.join([command.name, *aliases])}")
    if examples:
        parts.append(f"{EXAMPLES_HEADING}\n{examples}")
    if is_group:
        names = sorted(command.list_commands(ctx))
        padding = max([MIN_NAME_PADDING, *(len(name) for name in names)])
        rows = []
        for name in names:
            sub = command.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            rows.append(f"  {name.ljust(padding)} {sub.get_short_help_str(limit=300)}".rstrip())
        parts.append("Available Commands:\n" + "\n".join(rows))
    optional = getattr(command, "optional_values", {})
    flags = flag_usages(command.get_params(ctx), command.name or path.rsplit(" ", 1)[-1], optional)
    if flags:
        parts.append("Flags:\n" + flags)
    if is_group:
        parts.append(f'Use "{path} [command] --help" for more information about a command.')
    return "\n\n".join(parts) + "\n"


class CobraCommand(TyperCommand):
    """A Typer command whose ``--help`` has cobra's layout."""

    # flags whose value may be left out, and what they mean alone (pflag's NoOptDefVal), for `[="client"]`
    optional_values: dict[str, str] = {}  # noqa: RUF012 - replaced per app by install(), never mutated

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write cobra's help text."""
        formatter.write(cobra_help(self, ctx))


class CobraGroup(TyperGroup):
    """A Typer group whose ``--help`` has cobra's layout (subcommands sorted by name, as cobra sorts them)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write cobra's help text."""
        formatter.write(cobra_help(self, ctx))


def install(app: Any, optional_values: dict[str, str] | None = None) -> None:
    """Use the cobra classes for ``app``, its groups and every command registered on them so far.

    ``optional_values``: the flags of the registered commands whose value may be left out (shown as pflag
    shows them); only the flags a command has are shown, so one map serves every command.
    """
    command_class = type("CobraCommand", (CobraCommand,), {"optional_values": dict(optional_values or {})})
    _install(app, command_class)


def _install(app: Any, command_class: type) -> None:
    app.info.cls = CobraGroup
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = command_class
    for group in app.registered_groups:
        _install(group.typer_instance, command_class)
