"""``completion install-helper``: the ``kubectl_complete-instancetype`` helper kubectl runs to complete
``kubectl instancetype ...``, written next to the plugin found on PATH (krew's bin folder for krew users).

kubectl (>= 1.26) completes plugins through a helper named ``kubectl_complete-<plugin>`` on PATH
(k8s.io/kubectl/pkg/cmd/plugin, GetPluginCommandGroups / plugin completion); krew installs one executable
only (krew #812), so this writes one: on POSIX the generated sh helper (cli/completion_helper.sh: the static
answers itself, everything else through the plugin's ``__complete`` entry) bound to that plugin; on Windows a
``.cmd`` launcher that runs ``__complete`` for every line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..golang.goos import GOOS

PLUGIN = "kubectl-instancetype"
HELPER = "kubectl_complete-instancetype"
# The launcher's second line: a launcher carrying it may be overwritten; any other file is left alone.
MARKER = "written by `kubectl instancetype completion install-helper`"
# Two lines of the generated sh helper (cli/completion_shell.py writes them, launcher_text replaces them): its
# title (the second line, where the marker goes) and where it finds the plugin (beside itself, for pip, pipx, uv).
TITLE_LINE = f"# {HELPER}: kubectl's completion helper for {PLUGIN}."
PLUGIN_LINE = f"case $0 in */*) plugin=${{0%/*}}/{PLUGIN} ;; *) plugin={PLUGIN} ;; esac"


@dataclass
class Launcher:
    """Where the launcher was written, the plugin it runs, and whether its folder is on PATH."""

    path: str
    plugin: str
    directory: str
    on_path: bool


def install_helper(
    environ: Mapping[str, str], home: str, *, directory: str | None, force: bool, goos: str = GOOS, script: str = ""
) -> Launcher:
    """Write the helper into ``directory`` (default: next to the plugin kubectl finds) for that plugin: the
    generated sh helper ``script`` on POSIX; on Windows (``goos``) a ``.cmd`` file, which kubectl's
    ``exec.LookPath`` finds through PATHEXT."""
    import os

    plugin = find_plugin(environ, home, goos)
    target_dir = os.path.abspath(os.path.expanduser(directory)) if directory else os.path.dirname(plugin)
    windows = goos == "windows"
    text = launcher_text(plugin, windows=windows, script=script, resolved=os.path.realpath(plugin))
    path = write_launcher(target_dir, text, force=force, windows=windows)
    return Launcher(path, plugin, target_dir, _on_path(target_dir, environ, goos))


def krew_bin(environ: Mapping[str, str], home: str) -> str:
    """krew's bin folder: ``$KREW_ROOT/bin``, by default ``~/.krew/bin``."""
    import os

    return os.path.join(environ.get("KREW_ROOT") or os.path.join(home, ".krew"), "bin")


def find_plugin(environ: Mapping[str, str], home: str, goos: str = GOOS) -> str:
    """The ``kubectl-instancetype`` kubectl runs: the first on PATH, else the one in krew's bin folder.

    The path is kept as found (krew's symlink, not its target), so that the launcher follows upgrades.
    """
    import os
    import shutil

    from ..errors import UsageError

    names = [PLUGIN + ".exe", PLUGIN] if goos == "windows" else [PLUGIN]
    for name in names:
        found = shutil.which(name, path=environ.get("PATH", ""))
        if found:
            return os.path.abspath(found)
    for name in names:
        candidate = os.path.join(krew_bin(environ, home), name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError(f"{PLUGIN} was not found on PATH nor in krew's bin folder ({krew_bin(environ, home)})")


def launcher_text(plugin: str, *, windows: bool = False, script: str = "", resolved: str = "") -> str:
    """The helper's content for ``plugin``.

    POSIX: the generated sh helper ``script`` (cli/completion_helper.sh), its title line replaced by the marker
    and its plugin line by ``plugin``'s path. The static answers come from the table of the version that wrote
    it: ``resolved``, the plugin's real path then (krew's symlink points into a folder per version, which
    ``krew upgrade`` and ``krew uninstall`` delete), must still exist, or every line goes to ``plugin``; once the
    plugin is gone, it answers nothing, silently (kubectl shows a failing helper's stderr).
    Windows: a ``.cmd`` launcher that runs ``PLUGIN __complete ARGS...`` and stays silent if the plugin is gone.
    """
    if windows:
        return f'@echo off\r\nrem {HELPER}: {MARKER}\r\nif exist "{plugin}" "{plugin}" __complete %*\r\n'
    import shlex

    if TITLE_LINE not in script or PLUGIN_LINE not in script:
        raise ValueError("not the generated completion helper (cli/completion_helper.sh): run `make completion-table`")
    bound = (
        f"plugin={shlex.quote(plugin)}\n"
        "# the table below is the one of this plugin version: after krew upgrade or uninstall, the plugin answers\n"
        f"[ -e {shlex.quote(resolved or plugin)} ] || delegate=1"
    )
    return script.replace(TITLE_LINE, f"# {HELPER}: {MARKER}.", 1).replace(PLUGIN_LINE, bound, 1)


def write_launcher(directory: str, text: str, *, force: bool = False, windows: bool = False) -> str:
    """Write the launcher ``text`` (mode 0755) into ``directory`` atomically and return its path."""
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
            stream.write(text)
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


def _on_path(directory: str, environ: Mapping[str, str], goos: str = GOOS) -> bool:
    import os

    from ..golang.goos import split_list

    entries = [os.path.normcase(os.path.abspath(entry)) for entry in split_list(environ.get("PATH", ""), goos) if entry]
    return os.path.normcase(os.path.abspath(directory)) in entries
