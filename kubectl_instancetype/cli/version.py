"""``kubectl instancetype version``."""

import typer

from . import options


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command(
        "version",
        help="Print the plugin version and, when a cluster answers, the versions of its Kubernetes API server, "
        "KubeVirt (virt-api, else the KubeVirt resource) and CDI (when installed).",
        short_help="Print the plugin and server versions.",
    )(version)


def version(
    ctx: typer.Context,
    client_only: bool = typer.Option(
        False, "--client", help="Print the plugin version only; do not contact the server."
    ),
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "5s",
    verbosity: options.Verbosity = 0,
) -> None:
    """Print ``Client Version`` and, unless ``--client``, ``Server Version`` like ``kubectl version``, then
    ``KubeVirt Version`` and ``CDI Version``."""
    from .. import __version__
    from ..errors import PluginError
    from ..output import messages

    env = ctx.obj
    env.verbosity = verbosity
    env.stdout.write(f"Client Version: v{__version__}\n")
    if client_only:
        return
    from ..kube.client import connect
    from ..usecases.versions import cluster_versions

    try:
        with connect(
            options.connection_options(kubeconfig, context, namespace, request_timeout),
            env.environ,
            env.home(),
            messages.request_logger(env),
        ) as client:
            versions = cluster_versions(client)
    except PluginError as exc:
        # The plugin version is useful on its own; say why the server's is missing and fail like kubectl.
        messages.error(env, exc.render())
        raise typer.Exit(1) from exc
    env.stdout.write(f"Server Version: {versions.server}\n")
    env.stdout.write(f"KubeVirt Version: {versions.kubevirt.text()}\n")
    env.stdout.write(f"CDI Version: {versions.cdi.text()}\n")
