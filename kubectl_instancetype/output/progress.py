"""Upload progress on stderr: a rich bar (bytes, rate, time left) on a terminal, plain lines otherwise.

rich is imported only when stderr is a terminal (it costs start-up time, and a log file wants lines, not
redraws). Plain mode prints one line per 10% sent, so a CI log shows the upload advancing without noise.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO


class Progress(Protocol):
    """What the upload reports to: bytes sent so far, a restart (a retried POST), the end."""

    def update(self, sent: int) -> None:
        """``sent`` bytes of the total have been sent."""

    def restart(self) -> None:
        """A retried request starts again from byte 0."""

    def finish(self) -> None:
        """Everything was sent and accepted."""

    def close(self) -> None:
        """Release the display (also after a failure or an interruption)."""


def human_bytes(count: float) -> str:
    """Binary units with one decimal: ``512 B``, ``1.5 KiB``, ``10.0 MiB``."""
    if count < 1024:
        return f"{int(count)} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        count /= 1024
        if count < 1024 or unit == "TiB":
            return f"{count:.1f} {unit}"
    raise AssertionError("unreachable")


class PlainProgress:
    """One line per ``step`` percent: ``Uploaded 30% (3.0 MiB of 10.0 MiB, 1.2 MiB/s)``."""

    def __init__(self, stream: TextIO, total: int, step: int = 10, clock: Callable[[], float] = time.monotonic):
        self.stream, self.total, self.step, self.clock = stream, total, step, clock
        self.started = clock()
        self.next = step
        self.finished = False

    def update(self, sent: int) -> None:
        """Print a line for every step crossed since the last one."""
        percent = 100 if self.total <= 0 else sent * 100 // self.total
        if percent < self.next:
            return
        elapsed = max(self.clock() - self.started, 1e-6)
        rate = human_bytes(sent / elapsed)
        self.stream.write(f"Uploaded {percent}% ({human_bytes(sent)} of {human_bytes(self.total)}, {rate}/s)\n")
        self.stream.flush()
        self.next = (percent // self.step + 1) * self.step

    def restart(self) -> None:
        """Say that the upload starts over, and count from 0 again."""
        self.stream.write("Retrying the upload from the start\n")
        self.started, self.next = self.clock(), self.step

    def finish(self) -> None:
        """An empty file sends no byte: still say 100%."""
        if self.next <= 100:
            self.update(self.total)
        self.finished = True

    def close(self) -> None:
        """Nothing to release."""


class RichProgress:
    """rich's bar with bytes done/total, transfer rate and time remaining, redrawn in place."""

    def __init__(self, stream: TextIO, total: int, description: str):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
        from rich.progress import Progress as Bar

        self.bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(binary_units=True),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self.task = self.bar.add_task(description, total=total)
        self.bar.start()

    def update(self, sent: int) -> None:
        """Move the bar."""
        self.bar.update(self.task, completed=sent)

    def restart(self) -> None:
        """Back to 0 (the rate starts over too)."""
        self.bar.reset(self.task)

    def finish(self) -> None:
        """Fill the bar."""
        task: Any = self.bar.tasks[0]
        self.bar.update(self.task, completed=task.total)

    def close(self) -> None:
        """Stop redrawing (the last frame stays)."""
        self.bar.stop()


def progress_for(stream: TextIO, total: int, description: str) -> Progress:
    """A rich bar when ``stream`` is a terminal, plain lines otherwise."""
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return RichProgress(stream, total, description)
    return PlainProgress(stream, total)
