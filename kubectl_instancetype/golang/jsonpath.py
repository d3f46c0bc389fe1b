"""client-go's JSONPath dialect (``k8s.io/client-go/util/jsonpath``), as ``kubectl -o jsonpath`` runs it.

A template is text with actions in braces: ``{.items[*].metadata.name}``, ``{range .items[*]}...{end}``,
filters ``[?(@.x=="y")]``, recursive descent ``..``, slices ``[1:3:2]``, unions ``[a,b]``, quoted text
``{"\\n"}``. The parser and evaluator follow parser.go and jsonpath.go statement by statement (including
the range machinery that walks a flat node list, and its error messages) so that templates behave as in
kubectl. Values are decoded JSON (see :mod:`.fmt` for the Go types they stand for).

One deliberate difference: Go iterates a map in random order (``*`` and ``..`` over an object); here the
keys are visited in sorted order, so the output is stable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .encoding_json import marshal
from .fmt import GoByte, go_type, sprint_value

__all__ = ["INVALID", "JSONPath", "JSONPathError", "parse", "relaxed_expression"]


class JSONPathError(ValueError):
    """A parse or execution error, worded as client-go words it.

    ``values`` are what the failing step returned beside its error in Go (an existence filter still
    counts them)."""

    def __init__(self, message: str, values: list[Any] | None = None) -> None:
        super().__init__(message)
        self.values = values or []


class _Invalid:
    """Go's zero ``reflect.Value`` (``reflect.ValueOf(nil)``): what a range over nothing walks with."""

    def __repr__(self) -> str:
        return "<invalid>"


INVALID: Any = _Invalid()


# ---- nodes (node.go) ---------------------------------------------------------------------------------


class ListNode:
    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes: list[Any] = []


class TextNode:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class FieldNode:
    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value


class IdentifierNode:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class ArrayNode:
    """``params``: (value, known, derived) for start, end, step."""

    __slots__ = ("params",)

    def __init__(self, params: list[tuple[int, bool, bool]]) -> None:
        self.params = params


class FilterNode:
    __slots__ = ("left", "operator", "right")

    def __init__(self, left: ListNode, right: ListNode, operator: str) -> None:
        self.left, self.right, self.operator = left, right, operator


class LiteralNode:
    """IntNode, FloatNode and BoolNode: a constant."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class WildcardNode:
    __slots__ = ()


class RecursiveNode:
    __slots__ = ()


class UnionNode:
    __slots__ = ("nodes",)

    def __init__(self, nodes: list[ListNode]) -> None:
        self.nodes = nodes


# ---- parser (parser.go) ------------------------------------------------------------------------------

_EOF = ""
_DICT_KEY = re.compile(r"'([^']*)'\Z")
_SLICE = re.compile(r"(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?\Z")
_FILTER = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)\Z")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)\Z")


def _is_terminator(r: str) -> bool:
    return r in (" ", "\t", "\r", "\n", _EOF, ".", ",", "[", "]", "$", "@", "{", "}")


def _is_alphanumeric(r: str) -> bool:
    return r == "_" or (r != _EOF and (r.isalpha() or r.isdecimal()))


def _rune_repr(r: str) -> str:
    """Go's ``%#U``: ``U+0021 '!'``."""
    code = ord(r)
    return f"U+{code:04X} '{r}'" if r.isprintable() else f"U+{code:04X}"


