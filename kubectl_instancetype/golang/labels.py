"""``k8s.io/apimachinery/pkg/labels.Parse``: the label selector lexer and parser, statement for statement, with
their messages (apimachinery v0.34.2, the version in KubeVirt v1.9's module graph; pkg/labels/selector.go).

The parser is a recursive descent over the lexer's tokens; errors inside a requirement are wrapped in
``unable to parse requirement: ...``, key and value problems come as field errors
(``<nil>: Invalid value: "KEY": ...``, ``values[0][KEY]: Invalid value: "VALUE": ...``), several of them as an
aggregate (``[e1, e2]``). ``in ()`` is the set of the empty value, as in Go.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .strconv import GoNumError, go_parse_int, go_quote
from .validation import dns1123_subdomain_errors, label_value_errors

# Token kinds (selector.go's Token constants)
ERROR, END, CLOSED_PAR, COMMA, DOES_NOT_EXIST, DOUBLE_EQUALS, EQUALS, GREATER_THAN = range(8)
IDENTIFIER, IN, LESS_THAN, NOT_EQUALS, NOT_IN, OPEN_PAR = range(8, 14)

_STRING_TO_TOKEN = {
    ")": CLOSED_PAR,
    ",": COMMA,
    "!": DOES_NOT_EXIST,
    "==": DOUBLE_EQUALS,
    "=": EQUALS,
    ">": GREATER_THAN,
    "in": IN,
    "<": LESS_THAN,
    "!=": NOT_EQUALS,
    "notin": NOT_IN,
    "(": OPEN_PAR,
}
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
# the operators parseOperator names when it finds another token (selector.go's binaryOperators)
_BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"

EXISTS, DOES_NOT_EXIST_OP = "exists", "!"
_OPERATORS = {
    IN: "in",
    EQUALS: "=",
    DOUBLE_EQUALS: "==",
    GREATER_THAN: "gt",
    LESS_THAN: "lt",
    NOT_IN: "notin",
    NOT_EQUALS: "!=",
}

# util/validation IsQualifiedName
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME = re.compile(_QUALIFIED_NAME_FMT)
_QUALIFIED_NAME_MAX = 63
_QUALIFIED_NAME_ERROR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    f"character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '{_QUALIFIED_NAME_FMT}')"
)


class LabelSelectorError(ValueError):
    """``labels.Parse``'s error; ``str()`` is Go's message."""


@dataclass(frozen=True)
class Requirement:
    """One requirement: the key, an operator (``exists``, ``!``, ``=``, ``==``, ``!=``, ``in``, ``notin``,
    ``gt``, ``lt``) and its values, sorted as Go's ``sets.String.List()`` returns them."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Requirement.Matches``."""
        present = self.key in labels
        if self.operator in ("in", "=", "=="):
            return present and labels[self.key] in self.values
        if self.operator in ("notin", "!="):
            return not present or labels[self.key] not in self.values
        if self.operator == EXISTS:
            return present
        if self.operator == DOES_NOT_EXIST_OP:
            return not present
        if not present or len(self.values) != 1:
            return False
        try:
            have, bound = go_parse_int(labels[self.key], base=10), go_parse_int(self.values[0], base=10)
        except GoNumError:
            return False
        return have > bound if self.operator == "gt" else have < bound


def qualified_name_errors(value: str) -> list[str]:
    """``validation.IsQualifiedName`` (a label key)."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += ["prefix part " + problem for problem in dns1123_subdomain_errors(prefix)]
    else:
        return [
            f"a qualified name {_QUALIFIED_NAME_ERROR} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name.encode()) > _QUALIFIED_NAME_MAX:
        errors.append(f"name part must be no more than {_QUALIFIED_NAME_MAX} characters")
    if not _QUALIFIED_NAME.fullmatch(name):
        errors.append(f"name part {_QUALIFIED_NAME_ERROR}")
    return errors


def _invalid(path: str, value: str, detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()`` for a string value (a nil path prints ``<nil>``)."""
    return f"{path}: Invalid value: {go_quote(value)}: {detail}"


