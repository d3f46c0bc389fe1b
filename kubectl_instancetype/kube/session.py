"""The one way to a cluster, an OCI registry or CDI's upload proxy: kubectl's ConfigFlags + Factory.

kubectl builds one ``genericclioptions.ConfigFlags`` from its global flags and hands a ``cmdutil.Factory``
over it to every command (k8s.io/kubectl/pkg/cmd/util/factory.go); commands ask the factory for clients and
never load the kubeconfig themselves. :class:`Session` is that pair: the CLI builds it once from the
connection flags, the use cases ask it for what they talk to. Nothing is read or opened until asked for, so
a command that never needs the cluster (``--dry-run=client``, ``--catalog``) never loads the kubeconfig.

This module imports nothing at run time (the names below are for type checkers): it is on the path of every
command that takes the connection flags.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from .client import Client
    from .kubeconfig import ConnectionOptions, KubeconfigFiles
    from .upload_proxy import ProxyConnections

    Log = Callable[[str], None]


class Session:
    """The connection flags of one invocation and the clients made from them (the API client is made once).

    ``options`` holds kubectl's global flags (a :class:`~.config.ConnectionOptions`, or a function that makes
    one: the flags are then checked when first needed, and a command that never needs them pays nothing);
    ``environ`` and ``home`` are the process's (tests hand in their own); ``log`` receives one line per
    request at ``-v 6`` and up; ``verbosity`` is the ``-v`` level; ``warn`` each warning the server sends
    (admission webhooks' warnings, deprecations), once, as kubectl prints them.
    """

    def __init__(
        self,
        options: ConnectionOptions | Callable[[], ConnectionOptions],
        environ: Mapping[str, str],
        home: str,
        *,
        log: Log | None = None,
        verbosity: int = 0,
        warn: Log | None = None,
    ) -> None:
        self._options = options
        self.environ = environ
        self.home = home
        self.log = log
        self.verbosity = verbosity
        self.warn = warn
        self._client: Client | None = None
        self._files: KubeconfigFiles | None = None
        self._namespace: str | None = None
        # A fleet's sessions share their exec credential plugins (one run per user: .fleet.ExecPlugins)
        self.exec_plugins: Any = None
        self.shared_tls: Any = None  # and their SSL contexts (.tls.SharedContexts: one per CA)

    @property
    def options(self) -> ConnectionOptions:
        """The connection flags (made, and checked, on first use)."""
        if callable(self._options):
            self._options = self._options()
        return self._options

    @property
    def namespace_flag(self) -> str | None:
        """``-n`` as given (None without it): some commands write ``metadata.namespace`` only when it was."""
        return self.options.namespace

    @property
    def namespace(self) -> str:
        """The namespace commands default to, kubectl's rule (ConfigFlags.ToRawKubeConfigLoader().Namespace()):
        ``-n``, else the context's, else ``default``; the only source of it (use cases and commands ask here,
        never the flags or the kubeconfig). ``-n`` was checked with the flags (ConnectionFlags.connection_options,
        the one check); the context's namespace is the resolved kubeconfig's (clientcmd's DirectClientConfig,
        kube/kubeconfig), read once. Without ``-n`` this reads the kubeconfig (no request is sent)."""
        if self._namespace is None:
            self._namespace = self.options.namespace or self.client().config.namespace
        return self._namespace

    def client(self) -> Client:
        """The API client for the kubeconfig and flags (made on first use, then shared; no request is sent)."""
        if self._client is None:
            from .client import connect

            self._client = connect(
                self.options,
                dict(self.environ),
                self.home,
                self.log,
                self.warn,
                files=self.kubeconfig_files(),
                exec_plugins=self.exec_plugins,
                shared_tls=self.shared_tls,
            )
        return self._client

    @property
    def connected(self) -> bool:
        """Whether this invocation has made its API client (a command that read the cluster has)."""
        return self._client is not None

    def kubeconfig_files(self) -> KubeconfigFiles | None:
        """The kubeconfig files kubectl would read, merged, read once per session (None when there are none:
        the in-cluster configuration or kubectl's "no configuration" sentence decide then)."""
        if self._files is None:
            from .kubeconfig import kubeconfig_paths, read_kubeconfig

            paths = kubeconfig_paths(self.options.kubeconfig, self.environ, self.home)
            if not paths:
                return None
            self._files = read_kubeconfig(paths)
        return self._files

    def credentials_may_prompt(self) -> bool:
        """True when the selected user's exec plugin may prompt (``interactiveMode: Always``): completion must
        not connect then. Reads the kubeconfig files only, not the credentials."""
        files = self.kubeconfig_files()
        if files is None:
            return False
        context_name = self.options.context or files.current_context
        user_name = str((files.contexts.get(context_name) or {}).get("user") or "")
        user = files.users.get(user_name) or {}
        exec_config = user.get("exec") if isinstance(user, dict) else None  # the kubeconfig's mappings are dicts
        return isinstance(exec_config, dict) and exec_config.get("interactiveMode") == "Always"

    def why_no_cluster(self) -> str:
        """Why no cluster can be asked ("" when one can be): no kubeconfig file and no in-cluster service
        account, or no context selected. Reads the kubeconfig files only: no connection, no credential plugin."""
        from ..errors import ConfigurationError
        from .kubeconfig import kubeconfig_paths, read_kubeconfig

        try:
            paths = kubeconfig_paths(self.options.kubeconfig, self.environ, self.home)
            if not paths:
                if self.environ.get("KUBERNETES_SERVICE_HOST") and self.environ.get("KUBERNETES_SERVICE_PORT"):
                    return ""  # in-cluster configuration, as client-go falls back to it
                return "no kubeconfig"
            files = read_kubeconfig(paths)
        except ConfigurationError as exc:
            return exc.message
        if not (self.options.context or files.current_context):
            return "no current context in the kubeconfig"
        return ""

    def with_request_timeout(self, seconds: float) -> Session:
        """A session like this one whose requests give up after ``seconds`` (a fresh client)."""
        from ..records import replace

        session = Session(
            replace(self.options, request_timeout=seconds),
            self.environ,
            self.home,
            log=self.log,
            verbosity=self.verbosity,
            warn=self.warn,
        )
        session._files = self._files  # the same files: a 150,000-context kubeconfig is read once
        session._namespace = self._namespace
        return session

    def read_image_config(self, reference: Any, platform: Any, *, insecure: bool = False) -> Any:
        """The OCI image config of ``reference`` for ``platform``, with the registry credentials container
        tools read (``REGISTRY_AUTH_FILE``, ``~/.docker/config.json``); ``insecure`` is an insecure
        registry (unverified HTTPS, or plain HTTP)."""
        from ..oci.client import TIMEOUT, credentials, read_image_config
        from .httpclient import HTTPClient

        login = credentials(reference.registry, self.environ, self.home)
        http = HTTPClient(
            self.environ,
            insecure=insecure,
            verify_hint="--insecure-registry",
            timeout=TIMEOUT,
            # credentials never cross the network in clear text, unless the registry is insecure
            clear_text_credentials=insecure,
            log=self.log,
        )
        return read_image_config(
            reference,
            platform,
            http,
            insecure=insecure,
            login=login,
            log=self.log,
            request_timeout=self.options.request_timeout,
        )

    def upload_proxy(self, base: str, *, insecure: bool, timeout: float) -> ProxyConnections:
        """Connections to CDI's upload proxy at ``base`` (a server other than the API server, trusted as virtctl
        trusts it)."""
        from .upload_proxy import ProxyConnections

        return ProxyConnections(base, insecure, self.environ, timeout)

    def close(self) -> None:
        """Close the API connection, if one was opened."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