class _Parser:
    def __init__(self, text: str) -> None:
        self.input = text
        self.pos = 0
        self.start = 0
        self.width = 0
        self.root = ListNode()

    def parse(self) -> ListNode:
        self._parse_text(self.root)
        return self.root

    def _consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    def _next(self) -> str:
        if self.pos >= len(self.input):
            self.width = 0
            return _EOF
        self.width = 1
        self.pos += 1
        return self.input[self.pos - 1]

    def _peek(self) -> str:
        r = self._next()
        self._backup()
        return r

    def _backup(self) -> None:
        self.pos -= self.width

    def _parse_text(self, cur: ListNode) -> None:
        # The parser is recursive in Go (each action calls the next); a loop here keeps deep templates
        # from exhausting Python's stack. Each _parse_* returns True when it reached a right delimiter.
        while True:
            index = self.input.find("{", self.pos)
            if index < 0:
                self.pos = len(self.input)
                if self.pos > self.start:
                    cur.nodes.append(TextNode(self._consume()))
                return
            self.pos = index
            if self.pos > self.start:
                cur.nodes.append(TextNode(self._consume()))
            # parseLeftDelim
            self.pos += 1
            self._consume()
            node = ListNode()
            cur.nodes.append(node)
            self._parse_inside_action(node)
            cur = self.root

    def _parse_inside_action(self, cur: ListNode) -> None:
        while True:
            rest = self.input[self.pos :]
            if rest.startswith("}"):
                self.pos += 1
                self._consume()
                return
            if rest.startswith("[?("):
                self._parse_filter(cur)
                continue
            if rest.startswith(".."):
                self._parse_recursive(cur)
                continue
            r = self._next()
            if r == _EOF or r in "\r\n":
                raise JSONPathError("unclosed action")
            if r in " @$":  # a space, or the current object (nothing to add)
                self._consume()
            elif r == "[":
                self._parse_array(cur)
            elif r in "\"'":
                self._parse_quote(cur, r)
            elif r == ".":
                self._parse_field(cur)
            elif r in "+-" or r.isdecimal():
                self._backup()
                self._parse_number(cur)
            elif _is_alphanumeric(r):
                self._backup()
                self._parse_identifier(cur)
            else:
                raise JSONPathError(f"unrecognized character in action: {_rune_repr(r)}")

    def _parse_identifier(self, cur: ListNode) -> None:
        while True:
            r = self._next()
            if _is_terminator(r):
                self._backup()
                break
        value = self._consume()
        if value in ("true", "false"):
            cur.nodes.append(LiteralNode(value == "true"))
        else:
            cur.nodes.append(IdentifierNode(value))

    def _parse_recursive(self, cur: ListNode) -> None:
        if cur.nodes and isinstance(cur.nodes[-1], RecursiveNode):
            raise JSONPathError("invalid multiple recursive descent")
        self.pos += 2
        self._consume()
        cur.nodes.append(RecursiveNode())
        if _is_alphanumeric(self._peek()):
            self._parse_field(cur)

    def _parse_number(self, cur: ListNode) -> None:
        if self._peek() in ("+", "-"):
            self._next()
        while True:
            r = self._next()
            if r != "." and not r.isdecimal():
                self._backup()
                break
        value = self._consume()
        if _INT.match(value) and -(2**63) <= int(value) < 2**63:
            cur.nodes.append(LiteralNode(int(value)))
        elif _FLOAT.match(value):
            cur.nodes.append(LiteralNode(float(value)))
        else:
            raise JSONPathError(f"cannot parse number {value}")

    def _parse_array(self, cur: ListNode) -> None:
        while True:
            r = self._next()
            if r in (_EOF, "\n"):
                raise JSONPathError("unterminated array")
            if r == "]":
                break
        text = self._consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            union = [_parse_action(f"[{part.strip(' ')}]") for part in parts]
            cur.nodes.append(UnionNode(union))
            return
        key = _DICT_KEY.match(text)
        if key is not None:
            cur.nodes.extend(_parse_action(f".{key.group(1)}").nodes)
            return
        match = _SLICE.match(text)
        if match is None:
            raise JSONPathError(f"invalid array index {text}")
        groups = [group or "" for group in match.groups()]
        params: list[tuple[int, bool, bool]] = []
        for i in range(3):
            value = groups[i]
            if value:
                if i > 0:
                    value = value[1:]
                if i > 0 and value == "":
                    params.append((0, False, False))
                else:
                    if not _INT.match(value) or not -(2**63) <= int(value) < 2**63:
                        raise JSONPathError(f"array index {value} is not a number")
                    params.append((int(value), True, False))
            elif i == 1:
                params.append((params[0][0] + 1, True, True))
            else:
                params.append((0, False, False))
        cur.nodes.append(ArrayNode(params))

    def _parse_filter(self, cur: ListNode) -> None:
        self.pos += 3
        self._consume()
        begin = end = False
        pair = ""
        while True:
            r = self._next()
            if r in (_EOF, "\n"):
                raise JSONPathError("unterminated filter")
            if r in "\"'":
                if not begin:
                    begin, pair = True, r
                    continue
                if self.input[self.pos - 2] != "\\" and r == pair:
                    end = True
            elif r == ")" and begin == end:
                break
        if self._next() != "]":
            raise JSONPathError("unclosed array expect ]")
        text = self._consume()[:-2]
        match = _FILTER.match(text)
        if match is None:
            cur.nodes.append(FilterNode(_parse_action(text), ListNode(), "exists"))
        else:
            left = _parse_action(match.group(1))
            right = _parse_action(match.group(3))
            cur.nodes.append(FilterNode(left, right, match.group(2)))

    def _parse_quote(self, cur: ListNode, end: str) -> None:
        while True:
            r = self._next()
            if r in (_EOF, "\n"):
                raise JSONPathError("unterminated quoted string")
            if r == end and self.input[self.pos - 2] != "\\":
                break
        value = self._consume()
        from .strconv import GoSyntaxError, go_unquote

        try:
            text = go_unquote(value, single_quoted=True)
        except GoSyntaxError as exc:
            raise JSONPathError(f"unquote string {value} error {exc}") from None
        cur.nodes.append(TextNode(text))

    def _parse_field(self, cur: ListNode) -> None:
        self._consume()
        while True:
            r = self._next()
            if r == "\\":
                self._next()
            elif _is_terminator(r):
                self._backup()
                break
        value = self._consume()
        cur.nodes.append(WildcardNode() if value == "*" else FieldNode(value.replace("\\", "")))


