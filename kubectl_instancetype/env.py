"""The process environment a command runs in, passed down instead of touching ``sys.*`` directly.

Tests build an :class:`Environment` with string buffers, a fixed clock, a fixed random source, their own
files and variables, and run the CLI in-process (the httpie ``Environment`` pattern): nothing private is
patched.
"""

from __future__ import annotations

import errno
import os
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (shell completion imports this module)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TextIO


class ClosedStream:
    """Stands in for a standard stream the process was started without (``kubectl instancetype list >&-``).

    Python leaves ``sys.stdout`` as None then; every write fails as Go's does on a closed descriptor, so the
    command ends in one ``error: write /dev/stdout: bad file descriptor`` line instead of a traceback.
    """

    def __init__(self, name: str):
        self.name = name

    def write(self, text: str) -> int:
        """Fail like a write to a closed descriptor."""
        raise OSError(errno.EBADF, f"write /dev/{self.name}: bad file descriptor")

    def flush(self) -> None:
        """Nothing is buffered."""

    def isatty(self) -> bool:
        """A closed stream is no terminal."""
        return False


def _stream(name: str) -> Callable[[], Any]:
    def default() -> Any:
        stream = getattr(sys, name)
        return stream if stream is not None else ClosedStream(name)

    return default


def _goos() -> str:
    from .golang.goos import GOOS

    return GOOS


def random_suffix(length: int) -> str:
    """``length`` random characters as apimachinery's ``rand.String`` makes them (generated names)."""
    from .instancetype.params import random_string

    return random_string(length)


def utf8_streams(streams: Sequence[Any], goos: str) -> None:
    """On Windows, write UTF-8 to pipes and files as Go programs do (kubectl's ``-o yaml | ...``): Python would
    use the ANSI code page there (cp1252), which cannot encode most names and fails on them. A console stream
    is left alone (Python writes Unicode to the Windows console whatever the code page)."""
    if goos != "windows":
        return
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "")
        if reconfigure is not None and encoding != "utf8":
            reconfigure(encoding="utf-8")


# A file a flag names for a small value (--password-file, an SSH key, a template file): more is refused.
MAX_SMALL_FILE_BYTES = 1 << 20


def read_text_file(path: str) -> str:
    """Read a file the user named for a small value (passwords, keys, templates) as text, bytes kept as they are;
    an :class:`OSError` ("file too large") past :data:`MAX_SMALL_FILE_BYTES`."""
    with open(path, "rb") as handle:
        raw = handle.read(MAX_SMALL_FILE_BYTES + 1)
    if len(raw) > MAX_SMALL_FILE_BYTES:
        raise OSError(errno.EFBIG, f"file too large (more than {MAX_SMALL_FILE_BYTES >> 20} MiB)", path)
    return raw.decode("utf-8", "surrogateescape")


class Environment:
    """Streams, environment variables, the clock, randomness and file reading of one CLI invocation.

    A plain class, not a dataclass: shell completion builds one too, and ``dataclasses`` (with ``inspect``) is
    the largest import on its path."""

    def __init__(
        self,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        environ: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.time,
        # the random part of generated names (vm-XXXXX, clusterinstancetype-XXXXX)
        random_suffix: Callable[[int], str] = random_suffix,
        # files named on the command line; tests hand in their own
        read_file: Callable[[str], str] = read_text_file,
        verbosity: int = 0,
        # runtime.GOOS of the machine: what differs by operating system (KUBECONFIG's separator, the home folder,
        # the completion launcher, exec plugins' PATHEXT) follows it; tests hand in "windows" on Linux
        goos: str | None = None,
    ):
        self.stdin = stdin if stdin is not None else _stream("stdin")()
        self.stdout = stdout if stdout is not None else _stream("stdout")()
        self.stderr = stderr if stderr is not None else _stream("stderr")()
        self.environ = environ if environ is not None else os.environ
        self.clock, self.random_suffix, self.read_file = clock, random_suffix, read_file
        self.verbosity = verbosity
        self.goos = goos if goos is not None else _goos()

    def __repr__(self) -> str:
        return f"Environment(goos={self.goos!r}, verbosity={self.verbosity!r})"

    def home(self) -> str:
        """The user's home directory as kubectl finds it: client-go's ``homedir.HomeDir`` (``HOME``; on Windows
        ``HOME``, ``HOMEDRIVE``+``HOMEPATH`` or ``USERPROFILE``, see :func:`..golang.goos.home_dir`)."""
        from .golang.goos import home_dir

        return home_dir(self.environ, self.goos)
