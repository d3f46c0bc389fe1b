"""Go's ``text/template`` for ``kubectl -o go-template``: the language kubectl users write, on decoded JSON.

Ported from text/template (lex.go, parse.go, exec.go, funcs.go) for what a template over an API object
can use: text and actions with trim markers and comments; fields, chains, variables (``:=``, ``=``);
pipelines and parenthesised pipelines; ``if``/``else if``/``with``/``else with``/``range`` (lists, maps in
sorted key order, integers) with ``break`` and ``continue``; ``define``/``template``/``block``; the
builtins (``and or not len index slice print printf println eq ne lt le gt ge html js urlquery``) and
kubectl's ``exists`` and ``base64decode`` (cli-runtime's printers/template.go). Messages are Go's:
``template: output:1:2: executing "output" at <.foo>: map has no entry for key "foo"``.

No Python template library implements Go's semantics (missing keys, typed comparisons, ``<no value>``),
so this is written here, next to the other Go emulations, and tested against kubectl.

Values: decoded JSON stands for ``map[string]interface {}`` and friends; what a map or list yields is
boxed in :class:`_Box` (a Go ``interface {}``) until a pipeline ends, because Go's messages and nil
rules differ for the two (``can't evaluate field x in type interface {}``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import fmt as _fmt
from .gofmt import go_type, sprint

__all__ = ["Template", "TemplateError"]


class TemplateError(ValueError):
    """A parse or execution error with Go's text (``template: output:...``)."""


class _Invalid:
    """Go's zero ``reflect.Value``."""

    def __repr__(self) -> str:
        return "<invalid>"


INVALID: Any = _Invalid()
_MISSING: Any = object()  # exec.go's missingVal: no final value passed down a pipeline