def _parse_action(text: str) -> ListNode:
    """``parseAction``: parse ``{text}`` and return the action's list."""
    root = _Parser("{" + text + "}").parse()
    action: ListNode = root.nodes[0]
    return action


def parse(text: str) -> ListNode:
    """Parse a template; :class:`JSONPathError` with client-go's message when it is invalid."""
    return _Parser(text).parse()


# ---- comparisons (third_party/forked/golang/template/funcs.go, in .text_template.funcs) ----------------

_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {}


def _compare(operator: str, left: Any, right: Any) -> bool:
    """evalFilter's switch over the operator: the fork's Less, Greater, Equal, NotEqual, LessEqual, GreaterEqual."""
    # loaded when a filter compares: a JSONPath without one does not load it
    from .text_template.funcs import CallError, equal, greater, greater_equal, less, less_equal, not_equal

    if not _COMPARISONS:
        _COMPARISONS.update(
            {"<": less, ">": greater, "==": equal, "!=": not_equal, "<=": less_equal, ">=": greater_equal}
        )
    compare = _COMPARISONS.get(operator)
    if compare is None:
        raise JSONPathError(f"unrecognized filter operator {operator}")
    try:
        return compare(left, right)
    except CallError as exc:
        raise JSONPathError(str(exc)) from None


# ---- evaluation (jsonpath.go) ------------------------------------------------------------------------


def _children(value: Any) -> list[Any] | None:
    """The elements ``*`` and ``..`` visit: a map's values (sorted keys), a list's items, a string's bytes."""
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [GoByte(byte) for byte in value.encode("utf-8", "surrogateescape")]
    return None


