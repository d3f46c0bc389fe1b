"""What differs by operating system in the Go code kubectl is made of, for one ``GOOS`` given as a value (tests pass
``"windows"`` on Linux instead of patching ``sys.platform``):

- :func:`split_list`: ``path/filepath.SplitList`` (``KUBECONFIG``, ``PATH``): ``:`` on Unix, ``;`` on Windows
  where double quotes protect a ``;`` and are removed;
- :func:`home_dir`: client-go's ``util/homedir.HomeDir`` (where ``~/.kube/config`` is): ``HOME`` on Unix; on
  Windows the first of ``HOME``, ``HOMEDRIVE``+``HOMEPATH``, ``USERPROFILE`` that holds ``.kube\\config``, else
  the first of ``HOME``, ``USERPROFILE``, ``HOMEDRIVE``+``HOMEPATH`` that is a writable folder, exists, or is set;
- :func:`look_path`: ``os/exec.LookPath`` as ``exec.Command`` uses it (an exec credential plugin's command): a
  name is searched on ``PATH``; on Windows with each ``PATHEXT`` extension (``.com;.exe;.bat;.cmd`` by default),
  and a name with an extension of its own is tried as it is first;
- :func:`errno_text`, :func:`path_error`, :func:`read_file_error`: the text of Go's ``syscall.Errno`` and
  ``*fs.PathError`` (``open /p: no such file or directory``), the one place the plugin writes a file error in Go's
  words.

Each takes the file-system look-ups it needs as functions, defaulting to the real ones.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (shell completion imports this module)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

# This machine's GOOS (runtime.GOOS): the names krew's selectors and Go's build tags use.
GOOS = {"win32": "windows", "cygwin": "windows"}.get(sys.platform, sys.platform)


def path_module(goos: str):  # type: ignore[no-untyped-def]
    """``path/filepath`` of that GOOS: :mod:`ntpath` on Windows, :mod:`posixpath` elsewhere."""
    if goos == "windows":
        import ntpath

        return ntpath
    import posixpath

    return posixpath


def list_separator(goos: str) -> str:
    """``filepath.ListSeparator``."""
    return ";" if goos == "windows" else ":"


def split_list(value: str, goos: str = GOOS) -> list[str]:
    """``filepath.SplitList`` (path/filepath/path_unix.go, path_windows.go): no element for an empty string."""
    if not value:
        return []
    if goos != "windows":
        return value.split(":")
    # Windows: split on ';' outside double quotes, then drop every quote
    items, start, quoted = [], 0, False
    for index, char in enumerate(value):
        if char == '"':
            quoted = not quoted
        elif char == ";" and not quoted:
            items.append(value[start:index])
            start = index + 1
    items.append(value[start:])
    return [item.replace('"', "") for item in items]


def errno_text(strerror: str) -> str:
    """An errno's text as Go's ``syscall.Errno.Error()`` prints it (syscall/zerrors_linux_*.go: C's strerror with its
    first letter lowercased, ``No such file or directory`` -> ``no such file or directory``); the rest is kept, so
    that a limit the plugin put in the text keeps its unit (``file too large (more than 1 MiB)``)."""
    return strerror[:1].lower() + strerror[1:]


def _reason(error: OSError | int | str) -> str:
    if isinstance(error, str):
        return error
    if isinstance(error, int):
        return errno_text(os.strerror(error))
    if error.errno is not None and error.strerror:
        return errno_text(error.strerror)
    return error.strerror or str(error)


def path_error(op: str, path: str, error: OSError | int | str) -> str:
    """``(*fs.PathError).Error()`` (io/fs/fs.go): ``op + " " + path + ": " + err.Error()``, for an ``OSError``, an
    errno number (``path_error("stat", p, errno.ENOENT)``) or the plugin's own reason as text (``read PATH: the
    input is larger than 64 MiB``): ``open /p: permission denied``."""
    return f"{op} {path}: {_reason(error)}"


def read_file_error(path: str, error: OSError | int) -> str:
    """The error of ``os.ReadFile(path)`` (os/file.go): opening fails with ``open PATH: ...``, except a folder,
    which opens and then fails to read: ``read PATH: is a directory``."""
    import errno

    number = error if isinstance(error, int) else error.errno
    return path_error("read" if number == errno.EISDIR else "open", path, error)


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def home_dir(
    environ: Mapping[str, str], goos: str = GOOS, stat_path: Callable[[str], os.stat_result | None] = _stat
) -> str:
    """client-go's ``homedir.HomeDir()`` (k8s.io/client-go/util/homedir/homedir.go, v0.36.3); ``""`` when nothing
    is set (kubectl then reads ``.kube/config`` relative to the working folder, and so do we)."""
    home = environ.get("HOME", "")
    if goos != "windows":
        return home
    join = path_module(goos).join
    drive, path = environ.get("HOMEDRIVE", ""), environ.get("HOMEPATH", "")
    drive_path = drive + path if drive and path else ""
    profile = environ.get("USERPROFILE", "")
    # 1. the first that holds a .kube\config (HOMEDRIVE+HOMEPATH before USERPROFILE, for compatibility)
    for candidate in (home, drive_path, profile):
        if candidate and stat_path(join(candidate, ".kube", "config")) is not None:
            return candidate
    # 2. the first writable folder, 3. else the first that exists, 4. else the first that is set
    first_set = first_existing = ""
    for candidate in (home, profile, drive_path):
        if not candidate:
            continue
        first_set = first_set or candidate
        info = stat_path(candidate)
        if info is None:
            continue
        first_existing = first_existing or candidate
        if stat.S_ISDIR(info.st_mode) and info.st_mode & 0o200:
            return candidate
    return first_existing or first_set


class LookPathError(Exception):
    """``exec.Error``: the name and why (``executable file not found in %PATH%`` and its Unix wording)."""

    def __init__(self, name: str, reason: str):
        super().__init__(f'exec: "{name}": {reason}')
        self.name = name
        self.reason = reason


def _is_file(path: str) -> bool:
    """lp_windows.go's chkStat: exists and is not a folder (Windows has no executable bit)."""
    info = _stat(path)
    return info is not None and not stat.S_ISDIR(info.st_mode)


