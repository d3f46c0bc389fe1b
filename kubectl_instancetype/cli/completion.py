"""kubectl's plugin completion protocol, served in-process from the Typer app.

kubectl runs ``kubectl_complete-instancetype <args...> <word being completed>``; we answer one candidate per
line (``value<TAB>description``) and a last ``:<directive>`` line (Cobra's ShellCompDirective: 4 means
no file completion, 0 lets the shell complete file names). Nothing is ever written to stderr, and the
exit status is always 0, because kubectl would otherwise drop the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..env import Environment

NO_FILE_COMPLETION = 4
DEFAULT = 0


def candidates(args: Sequence[str], incomplete: str) -> tuple[list[tuple[str, str]], int]:
    """The (value, help) candidates for completing ``incomplete`` after ``args``, and the directive."""
    from typer._click import shell_completion
    from typer._click.core import Parameter
    from typer.main import get_command

    from .registry import PROG_NAME, build, normalise

    command = get_command(build(normalise(args))[0])
    context = shell_completion._resolve_context(command, {}, PROG_NAME, list(args))
    owner, incomplete = shell_completion._resolve_incomplete(context, list(args), incomplete)
    items = owner.shell_complete(context, incomplete)
    directive = NO_FILE_COMPLETION
    if isinstance(owner, Parameter) and getattr(owner.type, "name", "") in ("path", "file", "filename"):
        directive = DEFAULT
    return [(item.value, (item.help or "").splitlines()[0] if item.help else "") for item in items], directive


def complete(argv: Sequence[str], env: Environment) -> int:
    """Answer one kubectl completion request; always exit 0."""
    args, incomplete = list(argv[:-1]), (argv[-1] if argv else "")
    try:
        found, directive = candidates(args, incomplete)
    except Exception:  # noqa: BLE001 - completion must stay silent: a wrong guess is better than noise
        found, directive = [], NO_FILE_COMPLETION
    for value, description in found:
        env.stdout.write(f"{value}\t{description}\n" if description else f"{value}\n")
    env.stdout.write(f":{directive}\n")
    return 0
