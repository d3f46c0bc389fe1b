"""Entry points: ``kubectl-instancetype`` and ``kubectl_complete-instancetype``.

A command registry (pip's pattern) maps each command to the module that defines it; only the module of the
command being run is imported, so ``version`` never pays for ``list``. Errors of every kind end here, in one
place: one line on stderr and exit status 1, as kubectl does.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Sequence

from ..env import Environment
from ..errors import ExitStatus, PluginError, exit_code, render

PROG_NAME = "kubectl instancetype"
COMPLETE_VAR = "_KUBECTL_INSTANCETYPE_COMPLETE"

# command name -> the module that registers it (with its summary). Order is the order of `--help`.
COMMANDS: dict[str, str] = {
    "completion": "kubectl_instancetype.cli.completion_cmd",
    "create": "kubectl_instancetype.cli.create",
    "list": "kubectl_instancetype.cli.list",
    "version": "kubectl_instancetype.cli.version",
}
ALIASES = {"ls": "list"}

HELP = """KubeVirt instance types and preferences from the terminal.

Find VirtualMachine(Cluster)Instancetypes and VirtualMachine(Cluster)Preferences by size and features,
in both scopes, against the live cluster."""


def _selected_command(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if arg.startswith("-"):
            return None  # a global flag or --help first: register everything
        return ALIASES.get(arg, arg)
    return None


def _root() -> None:
    """KubeVirt instance types and preferences from the terminal."""


def build_app(argv: Sequence[str] = ()):
    """The Typer app with the command named in ``argv`` registered (all commands when none is)."""
    return _build(argv)[0]


def optional_value_flags(modules: Sequence[object]) -> dict[str, str]:
    """The flags of the registered commands whose value may be left out (pflag's NoOptDefVal)."""
    from .options import OPTIONAL_VALUE_FLAGS

    flags = dict(OPTIONAL_VALUE_FLAGS)
    for module in modules:
        extra = getattr(module, "optional_value_flags", None)
        if extra is not None:
            flags.update(extra())
    return flags


def _build(argv: Sequence[str]):
    import typer

    app = typer.Typer(
        name=PROG_NAME,
        help=HELP,
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    # A callback keeps the app a command group even when only one command is registered.
    app.callback()(_root)
    selected = _selected_command(argv)
    names = [selected] if selected in COMMANDS else list(COMMANDS)
    modules = []
    for name in names:
        module = importlib.import_module(COMMANDS[name])
        # A command group may register only the subcommand being run (the words after its name).
        module.register(app, list(argv[1:]) if name == selected else [])
        modules.append(module)
    return app, modules


def _normalise(argv: Sequence[str]) -> list[str]:
    args = list(argv)
    if args and args[0] in ALIASES:
        args[0] = ALIASES[args[0]]
    return args


def run(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    """Run the CLI in-process with ``argv`` (without the program name); return the exit status."""
    from typer._click import exceptions as click_exceptions
    from typer.exceptions import Abort, Exit, TyperException

    env = env or Environment()
    args = _normalise(sys.argv[1:] if argv is None else argv)
    try:
        app, modules = _build(args)
        from .options import expand_optional_values

        args = expand_optional_values(args, optional_value_flags(modules))
        # Click writes help and prompts to sys.stdout/sys.stderr: point them at the environment's streams.
        with contextlib.redirect_stdout(env.stdout), contextlib.redirect_stderr(env.stderr):
            result = app(args=args, prog_name=PROG_NAME, complete_var=COMPLETE_VAR, standalone_mode=False, obj=env)
        return int(result or 0)
    except Exit as exc:
        return exc.exit_code
    except Abort:
        env.stderr.write("error: aborted\n")
        return ExitStatus.ERROR
    except PluginError as exc:
        if env.verbosity:
            import traceback

            traceback.print_exception(exc, file=env.stderr)
        env.stderr.write(render(exc) + "\n")
        return exit_code(exc)
    except click_exceptions.NoSuchOption as exc:
        env.stderr.write(f"error: unknown flag: {exc.option_name}\n")
        return ExitStatus.ERROR
    except click_exceptions.UsageError as exc:
        env.stderr.write(f"error: {exc.format_message()}\n")
        return ExitStatus.ERROR
    except TyperException as exc:
        env.stderr.write(f"error: {exc.format_message()}\n")
        return ExitStatus.ERROR
    except KeyboardInterrupt:
        env.stderr.write("error: interrupted\n")
        return 130
    except BrokenPipeError:
        return ExitStatus.ERROR
    except Exception as exc:  # noqa: BLE001 - an unexpected failure still ends in one line, unless -v asks for more
        if env.verbosity:
            import traceback

            traceback.print_exception(exc, file=env.stderr)
        env.stderr.write(render(exc) + "\n")
        return ExitStatus.ERROR
    finally:
        try:
            env.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass


def main() -> int:
    """Console script ``kubectl-instancetype``.

    The hidden first word ``__complete`` serves kubectl's completion protocol from this executable, for installs
    that have only one (krew): the launcher written by ``completion install-helper`` runs it.
    """
    if sys.argv[1:2] == ["__complete"]:
        return complete_main(sys.argv[2:])
    return run()


def complete_main(argv: Sequence[str] | None = None) -> int:
    """Console script ``kubectl_complete-instancetype`` (kubectl's plugin completion helper).

    kubectl runs it with the plugin's arguments and the word being completed last; it prints one
    candidate per line and a final ``:<directive>`` line (see :mod:`.completion`).
    """
    from .completion import complete

    return complete(sys.argv[1:] if argv is None else argv, Environment())