def _lex(text: str) -> list[tuple[int, str]]:
    """Every token of ``text``, ending with END (``Parser.scan`` over ``Lexer.Lex``).

    Go's ``Lexer.read`` returns 0 both at the end and for a NUL byte (which it consumes): a NUL ends an
    identifier or a run of symbols, and where a token would begin it ends the input."""
    items: list[tuple[int, str]] = []
    position, end = 0, len(text)

    def read() -> str:
        nonlocal position
        if position < end:
            position += 1
            return text[position - 1]
        return "\x00"

    while True:
        char = read()
        while char in _WHITESPACE:
            char = read()
        if char == "\x00":
            items.append((END, ""))
            return items
        if char in _SPECIAL:
            # scanSpecialSymbol: the longest run of special characters that is still a token
            last: tuple[int, str] | None = None
            buffer = ""
            while char != "\x00":
                if char not in _SPECIAL:
                    position -= 1
                    break
                buffer += char
                token = _STRING_TO_TOKEN.get(buffer)
                if token is not None:
                    last = (token, buffer)
                elif last is not None:
                    position -= 1
                    break
                char = read()
            items.append(last if last is not None else (ERROR, f"error expected: keyword found '{buffer}'"))
        else:
            literal = ""
            while char != "\x00":
                if char in _SPECIAL or char in _WHITESPACE:
                    position -= 1
                    break
                literal += char
                char = read()
            items.append((_STRING_TO_TOKEN.get(literal, IDENTIFIER), literal))


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _lex(text)
        self.position = 0

    def lookahead(self, values: bool) -> tuple[int, str]:
        token, literal = self.items[self.position]
        return (IDENTIFIER if values and token in (IN, NOT_IN) else token), literal

    def consume(self, values: bool) -> tuple[int, str]:
        found = self.lookahead(values)
        self.position += 1
        return found

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            token, literal = self.lookahead(True)
            if token in (IDENTIFIER, DOES_NOT_EXIST):
                try:
                    requirements.append(self.requirement())
                except LabelSelectorError as exc:
                    raise LabelSelectorError(f"unable to parse requirement: {exc}") from None
                token, literal = self.consume(True)
                if token == END:
                    return requirements
                if token == COMMA:
                    after, following = self.lookahead(True)
                    if after not in (IDENTIFIER, DOES_NOT_EXIST):
                        raise LabelSelectorError(f"found '{following}', expected: identifier after ','")
                else:
                    raise LabelSelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            elif token == END:
                return requirements
            else:
                raise LabelSelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        key, operator = self.key_and_inferred_operator()
        if operator in (EXISTS, DOES_NOT_EXIST_OP):
            return _new_requirement(key, operator, [])
        operator = self.operator()
        values = self.values() if operator in ("in", "notin") else self.exact_value()
        return _new_requirement(key, operator, sorted(values))

    def key_and_inferred_operator(self) -> tuple[str, str]:
        operator = ""
        token, literal = self.consume(True)
        if token == DOES_NOT_EXIST:
            operator = DOES_NOT_EXIST_OP
            token, literal = self.consume(True)
        if token != IDENTIFIER:
            raise LabelSelectorError(f"found '{literal}', expected: identifier")
        problems = qualified_name_errors(literal)
        if problems:
            raise LabelSelectorError(_invalid("<nil>", literal, "; ".join(problems)))
        if self.lookahead(True)[0] in (END, COMMA) and operator != DOES_NOT_EXIST_OP:
            operator = EXISTS
        return literal, operator

    def operator(self) -> str:
        token, literal = self.consume(False)
        if token not in _OPERATORS:
            raise LabelSelectorError(f"found '{literal}', expected: {_BINARY_OPERATORS}")
        return _OPERATORS[token]

    def values(self) -> set[str]:
        token, literal = self.consume(True)
        if token != OPEN_PAR:
            raise LabelSelectorError(f"found '{literal}' expected: '('")
        token, literal = self.lookahead(True)
        if token in (IDENTIFIER, COMMA):
            found = self.identifiers()
            if self.consume(True)[0] != CLOSED_PAR:
                raise LabelSelectorError(f"found '{literal}', expected: ')'")
            return found
        if token == CLOSED_PAR:  # "()"
            self.consume(True)
            return {""}
        raise LabelSelectorError(f"found '{literal}', expected: ',', ')' or identifier")

    def identifiers(self) -> set[str]:
        found: set[str] = set()
        while True:
            token, literal = self.consume(True)
            if token == IDENTIFIER:
                found.add(literal)
                after, following = self.lookahead(True)
                if after == COMMA:
                    continue
                if after == CLOSED_PAR:
                    return found
                raise LabelSelectorError(f"found '{following}', expected: ',' or ')'")
            if token == COMMA:  # "(," and ",)" and ",," hold the empty value
                if not found:
                    found.add("")
                after = self.lookahead(True)[0]
                if after == CLOSED_PAR:
                    found.add("")
                    return found
                if after == COMMA:
                    found.add("")
            else:
                raise LabelSelectorError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.lookahead(True)[0] in (END, COMMA):
            return {""}
        token, literal = self.consume(True)
        if token == IDENTIFIER:
            return {literal}
        raise LabelSelectorError(f"found '{literal}', expected: identifier")


def _new_requirement(key: str, operator: str, values: list[str]) -> Requirement:
    """``NewRequirement``'s checks of what the parser can produce (the key was checked already)."""
    problems: list[str] = []
    if operator in ("gt", "lt"):
        for index, value in enumerate(values):
            try:
                go_parse_int(value, base=10)
            except GoNumError:
                problems.append(
                    _invalid(f"values[{index}]", value, "for 'Gt', 'Lt' operators, the value must be an integer")
                )
    for index, value in enumerate(values):
        value_problems = label_value_errors(value)
        if value_problems:
            problems.append(_invalid(f"values[{index}][{key}]", value, "; ".join(value_problems)))
    problems = list(dict.fromkeys(problems))  # utilerrors' aggregate prints each message once
    if len(problems) == 1:
        raise LabelSelectorError(problems[0])
    if problems:
        raise LabelSelectorError("[" + ", ".join(problems) + "]")
    return Requirement(key, operator, tuple(values))


_SYMBOLS = {"=": "=", "==": "==", "!=": "!=", "in": " in ", "notin": " notin ", "gt": ">", "lt": "<"}


def string(requirements: list[Requirement]) -> str:
    """``Selector.String()``: the requirements joined by commas, each as ``Requirement.String()`` writes it."""
    parts = []
    for requirement in requirements:
        if requirement.operator in (EXISTS, DOES_NOT_EXIST_OP):
            parts.append(("!" if requirement.operator == DOES_NOT_EXIST_OP else "") + requirement.key)
            continue
        values = ",".join(requirement.values)
        if requirement.operator in ("in", "notin"):
            values = f"({values})"
        parts.append(requirement.key + _SYMBOLS[requirement.operator] + values)
    return ",".join(parts)


def parse(text: str) -> list[Requirement]:
    """``labels.Parse(text)``'s requirements, sorted by key; :class:`LabelSelectorError` with Go's message."""
    return sorted(_Parser(text).parse(), key=lambda requirement: requirement.key)
