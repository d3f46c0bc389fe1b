"""Go's ``text/template`` for ``kubectl -o go-template``: the language kubectl users write, on decoded JSON.

Split as Go 1.26 splits it: :mod:`.lex` (parse/lex.go), :mod:`.parse` (parse/node.go and parse/parse.go),
:mod:`.exec` (exec.go), :mod:`.funcs` (funcs.go, with kubectl's ``exists`` and ``base64decode``, the value helpers
exec.go and funcs.go share, and the comparisons of client-go's fork that JSONPath filters call), and this module
(template.go: :class:`Template`, as kubectl's go-template printer uses it). What a template over an API object can
use: text and actions with trim markers and comments; fields, chains, variables (``:=``, ``=``); pipelines and
parenthesised pipelines; ``if``/``else if``/``with``/``else with``/``range`` (lists, maps in sorted key order,
integers) with ``break`` and ``continue``; ``define``/``template``/``block``; the builtins (``and or not len index
slice print printf println eq ne lt le gt ge html js urlquery call``). Messages are Go's.

No Python template library implements Go's semantics (missing keys, typed comparisons, ``<no value>``), so this
is written here, next to the other Go emulations, and tested against kubectl. The parser and the executor are
imported when a template is parsed and run: :mod:`..jsonpath` imports :mod:`.funcs` alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .parse import ListNode

__all__ = ["Template", "TemplateError"]


class TemplateError(ValueError):
    """A parse or execution error with Go's text (``template: output:...``)."""


class Template:
    """A parsed template named ``name`` (kubectl names it ``output``) with its ``define``/``block`` templates:
    cli-runtime printers/template.go's ``template.New("output").Funcs(funcMap).Parse(text)``, with
    ``missingkey=error`` unless missing keys are allowed."""

    def __init__(self, text: str, *, name: str = "output", missing_key_error: bool = False) -> None:
        from .funcs import FUNCS
        from .parse import Parser

        self.name = name
        self.text = text
        self.missing_key_error = missing_key_error
        self.templates: dict[str, ListNode] = {}
        parser = Parser(name, text, self.templates, FUNCS)
        self.root = parser.parse()
        # the main template is added last, at the end of the input (its line is the EOF token's)
        parser.add(name, self.root, line=parser.items[-1].line)

    def execute(self, data: Any, write: Callable[[str], Any] | None = None) -> str:
        """The template's output for ``data``; with ``write``, the output goes there as it is made (in pieces of
        about :data:`.exec.FLUSH_BYTES`) and what is returned is the rest. On an error, :class:`TemplateError`
        carries the text not yet written in ``partial`` (Go has written it already)."""
        from .exec import Output, State

        out = Output(write)
        state = State(self.name, self.text, self.templates, self.missing_key_error, out)
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