class _Box:
    """A value held in an ``interface {}`` (what a map lookup or list element is); ``value`` None is nil."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


# a Go ``int`` (constants, ``len``, range indices), as opposed to the ``int64`` of decoded JSON; a ``uint8``
# (indexing a string)
GoInt = _fmt.GoInt
_Byte = _fmt.GoByte


def _type_name(value: Any) -> str:
    if isinstance(value, _Box):
        return "interface {}"
    if isinstance(value, GoInt):
        return "int"
    if isinstance(value, _Byte):
        return "uint8"
    return go_type(value)


def _unbox(value: Any) -> Any:
    """``indirectInterface``: the value in an interface; a nil interface is the zero Value."""
    if isinstance(value, _Box):
        return INVALID if value.value is None else value.value
    return value


def _iface(value: Any) -> Any:
    """What a Go ``any`` parameter receives (an interface's content; the zero Value is nil)."""
    value = value.value if isinstance(value, _Box) else value
    return None if value is INVALID else value


# ---- lexer (parse/lex.go) ----------------------------------------------------------------------------

_SPACE = " \t\r\n"
_KEYWORDS = {"block", "break", "continue", "define", "else", "end", "if", "range", "nil", "template", "with"}


class _Item:
    __slots__ = ("line", "pos", "typ", "val")

    def __init__(self, typ: str, pos: int, val: str, line: int) -> None:
        self.typ, self.pos, self.val, self.line = typ, pos, val, line

    def __str__(self) -> str:
        from .strconv import go_quote

        if self.typ == "EOF":
            return "EOF"
        if self.typ == "error":
            return self.val
        if self.typ in _KEYWORDS:
            return f"<{self.val}>"
        if len(self.val) > 10:
            return go_quote(self.val[:10]) + "..."
        return go_quote(self.val)


def _is_alnum(r: str) -> bool:
    return r == "_" or r.isalpha() or r.isdecimal()


def _rune_repr(r: str) -> str:
    return f"U+{ord(r):04X} '{r}'" if r.isprintable() else f"U+{ord(r):04X}"


def _lex(text: str) -> list[_Item]:
    """All items of ``text``, ending with EOF or an error item."""
    items: list[_Item] = []
    pos = 0
    line = 1
    n = len(text)

    def emit(typ: str, start: int, end: int, start_line: int) -> None:
        items.append(_Item(typ, start, text[start:end], start_line))

    while True:
        # lexText
        x = text.find("{{", pos)
        if x < 0:
            if pos < n:
                emit("text", pos, n, line)
                line += text.count("\n", pos, n)
            items.append(_Item("EOF", n, "", line))
            return items
        end = x
        after = x + 2
        left_trim = (
            after + 1 < n + 1 and text[after : after + 1] == "-" and text[after + 1 : after + 2] in tuple(_SPACE)
        )
        if left_trim:
            end = len(text[:x].rstrip(_SPACE)) if x > pos else x
            end = max(end, pos)
        if end > pos:
            emit("text", pos, end, line)
        line += text.count("\n", pos, x)
        pos = after + (2 if left_trim else 0)
        # lexLeftDelim: comment?
        if text.startswith("/*", pos):
            close = text.find("*/", pos + 2)
            if close < 0:
                items.append(_Item("error", pos, "unclosed comment", line))
                return items
            after_comment = close + 2
            right_trim = text[after_comment : after_comment + 1] in tuple(_SPACE) and text.startswith(
                "-}}", after_comment + 1
            )
            if not right_trim and not text.startswith("}}", after_comment):
                items.append(_Item("error", pos, "comment ends before closing delimiter", line))
                return items
            line += text.count("\n", pos, after_comment)
            pos = after_comment + (2 if right_trim else 0) + 2
            if right_trim:
                pos = n - len(text[pos:].lstrip(_SPACE))
            continue
        items.append(_Item("{{", x, "{{", line))
        paren_depth = 0
        # lexInsideAction
        while True:
            right_trim = text[pos : pos + 1] in tuple(_SPACE) and text.startswith("-}}", pos + 1)
            if text.startswith("}}", pos) or right_trim:
                if paren_depth:
                    items.append(_Item("error", pos, "unclosed left paren", line))
                    return items
                if right_trim:
                    pos += 2
                items.append(_Item("}}", pos, "}}", line))
                pos += 2
                if right_trim:
                    stripped = text[pos:].lstrip(_SPACE)
                    line += text.count("\n", pos, n - len(stripped))
                    pos = n - len(stripped)
                break
            if pos >= n:
                items.append(_Item("error", pos, "unclosed action", line))
                return items
            r = text[pos]
            start = pos
            if r in _SPACE:
                while pos < n and text[pos] in _SPACE:
                    pos += 1
                # " -}}": leave the last space for the trim marker
                if text.startswith("-}}", pos) and text[pos - 1] in _SPACE:
                    pos -= 1
                    if pos == start:
                        continue
                emit("space", start, pos, line)
                line += text.count("\n", start, pos)
                continue
            pos += 1
            if r == "=":
                emit("=", start, pos, line)
            elif r == ":":
                if text[pos : pos + 1] != "=":
                    items.append(_Item("error", start, "expected :=", line))
                    return items
                pos += 1
                emit(":=", start, pos, line)
            elif r == "|":
                emit("|", start, pos, line)
            elif r == '"':
                while True:
                    c = text[pos : pos + 1]
                    pos += 1
                    if c == "\\":
                        c2 = text[pos : pos + 1]
                        pos += 1
                        if c2 not in ("", "\n"):
                            continue
                        c = c2
                    if c in ("", "\n"):
                        items.append(_Item("error", start, "unterminated quoted string", line))
                        return items
                    if c == '"':
                        break
                emit("string", start, pos, line)
            elif r == "`":
                close = text.find("`", pos)
                if close < 0:
                    items.append(_Item("error", start, "unterminated raw quoted string", line))
                    return items
                pos = close + 1
                emit("rawstring", start, pos, line)
                line += text.count("\n", start, pos)
            elif r == "'":
                while True:
                    c = text[pos : pos + 1]
                    pos += 1
                    if c == "\\":
                        c2 = text[pos : pos + 1]
                        pos += 1
                        if c2 not in ("", "\n"):
                            continue
                        c = c2
                    if c in ("", "\n"):
                        items.append(_Item("error", start, "unterminated character constant", line))
                        return items
                    if c == "'":
                        break
                emit("char", start, pos, line)
            elif r == "$" or (r == "." and not ("0" <= text[pos : pos + 1] <= "9" and text[pos : pos + 1] != "")):
                typ = "variable" if r == "$" else "field"
                if _at_terminator(text, pos):
                    emit("variable" if r == "$" else "dot", start, pos, line)
                    continue
                while pos < n and _is_alnum(text[pos]):
                    pos += 1
                if not _at_terminator(text, pos):
                    items.append(_Item("error", start, f"bad character {_rune_repr(text[pos])}", line))
                    return items
                emit(typ, start, pos, line)
            elif r in "+-.0123456789":
                pos, is_complex = _scan_number(text, start)
                if pos < 0:
                    bad = -pos
                    items.append(_Item("error", start, f"bad number syntax: {_quote(text[start:bad])}", line))
                    return items
                emit("complex" if is_complex else "number", start, pos, line)
            elif _is_alnum(r):
                while pos < n and _is_alnum(text[pos]):
                    pos += 1
                if not _at_terminator(text, pos):
                    items.append(_Item("error", start, f"bad character {_rune_repr(text[pos])}", line))
                    return items
                word = text[start:pos]
                typ = word if word in _KEYWORDS else "bool" if word in ("true", "false") else "identifier"
                emit(typ, start, pos, line)
            elif r == "(":
                paren_depth += 1
                emit("(", start, pos, line)
            elif r == ")":
                paren_depth -= 1
                if paren_depth < 0:
                    items.append(_Item("error", start, "unexpected right paren", line))
                    return items
                emit(")", start, pos, line)
            elif r.isascii() and r.isprintable():
                emit("char_item", start, pos, line)
            else:
                items.append(_Item("error", start, f"unrecognized character in action: {_rune_repr(r)}", line))
                return items


def _quote(text: str) -> str:
    from .strconv import go_quote

    return go_quote(text)


def _at_terminator(text: str, pos: int) -> bool:
    r = text[pos : pos + 1]
    return r == "" or r in _SPACE or r in ".,|:)(" or text.startswith("}}", pos)


def _scan_number(text: str, pos: int) -> tuple[int, bool]:
    """lexer.lexNumber: the end position (or -(end) for bad syntax), and whether it is a complex constant
    (``1+2i``: a second number after a sign, ending in ``i``)."""

    def accept(chars: str) -> bool:
        nonlocal pos
        if pos < len(text) and text[pos] in chars:
            pos += 1
            return True
        return False

    def run(chars: str) -> None:
        nonlocal pos
        while pos < len(text) and text[pos] in chars:
            pos += 1

    def scan() -> bool:
        nonlocal pos
        accept("+-")
        digits = "0123456789_"
        if accept("0"):
            if accept("xX"):
                digits = "0123456789abcdefABCDEF_"
            elif accept("oO"):
                digits = "01234567_"
            elif accept("bB"):
                digits = "01_"
        run(digits)
        if accept("."):
            run(digits)
        if len(digits) == 11 and accept("eE"):
            accept("+-")
            run("0123456789_")
        if len(digits) == 23 and accept("pP"):
            accept("+-")
            run("0123456789_")
        accept("i")
        if pos < len(text) and _is_alnum(text[pos]):
            pos += 1
            return False
        return True

    if not scan():
        return -pos, False
    if text[pos : pos + 1] in ("+", "-"):
        if not scan() or text[pos - 1] != "i":
            return -pos, False
        return pos, True
    return pos, False


# ---- nodes and parser (parse/node.go, parse/parse.go) -----------------------------------------------


class Node:
    pos = 0

    def __str__(self) -> str:
        return ""


class TextNode(Node):
    def __init__(self, pos: int, text: str) -> None:
        self.pos, self.text = pos, text

    def __str__(self) -> str:
        return _quote(self.text)


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


class DotNode(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return "."


class NilNode(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return "nil"


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
        return "{{template " + _quote(self.name) + (" " + str(self.pipe) if self.pipe else "") + "}}"


class BreakNode(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return "{{break}}"


class ContinueNode(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return "{{continue}}"


class _End(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return "{{end}}"


class _Else(Node):
    def __init__(self, pos: int) -> None:
        self.pos = pos

    def __str__(self) -> str:
        return "{{else}}"


def _unquote(token: _Item) -> str:
    """strconv.Unquote of a string or raw string token."""
    value = token.val
    if value.startswith("`"):
        return value[1:-1].replace("\r", "")
    from .jsonpath import JSONPathError, unquote_extend

    try:
        return unquote_extend(value)
    except JSONPathError:
        raise TemplateError("invalid syntax") from None


def _go_parse_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64), or None where it fails (bad syntax, or out of range: ±Inf with ErrRange)."""
    from .strconv import _underscores_ok

    body = text.lstrip("+-") if text[:1] in "+-" else text
    if len(text) - len(body) > 1 or not body:
        return None
    negative = text.startswith("-")
    if "_" in body and not _underscores_ok(text):
        return None
    clean = body.replace("_", "")
    try:
        if clean[:2].lower() == "0x":
            if "p" not in clean.lower():
                return None  # a hexadecimal mantissa needs a 'p' exponent
            value = float.fromhex(clean)
        elif re.fullmatch(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", clean):
            value = float(clean)
        else:
            return None
    except (OverflowError, ValueError):
        return None
    if value in (float("inf"), float("-inf")):
        return None
    return -value if negative else value


def _parse_number(token: _Item) -> NumberNode:
    """parse.(*Tree).newNumber: the types the constant fits, or Go's error."""
    from .strconv import GoNumError, go_parse_int, go_parse_uint

    text = token.val
    node = NumberNode(token.pos, text)
    if token.typ == "char":
        body = text[1:-1]
        from .jsonpath import JSONPathError, unquote_extend

        try:
            rune = unquote_extend('"' + body.replace('"', '\\"') + '"') if body != '"' else '"'
        except JSONPathError:
            raise TemplateError("invalid syntax") from None
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
        real, imag = _go_parse_float(text[:split]), _go_parse_float(text[split:-1])
        if real is None or imag is None:
            bad = text[:split] if real is None else text[split:-1]
            raise TemplateError(f"strconv.ParseFloat: parsing {_quote(bad)}: invalid syntax")
        node.is_complex, node.complex128 = True, complex(real, imag)
        node.simplify_complex()
        return node
    if text.endswith("i"):
        imag = _go_parse_float(text[:-1])
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
        value = _go_parse_float(text)
        if value is not None:
            if not any(c in text for c in ".eEpP"):
                raise TemplateError(f"integer overflow: {_quote(text)}")
            node.set_float(value)
    if not (node.is_int or node.is_uint or node.is_float):
        raise TemplateError(f"illegal number syntax: {_quote(text)}")
    return node


_BUILTINS = {
    "and",
    "call",
    "html",
    "index",
    "slice",
    "js",
    "len",
    "not",
    "or",
    "print",
    "printf",
    "println",
    "urlquery",
    "eq",
    "ge",
    "gt",
    "le",
    "lt",
    "ne",
    "exists",
    "base64decode",
}


def _is_empty_tree(node: Node) -> bool:
    """parse.IsEmptyTree: nothing but white space (and comments)."""
    if isinstance(node, ListNode):
        return all(_is_empty_tree(child) for child in node.nodes)
    if isinstance(node, TextNode):
        return not node.text.strip(" \t\n\v\f\r\x85\xa0")
    return False


class _Parser:
    def __init__(self, name: str, text: str, templates: dict[str, ListNode]) -> None:
        self.name = name
        self.text = text
        self.items = _lex(text)
        self.index = 0
        self.vars = ["$"]
        self.range_depth = 0
        self.templates = templates
        self.last_line = 1
        self.action_line = 0

    def error(self, message: str) -> TemplateError:
        line = self.items[max(self.index - 1, 0)].line if self.index else 1
        return TemplateError(f"template: {self.name}:{line}: {message}")

    def next(self) -> _Item:
        item = self.items[min(self.index, len(self.items) - 1)]
        self.index += 1
        return item

    def backup(self, count: int = 1) -> None:
        self.index -= count

    def peek(self) -> _Item:
        return self.items[min(self.index, len(self.items) - 1)]

    def next_non_space(self) -> _Item:
        item = self.next()
        while item.typ == "space":
            item = self.next()
        return item

    def peek_non_space(self) -> _Item:
        item = self.next_non_space()
        self.backup()
        return item

    def unexpected(self, token: _Item, context: str) -> TemplateError:
        if token.typ == "error":
            extra = ""
            if self.action_line and self.action_line != token.line:
                extra = f" in action started at {self.name}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action") :]
            return self.error(f"{token}{extra}")
        return self.error(f"unexpected {token} in {context}")

    def expect(self, typ: str, context: str) -> _Item:
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
            if isinstance(node, (_End, _Else)):
                raise self.error(f"unexpected {node}")
            root.nodes.append(node)
        return root

    def parse_definition(self) -> None:
        context = "define clause"
        token = self.next_non_space()
        if token.typ not in ("string", "rawstring"):
            raise self.unexpected(token, context)
        name = _unquote(token)
        self.expect("}}", context)
        saved = self.vars
        self.vars = ["$"]
        body, end = self.item_list()
        self.vars = saved
        if not isinstance(end, _End):
            raise self.error(f"unexpected {end} in {context}")
        self.add(name, body)

    def add(self, name: str, body: ListNode, line: int | None = None) -> None:
        """parse.(*Tree).add: a template replaces an empty one of its name; two non-empty ones are an error."""
        existing = self.templates.get(name)
        if existing is None or _is_empty_tree(existing):
            self.templates[name] = body
        elif not _is_empty_tree(body):
            message = f"template: multiple definition of template {_quote(name)}"
            if line is None:
                raise self.error(message)
            raise TemplateError(f"template: {self.name}:{line}: {message}")

    def item_list(self) -> tuple[ListNode, Node]:
        body = ListNode(self.peek_non_space().pos)
        while self.peek_non_space().typ != "EOF":
            node = self.text_or_action()
            if isinstance(node, (_End, _Else)):
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
                return _Else(peek.pos)
            return _Else(self.expect("}}", "else").pos)
        if token.typ == "end":
            return _End(self.expect("}}", "end").pos)
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
            if isinstance(next_node, _Else):
                if context in ("if", "with") and self.peek().typ == context:
                    self.next()
                    else_list = ListNode(next_node.pos)
                    else_list.nodes.append(self.control(context))
                else:
                    else_list, next_node = self.item_list()
                    if not isinstance(next_node, _End):
                        raise self.error(f"expected end; found {next_node}")
            return BranchNode(context, pipe.pos, pipe, body, else_list)
        finally:
            del self.vars[mark:]

    def block_control(self) -> TemplateNode:
        context = "block clause"
        token = self.next_non_space()
        if token.typ not in ("string", "rawstring"):
            raise self.unexpected(token, context)
        name = _unquote(token)
        pipe = self.pipeline(context, "}}")
        saved = self.vars
        self.vars = ["$"]
        body, end = self.item_list()
        self.vars = saved
        if not isinstance(end, _End):
            raise self.error(f"unexpected {end} in {context}")
        self.add(name, body)
        return TemplateNode(token.pos, name, pipe)

    def template_control(self) -> TemplateNode:
        context = "template clause"
        token = self.next_non_space()
        if token.typ not in ("string", "rawstring"):
            raise self.unexpected(token, context)
        name = _unquote(token)
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
            after_variable = self.peek()
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
            elif after_variable.typ == "space":
                self.index = start
            else:
                self.index = start
            break
        while True:
            token = self.next_non_space()
            if token.typ == end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.typ in (
                "bool",
                "char",
                "complex",
                "dot",
                "field",
                "identifier",
                "number",
                "nil",
                "rawstring",
                "string",
                "variable",
                "(",
            ):
                self.backup()
                pipe.cmds.append(self.command())
            else:
                raise self.unexpected(token, context)

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
                raise self.error(f"unexpected . after term {_quote(str(node))}")
            return ChainNode(pos, node, fields)
        return node

    def term(self) -> Node | None:
        token = self.next_non_space()
        typ = token.typ
        if typ == "identifier":
            if token.val not in _BUILTINS:
                raise self.error(f"function {_quote(token.val)} not defined")
            return IdentifierNode(token.pos, token.val)
        if typ == "dot":
            return DotNode(token.pos)
        if typ == "nil":
            return NilNode(token.pos)
        if typ == "variable":
            parts = token.val.split(".")
            if parts[0] not in self.vars:
                raise self.error(f"undefined variable {_quote(parts[0])}")
            return VariableNode(token.pos, parts)
        if typ == "field":
            return FieldNode(token.pos, token.val[1:].split("."))
        if typ == "bool":
            return BoolNode(token.pos, token.val == "true")
        if typ in ("char", "number", "complex"):
            try:
                return _parse_number(token)
            except TemplateError as exc:
                raise self.error(str(exc)) from None
        if typ == "(":
            return self.pipeline("parenthesized pipeline", ")")
        if typ in ("string", "rawstring"):
            try:
                return StringNode(token.pos, token.val, _unquote(token))
            except TemplateError as exc:
                raise self.error(str(exc)) from None
        self.backup()
        return None


# ---- execution (exec.go, funcs.go) -------------------------------------------------------------------


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _is_true(value: Any) -> tuple[bool, bool]:
    if value is INVALID:
        return False, True
    if isinstance(value, _Box):
        return value.value is not None, True
    if isinstance(value, (dict, list, str)):
        return len(value) > 0, True
    if isinstance(value, (bool, int, float, complex)):
        return bool(value), True
    return False, False


def _truth(value: Any) -> bool:
    return _is_true(_unbox(value))[0]


def _basic_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Byte):
        return "uint"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, complex):
        return "complex"
    if isinstance(value, str):
        return "string"
    return "invalid"


class _CallError(Exception):
    pass


def _eq(arg1: Any, *rest: Any) -> bool:
    arg1 = _unbox(arg1)
    if not rest:
        raise _CallError("missing argument for comparison")
    k1 = _basic_kind(arg1)
    for arg in rest:
        arg = _unbox(arg)
        k2 = _basic_kind(arg)
        if k1 != k2:
            if {k1, k2} == {"int", "uint"}:
                truth = int(arg1) == int(arg)
            elif arg1 is not INVALID and arg is not INVALID:
                raise _CallError(f"incompatible types for comparison: {_type_name(arg1)} and {_type_name(arg)}")
            else:
                truth = False
        elif k1 == "invalid":
            if arg1 is INVALID or arg is INVALID:
                truth = arg1 is INVALID and arg is INVALID
            elif type(arg1) is not type(arg):
                # canCompare: two kinds (a map and a slice)
                raise _CallError(
                    f"non-comparable types {_fmt.sprintf('%s', [arg1])}: {_type_name(arg1)}, "
                    f"{_type_name(arg)}: {_fmt.sprintf('%v', [arg])}"
                )
            else:
                raise _CallError(f"non-comparable type {_fmt.sprintf('%s', [arg])}: {_type_name(arg)}")
        else:
            truth = arg1 == arg
        if truth:
            return True
    return False


def _lt(arg1: Any, arg2: Any) -> bool:
    arg1, arg2 = _unbox(arg1), _unbox(arg2)
    k1, k2 = _basic_kind(arg1), _basic_kind(arg2)
    if k1 == "invalid" or k2 == "invalid":
        raise _CallError("invalid type for comparison")
    if k1 != k2:
        if {k1, k2} == {"int", "uint"}:
            return bool(int(arg1) < int(arg2))
        raise _CallError(f"incompatible types for comparison: {_type_name(arg1)} and {_type_name(arg2)}")
    if k1 in ("bool", "complex"):
        raise _CallError("invalid type for comparison")
    return bool(arg1 < arg2)


def _le(arg1: Any, arg2: Any) -> bool:
    return _lt(arg1, arg2) or _eq(arg1, arg2)


def _length(item: Any) -> GoInt:
    value = item.value if isinstance(item, _Box) else item
    if value is None or value is INVALID:
        # a missing key: length() asks a zero reflect.Value for its type, and safeCall reports the panic
        raise _CallError("len of nil pointer" if value is None else "reflect: call of reflect.Value.Type on zero Value")
    if isinstance(value, str):
        return GoInt(len(value.encode("utf-8", "surrogateescape")))
    if isinstance(value, (dict, list)):
        return GoInt(len(value))
    raise _CallError(f"len of type {_type_name(value)}")


def _index_arg(index: Any, cap: int) -> int:
    index = _unbox(index)
    if isinstance(index, bool) or not isinstance(index, int):
        if index is INVALID:
            raise _CallError("cannot index slice/array with nil")
        raise _CallError(f"cannot index slice/array with type {_type_name(index)}")
    if index < 0 or index >= cap:
        raise _CallError(f"index out of range: {int(index)}")
    return int(index)


def _index(item: Any, *indexes: Any) -> Any:
    item = _unbox(item)
    if item is INVALID:
        raise _CallError("index of untyped nil")
    for index in indexes:
        item = _unbox(item) if isinstance(item, _Box) else item
        if item is INVALID or item is None:
            raise _CallError("index of nil pointer")
        if isinstance(item, list):
            item = _Box(item[_index_arg(index, len(item))])
        elif isinstance(item, str):
            data = item.encode("utf-8", "surrogateescape")
            item = _Byte(data[_index_arg(index, len(data))])
        elif isinstance(item, dict):
            key = _unbox(index)
            if key is INVALID:
                raise _CallError("value is nil; should be of type string")
            if not isinstance(key, str):
                raise _CallError(f"value has type {_type_name(key)}; should be string")
            item = _Box(item.get(key))
        else:
            raise _CallError(f"can't index item of type {_type_name(item)}")
    return item


def _slice(item: Any, *indexes: Any) -> Any:
    item = _unbox(item)
    if item is INVALID:
        raise _CallError("slice of untyped nil")
    if len(indexes) > 3:
        raise _CallError(f"too many slice indexes: {len(indexes)}")
    if isinstance(item, str):
        if len(indexes) == 3:
            raise _CallError("cannot 3-index slice a string")
        cap = len(item.encode("utf-8", "surrogateescape"))
    elif isinstance(item, list):
        cap = len(item)
    else:
        raise _CallError(f"can't slice item of type {_type_name(item)}")
    bounds = [0, len(item) if isinstance(item, list) else cap]
    for i, index in enumerate(indexes):
        bounds_value = _index_arg(index, cap + 1)
        if i < 2:
            bounds[i] = bounds_value
        else:
            bounds.append(bounds_value)
    if bounds[0] > bounds[1]:
        raise _CallError(f"invalid slice index: {bounds[0]} > {bounds[1]}")
    if len(bounds) == 3 and bounds[1] > bounds[2]:
        raise _CallError(f"invalid slice index: {bounds[1]} > {bounds[2]}")
    if isinstance(item, str):
        return item.encode("utf-8", "surrogateescape")[bounds[0] : bounds[1]].decode("utf-8", "surrogateescape")
    return item[bounds[0] : bounds[1]]


def _html_escape(text: str) -> str:
    replacements = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
    return "".join(replacements.get(char, char) for char in text)


_JS_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026", "=": "\\u003D"}


def _js_escape(text: str) -> str:
    """text/template's JSEscape: quotes, backslash, < > & = escaped, control characters as \\u00XX, runes Go does
    not print as \\uXXXX (a byte that is not UTF-8 is written as it is)."""
    out = []
    for char in text:
        code = ord(char)
        if char in _JS_ESCAPES:
            out.append(_JS_ESCAPES[char])
        elif code < 0x20:
            out.append(f"\\u00{code:02X}")
        elif code < 0x80 or 0xDC80 <= code <= 0xDCFF or char.isprintable():
            out.append(char)
        else:
            out.append(f"\\u{code:04X}")
    return "".join(out)


def _eval_args_text(args: list[Any]) -> str:
    """evalArgs of html/js/urlquery: one string argument as is, else fmt.Sprint of them."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    # printableValue: a nil argument (a missing key, a JSON null) prints as "<no value>"
    return _fmt.sprint(["<no value>" if arg is None else arg for arg in args])


def _exists(item: Any, *indices: Any) -> bool:
    """kubectl's ``exists`` (cli-runtime printers/jsonpath.go)."""
    value = item
    for index in indices:
        if value is None:
            return False
        if isinstance(value, (list, str)):
            if isinstance(index, bool) or not isinstance(index, int):
                return False
            seq = value if isinstance(value, list) else value.encode("utf-8", "surrogateescape")
            if index < 0 or index >= len(seq):
                return False
            value = seq[index]
        elif isinstance(value, dict):
            if index is None:
                index = ""
            if not isinstance(index, str):
                return False
            value = value.get(index)
        else:
            return False
    return value is not None


def _base64decode(text: str) -> str:
    import base64
    import binascii

    try:
        if len(text) % 4:
            raise binascii.Error("length")
        return base64.b64decode(text.encode("ascii"), validate=True).decode("utf-8", "surrogateescape")
    except (binascii.Error, UnicodeEncodeError, ValueError):
        bad = [i for i, char in enumerate(text) if not (char.isascii() and (char.isalnum() or char in "+/="))]
        position = bad[0] if bad else len(text) - len(text) % 4
        raise _CallError(f"base64 decode failed: illegal base64 data at input byte {position}") from None


# name -> (parameter kinds, variadic kind or None, implementation); kinds: "value" (reflect.Value),
# "any" (interface {}), "string"
_FUNCS: dict[str, tuple[tuple[str, ...], str | None, Callable[..., Any]]] = {
    "and": (("value",), "value", lambda *a: a),
    "or": (("value",), "value", lambda *a: a),
    "not": (("value",), None, lambda a: not _truth(a)),
    "len": (("value",), None, _length),
    "index": (("value",), "value", _index),
    "slice": (("value",), "value", _slice),
    "print": ((), "any", lambda *a: _fmt.sprint(list(a))),
    "println": ((), "any", lambda *a: _fmt.sprintln(list(a))),
    "printf": (("string",), "any", lambda f, *a: _fmt.sprintf(f, list(a))),
    "html": ((), "any", lambda *a: _html_escape(_eval_args_text(list(a)))),
    "js": ((), "any", lambda *a: _js_escape(_eval_args_text(list(a)))),
    "urlquery": ((), "any", lambda *a: __import__("urllib.parse").parse.quote_plus(_eval_args_text(list(a)))),
    "eq": (("value",), "value", _eq),
    "ne": (("value", "value"), None, lambda a, b: not _eq(a, b)),
    "lt": (("value", "value"), None, _lt),
    "le": (("value", "value"), None, _le),
    "gt": (("value", "value"), None, lambda a, b: not _le(a, b)),
    "ge": (("value", "value"), None, lambda a, b: not _lt(a, b)),
    "exists": (("any",), "any", _exists),
    "base64decode": (("string",), None, _base64decode),
    "call": (("value",), "value", None),  # type: ignore[dict-item]
}
_GO_TYPES = {"value": "reflect.Value", "any": "interface {}", "string": "string"}


class _State:
    def __init__(self, template: Template, out: _Output) -> None:
        self.template = template
        self.out = out
        self.node: Node | None = None
        self.vars: list[list[Any]] = []
        self.depth = 0

    def errorf(self, message: str) -> TemplateError:
        name = self.template.name
        if self.node is None:
            return TemplateError(f"template: {name}: {message}")
        text = self.template.text[: self.node.pos]
        newline = text.rfind("\n")
        column = self.node.pos if newline < 0 else self.node.pos - newline - 1
        line = 1 + text.count("\n")
        return TemplateError(f'template: {name}:{line}:{column}: executing "{name}" at <{self.node}>: {message}')

    def var_value(self, name: str) -> Any:
        for entry in reversed(self.vars):
            if entry[0] == name:
                return entry[1]
        raise self.errorf(f"undefined variable: {name}")

    def set_var(self, name: str, value: Any) -> None:
        for entry in reversed(self.vars):
            if entry[0] == name:
                entry[1] = value
                return
        raise self.errorf(f"undefined variable: {name}")

    # walk
    def walk(self, dot: Any, node: Node) -> None:
        self.node = node
        if isinstance(node, ActionNode):
            value = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.print_value(node, value)
        elif isinstance(node, TextNode):
            self.out.append(node.text)
        elif isinstance(node, ListNode):
            for child in node.nodes:
                self.walk(dot, child)
        elif isinstance(node, BranchNode):
            if node.kind == "range":
                self.walk_range(dot, node)
            else:
                self.walk_if_or_with(dot, node)
        elif isinstance(node, BreakNode):
            raise _Break
        elif isinstance(node, ContinueNode):
            raise _Continue
        elif isinstance(node, TemplateNode):
            self.walk_template(dot, node)
        else:
            raise self.errorf(f"unknown node: {node}")

    def walk_if_or_with(self, dot: Any, node: BranchNode) -> None:
        mark = len(self.vars)
        try:
            value = self.eval_pipeline(dot, node.pipe)
            truth, ok = _is_true(_unbox(value))
            if not ok:
                raise self.errorf(f"if/with can't use {sprint(value)}")
            if truth:
                self.walk(value if node.kind == "with" else dot, node.list)
            elif node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot: Any, node: BranchNode) -> None:
        self.node = node
        outer = len(self.vars)
        try:
            value = _unbox(self.eval_pipeline(dot, node.pipe))
            mark = len(self.vars)
            decl = node.pipe.decl

            def one(index: Any, elem: Any) -> None:
                if decl:
                    if node.pipe.is_assign:
                        self.set_var(decl[0].ident[0], index if len(decl) > 1 else elem)
                    else:
                        self.vars[-1][1] = elem
                if len(decl) > 1:
                    if node.pipe.is_assign:
                        self.set_var(decl[1].ident[0], elem)
                    else:
                        self.vars[-2][1] = index
                try:
                    self.walk(elem, node.list)
                except _Continue:
                    pass
                finally:
                    del self.vars[mark:]

            try:
                if isinstance(value, int) and not isinstance(value, bool):
                    if len(decl) > 1:
                        raise self.errorf(f"can't use {value} to iterate over more than one variable")
                    if value > 0:
                        for i in range(value):
                            one(INVALID, type(value)(i))
                        return
                elif isinstance(value, list):
                    if value:
                        for i, item in enumerate(value):
                            one(GoInt(i), _Box(item))
                        return
                elif isinstance(value, dict):
                    if value:
                        for key in sorted(value):
                            one(key, _Box(value[key]))
                        return
                elif value is not INVALID:
                    raise self.errorf(f"range can't iterate over {sprint(value)}")
            except _Break:
                return
            if node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            del self.vars[outer:]

    def walk_template(self, dot: Any, node: TemplateNode) -> None:
        self.node = node
        body = self.template.templates.get(node.name)
        if body is None:
            raise self.errorf(f"template {_quote(node.name)} not defined")
        if self.depth >= 100000:
            raise self.errorf("exceeded maximum template depth (100000)")
        dot = self.eval_pipeline(dot, node.pipe) if node.pipe is not None else INVALID
        saved_vars, saved_depth = self.vars, self.depth
        self.vars, self.depth = [["$", dot]], self.depth + 1
        try:
            self.walk(dot, body)
        finally:
            self.vars, self.depth = saved_vars, saved_depth

    def print_value(self, node: Node, value: Any) -> None:
        self.node = node
        if value is INVALID:
            self.out.append("<no value>")
        elif isinstance(value, _Box):
            self.out.append(sprint(value.value))
        else:
            self.out.append(sprint(value))

    # pipelines and commands
    def eval_pipeline(self, dot: Any, pipe: PipeNode | None) -> Any:
        if pipe is None:
            return INVALID
        self.node = pipe
        value = _MISSING
        for cmd in pipe.cmds:
            value = self.eval_command(dot, cmd, value)
            if isinstance(value, _Box):
                value = _unbox(value)
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.ident[0], value)
            else:
                self.vars.append([variable.ident[0], value])
        return value

    def not_a_function(self, args: list[Node], final: Any) -> None:
        if len(args) > 1 or final is not _MISSING:
            raise self.errorf(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot: Any, cmd: CommandNode, final: Any) -> Any:
        first = cmd.args[0]
        if isinstance(first, FieldNode):
            self.node = first
            return self.eval_field_chain(dot, dot, first, first.ident, cmd.args, final)
        if isinstance(first, ChainNode):
            return self.eval_chain(dot, first, cmd.args, final)
        if isinstance(first, IdentifierNode):
            return self.eval_function(dot, first, cmd, cmd.args, final)
        if isinstance(first, PipeNode):
            self.not_a_function(cmd.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, VariableNode):
            return self.eval_variable(dot, first, cmd.args, final)
        self.node = first
        self.not_a_function(cmd.args, final)
        if isinstance(first, BoolNode):
            return first.value
        if isinstance(first, DotNode):
            return dot
        if isinstance(first, NilNode):
            raise self.errorf("nil is not a command")
        if isinstance(first, NumberNode):
            return self.ideal_constant(first)
        if isinstance(first, StringNode):
            return first.text
        raise self.errorf(f"can't evaluate command {_quote(str(first))}")

    def ideal_constant(self, node: NumberNode) -> Any:
        """exec.go's idealConstant: complex, then float (by its spelling), then int."""
        self.node = node
        text = node.text
        is_hex_int = len(text) > 2 and text[0] == "0" and text[1] in "xX" and not any(c in text for c in "pP")
        is_rune_int = text.startswith("'")
        if node.is_complex:
            return node.complex128
        if node.is_float and not is_hex_int and not is_rune_int and any(c in text for c in ".eEpP"):
            return node.float64
        if node.is_int:
            return GoInt(node.int64)
        if node.is_uint:
            raise self.errorf(f"{text} overflows int")
        return INVALID

    def eval_chain(self, dot: Any, chain: ChainNode, args: list[Node], final: Any) -> Any:
        self.node = chain
        if isinstance(chain.node, NilNode):
            raise self.errorf(f"indirection through explicit nil in {chain}")
        pipe = self.eval_arg(dot, None, chain.node)
        return self.eval_field_chain(dot, pipe, chain, chain.fields, args, final)

    def eval_variable(self, dot: Any, variable: VariableNode, args: list[Node], final: Any) -> Any:
        self.node = variable
        value = self.var_value(variable.ident[0])
        if len(variable.ident) == 1:
            self.not_a_function(args, final)
            return value
        return self.eval_field_chain(dot, value, variable, variable.ident[1:], args, final)

    def eval_field_chain(
        self, dot: Any, receiver: Any, node: Node, ident: list[str], args: list[Node], final: Any
    ) -> Any:
        for name in ident[:-1]:
            receiver = self.eval_field(name, [], _MISSING, receiver)
        return self.eval_field(ident[-1], args, final, receiver)

    def eval_field(self, name: str, args: list[Node], final: Any, receiver: Any) -> Any:
        if receiver is INVALID:
            if self.template.missing_key_error:
                raise self.errorf(f"nil data; no entry for key {_quote(name)}")
            return INVALID
        typ = _type_name(receiver)
        value = receiver.value if isinstance(receiver, _Box) else receiver
        if value is None:
            raise self.errorf(f"nil pointer evaluating {typ}.{name}")
        has_args = len(args) > 1 or final is not _MISSING
        if isinstance(value, dict):
            if has_args:
                raise self.errorf(f"{name} is not a method but has arguments")
            if name in value:
                return _Box(value[name])
            if self.template.missing_key_error:
                raise self.errorf(f"map has no entry for key {_quote(name)}")
            return INVALID
        raise self.errorf(f"can't evaluate field {name} in type {typ}")

    def eval_function(self, dot: Any, node: IdentifierNode, cmd: Node, args: list[Node], final: Any) -> Any:
        self.node = node
        name = node.name
        params, variadic, function = _FUNCS[name]
        call_args = args[1:]
        num_in = len(call_args) + (0 if final is _MISSING else 1)
        if variadic is not None:
            if num_in < len(params):
                raise self.errorf(f"wrong number of args for {name}: want at least {len(params)} got {len(call_args)}")
        elif num_in != len(params):
            raise self.errorf(f"wrong number of args for {name}: want {len(params)} got {num_in}")
        if name in ("and", "or"):
            value: Any = INVALID
            for arg in call_args:
                value = self.eval_arg(dot, "value", arg)
                if _truth(value) == (name == "or"):
                    return value
            if final is not _MISSING:
                value = self.validate_type(final, "value")
            return value
        argv = []
        for i, arg in enumerate(call_args):
            kind = params[i] if i < len(params) else variadic
            argv.append(self.eval_arg(dot, kind, arg))
        if final is not _MISSING:
            kind = params[len(call_args)] if len(call_args) < len(params) else variadic
            argv.append(self.validate_type(final, kind))
        if name == "call":
            # funcs.go's call: the callee named as the template spells it; templates on JSON hold no functions
            self.node = cmd
            if call_args:
                callee = str(call_args[0])
            else:
                callee = final if isinstance(final, str) else f"<{_type_name(final)} Value>"
            target = _unbox(argv[0]) if argv else INVALID
            if target is INVALID or target is None:
                raise self.errorf("error calling call: call of nil")
            raise self.errorf(f"error calling call: non-function {callee} of type {_type_name(target)}")
        plain = [self._as_param(arg, params[i] if i < len(params) else variadic) for i, arg in enumerate(argv)]
        try:
            result = function(*plain)
        except _CallError as exc:
            self.node = cmd
            raise self.errorf(f"error calling {name}: {exc}") from None
        return result

    @staticmethod
    def _as_param(value: Any, kind: str | None) -> Any:
        if kind == "any":
            return _iface(value)
        if kind == "string":
            return value.value if isinstance(value, _Box) else value
        return value

    def validate_type(self, value: Any, kind: str | None) -> Any:
        if value is INVALID:
            if kind is None or kind in ("value", "any"):
                return INVALID
            raise self.errorf(f"invalid value; expected {_GO_TYPES[kind]}")
        if kind == "string":
            inner = value.value if isinstance(value, _Box) else value
            if isinstance(inner, str):
                return inner
            raise self.errorf(f"wrong type for value; expected string; got {_type_name(value)}")
        return value

    def eval_arg(self, dot: Any, kind: str | None, node: Node) -> Any:
        self.node = node
        if isinstance(node, DotNode):
            return self.validate_type(dot, kind)
        if isinstance(node, NilNode):
            if kind in ("value", "any"):
                return INVALID
            raise self.errorf(f"cannot assign nil to {_GO_TYPES.get(kind or '', kind)}")
        if isinstance(node, FieldNode):
            return self.validate_type(self.eval_field_chain(dot, dot, node, node.ident, [node], _MISSING), kind)
        if isinstance(node, VariableNode):
            return self.validate_type(self.eval_variable(dot, node, [], _MISSING), kind)
        if isinstance(node, PipeNode):
            return self.validate_type(self.eval_pipeline(dot, node), kind)
        if isinstance(node, IdentifierNode):
            return self.validate_type(self.eval_function(dot, node, node, [node], _MISSING), kind)
        if isinstance(node, ChainNode):
            return self.validate_type(self.eval_chain(dot, node, [], _MISSING), kind)
        if kind == "string":
            if isinstance(node, StringNode):
                return node.text
            raise self.errorf(f"expected string; found {node}")
        if isinstance(node, BoolNode):
            return node.value
        if isinstance(node, NumberNode):
            return self.ideal_constant(node)
        if isinstance(node, StringNode):
            return node.text
        raise self.errorf(f"can't handle {node} for arg of type {_GO_TYPES.get(kind or '', kind)}")


