"""A read command across kubeconfig contexts: the command's own work once per context (in parallel, bounded, one
deadline each), and what each context gave or why it failed.

The work is whatever the command does for one context (``work(session)``); this use case only fans it out
through :class:`~..kube.fleet.Fleet` and gathers the outcomes. Printing them as one table or one List is
:mod:`..output.fleet`'s.
"""

from __future__ import annotations

from collections.abc import Callable

from ..records import dataclass

# typing only to type checkers, records instead of dataclasses (see kube.fleet)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, TypeVar

    from ..kube.fleet import Fleet
    from ..kube.session import Session

    T = TypeVar("T")
else:
    from ..records import Generic

    T = None


@dataclass(frozen=True)
class ContextResult(Generic[T]):
    """One context's ``value``, or the ``error`` it failed with."""

    context: str
    value: T | None = None
    error: BaseException | None = None


@dataclass(frozen=True)
class FleetResult(Generic[T]):
    """Every selected context's result, in the kubeconfig's order; ``exec_runs``: how many times an exec
    credential plugin ran (once per user, whatever the number of contexts)."""

    results: tuple[ContextResult[T], ...]
    exec_runs: int = 0

    @property
    def failed(self) -> tuple[ContextResult[T], ...]:
        """The contexts that failed."""
        return tuple(result for result in self.results if result.error is not None)


def across_contexts(fleet: Fleet, work: Callable[[Session], T]) -> FleetResult[T]:
    """Run ``work`` on every context of ``fleet``."""
    outcomes = fleet.run(work)
    results: tuple[ContextResult[Any], ...] = tuple(
        ContextResult(outcome.context, outcome.value, outcome.error) for outcome in outcomes
    )
    return FleetResult(results, fleet.exec_plugins.runs)