class JSONPath:
    """A parsed template; :meth:`execute` renders it for one value (kubectl passes the whole List)."""

    def __init__(self, text: str, *, allow_missing_keys: bool = False, output_json: bool = False) -> None:
        self.allow_missing_keys = allow_missing_keys
        self.output_json = output_json
        self._nodes = parse(text).nodes
        self.reset()

    def reset(self) -> None:
        """Forget the state of a run (where its ranges stand)."""
        self._offset = 0
        self._begin_range = self._in_range = self._end_range = 0
        self._last_end: int | None = None

    def fresh(self) -> JSONPath:
        """This template with the state of a run reset, not parsed again: one parse, many runs (as kubectl's
        sorter runs one parsed JSONPath on each object)."""
        clone = object.__new__(JSONPath)
        clone.__dict__.update(self.__dict__)
        clone.reset()
        return clone

    def execute(self, data: Any) -> str:
        """The text the template produces for ``data``; :class:`JSONPathError` when it fails."""
        out: list[str] = []
        for results in self.find_results(data):
            out.append(self.print_results(results))
        return "".join(out)

    def find_results(self, data: Any) -> list[list[Any]]:
        """``FindResults``: one list of values per top-level action or text (ranges expanded)."""
        nodes, start = self._nodes, self._offset
        full: list[list[Any]] = []
        i = start
        while i < len(nodes):
            results = self._walk([INVALID if data is None else data], nodes[i])
            if 0 < self._end_range <= self._in_range:
                self._end_range -= 1
                self._last_end = i
                break
            if self._begin_range > 0:
                self._begin_range -= 1
                self._in_range += 1
                self._offset = i + 1
                if results:
                    for value in results:
                        self._offset = i + 1
                        full.extend(self.find_results(value))
                else:
                    # no results: still walk the range's nodes so the position reaches its end
                    self.find_results(None)
                self._in_range -= 1
                for k in range(i + 1, len(nodes)):
                    if k == self._last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def print_results(self, results: list[Any]) -> str:
        """``PrintResults``: maps and lists as JSON, other values as Go prints them, joined by spaces."""
        if self.output_json:
            items = [None if value is INVALID else value for value in results]
            return marshal(items, indent="    ") + "\n"
        texts = []
        for value in results:
            if isinstance(value, (dict, list)):
                texts.append(marshal(value))
            elif value is INVALID:
                texts.append("<no value>")
            elif value is None:
                texts.append("null")
            else:
                texts.append(sprint_value(value))
        return " ".join(texts)

    # walk visits the tree rooted at node
    def _walk(self, values: list[Any], node: Any) -> list[Any]:
        if isinstance(node, ListNode):
            return self._eval_list(values, node)
        if isinstance(node, TextNode):
            return [node.text]
        if isinstance(node, FieldNode):
            return self._eval_field(values, node)
        if isinstance(node, ArrayNode):
            return self._eval_array(values, node)
        if isinstance(node, FilterNode):
            return self._eval_filter(values, node)
        if isinstance(node, LiteralNode):
            return [node.value for _ in values]
        if isinstance(node, WildcardNode):
            return [child for value in values for child in (_children(value) or [])]
        if isinstance(node, RecursiveNode):
            return self._eval_recursive(values)
        if isinstance(node, UnionNode):
            result = []
            for part in node.nodes:
                try:
                    result.extend(self._eval_list(values, part))
                except JSONPathError as exc:
                    raise JSONPathError(str(exc), values) from None
            return result
        if isinstance(node, IdentifierNode):
            return self._eval_identifier(values, node)
        raise JSONPathError(f"unexpected Node {node}")

    def _eval_list(self, values: list[Any], node: ListNode) -> list[Any]:
        for child in node.nodes:
            values = self._walk(values, child)
        return values

    def _eval_identifier(self, values: list[Any], node: IdentifierNode) -> list[Any]:
        if node.name == "range":
            self._begin_range += 1
            return values
        if node.name == "end":
            if self._in_range > 0:
                self._end_range += 1
                return []
            raise JSONPathError("not in range, nothing to end")
        raise JSONPathError(f"unrecognized identifier {node.name}", values)

    def _eval_array(self, values: list[Any], node: ArrayNode) -> list[Any]:
        result: list[Any] = []
        for value in values:
            if value is None:
                continue
            if not isinstance(value, list):
                if value is INVALID:
                    raise JSONPathError("reflect: call of reflect.Value.Type on zero Value", values)
                raise JSONPathError(f"{go_type(value)} is not array or slice", values)
            length = len(value)
            (start, start_known, _), (end, end_known, end_derived), (step, step_known, _) = node.params
            if not start_known:
                start = 0
            if start < 0:
                start += length
            if not end_known:
                end = length
            if end < 0 or (end == 0 and end_derived):
                end += length
            if end == start:
                return result
            if start >= length or start < 0:
                raise JSONPathError(f"array index out of bounds: index {start}, length {length}", values)
            if end > length or end < 0:
                raise JSONPathError(f"array index out of bounds: index {end - 1}, length {length}", values)
            if start > end:
                raise JSONPathError(f"starting index {start} is greater than ending index {end}", values)
            if step_known:
                if step <= 0:
                    raise JSONPathError("step must be > 0", values)
            else:
                step = 1
            result.extend(value[start:end:step])
        return result

    def _eval_field(self, values: list[Any], node: FieldNode) -> list[Any]:
        if not values:
            return []
        results = [value[node.value] for value in values if isinstance(value, dict) and node.value in value]
        if not results and not self.allow_missing_keys:
            raise JSONPathError(f"{node.value} is not found")
        return results

    def _eval_recursive(self, values: list[Any]) -> list[Any]:
        result: list[Any] = []
        for value in values:
            if value is None:
                continue
            children = _children(value)
            if children:
                result.append(value)
                result.extend(self._eval_recursive(children))
        return result

    def _eval_filter(self, values: list[Any], node: FilterNode) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if not isinstance(value, list):
                shown = (
                    "<nil>" if value is None else "<invalid reflect.Value>" if value is INVALID else sprint_value(value)
                )
                raise JSONPathError(f"{shown} is not array or slice and cannot be filtered", values)
            for item in value:
                if node.operator == "exists":
                    try:
                        lefts = self._eval_list([item], node.left)
                    except JSONPathError as exc:
                        lefts = exc.values
                    if lefts:
                        results.append(item)
                    continue
                try:
                    lefts = self._eval_list([item], node.left)
                    rights = self._eval_list([item], node.right) if lefts and len(lefts) == 1 else []
                except JSONPathError as exc:
                    raise JSONPathError(str(exc), values) from None
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise JSONPathError("can only compare one element at a time")
                if not rights:
                    continue
                if len(rights) > 1:
                    raise JSONPathError("can only compare one element at a time")
                try:
                    passed = _compare(node.operator, lefts[0], rights[0])
                except JSONPathError as exc:
                    raise JSONPathError(str(exc), results) from None
                if passed:
                    results.append(item)
        return results


# ---- kubectl's uses of JSONPath beside -o jsonpath (kubectl/pkg/cmd/get) ------------------------------

_RELAXED = re.compile(r"\{\.?([^{}]+)\}\Z|\.?([^{}]+)\Z")


def relaxed_expression(expression: str) -> str:
    """kubectl's ``RelaxedJSONPathExpression`` (custom-columns, ``--sort-by``): ``a.b``, ``.a.b``, ``{a.b}``
    and ``{.a.b}`` all mean ``{.a.b}``."""
    if not expression:
        return expression
    match = _RELAXED.match(expression)
    if match is None:
        raise JSONPathError(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"
        )
    return "{." + (match.group(1) or match.group(2)) + "}"
