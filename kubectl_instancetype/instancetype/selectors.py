"""Label selectors as Kubernetes reads them (``k8s.io/apimachinery/pkg/labels.Parse``), for sources the API
server does not filter: the embedded catalog and files.

Grammar: requirements separated by commas; each is ``key``, ``!key``, ``key=value``, ``key==value``,
``key!=value``, ``key in (v1,v2)``, ``key notin (v1,v2)``, ``key>N`` or ``key<N``. Keys are qualified names
(``prefix/name``), values label values; whitespace around tokens is ignored. Matching follows apimachinery:
``!=`` and ``notin`` match objects without the key; ``>``/``<`` need an integer label value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..golang.labels import LabelSelectorError, Requirement
from ..golang.labels import parse as parse_labels

# No real selector is this long; the bound keeps parsing linear and quick on hostile input.
MAX_SELECTOR_LENGTH = 64 * 1024


class SelectorError(ValueError):
    """A selector that does not parse; ``str()`` says why (``labels.Parse``'s message)."""


@dataclass(frozen=True)
class Selector:
    """A parsed selector: every requirement must hold (the empty selector matches everything)."""

    requirements: tuple[Requirement, ...]

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """True when ``labels`` (None counts as no labels) satisfy every requirement."""
        present = labels or {}
        return all(requirement.matches(present) for requirement in self.requirements)


def parse_selector(text: str) -> Selector:
    """Parse ``text`` as ``labels.Parse`` does (golang.labels); raise :class:`SelectorError` with Go's message."""
    if len(text) > MAX_SELECTOR_LENGTH:
        raise SelectorError(f"the selector is longer than {MAX_SELECTOR_LENGTH} characters")
    try:
        return Selector(tuple(parse_labels(text)))
    except LabelSelectorError as exc:
        raise SelectorError(str(exc)) from None


# ---------------------------------------------------------------------------------- metav1.LabelSelector objects


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``: an empty selector matches everything.

    Raises :class:`InputError` with apimachinery's message for an unknown operator or missing values.
    """
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key = expression.get("key")
        operator = expression.get("operator")
        values = list(expression.get("values") or ())
        if operator in ("In", "NotIn"):
            if not values:
                raise InputError(
                    "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
                )
            present = key in labels and labels[key] in values
            if present != (operator == "In"):
                return False
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                raise InputError(
                    f"values: Invalid value: {_go_strings(values)}: values set must be empty for exists and does not exist"
                )
            if (key in labels) != (operator == "Exists"):
                return False
        else:
            raise InputError(f'"{operator}" is not a valid label selector operator')
    return True


def _go_strings(values: list[Any]) -> str:
    """``%#v`` of a ``[]string``: Go-quoted items (golang/strconv.go_quote) in ``[]string{...}``."""
    from ..golang.strconv import go_quote

    return "[]string{" + ", ".join(go_quote(str(value)) for value in values) + "}"
