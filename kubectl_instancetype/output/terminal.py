"""Cluster data is data, not terminal control: what the plugin prints from the cluster (names, labels,
annotations, preference values, image environment values, registry and proxy error text) is escaped.

kubectl's table printer replaces ESC by ``^[`` and CR by ``\\r`` (``k8s.io/cli-runtime/pkg/printers/terminal.go``,
``EscapeTerminal``, issue kubernetes#101695). That leaves BEL, backspace, the C1 controls (``\\x9b`` is CSI on
8-bit terminals) and the rest of C0 through; the plugin escapes them as well, visibly, in Go's escape notation
(``\\a``, ``\\b``, ``\\x07``, ``\\u009b``), so a table stays aligned and no byte from the cluster moves the
cursor, recolours the screen or sets the window title. Where KubeVirt's and kubectl's messages quote a value,
the message quotes it with Go's ``%q`` (golang/strconv.go_quote), which escapes the same characters.
"""

from __future__ import annotations

_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", "\x1b": "^["}


def _is_control(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F


def _visible(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` with every control character shown as a visible escape (ESC as kubectl shows it, ``^[``)."""
    if text.isprintable():  # the common case: nothing to do, no per-character work
        return text
    return "".join(_visible(char) if _is_control(char) else char for char in text)


def json_text(text: str) -> str:
    """JSON text with DEL and the C1 controls (``\\x9b`` is CSI on 8-bit terminals) written as ``\\u00XX``.

    Go's encoding/json, and so ``kubectl -o json``, writes them raw (it escapes only C0, ``<``, ``>``, ``&`` and
    U+2028/U+2029); the JSON value is the same either way, and a terminal then reads no control sequence. They can
    only stand inside strings, so the whole text is rewritten."""
    if text.isascii() and "\x7f" not in text:
        return text
    import re  # only for text beyond ASCII: start-up stays free of it

    return re.sub("[\x7f-\x9f]", lambda found: f"\\u{ord(found.group()):04x}", text)


def escape_lines(text: str) -> str:
    """:func:`escape` for a text of several lines: its newlines are kept, every other control escaped."""
    if text.isprintable():
        return text
    return "\n".join(escape(line) for line in text.split("\n"))
