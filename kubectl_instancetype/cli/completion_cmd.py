"""``kubectl instancetype completion install-helper``: kubectl's completion helper for installs that lack one.

kubectl (>= 1.26) completes ``kubectl instancetype ...`` by running ``kubectl_complete-instancetype`` from
PATH. pip, pipx and uv install that helper next to the plugin; krew installs one executable only (krew #812).
This command writes a small launcher under that name next to the plugin found on PATH (krew's bin folder for
krew users) that runs the plugin's own completion entry, ``kubectl-instancetype __complete ARGS...``.
"""

import sys
from collections.abc import Mapping
from typing import Optional

import typer

PLUGIN = "kubectl-instancetype"
HELPER = "kubectl_complete-instancetype"
# The launcher's second line: a launcher carrying it may be overwritten; any other file is left alone.
MARKER = "written by `kubectl instancetype completion install-helper`"

GROUP_HELP = """Shell completion for the plugin.

kubectl completes `kubectl instancetype ...` through a helper named kubectl_complete-instancetype on PATH.
pip, pipx and uv install it with the plugin; for krew installs, run `completion install-helper` once.
`completion bash|zsh|fish|powershell` print scripts for running the plugin directly as kubectl-instancetype."""

INSTALL_HELP = f"""Write the {HELPER} launcher that kubectl runs to complete `kubectl instancetype ...`.

The launcher goes next to the {PLUGIN} that kubectl finds on PATH (for krew installs, krew's bin folder:
$KREW_ROOT/bin, by default ~/.krew/bin), or into --dir, and runs that plugin's completion entry. kubectl's own
completion must be enabled in the shell, e.g. `source <(kubectl completion bash)`. After `kubectl krew
uninstall instancetype`, delete the launcher as well."""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the ``completion`` group with its ``install-helper`` command to ``app``."""
    group = typer.Typer(
        help=GROUP_HELP,
        no_args_is_help=True,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    # A callback keeps it a group even with one subcommand registered.
    group.callback()(_group)
    group.command("install-helper", help=INSTALL_HELP, short_help=f"Write the {HELPER} launcher next to the plugin.")(
        install_helper
    )
    for shell, how in SHELLS.items():
        group.command(
            shell,
            help=f"Print the {shell} completion script for running the plugin directly as {PLUGIN}.\n\n"
            f"Load it with:  {how}\n\n`kubectl instancetype <TAB>` needs no script: kubectl runs {HELPER}.",
            short_help=f"Print the {shell} completion script for {PLUGIN}.",
        )(_script_command(shell))
    app.add_typer(group, name="completion", short_help="Shell completion: scripts and kubectl's completion helper.")


# shell -> how to load its script
SHELLS = {
    "bash": "source <(kubectl-instancetype completion bash)",
    "zsh": "source <(kubectl-instancetype completion zsh)",
    "fish": "kubectl-instancetype completion fish | source",
    "powershell": "kubectl-instancetype completion powershell | Out-String | Invoke-Expression",
}


def _script_command(shell: str):
    def print_script(ctx: typer.Context) -> None:
        from .completion_scripts import SCRIPTS

        ctx.obj.stdout.write(SCRIPTS[shell])

    print_script.__doc__ = f"Print the {shell} completion script."
    return print_script


def _group() -> None:
    """Shell completion for the plugin."""


def install_helper(
    ctx: typer.Context,
    directory: Optional[str] = typer.Option(
        None,
        "--dir",
        metavar="DIR",
        help="Write the launcher into DIR (a folder on PATH) instead of next to the plugin found on PATH.",
    ),
    force: bool = typer.Option(False, "--force", help=f"Replace an existing {HELPER} not written by this command."),
) -> None:
    """Write the launcher and say where it went."""
    import os

    env = ctx.obj
    plugin = find_plugin(env.environ, env.home())
    target_dir = os.path.abspath(os.path.expanduser(directory)) if directory else os.path.dirname(plugin)
    path = write_launcher(target_dir, plugin, force=force, windows=sys.platform == "win32")
    env.stdout.write(f"wrote {path} (runs {plugin} __complete)\n")
    if not _on_path(target_dir, env.environ):
        from ..output import messages

        messages.warn(env, f"{target_dir} is not on PATH: kubectl will not find {HELPER} there")


def krew_bin(environ: Mapping[str, str], home: str) -> str:
    """krew's bin folder: ``$KREW_ROOT/bin``, by default ``~/.krew/bin``."""
    import os

    return os.path.join(environ.get("KREW_ROOT") or os.path.join(home, ".krew"), "bin")


def find_plugin(environ: Mapping[str, str], home: str) -> str:
    """The ``kubectl-instancetype`` kubectl runs: the first on PATH, else the one in krew's bin folder.

    The path is kept as found (krew's symlink, not its target), so that the launcher follows upgrades.
    """
    import os
    import shutil

    from ..errors import UsageError

    names = [PLUGIN + ".exe", PLUGIN] if sys.platform == "win32" else [PLUGIN]
    for name in names:
        found = shutil.which(name, path=environ.get("PATH", ""))
        if found:
            return os.path.abspath(found)
    for name in names:
        candidate = os.path.join(krew_bin(environ, home), name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError(f"{PLUGIN} was not found on PATH nor in krew's bin folder ({krew_bin(environ, home)})")


def launcher_text(plugin: str, *, windows: bool = False) -> str:
    """The launcher's content: it runs ``PLUGIN __complete ARGS...`` and stays silent if the plugin is gone."""
    if windows:
        return f'@echo off\r\nrem {HELPER}: {MARKER}\r\nif exist "{plugin}" "{plugin}" __complete %*\r\n'
    import shlex

    quoted = shlex.quote(plugin)
    return (
        "#!/bin/sh\n"
        f"# {HELPER}: {MARKER}.\n"
        "# kubectl runs it to complete `kubectl instancetype ...`; kubectl ignores any answer when it fails, and\n"
        "# prints its stderr: so after the plugin is uninstalled it answers nothing, silently.\n"
        f"[ -x {quoted} ] || exit 0\n"
        f'exec {quoted} __complete "$@"\n'
    )


def write_launcher(directory: str, plugin: str, *, force: bool = False, windows: bool = False) -> str:
    """Write the launcher (mode 0755) into ``directory`` atomically and return its path."""
    import os
    import tempfile

    from ..errors import UsageError

    if not os.path.isdir(directory):
        if os.path.exists(directory):
            raise UsageError(f"--dir {directory}: not a directory")
        raise UsageError(f"--dir {directory}: no such directory")
    path = os.path.join(directory, HELPER + (".cmd" if windows else ""))
    if os.path.lexists(path) and not force and not _ours(path):
        raise UsageError(
            f"{path} already exists and was not written by this command (pip, pipx and uv install their own "
            "helper); remove it or pass --force"
        )
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{HELPER}.", dir=directory)
        with os.fdopen(handle, "w", newline="") as stream:
            stream.write(launcher_text(plugin, windows=windows))
        os.chmod(temporary, 0o755)
        os.replace(temporary, path)
    except OSError as exc:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def _ours(path: str) -> bool:
    try:
        with open(path, "rb") as stream:
            return MARKER.encode() in stream.read(4096)
    except OSError:
        return False


def _on_path(directory: str, environ: Mapping[str, str]) -> bool:
    import os

    entries = [os.path.abspath(entry) for entry in environ.get("PATH", "").split(os.pathsep) if entry]
    return os.path.abspath(directory) in entries
