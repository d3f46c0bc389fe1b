"""The command registry (pip's pattern): names map to module paths, and only what runs is imported.

A command module defines ``register(parent, argv)``. A group module (``create``) registers a Typer group
with :func:`add_group` and, inside it, only the subcommand named in ``argv``: ``create instancetype``
never imports the VM builder. With no command named (``--help``) every command is registered, so help
lists them all. Modules are named by strings, so no module of the CLI imports another one back.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from .commands import ALIASES, COMMANDS, CONTEXT_SETTINGS, HELP, PROG_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ALIASES",
    "COMMANDS",
    "PROG_NAME",
    "add_group",
    "bare_flags",
    "build",
    "optional_value_flags",
    "register_modules",
]


def selected_command(argv: Sequence[str], commands: Sequence[str] = ()) -> str | None:
    """The command (or subcommand) named first in ``argv``; None when a flag comes first or it is unknown."""
    for arg in argv:
        if arg.startswith("-"):
            return None
        name = ALIASES.get(arg, arg)
        return name if not commands or name in commands else None
    return None


def register_modules(parent: Any, modules: dict[str, str], argv: Sequence[str]) -> list[ModuleType]:
    """Import and register the module of the name ``argv`` selects (all of them when none): the leaves.

    Each module's ``register(parent, argv)`` receives ``argv`` from its own name on (empty when every
    command is being registered).
    Returns the leaf command modules registered (a group returns its own leaves), whose
    ``optional_value_flags`` the entry point reads.
    """
    chosen = selected_command(argv, list(modules))
    names = [chosen] if chosen else list(modules)
    leaves: list[ModuleType] = []
    seen: set[str] = set()
    for name in names:
        path = modules[name]
        if path in seen:  # one module may register several names (create instancetype/preference)
            continue
        seen.add(path)
        import importlib

        module = importlib.import_module(path)
        # The module sees argv from its own name on (empty when everything is registered).
        registered = module.register(parent, list(argv) if name == chosen else [])
        leaves.extend(registered if isinstance(registered, list) else [module])
    return leaves


def add_group(
    app: Any, name: str, *, help_text: str, short_help: str, subcommands: dict[str, str], argv: Sequence[str]
) -> list[ModuleType]:
    """Add the group ``name`` to ``app`` with only the selected subcommand (all when none is named).

    ``argv`` starts with the group's own name, as :func:`register_modules` hands it over."""
    import typer

    group = typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None, context_settings=CONTEXT_SETTINGS)
    # A callback keeps it a group even with one subcommand registered.
    group.callback()(_group_callback)
    leaves = register_modules(group, subcommands, argv[1:])
    app.add_typer(group, name=name, short_help=short_help)
    return leaves


def _group_callback() -> None:
    """A command group."""


def _root() -> None:
    """KubeVirt instance types and preferences from the terminal."""


def build(argv: Sequence[str]) -> tuple[Any, list[ModuleType]]:
    """The Typer app with the command named in ``argv`` registered (all when none is), and the leaf modules."""
    import typer

    app = typer.Typer(
        name=PROG_NAME,
        help=HELP,
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings=CONTEXT_SETTINGS,
    )
    # A callback keeps the app a command group even when only one command is registered.
    app.callback()(_root)
    leaves = register_modules(app, COMMANDS, argv)
    from .helpformat import install

    install(app, optional_value_flags(leaves))
    return app, leaves


def bare_flags(modules: Sequence[ModuleType]) -> dict[str, tuple[str, bool]]:
    """The flags of the registered commands whose bare spelling means another flag (:func:`.options.expand_bare_flags`)."""
    flags: dict[str, tuple[str, bool]] = {}
    for module in modules:
        extra = getattr(module, "bare_flags", None)
        if extra is not None:
            flags.update(extra())
    return flags


def optional_value_flags(modules: Sequence[ModuleType]) -> dict[str, str]:
    """The flags of the registered commands whose value may be left out (pflag's NoOptDefVal)."""
    from .options import OPTIONAL_VALUE_FLAGS

    flags = dict(OPTIONAL_VALUE_FLAGS)
    for module in modules:
        extra = getattr(module, "optional_value_flags", None)
        if extra is not None:
            flags.update(extra())
    return flags
