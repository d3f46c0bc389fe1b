"""Go 1.26's text/template/parse: node.go (the tree's nodes, their ``String()``, which an execution error shows
after ``at <...>``, and ``newNumber``, :func:`new_number`) and parse.go (the ``Tree`` parser, :class:`Parser`, over
the lexer's items).

The parser is recursive descent as in Go: ``parse``, ``parseDefinition``, ``itemList``, ``textOrAction``,
``action``, ``parseControl`` (if, range, with and their ``else if``/``else with`` chains), ``blockControl``,
``templateControl``, ``pipeline``, ``checkPipeline``, ``command``, ``operand``, ``term``; ``add`` with
``IsEmptyTree``. Errors are Go's: ``template: NAME:LINE: ...``. The functions a template may call are given by
name, as template.go hands ``parse.Parse`` its builtins and FuncMap. Go's IfNode, RangeNode and WithNode are one
:class:`BranchNode` with its ``kind``; ``{{end}}`` and ``{{else}}`` are the parser's own ``endNode`` and
``elseNode``.
"""

from __future__ import annotations

from collections.abc import Collection

from ..strconv import GoNumError, GoSyntaxError, go_parse_float, go_parse_int, go_parse_uint, go_quote, go_unquote
from . import TemplateError
from .lex import Item, lex

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
    "Parser",
    "PipeNode",
    "StringNode",
    "TemplateNode",
    "TextNode",
    "VariableNode",
    "is_empty_tree",
    "new_number",
    "unquote",
]

# ---- node.go -----------------------------------------------------------------------------------------


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


# ---- parse.go ----------------------------------------------------------------------------------------

_OPERAND_STARTS = frozenset(
    {"bool", "char", "complex", "dot", "field", "identifier", "number", "nil", "rawstring", "string", "variable", "("}
)


def is_empty_tree(node: Node) -> bool:
    """parse.IsEmptyTree: nothing but white space (and comments)."""
    if isinstance(node, ListNode):
        return all(is_empty_tree(child) for child in node.nodes)
    if isinstance(node, TextNode):
        return not node.text.strip(" \t\n\v\f\r\x85\xa0")
    return False


