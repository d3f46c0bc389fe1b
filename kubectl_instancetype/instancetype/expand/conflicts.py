"""Conflicts between a VM and its instance type, worded as KubeVirt words them (``pkg/instancetype/conflict``)."""

from __future__ import annotations

from collections.abc import Sequence

from ...records import dataclass

CONFLICTS_FORMAT = "VM field(s) {} conflicts with selected instance type"


@dataclass(frozen=True)
class Conflict:
    """One field in conflict: ``path`` is KubeVirt's field path; ``message`` overrides the standard text."""

    path: str
    message: str = ""

    def error(self) -> str:
        """The text of KubeVirt's ``Conflict.Error()``: the message, or the standard text for the path."""
        return self.message or CONFLICTS_FORMAT.format(self.path)


def conflicts_error(conflicts: Sequence[Conflict]) -> str:
    """``Conflicts.Error()``: every path in one sentence, as the expand endpoints return it."""
    return CONFLICTS_FORMAT.format(", ".join(c.path for c in conflicts))
