"""``kubectl instancetype version``."""

import dataclasses
from typing import Annotated

import typer

from . import options


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "version",
        help="Print the plugin version and, when a cluster answers, the versions of its Kubernetes API server, "
        "KubeVirt (virt-api, else the KubeVirt resource) and CDI (when installed).",
        short_help="Print the plugin and server versions.",
    )(options.command(VersionOptions, run))


@options.dataclass
class VersionOptions:
    """Print ``Client Version`` and, unless ``--client``, ``Server Version`` like ``kubectl version``, then
    ``KubeVirt Version`` and ``CDI Version``."""

    client_only: Annotated[
        bool, typer.Option("--client", help="Print the plugin version only; do not contact the server.")
    ] = False
    connection: options.ShortTimeoutConnectionFlags = dataclasses.field(
        default_factory=options.ShortTimeoutConnectionFlags
    )


def run(env, opts: VersionOptions, session) -> None:
    """Print the versions; without the server's, say why and fail as kubectl does."""
    from ..usecases.version import versions

    result = versions(None if opts.client_only else session)
    env.stdout.write(f"Client Version: v{result.client}\n")
    if result.problem is not None:
        from ..output import messages

        # The plugin version is useful on its own; say why the server's is missing and fail like kubectl.
        messages.error(env, result.problem.render())
        raise typer.Exit(1)
    from ..output.terminal import escape

    if result.server is not None:
        env.stdout.write(f"Server Version: {escape(result.server)}\n")
    if result.kubevirt is not None:
        env.stdout.write(f"KubeVirt Version: {escape(result.kubevirt.text())}\n")
    if result.cdi is not None:
        env.stdout.write(f"CDI Version: {escape(result.cdi.text())}\n")
