"""The one place that writes warnings and errors, so their shape stays kubectl's.

Their text may quote the cluster (names, server messages): control characters in it are escaped
(:mod:`.terminal`), newlines between lines kept.
"""

from __future__ import annotations

from ..env import Environment
from .terminal import escape_lines


def warn(env: Environment, message: str) -> None:
    """Print one ``Warning: ...`` line on stderr (kubectl's prefix for server and client warnings)."""
    env.stderr.write(f"Warning: {escape_lines(message)}\n")


def error(env: Environment, text: str) -> None:
    """Print an already rendered error (see :func:`kubectl_instancetype.errors.render`) on stderr."""
    text = escape_lines(text.removesuffix("\n"))
    env.stderr.write(text + "\n")


def info(env: Environment, message: str) -> None:
    """Print a status line on stderr (``No resources found`` and the like), keeping stdout parseable."""
    env.stderr.write(escape_lines(message) + "\n")


REQUEST_LOG_VERBOSITY = 6


def request_logger(env: Environment):
    """A per-request log line writer for ``-v 6`` and up (kubectl's level for request URLs), else None."""
    if env.verbosity < REQUEST_LOG_VERBOSITY:
        return None
    return lambda line: env.stderr.write(f"I {line}\n")
