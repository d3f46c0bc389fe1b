"""Several kubeconfig contexts at once: which contexts a command runs on, a lazy :class:`~.session.Session` per
context, and a bounded fan-out with one deadline per context.

kubectl-foreach, kubectl-xctx and kubectl-x run a whole kubectl per context; here one process holds a session per
context, so the kubeconfig files are read and merged once (kubectl's loading rules, :mod:`.kubeconfig`), and an exec
credential plugin runs once per kubeconfig user and cluster (client-go keys its cache of exec authenticators the
same way: ``k8s.io/client-go/plugin/pkg/client/auth/exec`` ``cacheKey(config, cluster)``), not once per context.
Contexts whose clusters share a CA (and client certificate) share one SSL context (:class:`.tls.SharedContexts`).
Each context keeps what the kubeconfig says for it: its cluster, user, namespace and impersonation; the command's
``--as``/``--as-group``/``--as-uid``/``-n`` flags apply to every context, as they would to each kubectl run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence

from ..errors import ConfigurationError, UsageError
from ..records import dataclass, replace

# typing and dataclasses only to type checkers: importing them cost a fleet run about 20 ms before its first
# context starts (python -X importtime; dataclasses imports inspect, ast, dis and tokenize)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, TypeVar

    from .kubeconfig import ConnectionOptions, KubeconfigFiles
    from .session import Session

    T = TypeVar("T")
else:
    from ..records import Generic

    T = None
Log = Callable[[str], None]
DEFAULT_PARALLEL = 8


def select_contexts(files: KubeconfigFiles | None, names: Sequence[str], pattern: str | None, every: bool) -> list[str]:
    """The contexts a fleet command runs on, in the kubeconfig's order: every one (``--all-contexts``), those whose
    name ``pattern`` matches (``--contexts``: Python's ``re.search``, so ``prod`` matches ``eu-prod-1`` and
    ``^prod$`` only ``prod``), plus those named (``--context``, each must exist). None selected is an error."""
    known = list(files.contexts) if files is not None else []
    missing = [name for name in names if name not in known]
    if missing:
        from .kubeconfig.resolve import context_not_found

        raise context_not_found(missing[0])  # clientcmd's wording for one unknown --context
    chosen = set(names)
    if every:
        chosen.update(known)
    if pattern is not None:
        import re

        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise UsageError(f'invalid argument "{pattern}" for "--contexts" flag: {exc}') from None
        chosen.update(name for name in known if compiled.search(name))
    selected = [name for name in known if name in chosen]
    if not selected:
        where = f'matching "{pattern}" ' if pattern is not None else ""
        raise ConfigurationError(
            f"no kubeconfig context {where}to run on (the kubeconfig has {len(known)}): see kubectl config get-contexts"
        )
    return selected


class ExecPlugins:
    """The exec credential plugins of one run, shared by its contexts: one per (user, cluster info), run once
    (:meth:`ensure` under a lock; a later expiry refreshes it as a single context's would)."""

    def __init__(self) -> None:
        self.plugins: dict[tuple[str, str], Any] = {}
        self.lock = threading.Lock()
        self.runs = 0

    def shared(self, key: tuple[str, str], make: Callable[[], Any]) -> Any:
        """The plugin for ``key``, made by ``make`` the first time."""
        with self.lock:
            plugin = self.plugins.get(key)
            if plugin is None:
                plugin = self.plugins[key] = make()
                plugin.lock = threading.Lock()
            return plugin

    def ensure(self, plugin: Any) -> None:
        """Run ``plugin`` unless another context already did (its credential is then reused)."""
        with plugin.lock:
            if not plugin.fetched:
                plugin.refresh()
                with self.lock:
                    self.runs += 1


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What one context gave: ``value``, or ``error`` (the exception it failed with; a
    :class:`ContextTimeout` when it ran past its deadline)."""

    context: str
    value: T | None = None
    error: BaseException | None = None


class ContextTimeout(ConfigurationError):
    """A context did not finish within its deadline."""


class Fleet:
    """The sessions of one fleet command: ``options`` are the command's connection flags (their context unset),
    ``contexts`` the selected contexts (:func:`select_contexts`), ``timeout`` the deadline of each context's whole
    work in seconds (its requests also give up by then), ``parallel`` how many contexts run at once."""

    def __init__(
        self,
        options: ConnectionOptions,
        environ: Mapping[str, str],
        home: str,
        *,
        names: Sequence[str] = (),
        pattern: str | None = None,
        every: bool = False,
        parallel: int = DEFAULT_PARALLEL,
        timeout: float | None = None,
        log: Log | None = None,
        verbosity: int = 0,
        warn: Log | None = None,
        files: KubeconfigFiles | None = None,
    ) -> None:
        self.options = options
        self.environ = environ
        self.home = home
        self.names, self.pattern, self.every = tuple(names), pattern, every
        self.parallel = max(1, parallel)
        self.timeout = timeout
        self.log, self.verbosity, self.warn = log, verbosity, warn
        self.exec_plugins = ExecPlugins()
        from .tls import SharedContexts

        self.shared_tls = SharedContexts()
        self._files: KubeconfigFiles | None = files  # the merged kubeconfig files, when already read
        self._contexts: list[str] | None = None

    def files(self) -> KubeconfigFiles | None:
        """The kubeconfig files, read and merged once for every context."""
        if self._files is None:
            from .kubeconfig import kubeconfig_paths, read_kubeconfig

            paths = kubeconfig_paths(self.options.kubeconfig, self.environ, self.home)
            if not paths:
                raise ConfigurationError(
                    "no configuration has been provided: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config"
                )
            self._files = read_kubeconfig(paths)
        return self._files

    def contexts(self) -> list[str]:
        """The selected contexts (the kubeconfig is read on first call)."""
        if self._contexts is None:
            self._contexts = select_contexts(self.files(), self.names, self.pattern, self.every)
        return self._contexts

    def session(self, context: str) -> Session:
        """A lazy session for ``context`` (nothing is resolved nor opened until its work asks)."""
        from .session import Session

        timeout = self.options.request_timeout
        if self.timeout and (not timeout or timeout > self.timeout):
            timeout = self.timeout  # no request outlives its context's deadline
        session = Session(
            replace(self.options, context=context, request_timeout=timeout),
            self.environ,
            self.home,
            log=self.log,
            verbosity=self.verbosity,
            warn=self.warn,
        )
        session._files = self.files()
        session.exec_plugins = self.exec_plugins
        session.shared_tls = self.shared_tls
        return session

    def target(self, context: str) -> Session:
        """The session of one named context (it must exist in the kubeconfig), whatever the selection."""
        select_contexts(self.files(), (context,), None, False)
        return self.session(context)

    def run(self, work: Callable[[Session], T]) -> list[Outcome[T]]:
        """``work(session)`` for every selected context, at most ``parallel`` at once, each given ``timeout``
        seconds from its start; the outcomes in the contexts' order. A context past its deadline is left to end on
        its own (its requests are bounded by the same deadline) in a daemon thread: the command does not wait."""
        names = self.contexts()
        outcomes: dict[str, Outcome[T]] = {}
        done = threading.Condition()
        running: dict[str, float] = {}  # context -> its deadline (inf without one)

        def one(name: str) -> None:
            session = None
            try:
                session = self.session(name)
                outcome: Outcome[T] = Outcome(name, value=work(session))
            except BaseException as exc:  # noqa: BLE001 - reported as this context's failure
                outcome = Outcome(name, error=exc)
            finally:
                try:
                    if session is not None:
                        session.close()
                except OSError:
                    pass
            with done:
                if name in running:  # not already given up on
                    outcomes[name] = outcome
                    del running[name]
                done.notify_all()

        waiting = list(names)
        with done:
            while waiting or running:
                while waiting and len(running) < self.parallel:
                    name = waiting.pop(0)
                    running[name] = time.monotonic() + self.timeout if self.timeout else float("inf")
                    threading.Thread(target=one, args=(name,), name=f"context-{name}", daemon=True).start()
                now = time.monotonic()
                for name, deadline in list(running.items()):
                    if now >= deadline:
                        del running[name]
                        outcomes[name] = Outcome(
                            name, error=ContextTimeout(f"no answer within {self.timeout:g}s (--context-timeout)")
                        )
                if running:
                    first = min(running.values())
                    done.wait(None if first == float("inf") else max(0.0, first - time.monotonic()))
        return [outcomes[name] for name in names]
