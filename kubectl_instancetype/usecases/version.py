"""``version``: the plugin's version and, when asked, the server's (``GET /version``), KubeVirt's and CDI's
(:mod:`.cluster_facts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import PluginError
from ..records import dataclass

if TYPE_CHECKING:
    from ..kube.session import Session
    from .cluster_facts import ComponentVersion


@dataclass
class Versions:
    """The plugin's version; the server's ``gitVersion`` (None when not asked, or when it could not be read:
    then ``problem`` says why)."""

    client: str
    server: str | None = None
    problem: PluginError | None = None
    kubevirt: ComponentVersion | None = None
    cdi: ComponentVersion | None = None


def versions(session: Session | None) -> Versions:
    """The plugin's version, and the server's through ``session`` unless it is None."""
    from .. import __version__

    if session is None:
        return Versions(__version__)
    from .cluster_facts import cdi_version, kubevirt_version

    try:
        client = session.client()
        answer = client.server_version()
    except PluginError as exc:
        return Versions(__version__, problem=exc)
    server = str(answer.get("gitVersion", "unknown"))
    return Versions(__version__, server, kubevirt=kubevirt_version(client), cdi=cdi_version(client))
