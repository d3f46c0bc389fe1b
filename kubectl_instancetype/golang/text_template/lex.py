"""Go 1.26's text/template/parse/lex.go: the lexer, as one pass over the text that returns every item.

Go's lexer is a state machine (``lexText``, ``lexLeftDelim``, ``lexComment``, ``lexInsideAction``, ``lexSpace``,
``lexQuote``, ``lexRawQuote``, ``lexChar``, ``lexNumber``/``scanNumber``, ``lexIdentifier``,
``lexFieldOrVariable``) feeding a channel; here the same states are the branches of :func:`lex`, and the item
list ends with an ``EOF`` or ``error`` item as Go's does. Item types are spelled as strings: Go's ``itemText`` is
``"text"``, ``itemLeftDelim`` is ``"{{"``, a keyword is the keyword itself, ``itemChar`` is ``"char_item"`` (a
lone punctuation rune, such as the comma of ``$i, $x :=``).
"""

from __future__ import annotations

from ..strconv import go_quote

__all__ = ["KEYWORDS", "SPACE", "Item", "is_alphanumeric", "lex"]

SPACE = " \t\r\n"  # isSpace
_SPACES = tuple(SPACE)
KEYWORDS = frozenset({"block", "break", "continue", "define", "else", "end", "if", "range", "nil", "template", "with"})


class Item:
    """lex.go's ``item``: a token, its byte offset, its text and the line it starts on."""

    __slots__ = ("line", "pos", "typ", "val")

    def __init__(self, typ: str, pos: int, val: str, line: int) -> None:
        self.typ, self.pos, self.val, self.line = typ, pos, val, line

    def __str__(self) -> str:
        """``item.String``: how a parse error names the token."""
        if self.typ == "EOF":
            return "EOF"
        if self.typ == "error":
            return self.val
        if self.typ in KEYWORDS:
            return f"<{self.val}>"
        if len(self.val) > 10:
            return go_quote(self.val[:10]) + "..."
        return go_quote(self.val)


def is_alphanumeric(r: str) -> bool:
    """isAlphaNumeric: an underscore, a letter or a digit."""
    return r == "_" or r.isalpha() or r.isdecimal()


def _rune_repr(r: str) -> str:
    """``%#U``."""
    return f"U+{ord(r):04X} '{r}'" if r.isprintable() else f"U+{ord(r):04X}"


def _at_terminator(text: str, pos: int) -> bool:
    """lexer.atTerminator: what may follow an identifier, field or variable."""
    r = text[pos : pos + 1]
    return r == "" or r in SPACE or r in ".,|:)(" or text.startswith("}}", pos)


def _quoted_end(text: str, pos: int, quote: str) -> int:
    """lexQuote / lexChar: the offset after the closing ``quote`` of a literal whose body starts at ``pos``, or -1
    where a newline or the end of the text comes first (a backslash escapes the next rune but those two)."""
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
            return -1
        if c == quote:
            return pos


