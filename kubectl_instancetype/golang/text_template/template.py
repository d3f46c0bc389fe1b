"""Go 1.26's text/template/template.go and exec.go's ``Execute``, as kubectl's go-template printer uses them
(cli-runtime printers/template.go: ``template.New("output").Funcs(funcMap).Parse(text)``, ``missingkey=error``
unless missing keys are allowed, ``Execute`` writing to stdout as it goes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import TemplateError
from .exec import Output, State
from .funcs import FUNCS
from .node import ListNode
from .parse import Parser

__all__ = ["Template"]


class Template:
    """A parsed template named ``name`` (kubectl names it ``output``) with its ``define``/``block`` templates."""

    def __init__(self, text: str, *, name: str = "output", missing_key_error: bool = False) -> None:
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