class Parser:
    """parse.Tree while it parses ``text`` named ``name``; definitions go to ``templates`` (the treeSet)."""

    def __init__(self, name: str, text: str, templates: dict[str, ListNode], funcs: Collection[str]) -> None:
        self.name = name
        self.text = text
        self.items = lex(text)
        self.funcs = funcs
        self.index = 0
        self.vars = ["$"]
        self.range_depth = 0
        self.templates = templates
        self.last_line = 1
        self.action_line = 0

    def error(self, message: str) -> TemplateError:
        line = self.items[max(self.index - 1, 0)].line if self.index else 1
        return TemplateError(f"template: {self.name}:{line}: {message}")

    def next(self) -> Item:
        item = self.items[min(self.index, len(self.items) - 1)]
        self.index += 1
        return item

    def backup(self, count: int = 1) -> None:
        self.index -= count

    def peek(self) -> Item:
        return self.items[min(self.index, len(self.items) - 1)]

    def next_non_space(self) -> Item:
        item = self.next()
        while item.typ == "space":
            item = self.next()
        return item

    def peek_non_space(self) -> Item:
        item = self.next_non_space()
        self.backup()
        return item

    def unexpected(self, token: Item, context: str) -> TemplateError:
        if token.typ == "error":
            extra = ""
            if self.action_line and self.action_line != token.line:
                extra = f" in action started at {self.name}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action") :]
            return self.error(f"{token}{extra}")
        return self.error(f"unexpected {token} in {context}")

    def expect(self, typ: str, context: str) -> Item:
        token = self.next_non_space()
        if token.typ != typ:
            raise self.unexpected(token, context)
        return token

    def parse(self) -> ListNode:
        root = ListNode(self.peek().pos)
        while self.peek().typ != "EOF":
            if self.peek().typ == "{{":
                delim = self.next()
                if self.next_non_space().typ == "define":
                    self.parse_definition()
                    continue
                self.index = self.items.index(delim)
            node = self.text_or_action()
            if isinstance(node, (EndNode, ElseNode)):
                raise self.error(f"unexpected {node}")
            root.nodes.append(node)
        return root

    def parse_definition(self) -> None:
        context = "define clause"
        name = self.template_name(context)
        self.expect("}}", context)
        self.add(name, self.definition_body(context))

    def template_name(self, context: str) -> str:
        """parseTemplateName: the quoted name after define, block or template."""
        token = self.next_non_space()
        if token.typ not in ("string", "rawstring"):
            raise self.unexpected(token, context)
        return unquote(token)

    def definition_body(self, context: str) -> ListNode:
        """The body of a define or block, parsed with only ``$`` in scope, up to its ``{{end}}``."""
        saved = self.vars
        self.vars = ["$"]
        body, end = self.item_list()
        self.vars = saved
        if not isinstance(end, EndNode):
            raise self.error(f"unexpected {end} in {context}")
        return body

    def add(self, name: str, body: ListNode, line: int | None = None) -> None:
        """parse.(*Tree).add: a template replaces an empty one of its name; two non-empty ones are an error."""
        existing = self.templates.get(name)
        if existing is None or is_empty_tree(existing):
            self.templates[name] = body
        elif not is_empty_tree(body):
            message = f"template: multiple definition of template {go_quote(name)}"
            if line is None:
                raise self.error(message)
            raise TemplateError(f"template: {self.name}:{line}: {message}")

    def item_list(self) -> tuple[ListNode, Node]:
        body = ListNode(self.peek_non_space().pos)
        while self.peek_non_space().typ != "EOF":
            node = self.text_or_action()
            if isinstance(node, (EndNode, ElseNode)):
                return body, node
            body.nodes.append(node)
        raise self.error("unexpected EOF")

    def text_or_action(self) -> Node:
        token = self.next_non_space()
        if token.typ == "text":
            return TextNode(token.pos, token.val)
        if token.typ == "{{":
            self.action_line = token.line
            try:
                return self.action()
            finally:
                self.action_line = 0
        raise self.unexpected(token, "input")

    def action(self) -> Node:
        token = self.next_non_space()
        if token.typ == "block":
            return self.block_control()
        if token.typ in ("break", "continue"):
            after = self.next_non_space()
            if after.typ != "}}":
                raise self.unexpected(after, "{{" + token.typ + "}}")
            if self.range_depth == 0:
                raise self.error("{{" + token.typ + "}} outside {{range}}")
            return BreakNode(token.pos) if token.typ == "break" else ContinueNode(token.pos)
        if token.typ == "else":
            peek = self.peek_non_space()
            if peek.typ in ("if", "with"):
                return ElseNode(peek.pos)
            return ElseNode(self.expect("}}", "else").pos)
        if token.typ == "end":
            return EndNode(self.expect("}}", "end").pos)
        if token.typ in ("if", "range", "with"):
            return self.control(token.typ)
        if token.typ == "template":
            return self.template_control()
        self.backup()
        token = self.peek()
        return ActionNode(token.pos, token.line, self.pipeline("command", "}}"))

    def control(self, context: str) -> BranchNode:
        mark = len(self.vars)
        try:
            pipe = self.pipeline(context, "}}")
            if context == "range":
                self.range_depth += 1
            body, next_node = self.item_list()
            if context == "range":
                self.range_depth -= 1
            else_list = None
            if isinstance(next_node, ElseNode):
                if context in ("if", "with") and self.peek().typ == context:
                    self.next()
                    else_list = ListNode(next_node.pos)
                    else_list.nodes.append(self.control(context))
                else:
                    else_list, next_node = self.item_list()
                    if not isinstance(next_node, EndNode):
                        raise self.error(f"expected end; found {next_node}")
            return BranchNode(context, pipe.pos, pipe, body, else_list)
        finally:
            del self.vars[mark:]

    def block_control(self) -> TemplateNode:
        context = "block clause"
        token = self.peek_non_space()
        name = self.template_name(context)
        pipe = self.pipeline(context, "}}")
        self.add(name, self.definition_body(context))
        return TemplateNode(token.pos, name, pipe)

    def template_control(self) -> TemplateNode:
        context = "template clause"
        token = self.peek_non_space()
        name = self.template_name(context)
        pipe = None
        if self.next_non_space().typ != "}}":
            self.backup()
            pipe = self.pipeline(context, "}}")
        return TemplateNode(token.pos, name, pipe)

    def pipeline(self, context: str, end: str) -> PipeNode:
        token = self.peek_non_space()
        pipe = PipeNode(token.pos, token.line)
        while True:  # decls
            v = self.peek_non_space()
            if v.typ != "variable":
                break
            start = self.index
            self.next_non_space()
            nxt = self.peek_non_space()
            if nxt.typ in ("=", ":="):
                pipe.is_assign = nxt.typ == "="
                self.next_non_space()
                pipe.decl.append(VariableNode(v.pos, [v.val]))
                self.vars.append(v.val)
            elif nxt.typ == "char_item" and nxt.val == ",":
                self.next_non_space()
                pipe.decl.append(VariableNode(v.pos, [v.val]))
                self.vars.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space().typ in ("variable", "}}", ")"):
                        continue
                    raise self.error("range can only initialize variables")
                raise self.error(f"too many declarations in {context}")
            else:
                self.index = start
            break
        while True:
            token = self.next_non_space()
            if token.typ == end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.typ not in _OPERAND_STARTS:
                raise self.unexpected(token, context)
            self.backup()
            pipe.cmds.append(self.command())

    def check_pipeline(self, pipe: PipeNode, context: str) -> None:
        if not pipe.cmds:
            raise self.error(f"missing value for {context}")
        for i, cmd in enumerate(pipe.cmds[1:]):
            if isinstance(cmd.args[0], (BoolNode, DotNode, NilNode, NumberNode, StringNode)):
                raise self.error(f"non executable command in pipeline stage {i + 2}")

    def command(self) -> CommandNode:
        cmd = CommandNode(self.peek_non_space().pos)
        while True:
            self.peek_non_space()
            operand = self.operand()
            if operand is not None:
                cmd.args.append(operand)
            token = self.next()
            if token.typ == "space":
                continue
            if token.typ in ("}}", ")"):
                self.backup()
            elif token.typ != "|":
                raise self.unexpected(token, "operand")
            break
        if not cmd.args:
            raise self.error("empty command")
        return cmd

    def operand(self) -> Node | None:
        node = self.term()
        if node is None:
            return None
        if self.peek().typ == "field":
            pos = self.peek().pos
            fields: list[str] = []
            while self.peek().typ == "field":
                fields.append(self.next().val[1:])
            if isinstance(node, FieldNode):
                return FieldNode(pos, node.ident + fields)
            if isinstance(node, VariableNode):
                return VariableNode(pos, node.ident + fields)
            if isinstance(node, (BoolNode, StringNode, NumberNode, NilNode, DotNode)):
                raise self.error(f"unexpected . after term {go_quote(str(node))}")
            return ChainNode(pos, node, fields)
        return node

    def term(self) -> Node | None:
        token = self.next_non_space()
        typ = token.typ
        if typ == "identifier":
            if token.val not in self.funcs:
                raise self.error(f"function {go_quote(token.val)} not defined")
            return IdentifierNode(token.pos, token.val)
        if typ == "dot":
            return DotNode(token.pos)
        if typ == "nil":
            return NilNode(token.pos)
        if typ == "variable":
            parts = token.val.split(".")
            if parts[0] not in self.vars:
                raise self.error(f"undefined variable {go_quote(parts[0])}")
            return VariableNode(token.pos, parts)
        if typ == "field":
            return FieldNode(token.pos, token.val[1:].split("."))
        if typ == "bool":
            return BoolNode(token.pos, token.val == "true")
        if typ in ("char", "number", "complex"):
            try:
                return new_number(token)
            except TemplateError as exc:
                raise self.error(str(exc)) from None
        if typ == "(":
            return self.pipeline("parenthesized pipeline", ")")
        if typ in ("string", "rawstring"):
            try:
                return StringNode(token.pos, token.val, unquote(token))
            except TemplateError as exc:
                raise self.error(str(exc)) from None
        self.backup()
        return None