def lex(text: str) -> list[Item]:
    """All items of ``text`` (delimiters ``{{`` and ``}}``), ending with EOF or an error item."""
    items: list[Item] = []
    pos = 0
    line = 1
    n = len(text)

    def emit(typ: str, start: int, end: int, start_line: int) -> None:
        items.append(Item(typ, start, text[start:end], start_line))

    while True:
        # lexText
        x = text.find("{{", pos)
        if x < 0:
            if pos < n:
                emit("text", pos, n, line)
                line += text.count("\n", pos, n)
            items.append(Item("EOF", n, "", line))
            return items
        end = x
        after = x + 2
        left_trim = after + 1 < n + 1 and text[after : after + 1] == "-" and text[after + 1 : after + 2] in _SPACES
        if left_trim:
            end = len(text[:x].rstrip(SPACE)) if x > pos else x
            end = max(end, pos)
        if end > pos:
            emit("text", pos, end, line)
        line += text.count("\n", pos, x)
        pos = after + (2 if left_trim else 0)
        # lexLeftDelim, lexComment
        if text.startswith("/*", pos):
            close = text.find("*/", pos + 2)
            if close < 0:
                items.append(Item("error", pos, "unclosed comment", line))
                return items
            after_comment = close + 2
            right_trim = text[after_comment : after_comment + 1] in _SPACES and text.startswith(
                "-}}", after_comment + 1
            )
            if not right_trim and not text.startswith("}}", after_comment):
                items.append(Item("error", pos, "comment ends before closing delimiter", line))
                return items
            line += text.count("\n", pos, after_comment)
            pos = after_comment + (2 if right_trim else 0) + 2
            if right_trim:
                pos = n - len(text[pos:].lstrip(SPACE))
            continue
        items.append(Item("{{", x, "{{", line))
        paren_depth = 0
        # lexInsideAction
        while True:
            right_trim = text[pos : pos + 1] in _SPACES and text.startswith("-}}", pos + 1)
            if text.startswith("}}", pos) or right_trim:
                # lexRightDelim
                if paren_depth:
                    items.append(Item("error", pos, "unclosed left paren", line))
                    return items
                if right_trim:
                    pos += 2
                items.append(Item("}}", pos, "}}", line))
                pos += 2
                if right_trim:
                    stripped = text[pos:].lstrip(SPACE)
                    line += text.count("\n", pos, n - len(stripped))
                    pos = n - len(stripped)
                break
            if pos >= n:
                items.append(Item("error", pos, "unclosed action", line))
                return items
            r = text[pos]
            start = pos
            if r in SPACE:
                # lexSpace
                while pos < n and text[pos] in SPACE:
                    pos += 1
                # " -}}": leave the last space for the trim marker
                if text.startswith("-}}", pos) and text[pos - 1] in SPACE:
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
                    items.append(Item("error", start, "expected :=", line))
                    return items
                pos += 1
                emit(":=", start, pos, line)
            elif r == "|":
                emit("|", start, pos, line)
            elif r in "\"'":
                # lexQuote, lexChar
                pos = _quoted_end(text, pos, r)
                if pos < 0:
                    what = "quoted string" if r == '"' else "character constant"
                    items.append(Item("error", start, f"unterminated {what}", line))
                    return items
                emit("string" if r == '"' else "char", start, pos, line)
            elif r == "`":
                # lexRawQuote
                close = text.find("`", pos)
                if close < 0:
                    items.append(Item("error", start, "unterminated raw quoted string", line))
                    return items
                pos = close + 1
                emit("rawstring", start, pos, line)
                line += text.count("\n", start, pos)
            elif r == "$" or (r == "." and not ("0" <= text[pos : pos + 1] <= "9" and text[pos : pos + 1] != "")):
                # lexVariable, lexField (lexFieldOrVariable)
                typ = "variable" if r == "$" else "field"
                if _at_terminator(text, pos):
                    emit("variable" if r == "$" else "dot", start, pos, line)
                    continue
                while pos < n and is_alphanumeric(text[pos]):
                    pos += 1
                if not _at_terminator(text, pos):
                    items.append(Item("error", start, f"bad character {_rune_repr(text[pos])}", line))
                    return items
                emit(typ, start, pos, line)
            elif r in "+-.0123456789":
                # lexNumber
                pos, is_complex = _scan_number(text, start)
                if pos < 0:
                    bad = -pos
                    items.append(Item("error", start, f"bad number syntax: {go_quote(text[start:bad])}", line))
                    return items
                emit("complex" if is_complex else "number", start, pos, line)
            elif is_alphanumeric(r):
                # lexIdentifier
                while pos < n and is_alphanumeric(text[pos]):
                    pos += 1
                if not _at_terminator(text, pos):
                    items.append(Item("error", start, f"bad character {_rune_repr(text[pos])}", line))
                    return items
                word = text[start:pos]
                typ = word if word in KEYWORDS else "bool" if word in ("true", "false") else "identifier"
                emit(typ, start, pos, line)
            elif r == "(":
                paren_depth += 1
                emit("(", start, pos, line)
            elif r == ")":
                paren_depth -= 1
                if paren_depth < 0:
                    items.append(Item("error", start, "unexpected right paren", line))
                    return items
                emit(")", start, pos, line)
            elif r.isascii() and r.isprintable():
                emit("char_item", start, pos, line)
            else:
                items.append(Item("error", start, f"unrecognized character in action: {_rune_repr(r)}", line))
                return items


def _scan_number(text: str, pos: int) -> tuple[int, bool]:
    """lexNumber / scanNumber: the end position (or -(end) for bad syntax), and whether it is a complex constant
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
        if pos < len(text) and is_alphanumeric(text[pos]):
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
