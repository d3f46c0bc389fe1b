"""Entry points: ``kubectl-instancetype``, and its ``__complete`` entry, which answers kubectl's completion helper
(the generated sh script ``kubectl_complete-instancetype``, cli/completion_shell.py) for every line the script
does not answer itself.

The command registry (:mod:`.registry`) imports only the module of the command being run, so ``version``
never pays for ``list``. Errors of every kind end here, in one place: one line on stderr and exit status
1, as kubectl does; Click's usage errors are reworded as cobra/pflag word them (:mod:`.usage`).
"""

from __future__ import annotations

import sys

from ..env import Environment, utf8_streams
from .commands import ALIASES, COMMANDS, PROG_NAME

# typing, collections.abc, contextlib and the error hierarchy are imported where they are used: shell completion
# (complete_main) imports this module and needs none of them
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = [
    "ALIASES",
    "COMMANDS",
    "PROG_NAME",
    "build_app",
    "complete_main",
    "console",
    "exit_now",
    "main",
    "run",
]

COMPLETE_VAR = "_KUBECTL_INSTANCETYPE_COMPLETE"


def build_app(argv: Sequence[str] = ()):
    """The Typer app with the command named in ``argv`` registered (all commands when none is)."""
    from .registry import build

    return build(argv)[0]


def _write_error(env: Environment, text: str, *, keep_tabs: bool = False) -> None:
    from ..output.terminal import escape_lines

    try:
        # the message may quote the cluster, a registry or a proxy: their control characters are shown escaped
        # (kubectl's tab-indented debugging blocks keep their tabs); a newline ends it unless it has one (cmdutil)
        text = "\t".join(escape_lines(part) for part in text.split("\t")) if keep_tabs else escape_lines(text)
        env.stderr.write(text if text.endswith("\n") else text + "\n")
    except (OSError, ValueError):
        pass  # no stderr either: the exit status is all that is left


