"""``kubectl instancetype completion install-helper``: kubectl's completion helper for installs that lack one.

kubectl (>= 1.26) completes ``kubectl instancetype ...`` by running ``kubectl_complete-instancetype`` from
PATH. pip, pipx and uv install that helper next to the plugin; krew installs one executable only (krew #812).
This command writes the helper under that name next to the plugin found on PATH (krew's bin folder for krew
users): on POSIX the generated sh helper (cli/completion_helper.sh), which answers commands, flags and fixed
values itself and runs the plugin's own completion entry, ``kubectl-instancetype __complete ARGS...``, for the
rest; on Windows a ``.cmd`` launcher that runs that entry for every line.
"""

from typing import Annotated, Optional

import typer

from . import options

PLUGIN = "kubectl-instancetype"
HELPER = "kubectl_complete-instancetype"

GROUP_HELP = """Shell completion for the plugin.

kubectl completes `kubectl instancetype ...` through a helper named kubectl_complete-instancetype on PATH.
pip, pipx and uv install it with the plugin; for krew installs, run `completion install-helper` once.
`completion bash|zsh|fish|powershell` print scripts for running the plugin directly as kubectl-instancetype."""

INSTALL_HELP = f"""Write the {HELPER} helper that kubectl runs to complete `kubectl instancetype ...`.

The helper goes next to the {PLUGIN} that kubectl finds on PATH (for krew installs, krew's bin folder:
$KREW_ROOT/bin, by default ~/.krew/bin), or into --dir. On Linux and macOS it is a sh script that answers
commands, flags and fixed values itself and runs that plugin's completion entry for the rest (names from the
cluster); on Windows a .cmd file that runs the entry for every line. kubectl's own completion must be enabled
in the shell, e.g. `source <(kubectl completion bash)`. After `kubectl krew uninstall instancetype`, delete the
helper as well."""


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
    group.command("install-helper", help=INSTALL_HELP, short_help=f"Write the {HELPER} helper next to the plugin.")(
        options.command(InstallHelperOptions, run_install_helper)
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


@options.dataclass
class ScriptOptions:
    """Print the completion script (no flags)."""


def _script_command(shell: str):
    def print_script(env, opts: ScriptOptions) -> None:
        from .completion_scripts import SCRIPTS

        env.stdout.write(SCRIPTS[shell])

    command = options.command(ScriptOptions, print_script)
    command.__doc__ = f"Print the {shell} completion script."
    return command


def _group() -> None:
    """Shell completion for the plugin."""


@options.dataclass
class InstallHelperOptions:
    """Write the launcher and say where it went."""

    directory: Annotated[
        Optional[str],
        options.value_option(
            "--dir",
            metavar="DIR",
            help="Write the launcher into DIR (a folder on PATH) instead of next to the plugin found on PATH.",
        ),
    ] = None
    force: Annotated[
        bool, options.bool_option("--force", help=f"Replace an existing {HELPER} not written by this command.")
    ] = False


def run_install_helper(env, opts: InstallHelperOptions) -> None:
    """Write the launcher; warn when kubectl will not find it."""
    from ..output.terminal import escape
    from ..usecases.completion_helper import install_helper
    from .completion_shell import SCRIPT_FILE

    script = SCRIPT_FILE.read_text(encoding="utf-8")
    launcher = install_helper(
        env.environ, env.home(), script=script, directory=opts.directory, force=opts.force, goos=env.goos
    )
    # paths come from $PATH, $HOME and --directory: an ESC or a newline in them is shown escaped, not obeyed
    env.stdout.write(f"wrote {escape(str(launcher.path))} (runs {escape(str(launcher.plugin))} __complete)\n")
    if not launcher.on_path:
        from ..output import messages

        messages.warn(env, f"{escape(str(launcher.directory))} is not on PATH: kubectl will not find {HELPER} there")
