"""``version``: the plugin's version and, when asked, the server's (``GET /version``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import PluginError

if TYPE_CHECKING:
    from ..kube.session import Session


@dataclass
class Versions:
    """The plugin's version; the server's ``gitVersion`` (None when not asked, or when it could not be read:
    then ``problem`` says why)."""

    client: str
    server: str | None = None
    problem: PluginError | None = None


def versions(session: Session | None) -> Versions:
    """The plugin's version, and the server's through ``session`` unless it is None."""
    from .. import __version__

    if session is None:
        return Versions(__version__)
    try:
        answer = session.client().server_version()
    except PluginError as exc:
        return Versions(__version__, problem=exc)
    return Versions(__version__, str(answer.get("gitVersion", "unknown")))