def run(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    """Run the CLI in-process with ``argv`` (without the program name); return the exit status."""
    from ..errors import ExitStatus, PluginError
    from .commands import normalise

    env = env or Environment()
    args = normalise(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["__complete"]:
        # cobra's hidden entry: the shell scripts of `completion bash|zsh|fish|powershell` and the krew
        # launcher call it; kubectl calls kubectl_complete-instancetype with the same arguments.
        from .completion import complete

        return complete(args[1:], env)
    try:
        from .fastpath import parse

        # the hot commands (list, get, describe, create vm, version) without Typer when the table says how they parse;
        # anything else, and any line the fast path does not fully understand, goes to Typer
        parsed = parse(args, COMPLETE_VAR)
        # contextlib.redirect_stdout and redirect_stderr, written out (no contextlib on a fast run)
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = env.stdout, env.stderr
        try:
            result = _run_parsed(parsed, env) if parsed is not None else _run_typer(args, env)
        finally:
            sys.stdout, sys.stderr = saved
        code = int(result or 0)
        env.stdout.flush()
        return code
    except PluginError as exc:
        return report_failure(env, exc)
    except KeyboardInterrupt:
        _write_error(env, "error: interrupted")
        return 130
    except BrokenPipeError:
        return ExitStatus.ERROR
    except Exception as exc:  # noqa: BLE001 - an unexpected failure still ends in one line, unless -v asks for more
        return _framework_exit(env, exc)


def _run_parsed(parsed: Any, env: Environment) -> Any:
    from ..errors import ExitStatus

    try:
        return parsed.run(env)
    except (EOFError, KeyboardInterrupt):
        # what Click's main does around a command (its Abort): an empty line, then run()'s "aborted"
        env.stderr.write("\n")
        _write_error(env, "error: aborted")
        return ExitStatus.ERROR


def _run_typer(args: list[str], env: Environment) -> Any:
    from .options import expand_bare_flags, expand_optional_values
    from .registry import bare_flags, build, optional_value_flags

    app, modules = build(args)
    args = expand_bare_flags(expand_optional_values(args, optional_value_flags(modules)), bare_flags(modules))
    # Click writes help and prompts to sys.stdout/sys.stderr, which run() points at the environment's streams
    return app(args=args, prog_name=PROG_NAME, complete_var=COMPLETE_VAR, standalone_mode=False, obj=env)


def _framework_exit(env: Environment, exc: Exception) -> int:
    """The exit status of a failure that is not the plugin's: Click's and Typer's exits and usage errors
    (only when Typer was imported: a fast-path run never imports it), else any other exception."""
    from ..errors import ExitStatus

    if "typer" in sys.modules:
        from typer._click import exceptions as click_exceptions
        from typer.exceptions import Abort, Exit

        if isinstance(exc, Exit):
            return exc.exit_code
        if isinstance(exc, click_exceptions.NoArgsIsHelpError):
            # cobra: a command group run without a subcommand prints its help on stdout and succeeds.
            env.stdout.write(exc.format_message() + "\n")
            return ExitStatus.SUCCESS
        if isinstance(exc, Abort):
            _write_error(env, "error: aborted")
            return ExitStatus.ERROR
        if isinstance(exc, click_exceptions.ClickException):
            from .click_usage_errors import cobra_message

            _write_error(env, cobra_message(exc))
            return ExitStatus.ERROR
    return report_failure(env, exc)


def report_failure(env: Environment, exc: Exception) -> int:
    """The stderr and exit status of a command that failed with ``exc`` (a traceback first with ``-v``)."""
    from ..errors import ExitStatus, PluginError, exit_code, render

    if env.verbosity:
        import traceback

        traceback.print_exception(exc, file=env.stderr)
    _write_error(env, render(exc), keep_tabs=getattr(exc, "keep_tabs", False))
    return exit_code(exc) if isinstance(exc, PluginError) else ExitStatus.ERROR


def main() -> int:
    """``kubectl-instancetype`` with the arguments in ``sys.argv``; the exit status (the console script is
    :func:`console`)."""
    env = Environment()
    utf8_streams([sys.stdout, sys.stderr], env.goos)
    try:
        # a template may print bytes that are not UTF-8 ({{"\xff"}}): kubectl writes them as they are
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        pass
    code = run(env=env)
    try:
        sys.stdout.flush()
    except (BrokenPipeError, AttributeError, ValueError, OSError):
        pass
    if code and sys.stdout is not None:
        import os

        # A reader that went away (`| head`) must not earn a second complaint when Python flushes at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    return code


def complete_main(argv: Sequence[str] | None = None) -> int:
    """``kubectl-instancetype __complete ARGS... WORD`` (cli/completion.py): one candidate per line and a final
    ``:<directive>`` line. kubectl runs the sh helper ``kubectl_complete-instancetype``, which answers static
    lines itself and execs this entry with the same arguments for the rest (live names)."""
    from .completion import complete

    env = Environment()
    utf8_streams([sys.stdout], env.goos)
    return complete(sys.argv[1:] if argv is None else argv, env)


def console() -> int:
    """Console script ``kubectl-instancetype`` (pyproject.toml): :func:`main`, then :func:`exit_now`; its
    ``__complete`` entry goes to :func:`complete_main` before anything else is imported (the sh completion helper
    runs it for every live name)."""
    fewer_collections()
    if sys.argv[1:2] == ["__complete"]:
        return exit_now(complete_main(sys.argv[2:]))
    return exit_now(main())


# the cyclic garbage collector's first threshold for a command run (Python's is 700 allocations)
GC_THRESHOLD = 50_000


def fewer_collections() -> None:
    """Let the cyclic garbage collector run every 50,000 container allocations instead of every 700. Start-up
    creates mostly objects that live until the process ends (modules, functions, classes), and Python's threshold
    has the collector walk them again and again while they are made: 4.5% of the instructions of a ``list``
    (callgrind: 218M -> 208M), 1.5% of a completion. A list of 10,000 objects decodes JSON that holds no cycles
    either; a cycle that does become garbage is still collected, just later (the second and third generations
    keep Python's thresholds). Only the console scripts call it: the CLI run in-process (tests) keeps the host's
    setting."""
    import gc

    _, second, third = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, second, third)


def exit_now(code: int) -> int:
    """End the process with ``code`` now, without Python's finalization, when nothing is left for it to do: stdout
    and stderr flushed, no atexit handler registered (logging's, the official client's temporary files'), no other
    thread running, no profiler or tracer attached. Finalization tears down every module and frees every object,
    work a finished command does not need: about a tenth of the instructions of ``list`` or ``version --client``
    (callgrind: 240M -> 218M and 102M -> 89M), 15% of a completion. Otherwise ``code`` is returned for the console
    script's ``sys.exit``."""
    import atexit
    import os

    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return code  # a reader that went away: Python's own exit says nothing more (main() points stdout at devnull)
    # CPython's count of atexit handlers (not a documented function: where it is missing, Python's exit it is)
    registered = getattr(atexit, "_ncallbacks", None)
    threading = sys.modules.get("threading")
    if registered is None or registered() or (threading is not None and threading.active_count() > 1):
        return code
    # A profiler or tracer (``python -m cProfile``/``trace``, a debugger, coverage.py) writes its results after
    # the script returns, not from an atexit handler: it gets Python's ordinary exit.
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return code
    os._exit(code)
