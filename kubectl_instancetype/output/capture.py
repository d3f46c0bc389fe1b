"""Where a command's printing goes while it runs for one context of several (:mod:`.fleet`): a
``contextvars`` variable, so that the contexts' threads do not see each other's capture. The printers
(:func:`.table.render_table`, :func:`.printers.print_objects`, :func:`.printers.print_document`) ask
:func:`capture` first."""

from __future__ import annotations

import contextvars
import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..env import Environment
from ..records import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass
class Capture:
    """What one context's run printed: tables (header, rows), objects (with their format and printer flags),
    report documents, and its own text on stdout and stderr."""

    # (headers, rows, the rows' measure: table.measure_rows)
    tables: list[tuple[tuple[str, ...] | None, Sequence[Sequence[str]], Any]] = field(default_factory=list)
    objects: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    object_format: dict[str, Any] = field(default_factory=dict)
    documents: list[dict[str, Any]] = field(default_factory=list)
    document_format: str = ""
    stdout: io.StringIO = field(default_factory=io.StringIO)
    stderr: io.StringIO = field(default_factory=io.StringIO)

    def table(self, headers: Sequence[str] | None, rows: Sequence[Sequence[str]]) -> None:
        """A table the command printed."""
        # kept as given (a list's rows are the fleet's largest part: no copy of them), and measured here, in the
        # context's own thread, so that the fleet's table after the last context only pads them
        from .table import measure_rows

        self.tables.append((tuple(headers) if headers is not None else None, rows, measure_rows(rows)))

    def printed_objects(self, output: str, objects: list[dict[str, Any]], names: list[str], **flags: Any) -> None:
        """Objects (or ``-o name`` names) the command printed."""
        self.objects.extend(objects)
        self.names.extend(names)
        self.object_format = {"output": output, **flags}

    def printed_document(self, output: str, document: dict[str, Any]) -> None:
        """A report the command printed as data."""
        self.documents.append(document)
        self.document_format = output


_CAPTURE: contextvars.ContextVar[Capture | None] = contextvars.ContextVar("fleet_capture", default=None)


def capture() -> Capture | None:
    """The capture of the context this thread prints for, or None (printing goes to the terminal). The printers
    ask :func:`.active_capture`, which does not import this module when nothing did: only :func:`capturing`
    sets a capture."""
    return _CAPTURE.get()


@contextmanager
def capturing(env: Environment, target: Capture) -> Iterator[Environment]:
    """Within the block, this thread's printing goes to ``target``; yields ``env`` with its streams replaced by
    ``target``'s (the clock, environ, verbosity and the rest stay the command's)."""
    token = _CAPTURE.set(target)
    try:
        yield Environment(
            stdin=env.stdin,
            stdout=target.stdout,
            stderr=target.stderr,
            environ=env.environ,
            clock=env.clock,
            random_suffix=env.random_suffix,
            read_file=env.read_file,
            verbosity=env.verbosity,
            goos=env.goos,
        )
    finally:
        _CAPTURE.reset(token)
