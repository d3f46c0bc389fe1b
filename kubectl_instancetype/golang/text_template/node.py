"""Go 1.26's text/template/parse/node.go: the parse tree's nodes, their ``String()`` (what an execution error
shows after ``at <...>``), and ``newNumber`` (:func:`new_number`), which decides the types a number constant fits.

Go's IfNode, RangeNode and WithNode are one :class:`BranchNode` with its ``kind``; ``{{end}}`` and ``{{else}}`` are
the parser's own ``endNode`` and ``elseNode``.
"""

from __future__ import annotations

from ..strconv import GoNumError, GoSyntaxError, go_parse_float, go_parse_int, go_parse_uint, go_quote, go_unquote
from . import TemplateError
from .lex import Item

__all__ = [
    "ActionNode",
    "BoolNode",
    "BranchNode",
    "BreakNode",
    "ChainNode",
    "CommandNode",
    "ContinueNode",
    "DotNode",
    "ElseNode",
    "EndNode",
    "FieldNode",
    "IdentifierNode",
    "ListNode",
    "NilNode",
    "Node",
    "NumberNode",
    "PipeNode",
    "StringNode",
    "TemplateNode",
    "TextNode",
    "VariableNode",
    "new_number",
    "unquote",
]


class Node:
    """A node at byte offset ``pos`` of the template's text."""

    pos = 0

    def __str__(self) -> str:
        return ""


class _Marker(Node):
    """A node that is its position and a fixed text: ``.``, ``nil``, ``{{break}}``, ``{{continue}}``,
    ``{{end}}``, ``{{else}}``."""

    text = ""

    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return self.text


class DotNode(_Marker):
    text = "."


class NilNode(_Marker):
    text = "nil"


class BreakNode(_Marker):
    text = "{{break}}"


class ContinueNode(_Marker):
    text = "{{continue}}"


class EndNode(_Marker):
    text = "{{end}}"


class ElseNode(_Marker):
    text = "{{else}}"


class TextNode(Node):
    def __init__(self, pos: int, text: str) -> None:
        self.pos, self.text = pos, text

    def __str__(self) -> str:
        return go_quote(self.text)


class FieldNode(Node):
    def __init__(self, pos: int, ident: list[str]) -> None:
        self.pos, self.ident = pos, ident

    def __str__(self) -> str:
        return "".join("." + name for name in self.ident)


class VariableNode(Node):
    def __init__(self, pos: int, ident: list[str]) -> None:
        self.pos, self.ident = pos, ident

    def __str__(self) -> str:
        return ".".join(self.ident)


class ChainNode(Node):
    def __init__(self, pos: int, node: Node, fields: list[str]) -> None:
        self.pos, self.node, self.fields = pos, node, fields

    def __str__(self) -> str:
        inner = f"({self.node})" if isinstance(self.node, PipeNode) else str(self.node)
        return inner + "".join("." + name for name in self.fields)


class IdentifierNode(Node):
    def __init__(self, pos: int, name: str) -> None:
        self.pos, self.name = pos, name

    def __str__(self) -> str:
        return self.name


class BoolNode(Node):
    def __init__(self, pos: int, value: bool) -> None:
        self.pos, self.value = pos, value

    def __str__(self) -> str:
        return "true" if self.value else "false"


class NumberNode(Node):
    """parse.NumberNode: the constant's text and each type it fits (IsInt, IsUint, IsFloat, IsComplex)."""

    def __init__(self, pos: int, text: str) -> None:
        self.pos, self.text = pos, text
        self.is_int = self.is_uint = self.is_float = self.is_complex = False
        self.int64 = self.uint64 = 0
        self.float64 = 0.0
        self.complex128 = 0j

    def __str__(self) -> str:
        return self.text

    def set_float(self, value: float) -> None:
        """The float and the integers it converts to exactly (Go's float64(int64(f)) == f on amd64)."""
        self.is_float, self.float64 = True, value
        if not self.is_int and value == value and -(2**63) <= value < 2**63 and value == int(value):
            self.is_int, self.int64 = True, int(value)
        if not self.is_uint and value == value and 0 <= value < 2**64 and value == int(value):
            self.is_uint, self.uint64 = True, int(value)

    def simplify_complex(self) -> None:
        """simplifyComplex: a complex constant without an imaginary part is a float (and maybe an int) too."""
        if self.complex128.imag == 0:
            self.set_float(self.complex128.real)


class StringNode(Node):
    def __init__(self, pos: int, quoted: str, text: str) -> None:
        self.pos, self.quoted, self.text = pos, quoted, text

    def __str__(self) -> str:
        return self.quoted


