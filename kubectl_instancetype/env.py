"""The process environment a command runs in, passed down instead of touching ``sys.*`` directly.

Tests build an :class:`Environment` with string buffers, a fixed clock and their own variables, and run
the CLI in-process (the httpie ``Environment`` pattern).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class Environment:
    """Streams, environment variables and the clock of one CLI invocation."""

    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    clock: Callable[[], float] = time.time
    verbosity: int = 0

    def home(self) -> str:
        """The user's home directory as kubectl finds it (``HOME``, else the platform default)."""
        return self.environ.get("HOME") or os.path.expanduser("~")
