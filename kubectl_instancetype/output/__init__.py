"""Printers: kubectl-style tables, yaml, json, name; warnings and errors go through :mod:`.messages`."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .capture import Capture


def active_capture() -> Capture | None:
    """:func:`.capture.capture`, the capture this thread prints into while a command runs for one context of several,
    or None. A capture is only ever set by :func:`.capture.capturing`: when nothing imported that module (a
    command run for one context, as every ``list`` is), there is none, and the printers do not import it
    (``contextvars``, ``contextlib`` and the Capture record) to find that out."""
    module = sys.modules.get(f"{__name__}.capture")
    return None if module is None else module.capture()