class CommandNode(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.args: list[Node] = []

    def __str__(self) -> str:
        return " ".join(f"({arg})" if isinstance(arg, PipeNode) else str(arg) for arg in self.args)


class PipeNode(Node):
    def __init__(self, pos: int, line: int) -> None:
        self.pos, self.line = pos, line
        self.decl: list[VariableNode] = []
        self.is_assign = False
        self.cmds: list[CommandNode] = []

    def __str__(self) -> str:
        text = ""
        if self.decl:
            text = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return text + " | ".join(str(cmd) for cmd in self.cmds)


class ListNode(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.nodes: list[Node] = []

    def __str__(self) -> str:
        return "".join(str(node) if not isinstance(node, TextNode) else node.text for node in self.nodes)


class ActionNode(Node):
    def __init__(self, pos: int, line: int, pipe: PipeNode) -> None:
        self.pos, self.line, self.pipe = pos, line, pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


class BranchNode(Node):
    """BranchNode of an IfNode, RangeNode or WithNode (``kind``: ``if``, ``range``, ``with``)."""

    def __init__(self, kind: str, pos: int, pipe: PipeNode, body: ListNode, else_list: ListNode | None) -> None:
        self.kind, self.pos, self.pipe, self.list, self.else_list = kind, pos, pipe, body, else_list

    def __str__(self) -> str:
        text = "{{" + self.kind + " " + str(self.pipe) + "}}" + str(self.list)
        if self.else_list is not None:
            text += "{{else}}" + str(self.else_list)
        return text + "{{end}}"


class TemplateNode(Node):
    def __init__(self, pos: int, name: str, pipe: PipeNode | None) -> None:
        self.pos, self.name, self.pipe = pos, name, pipe

    def __str__(self) -> str:
        return "{{template " + go_quote(self.name) + (" " + str(self.pipe) if self.pipe else "") + "}}"


def _parse_float(text: str) -> float | None:
    try:
        return go_parse_float(text)
    except GoNumError:
        return None


def unquote(token: Item) -> str:
    """strconv.Unquote of a string or raw string token (parse.go's StringNode, parseTemplateName); a character
    constant's token reads as a one-rune string."""
    value = token.val
    if value.startswith("`"):
        return value[1:-1].replace("\r", "")
    if token.typ == "char":
        body = value[1:-1]
        value = '"' + body.replace('"', '\\"') + '"' if body != '"' else '"\\""'
    try:
        return go_unquote(value)
    except GoSyntaxError as exc:
        raise TemplateError(str(exc)) from None


def new_number(token: Item) -> NumberNode:
    """newNumber: the types the constant ``token`` fits, or Go's error (:class:`TemplateError`, without the
    position the parser adds)."""
    text = token.val
    node = NumberNode(token.pos, text)
    if token.typ == "char":
        rune = unquote(token)
        if len(rune) != 1:
            raise TemplateError(f"malformed character constant: {text}")
        code = ord(rune)
        if 0xDC80 <= code <= 0xDCFF:
            code -= 0xDC00  # a byte escape (\xff) is that byte's value
        node.is_int = node.is_uint = node.is_float = True
        node.int64 = node.uint64 = code
        node.float64 = float(code)
        return node
    if token.typ == "complex":
        # fmt.Sscan of a complex128: a float, a signed float, then "i"
        split = max(text.rfind("+"), text.rfind("-"))
        while split > 0 and text[split - 1] in "eEpP":
            split = max(text.rfind("+", 0, split), text.rfind("-", 0, split))
        try:
            node.complex128 = complex(go_parse_float(text[:split]), go_parse_float(text[split:-1]))
        except GoNumError as exc:
            raise TemplateError(str(exc)) from None
        node.is_complex = True
        node.simplify_complex()
        return node
    if text.endswith("i"):
        imag = _parse_float(text[:-1])
        if imag is not None:
            node.is_complex, node.complex128 = True, complex(0, imag)
            node.simplify_complex()
            return node
    try:
        node.uint64, node.is_uint = go_parse_uint(text), True
    except GoNumError:
        pass
    try:
        node.int64, node.is_int = go_parse_int(text), True
        if node.int64 == 0:
            node.is_uint = True
    except GoNumError:
        pass
    if node.is_int:
        node.is_float, node.float64 = True, float(node.int64)
    elif node.is_uint:
        node.is_float, node.float64 = True, float(node.uint64)
    else:
        value = _parse_float(text)
        if value is not None:
            if not any(c in text for c in ".eEpP"):
                raise TemplateError(f"integer overflow: {go_quote(text)}")
            node.set_float(value)
    if not (node.is_int or node.is_uint or node.is_float):
        raise TemplateError(f"illegal number syntax: {go_quote(text)}")
    return node
