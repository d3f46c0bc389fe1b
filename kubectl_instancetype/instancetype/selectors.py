"""Label selectors as Kubernetes reads them (``k8s.io/apimachinery/pkg/labels.Parse``), for sources the API
server does not filter: the embedded catalog and files.

Grammar: requirements separated by commas; each is ``key``, ``!key``, ``key=value``, ``key==value``,
``key!=value``, ``key in (v1,v2)``, ``key notin (v1,v2)``, ``key>N`` or ``key<N``. Keys are qualified names
(``prefix/name``), values label values; whitespace around tokens is ignored. Matching follows apimachinery:
``!=`` and ``notin`` match objects without the key; ``>``/``<`` need an integer label value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import InputError
from ..golang.validation import dns1123_subdomain_errors, label_value_errors

_SPECIAL = "!=(),<> \t\n\r"
_NAME = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)")
_INTEGER = re.compile(r"[+-]?[0-9]+")
# No real selector is this long; the bound keeps parsing linear and quick on hostile input.
MAX_SELECTOR_LENGTH = 64 * 1024


class SelectorError(ValueError):
    """A selector that does not parse; ``str()`` says why."""


class Requirement(NamedTuple):
    """One term of a selector: ``key``, an operator and its values."""

    key: str
    operator: str  # "exists", "!", "=", "!=", "in", "notin", "gt", "lt"
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when ``labels`` satisfy this requirement."""
        present = self.key in labels
        value = labels.get(self.key)
        if self.operator == "exists":
            return present
        if self.operator == "!":
            return not present
        if self.operator in ("=", "in"):
            return present and value in self.values
        if self.operator in ("!=", "notin"):
            return not present or value not in self.values
        if not present or value is None or not _INTEGER.fullmatch(value):
            return False
        bound = int(self.values[0])
        return int(value) > bound if self.operator == "gt" else int(value) < bound


class Selector(NamedTuple):
    """A parsed selector: every requirement must hold (the empty selector matches everything)."""

    requirements: tuple[Requirement, ...]

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """True when ``labels`` (None counts as no labels) satisfy every requirement."""
        labels = labels or {}
        return all(requirement.matches(labels) for requirement in self.requirements)


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    index, end = 0, len(text)
    while index < end:
        char = text[index]
        if char in " \t\n\r":
            index += 1
        elif text.startswith(("==", "!="), index):
            tokens.append(text[index : index + 2])
            index += 2
        elif char in "!=(),<>":
            tokens.append(char)
            index += 1
        else:
            start = index
            while index < end and text[index] not in _SPECIAL:
                index += 1
            tokens.append(text[start:index])
    return tokens


def _check_key(key: str) -> str:
    prefix, slash, name = key.rpartition("/")
    problems = []
    if slash and (not prefix or dns1123_subdomain_errors(prefix)):
        problems.append("prefix part must be a lowercase RFC 1123 subdomain")
    if not name or len(name) > 63 or not _NAME.fullmatch(name):
        problems.append(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character"
        )
    if problems:
        raise SelectorError(f'invalid label key "{key}": {"; ".join(problems)}')
    return key


def _check_value(value: str) -> str:
    problems = label_value_errors(value)
    if problems:
        raise SelectorError(f'invalid label value: "{value}": {"; ".join(problems)}')
    return value


def _is_word(token: str | None) -> bool:
    return token is not None and token not in ("==", "!=", "!", "=", "(", ")", ",", "<", ">")


def parse_selector(text: str) -> Selector:
    """Parse ``text``; raise :class:`SelectorError` with the reason when it is not a label selector."""
    if len(text) > MAX_SELECTOR_LENGTH:
        raise SelectorError(f"the selector is longer than {MAX_SELECTOR_LENGTH} characters")
    tokens = _tokens(text)
    position = 0
    requirements: list[Requirement] = []

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str | None:
        nonlocal position
        token = peek()
        position += 1
        return token

    while peek() is not None:
        negated = peek() == "!"
        if negated:
            take()
        key = take()
        if not _is_word(key):
            raise SelectorError(f"found '{key or ''}', expected: identifier")
        assert key is not None
        _check_key(key)
        operator = peek()
        if negated:
            requirements.append(Requirement(key, "!"))
        elif operator is None or operator == ",":
            requirements.append(Requirement(key, "exists"))
        elif operator in ("=", "==", "!="):
            take()
            value = peek()
            if _is_word(value):
                take()
            else:
                value = ""  # "key=" selects the empty value, as in apimachinery
            assert value is not None
            requirements.append(Requirement(key, "!=" if operator == "!=" else "=", (_check_value(value),)))
        elif operator in ("<", ">"):
            take()
            value = take()
            if not _is_word(value) or value is None or not _INTEGER.fullmatch(value):
                raise SelectorError(f"for 'Gt', 'Lt' operators, the value must be an integer (got '{value or ''}')")
            requirements.append(Requirement(key, "gt" if operator == ">" else "lt", (value,)))
        elif operator in ("in", "notin"):
            take()
            if take() != "(":
                raise SelectorError(f"found '{tokens[position - 1] if position <= len(tokens) else ''}', expected: '('")
            values: list[str] = []
            while True:
                token = peek()
                if token == ")" and not values:
                    break
                if _is_word(token):
                    assert token is not None
                    values.append(_check_value(take() or ""))
                elif token in (",", ")"):
                    values.append("")
                else:
                    raise SelectorError(f"found '{token or ''}', expected: ',', ')' or identifier")
                separator = take()
                if separator == ")":
                    break
                if separator != ",":
                    raise SelectorError(f"found '{separator or ''}', expected: ',' or ')'")
            if not values:
                raise SelectorError(f"for '{operator}' operators, values set can't be empty")
            requirements.append(Requirement(key, operator, tuple(values)))
        else:
            raise SelectorError(f"found '{operator}', expected: '=', '!=', '==', 'in', notin'")
        separator = take()
        if separator not in (None, ","):
            raise SelectorError(f"found '{separator}', expected: ',' or 'end of string'")
        if separator == "," and peek() is None:
            raise SelectorError("found '', expected: identifier after ','")
    return Selector(tuple(requirements))


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
