"""``completion install-helper``: the ``kubectl_complete-instancetype`` launcher kubectl runs to complete
``kubectl instancetype ...``, written next to the plugin found on PATH (krew's bin folder for krew users).

kubectl (>= 1.26) completes plugins through a helper named ``kubectl_complete-<plugin>`` on PATH
(k8s.io/kubectl/pkg/cmd/plugin, GetPluginCommandGroups / plugin completion); krew installs one executable
only (krew #812), so this writes a launcher that runs the plugin's own ``__complete`` entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..golang.goos import GOOS

PLUGIN = "kubectl-instancetype"
HELPER = "kubectl_complete-instancetype"
# The launcher's second line: a launcher carrying it may be overwritten; any other file is left alone.
MARKER = "written by `kubectl instancetype completion install-helper`"


@dataclass
class Launcher:
    """Where the launcher was written, the plugin it runs, and whether its folder is on PATH."""

    path: str
    plugin: str
    directory: str
    on_path: bool


def install_helper(
    environ: Mapping[str, str], home: str, *, directory: str | None, force: bool, goos: str = GOOS
) -> Launcher:
    """Write the launcher into ``directory`` (default: next to the plugin kubectl finds) for that plugin; on
    Windows (``goos``) a ``.cmd`` file, which kubectl's ``exec.LookPath`` finds through PATHEXT."""
    import os

    plugin = find_plugin(environ, home, goos)
    target_dir = os.path.abspath(os.path.expanduser(directory)) if directory else os.path.dirname(plugin)
    path = write_launcher(target_dir, plugin, force=force, windows=goos == "windows")
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


def _on_path(directory: str, environ: Mapping[str, str], goos: str = GOOS) -> bool:
    import os

    from ..golang.goos import split_list

    entries = [os.path.normcase(os.path.abspath(entry)) for entry in split_list(environ.get("PATH", ""), goos) if entry]
    return os.path.normcase(os.path.abspath(directory)) in entries