class _Output:
    """What a template writes: kept until :data:`FLUSH_BYTES` have gathered, then handed to ``write`` (Go's
    template writes to kubectl's stdout as it runs), so a template that prints without end streams."""

    __slots__ = ("parts", "size", "write")

    def __init__(self, write: Callable[[str], Any] | None) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.write = write

    def append(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.write is not None and self.size >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.write is not None and self.parts:
            self.write("".join(self.parts))
            self.parts, self.size = [], 0

    def text(self) -> str:
        return "".join(self.parts)


FLUSH_BYTES = 1 << 16


class Template:
    """A parsed template named ``name`` (kubectl names it ``output``)."""

    def __init__(self, text: str, *, name: str = "output", missing_key_error: bool = False) -> None:
        self.name = name
        self.text = text
        self.missing_key_error = missing_key_error
        self.templates: dict[str, ListNode] = {}
        parser = _Parser(name, text, self.templates)
        self.root = parser.parse()
        # the main template is added last, at the end of the input (its line is the EOF token's)
        parser.add(name, self.root, line=parser.items[-1].line)

    def execute(self, data: Any, write: Callable[[str], Any] | None = None) -> str:
        """The template's output for ``data``; with ``write``, the output goes there as it is made (in pieces of
        about :data:`FLUSH_BYTES`) and what is returned is the rest. On an error, :class:`TemplateError` carries
        the text not yet written in ``partial`` (Go has written it already)."""
        out = _Output(write)
        state = _State(self, out)
        state.vars = [["$", data]]
        try:
            state.walk(data, self.templates.get(self.name, self.root))
        except TemplateError as exc:
            exc.partial = out.text()  # type: ignore[attr-defined]
            raise
        except RecursionError:
            error = TemplateError(f"template: {self.name}: exceeded maximum template depth")
            error.partial = out.text()  # type: ignore[attr-defined]
            raise error from None
        return out.text()