def _is_executable_file(path: str) -> bool:
    """lp_unix.go's findExecutable: not a folder, and some executable bit set."""
    info = _stat(path)
    return info is not None and not stat.S_ISDIR(info.st_mode) and bool(info.st_mode & 0o111)


def path_extensions(environ: Mapping[str, str]) -> list[str]:
    """``PATHEXT`` as os/exec reads it on Windows: lowercased, a dot added where missing, empties skipped."""
    value = environ.get("PATHEXT", "")
    if not value:
        return [".com", ".exe", ".bat", ".cmd"]
    return [item if item.startswith(".") else "." + item for item in value.lower().split(";") if item]


def look_path(
    name: str,
    environ: Mapping[str, str],
    goos: str = GOOS,
    is_executable: Callable[[str], bool] | None = None,
) -> str:
    """``exec.LookPath(name)`` with the ``PATH`` (and on Windows ``PATHEXT``) of ``environ`` (os/exec/lp_unix.go,
    lp_windows.go, Go 1.26). A match found only relative to the working folder is refused, as Go has refused it
    since 1.19 (``ErrDot``)."""
    filepath = path_module(goos)
    if is_executable is None:
        is_executable = _is_file if goos == "windows" else _is_executable_file
    dot = "cannot run executable found relative to current directory"
    if goos != "windows":
        if "/" in name:
            if is_executable(name):
                return name
            raise LookPathError(name, "no such file or directory")
        for folder in split_list(environ.get("PATH", ""), goos):
            candidate: str = filepath.normpath(filepath.join(folder or ".", name))  # filepath.Join cleans
            if is_executable(candidate):
                if not filepath.isabs(candidate):
                    raise LookPathError(name, dot)
                return candidate
        raise LookPathError(name, "executable file not found in $PATH")
    extensions = path_extensions(environ)

    def find(path: str) -> str | None:
        # findExecutable: a name with an extension as it is, then with each PATHEXT extension appended
        has_extension = "." in filepath.basename(path)
        if has_extension and is_executable(path):
            return path
        return next((path + ext for ext in extensions if is_executable(path + ext)), None)

    if any(char in name for char in ":\\/"):
        found = find(name)
        if found is None:
            has_extension = "." in filepath.basename(name)
            raise LookPathError(name, "file does not exist" if has_extension else "executable file not found in %PATH%")
        return found
    dot_match = None
    if "NoDefaultCurrentDirectoryInExePath" not in environ:
        dot_match = find(filepath.normpath(filepath.join(".", name)))
    for folder in split_list(environ.get("PATH", environ.get("Path", "")), goos):
        if not folder:
            continue  # skipped, as PowerShell does
        found = find(filepath.normpath(filepath.join(folder, name)))
        if found is not None:
            if dot_match is not None and filepath.normcase(filepath.abspath(dot_match)) != filepath.normcase(
                filepath.abspath(found)
            ):
                raise LookPathError(name, dot)
            if not filepath.isabs(found):
                raise LookPathError(name, dot)
            return found
    if dot_match is not None:
        raise LookPathError(name, dot)
    raise LookPathError(name, "executable file not found in %PATH%")
