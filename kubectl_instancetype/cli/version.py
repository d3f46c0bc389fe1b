"""``kubectl instancetype version``."""

from typing import Any

from . import options
from .options import Annotated  # typing.Annotated to type checkers, a cheap record at run time


def register(app: Any, argv: list[str]) -> None:
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
        bool, options.bool_option("--client", help="Print the plugin version only; do not contact the server.")
    ] = False
    output: Annotated[str, options.output_option(help="One of 'yaml' or 'json', as kubectl version.")] = ""
    connection: options.ShortTimeoutConnectionFlags = options.field(default_factory=options.ShortTimeoutConnectionFlags)

    def validate(self) -> None:
        """kubectl version's -o: yaml or json."""
        if self.output not in ("", "yaml", "json"):
            # kubectl version's own words (k8s.io/kubectl/pkg/cmd/version)
            raise options.UsageError("--output must be 'yaml' or 'json'")


def run(env, opts: VersionOptions, session) -> int:
    """Print the versions; without the server's, say why and fail as kubectl does (exit status 1)."""
    from ..usecases.version import versions

    result = versions(None if opts.client_only else session)
    if opts.output:
        from ..output.printers import print_document

        # kubectl version's keys (clientVersion, serverVersion: gitVersion), then KubeVirt's and CDI's
        document = {"clientVersion": {"gitVersion": f"v{result.client}"}}
        for key, value in (
            ("serverVersion", result.server),
            ("kubevirtVersion", result.kubevirt.text() if result.kubevirt is not None else None),
            ("cdiVersion", result.cdi.text() if result.cdi is not None else None),
        ):
            if value is not None:
                document[key] = {"gitVersion": value}
        print_document(env, opts.output, document)
        if result.problem is not None:
            from ..output import messages

            messages.error(env, result.problem.render())
            return 1
        return 0
    env.stdout.write(f"Client Version: v{result.client}\n")
    if result.problem is not None:
        from ..output import messages

        # The plugin version is useful on its own; say why the server's is missing and fail like kubectl.
        messages.error(env, result.problem.render())
        return 1
    from ..output.terminal import escape

    if result.server is not None:
        env.stdout.write(f"Server Version: {escape(result.server)}\n")
    if result.kubevirt is not None:
        env.stdout.write(f"KubeVirt Version: {escape(result.kubevirt.text())}\n")
    if result.cdi is not None:
        env.stdout.write(f"CDI Version: {escape(result.cdi.text())}\n")
    return 0
