"""``-o custom-columns=SPEC`` and ``-o custom-columns-file=FILE``, as kubectl parses and prints them.

kubectl/pkg/cmd/get/customcolumn.go: a spec is ``HEADER:PATH`` pairs joined by commas; a file holds one
line of headers and one line of paths, split on white space. A path is kubectl's "relaxed" JSONPath
(``.metadata.name``, ``metadata.name``, ``{.metadata.name}``). Each cell is every value the path finds,
``fmt.Sprint``-ed and joined by commas, ``<none>`` when it finds nothing; missing keys are never errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

_FORMAT_HELP = "Expected format is one line of space separated headers, one line of space separated column specs."


def relaxed_jsonpath(expression: str) -> str:
    """kubectl's ``RelaxedJSONPathExpression`` (see :func:`..golang.jsonpath.relaxed_expression`)."""
    from ..golang.jsonpath import JSONPathError, relaxed_expression

    try:
        return relaxed_expression(expression)
    except JSONPathError as exc:
        raise UsageError(str(exc)) from None


@dataclass(frozen=True)
class Column:
    """One column: its header and the JSONPath template of its cells."""

    header: str
    field_spec: str


def columns_from_spec(spec: str) -> list[Column]:
    """``NAME:.metadata.name,CPU:.spec.cpu.guest`` -> columns (kubectl's messages for a bad spec)."""
    if not spec:
        raise UsageError("custom-columns format specified but no custom columns given")
    columns = []
    for part in spec.split(","):
        header, colon, path = part.partition(":")
        if not colon:
            raise UsageError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        columns.append(Column(header, relaxed_jsonpath(path)))
    return columns


def columns_from_template(text: str) -> list[Column]:
    """The file form: a line of headers and a line of paths, both split on white space."""
    # bufio.Scanner's lines: split on \n, a final \r dropped, no line after a final newline
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if text.endswith("\n") or not text:
        lines.pop()
    if not lines:
        raise UsageError(f"invalid template, missing header line. {_FORMAT_HELP}")
    if len(lines) < 2:
        raise UsageError(f"invalid template, missing spec line. {_FORMAT_HELP}")
    headers, specs = lines[0].split(), lines[1].split()
    if len(headers) != len(specs):
        raise UsageError(f"number of headers ({len(headers)}) and field specifications ({len(specs)}) don't match")
    return [Column(header, relaxed_jsonpath(spec)) for header, spec in zip(headers, specs)]


def _escape_terminal(text: str) -> str:
    """cli-runtime's ``EscapeTerminal``: ESC as ``^[`` and CR as ``\\r``."""
    return text.replace("\x1b", "^[").replace("\r", "\\r")


class CustomColumnsPrinter:
    """Rows of cells for objects; the header once (kubectl prints it again when the Go type changes,
    which never happens for the plugin's objects)."""

    def __init__(self, columns: list[Column], *, no_headers: bool = False) -> None:
        from ..golang.jsonpath import JSONPath, JSONPathError

        self.columns = columns
        self.no_headers = no_headers
        self._parsers = []
        for column in columns:
            try:
                self._parsers.append(JSONPath(column.field_spec, allow_missing_keys=True))
            except JSONPathError as exc:
                raise UsageError(str(exc)) from None
        self._field_specs = [column.field_spec for column in columns]

    def headers(self) -> list[str] | None:
        """The header row, or None with ``--no-headers``."""
        return None if self.no_headers else [column.header for column in self.columns]

    def row(self, obj: dict[str, Any]) -> list[str]:
        """One object's cells (printOneObject); :class:`~..golang.jsonpath.JSONPathError` as FindResults fails."""
        from ..golang.fmt import sprint_value

        cells = []
        for parser in self._parsers:
            results = parser.find_results(obj)
            values = [_escape_terminal(sprint_value(value)) for group in results for value in group]
            if not results or not results[0]:
                values.insert(0, "<none>")
            cells.append(",".join(values))
        return cells

    def render(self, objects: Iterable[dict[str, Any]]) -> str:
        """The whole table, laid out by kubectl's tabwriter: the header (also for no objects), then a row per
        object. A cell that fails ends it as kubectl's PrintObj does: the header and the rows before are written
        (its tab writer is flushed on the way out), the error follows."""
        from ..errors import TemplateExecutionError
        from ..golang.jsonpath import JSONPathError
        from ..golang.tabwriter import tabwriter

        lines = []
        headers = self.headers()
        if headers is not None:
            lines.append("\t".join(headers))
        try:
            for obj in objects:
                lines.append("\t".join(self.row(obj)))
        except JSONPathError as exc:
            raise TemplateExecutionError(str(exc), partial=tabwriter("".join(line + "\n" for line in lines))) from None
        return tabwriter("".join(line + "\n" for line in lines))
