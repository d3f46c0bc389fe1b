"""Where the benchmarks' tables go: bench/README.md, between ``<!-- begin NAME -->`` and ``<!-- end NAME -->``.

Each benchmark prints its tables; with ``--write`` it also replaces its own block in bench/README.md, stamped
with the date, the machine and the command line, so the published figures are always a run's own output
(``make bench`` runs them with ``--write``). The prose around the blocks explains them and is kept by hand.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from pathlib import Path

README = Path(__file__).resolve().with_name("README.md")


def stamp() -> str:
    """One line saying when, where and how the figures were measured."""
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    command = " ".join(["python", f"bench/{Path(sys.argv[0]).name}", *sys.argv[1:]])
    # The load says how far to trust absolute times: other work on the machine slows both sides of a ratio.
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return (
        f"_Measured {today} on {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}{'' if load is None else f', load average {load:.1f} at the end'}: "
        f"`{command}`._"
    )


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``name`` holding ``body``; a missing block is an error (the prose places it)."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    if begin not in text or end not in text:
        raise SystemExit(f"error: {README} has no {begin} ... {end} block")
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    return f"{head}{begin}\n{body.strip()}\n{end}{tail}"


def publish(name: str, markdown: str, write: bool) -> None:
    """Print ``markdown``; with ``write``, put it (stamped) into its block of bench/README.md."""
    print(markdown)
    if write:
        README.write_text(replace_block(README.read_text(), name, f"{stamp()}\n\n{markdown}"))
        print(f"wrote the {name} block of {README}", file=sys.stderr)
