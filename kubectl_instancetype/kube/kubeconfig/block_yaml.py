"""A reader for the block-style YAML that kubeconfig files are written in, with PyYAML as the fallback.

Importing PyYAML costs 15-25 ms, more than a whole list request to a local API server. kubeconfigs written by
kubectl (go-yaml), cloud CLIs (PyYAML, go-yaml) and people keep to a small subset of YAML: block mappings and
sequences, plain and quoted scalars, comments, ``{}``/``[]``. :func:`load` reads exactly that subset and
returns :data:`UNSUPPORTED` for anything else (anchors, tags, flow collections with content, block scalars,
multi-line scalars, several documents, and every plain scalar whose type YAML 1.1 might read differently),
so that the caller hands the text to PyYAML. A differential test (``tests/unit/test_kubeconfig_yaml.py``)
requires the result to equal ``yaml.safe_load`` whenever it is not :data:`UNSUPPORTED`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UNSUPPORTED = object()

# Plain scalars read as strings start with one of these and hold no "#", tab, ": " or trailing ":".
# YAML 1.1 would read some of them as numbers, timestamps or booleans: those are refused, so PyYAML decides.
# (Plain string checks instead of regular expressions: compiling patterns costs start-up time.)
_PLAIN_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/$.+-")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-/")
# YAML 1.1's implicit int, float and timestamp forms (as its specification gives them). Compiled on first
# use: only plain scalars that start with a digit, a sign or a dot need it.
_YAML11_NUMBER_OR_TIME_PATTERN = r"""[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    |[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    |[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?"""
_compiled: dict[str, Any] = {}


def _number_or_time(text: str) -> bool:
    """True when YAML 1.1 would read the plain scalar ``text`` as a number or a timestamp."""
    if not (text[0].isdigit() or text[0] in "-+."):
        return False
    if not _letters_allowed(text):
        return False  # a hex token (5a76b71f...) needs no pattern compiled (5.7M instructions, callgrind)
    pattern = _compiled.get("number")
    if pattern is None:
        import re

        pattern = _compiled["number"] = re.compile(_YAML11_NUMBER_OR_TIME_PATTERN, re.X)
    return pattern.fullmatch(text) is not None


def _letters_allowed(text: str) -> bool:
    """False when ``text`` holds a letter (other than an exponent's e/E) where none of the YAML 1.1 forms above
    allows one: only the binary (0b), hex (0x), .inf/.nan and timestamp (YYYY-) forms hold other letters, and each
    starts so. True means the pattern decides."""
    if all(not char.isalpha() or char in "eE" for char in text):
        return True
    unsigned = text[1:] if text[0] in "-+" else text
    return unsigned[:2] in ("0b", "0x") or unsigned[:1] == "." or (text[:4].isdigit() and text[4:5] == "-")


_YAML11_WORDS = frozenset(
    [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "null",
        "Null",
        "NULL",
    ]
)
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0"}


class _Unsupported(Exception):
    """The text leaves the supported subset."""


def _split_key(text: str) -> tuple[str, str] | None:
    """``key: rest`` -> (key, rest) for a plain key of letters, digits and ``_.-/``; None otherwise."""
    colon = text.find(":")
    if colon < 1 or (colon + 1 < len(text) and text[colon + 1] != " "):
        return None
    key = text[:colon]
    if not (key[0].isalpha() or key[0] == "_") or not _KEY_CHARS.issuperset(key):
        return None
    return key, text[colon + 1 :]


def _plain_string(text: str) -> bool:
    return (
        text[0] in _PLAIN_FIRST
        and "#" not in text
        and "\t" not in text
        and ": " not in text
        and not text.endswith(":")
        and "  " not in text
    )


def _scalar(text: str) -> Any:
    """One scalar value (already stripped of its key and of a trailing comment)."""
    if text in ("", "~", "null"):
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if text[0] == '"':
        return _double_quoted(text)
    if text[0] == "'":
        if len(text) < 2 or not text.endswith("'"):
            raise _Unsupported
        inner = text[1:-1]
        if "'" in inner.replace("''", ""):
            raise _Unsupported
        return inner.replace("''", "'")
    if text.isascii() and text.isdigit() and (text == "0" or text[0] != "0") and len(text) <= 18:
        return int(text)
    if text in _YAML11_WORDS or not _plain_string(text) or _number_or_time(text):
        raise _Unsupported
    if text[0] in "-+." and (len(text) == 1 or not (text[1].isalnum() or text[1] in "/._")):
        raise _Unsupported  # "- x", "-", "+", "." and the like: indicators or numbers, PyYAML decides
    return text


def _double_quoted(text: str) -> str:
    if len(text) < 2 or not text.endswith('"'):
        raise _Unsupported
    out = []
    index, end = 1, len(text) - 1
    while index < end:
        char = text[index]
        if char == '"':
            raise _Unsupported  # a quote closed early: something follows the scalar
        if char == "\\":
            if index + 1 >= end or text[index + 1] not in _ESCAPES:
                raise _Unsupported
            out.append(_ESCAPES[text[index + 1]])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _strip_comment(value: str) -> str:
    """Drop a trailing ``# comment`` after a value (only where YAML would: after a space, outside quotes)."""
    if "#" not in value:
        return value
    if value[0] in "\"'":
        quote = value[0]
        close = value.find(quote, 1)
        while quote == "'" and close != -1 and value[close : close + 2] == "''":
            close = value.find(quote, close + 2)
        while quote == '"' and close != -1 and value[close - 1] == "\\":
            close = value.find(quote, close + 1)
        if close == -1:
            raise _Unsupported
        rest = value[close + 1 :].strip()
        if rest and not rest.startswith("#"):
            raise _Unsupported
        return value[: close + 1]
    position = value.find(" #")
    return value if position == -1 else value[:position].rstrip()


def _plain_characters(text: str) -> bool:
    """True when ``text`` holds only characters PyYAML's reader accepts without question.

    Control characters (PyYAML refuses them; go-yaml too) and carriage returns (line breaks of their own in
    YAML) are left to PyYAML. Outside ASCII, anything ``str.isprintable`` doubts is left to it as well.
    """
    if "\r" in text:
        return False
    return text.replace("\n", "").replace("\t", "").isprintable()


# Lines that need a closer look before they are accepted: indentation tabs, document markers, directives,
# anchors, aliases, tags, block scalars, flow collections and the like.
_ODD_FIRST = frozenset("\t-.%&*!|>{[?@`")
_ITEM_ODD = frozenset("&*!|>")


class _Reader:
    """The document's lines as (indent, text without indentation or trailing spaces), read in one pass.

    Kubeconfigs with a hundred thousand contexts exist: every step per line is kept to a few string operations
    (no regular expression, no slicing of the whole line for each look)."""

    def __init__(self, text: str):
        if not _plain_characters(text):
            raise _Unsupported
        lines: list[tuple[int, str]] = []
        append = lines.append
        markers = 0
        for raw in text.split("\n"):
            body = raw.lstrip(" ")
            if not body:
                continue
            first = body[0]
            if first == "#":
                continue
            stripped = body.rstrip()
            if first in _ODD_FIRST:
                if first == "\t" or (not stripped and "\t" in body):
                    raise _Unsupported  # a tab in the indentation
                if not stripped:
                    continue
                if stripped in ("---", "...") or stripped.startswith(("--- ", "%")):
                    markers += 1
                    if lines or markers > 1 or stripped != "---":
                        raise _Unsupported  # a second document, directives, document end: PyYAML decides
                    continue
                if (first != "-" and first != ".") or (stripped.startswith("- ") and stripped[2:3] in _ITEM_ODD):
                    raise _Unsupported
            append((len(raw) - len(body), stripped))
        self.lines = lines
        self.index = 0
        self.keys: set[str] = set()  # keys already found well-formed
        self.scalars: dict[str, Any] = {}  # inline values already read (a big kubeconfig repeats most of them)

    def peek(self) -> tuple[int, str] | None:
        return self.lines[self.index] if self.index < len(self.lines) else None

    def block(self, indent: int) -> Any:
        """The node whose first line is at exactly ``indent``."""
        line = self.peek()
        if line is None or line[0] != indent:
            raise _Unsupported
        text = line[1]
        if text[0] == "-" and (len(text) == 1 or text[1] == " "):
            return self.sequence(indent)
        return self.mapping(indent)

    def value_after_key(self, rest: str, indent: int) -> Any:
        """The value of a key: inline, or the block that follows (deeper, or a sequence at the same indent)."""
        rest = rest.strip()
        if rest:
            known = self.scalars.get(rest, self)
            if known is not self:
                return known
            text = _strip_comment(rest) if "#" in rest else rest
            if text[0] in "&*!|>[{" and text not in ("{}", "[]"):
                raise _Unsupported
            value = _scalar(text)
            if value is None or isinstance(value, (str, int)):  # immutable: the same text may share it
                self.scalars[rest] = value
            return value
        following = self.peek()
        if following is None:
            return None
        if following[0] > indent:
            return self.block(following[0])
        text = following[1]
        if following[0] == indent and text[0] == "-" and (len(text) == 1 or text[1] == " "):
            return self.sequence(indent)
        return None

    def mapping(self, indent: int) -> dict:
        result: dict = {}
        lines = self.lines
        count = len(lines)
        while self.index < count:
            line_indent, text = lines[self.index]
            if line_indent < indent:
                return result
            if line_indent > indent:
                raise _Unsupported
            if text[0] == "-":
                return result  # a sequence at this indent belongs to the parent key
            colon = text.find(":")
            if colon < 1 or (colon + 1 < len(text) and text[colon + 1] != " "):
                raise _Unsupported
            key = text[:colon]
            if key not in self.keys:
                if not (key[0].isalpha() or key[0] == "_") or not _KEY_CHARS.issuperset(key) or key in _YAML11_WORDS:
                    raise _Unsupported
                self.keys.add(key)
            if key in result:
                raise _Unsupported
            rest = text[colon + 1 :]
            self.index += 1
            result[key] = self.value_after_key(rest, indent)
        return result

    def sequence(self, indent: int) -> list:
        result: list = []
        lines = self.lines
        count = len(lines)
        while self.index < count:
            line_indent, text = lines[self.index]
            if line_indent < indent:
                return result
            if line_indent > indent or not (text == "-" or text.startswith("- ")):
                if line_indent == indent:
                    return result  # the parent mapping continues
                raise _Unsupported
            item = text[1:]
            body = item.lstrip(" ")
            item_indent = indent + 1 + (len(item) - len(body))
            item = body.strip()
            if not item or item[0] == "#":
                self.index += 1
                following = self.peek()
                result.append(self.block(following[0]) if following and following[0] > indent else None)
            elif _split_key(item) is not None:
                # "- key: value": a mapping whose keys line up at item_indent; rewrite the line in place
                lines[self.index] = (item_indent, item)
                result.append(self.mapping(item_indent))
            elif item.startswith("- "):
                raise _Unsupported  # nested inline sequences
            else:
                self.index += 1
                result.append(_scalar(_strip_comment(item)))
        return result


def load(text: str) -> Any:
    """The document in ``text``, or :data:`UNSUPPORTED` when it leaves the kubeconfig subset."""
    try:
        reader = _Reader(text)
        if not reader.lines:
            return None
        document = reader.block(reader.lines[0][0])
        if reader.peek() is not None:
            raise _Unsupported
        return document
    except (_Unsupported, IndexError, TypeError):
        return UNSUPPORTED
