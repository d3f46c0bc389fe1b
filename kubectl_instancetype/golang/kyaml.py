"""KYAML (``kubectl get -o kyaml``): sigs.k8s.io/yaml/kyaml's Encoder.FromObject as cli-runtime's KYAMLPrinter uses
it (kubectl v1.36): the object as json.Marshal writes it, then rendered as KYAML, YAML's flow style with every string
double-quoted, keys bare unless a YAML reader could take them for another type, and a trailing comma after each
member. Ported from kyaml.go (v1.6.0) for the documents JSON gives (no comments, anchors or tags).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["dump_kyaml"]

_FOLD = "\\\n"
_SEXAGESIMAL = re.compile(r"[+-]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?\Z")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:[Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?\Z"
)
_NAMED = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\x00": "\\0",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def dump_kyaml(document: Any) -> str:
    """``Encoder.FromObject(document)``: a ``---`` line, the document, a newline."""
    out: list[str] = ["---\n"]
    _render(document, 0, False, out)
    out.append("\n")
    return "".join(out)


def _indent(level: int) -> str:
    return "  " * level


def _render(value: Any, indent: int, compact: bool, out: list[str]) -> None:
    if isinstance(value, dict):
        _render_mapping(value, indent, compact, out)
    elif isinstance(value, list):
        _render_sequence(value, indent, compact, out)
    elif isinstance(value, str):
        out.append(_render_string(value, indent + 1, lazy=False, compact=compact))
    else:
        from .encoding_json import marshal

        out.append(marshal(value))  # int, float, bool, null: the scalar as JSON wrote it


def _render_sequence(items: list[Any], indent: int, compact: bool, out: list[str]) -> None:
    if not items:
        out.append("[]")
        return
    if compact or all(isinstance(item, (dict, list)) for item in items):
        # compact, or "cuddled" (every item a sequence or a mapping): [a, b] on the same indent
        out.append("[")
        for i, item in enumerate(items):
            if i:
                out.append(", ")
            _render(item, 0 if compact else indent, compact, out)
        out.append("]")
        return
    out.append("[\n")
    out.append(_indent(indent))
    for item in items:
        out.append(_indent(1))
        _render(item, indent + 1, compact, out)
        out.append(",\n")
        out.append(_indent(indent))
    out.append("]")


def _render_mapping(mapping: dict[str, Any], indent: int, compact: bool, out: list[str]) -> None:
    if not mapping:
        out.append("{}")
        return
    keys = sorted(mapping)  # json.Marshal's order
    if compact:
        out.append("{")
        for i, key in enumerate(keys):
            if i:
                out.append(", ")
            out.append(_render_string(key, 0, lazy=True, compact=True))
            out.append(": ")
            _render(mapping[key], 0, compact, out)
        out.append("}")
        return
    out.append("{\n")
    for key in keys:
        out.append(_indent(indent + 1))
        out.append(_render_string(key, indent + 1, lazy=True, compact=True))
        out.append(": ")
        _render(mapping[key], indent + 1, compact, out)
        out.append(",\n")
    out.append(_indent(indent))
    out.append("}")


def _render_string(value: str, indent: int, *, lazy: bool, compact: bool) -> str:
    multi = "\n" in value
    if not multi and lazy and not _needs_quotes(value):
        return value
    buf = ['"']
    if multi and not compact:
        buf.append(_FOLD)
    for char in value:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8
            buf.append(f"\\x{code - 0xDC00:02x}")
            continue
        if buf[-1].endswith("\n"):
            buf.append(_indent(indent))
            buf.append("\\" if char in _GO_SPACE and char != "\n" else " ")
        if char == "\n":
            buf.append("\\n" if compact else "\\n" + _FOLD)
        elif char == "\t":
            buf.append("\\t" if compact else "\t")
        elif char in '"\\':
            buf.append("\\" + char)
        elif char.isprintable():
            buf.append(char)
        elif char in _NAMED:
            buf.append(_NAMED[char])
        elif code < 0x20 or code == 0x7F:
            buf.append(f"\\x{code:02x}")
        elif code < 0x10000:
            buf.append(f"\\u{code:04x}")
        else:
            buf.append(f"\\U{code:08x}")
    if multi and not compact:
        if not buf[-1].endswith("\n"):
            buf.append(_FOLD)
        buf.append(_indent(indent))
    buf.append('"')
    return "".join(buf)


def _needs_quotes(text: str) -> bool:
    if text == "" or _type_ambiguous(text):
        return True
    last = len(text) - 1
    for i, char in enumerate(text):
        if char.isalpha() or char.isnumeric() or char == "_":
            continue
        if 0 < i < last and char in "-./":
            continue
        return True
    return False


def _type_ambiguous(text: str) -> bool:
    """isTypeAmbiguous: what a YAML reader would take for null, a bool, a number or a timestamp."""
    from .strconv import GoNumError, go_parse_bool, go_parse_int

    lower = text.lower()
    if len(text) <= 5 and lower in ("null", "~", ""):
        return True
    try:
        go_parse_bool(text)
        return True
    except GoNumError:
        pass
    if len(text) <= 5 and lower in ("true", "y", "yes", "on", "false", "n", "no", "off"):
        return True
    bare = text.replace("_", "")
    try:
        go_parse_int(bare)
        return True
    except GoNumError:
        pass
    if _parses_as_float(bare):
        return True
    if _SEXAGESIMAL.match(text):
        return True
    if len(text) <= 5 and lower in (".inf", "-.inf", "+.inf", ".nan"):
        return True
    return bool(_TIMESTAMP.match(text))


def _parses_as_float(text: str) -> bool:
    """strconv.ParseFloat(text, 64) succeeds (a value out of range is an error, not a float)."""
    from .strconv import GoNumError, go_parse_float

    try:
        go_parse_float(text)
    except GoNumError:
        return False
    return True
